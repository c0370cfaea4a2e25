"""The MCPS paper's experiment: MCPS against GRAVE on its games, board sizes and budgets.

One run covers cells (game, board size, seconds per move). In each cell,
`matches` matches between two in-process agents over HTTP through our
GameController (the tournament runner's tasks: a local process pool or a Dask
cluster), seats alternated (MCPS has the first role in the even matches), the
same time per move for both and no pondering (`time=B,ponder=0`: only the
player to move thinks, so a match keeps one core busy), both on the propnet,
with the paper's constants (ρ = 30, W = 10,000 playouts) unless told otherwise.
A cell's game is `<library>/<game>_<N>x<N>.kif`; a missing file is reported
and its cells skipped.

Resumable: every finished match is one JSON line appended, as soon as it comes
back, to its cell's file `cells/<game>_<N>x<N>-<B>s.jsonl`; a rerun reads the
files and plays only the matches that have no line yet. A match's id is its
cell and its number, so a match is never played twice; a lock file keeps a
second run out of the same directory. Matches that fail go to
`failures.jsonl` and are played again by the next run. Matches are handed out
two at a time per cell (both seats), cell after cell, so a run stopped early
has every cell at about the same count.

Each line holds the match's result and, per seat, the sums of its search's
figures over the moves it searched, read from that player's own record
(`search_sums`). `paper_tables.py` turns the lines into the paper's tables.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from ..player.records import MatchRecord
from .lineup import PlayedMatch, parse_player_spec
from .paper_tables import RULES, Cell, CellSummary, markdown_tables, summarize_cell
from .tournament import MatchTask, TournamentResult, play_task, run_tasks, seating
from .tournament import progress_bar as tournament_progress_bar

#: The paper's constants: the reference threshold ρ and the permutation window W.
PAPER_RHO = 30
PAPER_WINDOW = 10_000


@dataclass(frozen=True)
class ExperimentPlan:
    """What to play and how; every run of a results directory must use the same."""

    games: tuple[str, ...]
    sizes: tuple[int, ...]
    budgets: tuple[float, ...]
    matches: int
    library: Path = Path("gdl_games")
    start_clock: float = 10.0
    rho: int = PAPER_RHO
    window: int = PAPER_WINDOW
    #: further search constants for both players, e.g. ("codes=effects",)
    search_options: tuple[str, ...] = ()
    #: the controller's engine (the players' is the propnet)
    engine: str = "prolog"
    seed: int = 0

    def cells(self) -> list[Cell]:
        return [Cell(game, size, budget) for game in self.games for size in self.sizes for budget in self.budgets]

    def game_path(self, cell: Cell) -> Path:
        return self.library / f"{cell.game_name}.kif"

    def player_specs(self, budget: float) -> tuple[str, str]:
        """MCPS's and GRAVE's player specs at `budget` seconds per move."""
        common = [f"time={budget:g}", "ponder=0", "engine=propnet", f"rho={self.rho}", *self.search_options]
        specs = (f"agent:search=mcps,name=mcps,{','.join(common)},window={self.window}",
                 f"agent:search=grave,name=grave,{','.join(common)}")
        for spec in specs:
            parse_player_spec(spec)  # a bad option fails here, before any process starts
        return specs


@dataclass
class ExperimentResult:
    """What a run did, and the cells as they now stand."""

    out_dir: Path
    played: int = 0
    failures: list[dict] = field(default_factory=list)
    missing: list[Cell] = field(default_factory=list)
    summaries: list[CellSummary] = field(default_factory=list)
    seconds: float = 0.0


def play_clock(budget: float) -> float:
    """The play clock of a cell whose players think `budget` seconds a move.

    Thinking ends at the budget (the players' `time=`), so the clock is only
    room for the reply; but a player keeps an adaptive safety margin of up to
    90% of the clock after late replies (`player/timing.py`), and its thinking
    must never end before the budget: at ten budgets and a second, the clock
    less the largest margin still leaves more than the budget.

    >>> play_clock(0.25), play_clock(2)
    (3.5, 21)
    """
    return 10 * budget + 1


def cell_path(out_dir: Path, cell: Cell) -> Path:
    """The file of a cell's match lines."""
    return Path(out_dir) / "cells" / f"{cell.key}.jsonl"


def read_lines(path: Path, repair: bool = False) -> list[dict]:
    """A cell's finished matches. A last line cut short (a run killed mid-write,
    or a line being written now) is left out; with `repair` (the writing run
    only) it is also cut from the file, so the next append starts a line."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        data = data[: data.rfind(b"\n") + 1]
        if repair:
            with path.open("r+b") as handle:
                handle.truncate(len(data))
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def append_line(path: Path, line: dict) -> None:
    """Append one match line and push it to the disk before going on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def match_id(cell: Cell, number: int) -> str:
    """The id of match `number` of a cell: the same in every run, so a rerun knows it."""
    return f"mcps-vs-grave.{cell.key}.{number:04d}"


def search_sums(record: Optional[MatchRecord]) -> dict:
    """One player's search figures summed over the moves its search chose (and ran
    iterations for: a root the solver has proven needs none, `proven` counts
    those), from its own record (each turn's `stats`, as `Match.record` writes
    them): iterations, seconds of thinking (the search's own clock), seconds
    from PLAY to reply (`wall_seconds`), and the means weighted by the move's
    iterations. Zeros for a player we cannot ask (a remote address)."""
    sums = {"moves": 0, "iterations": 0, "seconds": 0.0, "wall_seconds": 0.0, "playout_moves": 0.0,
            "playout_weight": 0, "leaf_depth": 0.0, "leaf_weight": 0, "proven": 0, "fallbacks": 0}
    turns = [] if record is None else record.extra["turns"]
    for turn in turns:
        if turn["source"] == "fallback":
            sums["fallbacks"] += 1
        if turn["source"] != "search" or "iterations" not in turn["stats"]:
            continue
        stats = turn["stats"]
        iterations = int(stats["iterations"])
        if iterations == 0:  # nothing left to search (the solver proved the root): not a searched move
            sums["proven"] += 1
            continue
        sums["moves"] += 1
        sums["wall_seconds"] += turn["timeUsed"]
        sums["iterations"] += iterations
        if stats["iterations_per_s"]:
            sums["seconds"] += iterations / stats["iterations_per_s"]
        if stats["mean_playout"] is not None:
            sums["playout_moves"] += iterations * stats["mean_playout"]
            sums["playout_weight"] += iterations
        if stats["mean_leaf_depth"] is not None:
            sums["leaf_depth"] += iterations * stats["mean_leaf_depth"]
            sums["leaf_weight"] += iterations
    return sums


def match_report(played: PlayedMatch) -> dict:
    """What comes back from a worker for one match: the result and each seat's search sums."""
    record = played.record
    return {"matchId": record.match_id, "roles": record.roles, "goals": record.goal_values,
            "errors": record.errors_by_player(), "turns": len(record.moves), "aborted": record.is_aborted,
            "search": [search_sums(own) for own in played.player_records]}


def run_experiment_match(task: MatchTask) -> dict:
    """Play one match of the experiment (in a worker process, or a Dask worker)."""
    return play_task(task, match_report)


def plan_tasks(plan: ExperimentPlan, cells: Sequence[Cell], done: dict[Cell, set[int]]) -> list[tuple[Cell, int, MatchTask]]:
    """The matches still to play: two per cell (both seats) in turn, cell after cell."""
    texts = {cell: plan.game_path(cell).read_text(encoding="utf-8") for cell in cells}
    specs = {budget: plan.player_specs(budget) for budget in plan.budgets}
    todo = []
    for first in range(0, plan.matches, 2):
        for cell in cells:
            for number in range(first, min(first + 2, plan.matches)):
                if number in done[cell]:
                    continue
                seats = seating(number, 2, 2)
                todo.append((cell, number, MatchTask(
                    index=len(todo), match_id=match_id(cell, number), game_text=texts[cell],
                    game_name=cell.game_name, seats=tuple(specs[cell.budget][p] for p in seats),
                    seat_players=seats, labels=tuple(RULES[p] for p in seats), start_clock=plan.start_clock,
                    play_clock=play_clock(cell.budget), seed=plan.seed * 100003 + number,
                    engine=plan.engine,
                )))
    return todo


def run_experiment(
    plan: ExperimentPlan,
    out_dir: Path,
    *,
    workers: Optional[int] = None,
    cluster: Optional[str] = None,
    progress: Optional[Callable[[int, int, CellSummary], None]] = None,
    play: bool = True,
) -> ExperimentResult:
    """Play what is left of the plan (nothing with `play=False`), then write
    `summary.json` and `tables.md` under `out_dir` from every finished match."""
    out_dir = Path(out_dir)
    began = time.monotonic()
    result = ExperimentResult(out_dir)
    cells = []
    for cell in plan.cells():
        (cells if plan.game_path(cell).exists() else result.missing).append(cell)
    if not cells:
        raise ExperimentError(f"no game file for any cell in {plan.library} (looked for "
                              f"{', '.join(sorted({cell.game_name + '.kif' for cell in result.missing}))})")
    out_dir.mkdir(parents=True, exist_ok=True)
    with _exclusive(out_dir / ".lock", play):
        lines = {cell: read_lines(cell_path(out_dir, cell), repair=play) for cell in cells}
        summaries = {cell: summarize_cell(cell, lines[cell]) for cell in cells}
        if play:
            done = {cell: {int(line["matchId"].rsplit(".", 1)[1]) for line in lines[cell]} for cell in cells}
            todo = plan_tasks(plan, cells, done)
            if progress is not None:
                progress(0, len(todo), summaries[cells[0]])
            for finished, (cell, number, line) in enumerate(_play(todo, workers, cluster, result, out_dir), 1):
                append_line(cell_path(out_dir, cell), line)
                summaries[cell].add(line)
                result.played += 1
                if progress is not None:
                    progress(finished, len(todo), summaries[cell])
    result.summaries = [summaries[cell] for cell in cells]
    result.seconds = time.monotonic() - began
    _write_report(plan, result)
    return result


def _play(todo: list, workers: Optional[int], cluster: Optional[str], result: ExperimentResult,
          out_dir: Path) -> Iterator[tuple[Cell, int, dict]]:
    tasks = [task for _, _, task in todo]
    for outcome in run_tasks(tasks, workers, cluster, run_experiment_match):
        cell, number, task = todo[outcome["index"]]
        if "failure" in outcome:
            failure = {"matchId": task.match_id, "failure": outcome["failure"], "traceback": outcome["traceback"],
                       "worker": outcome["worker"], "at": time.time()}
            result.failures.append(failure)
            append_line(out_dir / "failures.jsonl", failure)
            continue
        line = {key: outcome[key] for key in ("matchId", "roles", "goals", "errors", "turns", "aborted", "search")}
        line.update({"seats": list(task.labels), "seconds": round(outcome["seconds"], 2),
                     "worker": outcome["worker"], "at": round(time.time(), 1)})
        yield cell, number, line


class ExperimentError(RuntimeError):
    """A run cannot start: another run holds the directory, or no cell has a game file."""


class _exclusive:
    """Holds `path` locked for one writing run (a reader takes no lock)."""

    def __init__(self, path: Path, writing: bool):
        self.path = path
        self.writing = writing
        self.handle = None

    def __enter__(self) -> None:
        if not self.writing:
            return
        self.handle = self.path.open("w")
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.close()
            raise ExperimentError(f"another run is writing {self.path.parent} (it holds {self.path})") from None

    def __exit__(self, *exc) -> None:
        if self.handle is not None:
            self.handle.close()


def _write_report(plan: ExperimentPlan, result: ExperimentResult) -> None:
    specs = {f"{budget:g}s": dict(zip(RULES, plan.player_specs(budget))) for budget in plan.budgets}
    summary = {"matches_per_cell": plan.matches, "start_clock": plan.start_clock,
               "play_clocks": {f"{budget:g}s": play_clock(budget) for budget in plan.budgets},
               "controller_engine": plan.engine,
               "players": specs, "missing_games": sorted({cell.game_name for cell in result.missing}),
               "cells": [summary.to_json() for summary in result.summaries]}
    (result.out_dir / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    (result.out_dir / "tables.md").write_text(markdown_tables(result.summaries, result.missing), encoding="utf-8")


def progress_bar() -> Callable[[int, int, CellSummary], None]:
    """The tournament runner's progress bar over the run's matches, showing MCPS's
    win rate in the cell the last match came from (the one place that knows how
    that bar is called)."""
    bar = tournament_progress_bar()

    def show(done: int, total: int, cell: CellSummary) -> None:
        view = TournamentResult(cell.cell.key, list(RULES), total, 0.0, 0.0, "")
        view.summaries = [replace(cell.mcps, label=cell.cell.key)]
        bar(done, total, view)

    return show


def format_result(result: ExperimentResult) -> str:
    """What a person reads at the end of a run."""
    lines = [f"{result.played} match(es) played in {result.seconds:.0f} s; results in {result.out_dir}"]
    for summary in result.summaries:
        rate, low, high = summary.winrate_percent()
        text = "no match yet" if rate is None else f"MCPS {rate:.1f}% [{low:.1f}, {high:.1f}]"
        lines.append(f"  {summary.cell.key:<22} {summary.mcps.matches:>4} matches  {text}")
    for cell in sorted({cell.game_name for cell in result.missing}):
        lines.append(f"  {cell}: no game file, skipped")
    if result.failures:
        lines.append(f"  {len(result.failures)} match(es) failed (see failures.jsonl; a rerun plays them): "
                     f"{result.failures[0]['failure']}")
    lines.append(f"  tables: {result.out_dir / 'tables.md'}")
    return "\n".join(lines)


__all__ = ["ExperimentError", "ExperimentPlan", "ExperimentResult", "PAPER_RHO", "PAPER_WINDOW", "cell_path", "format_result",
           "match_id", "plan_tasks", "progress_bar", "read_lines", "run_experiment", "run_experiment_match",
           "search_sums"]
