"""Tournaments: N matches of one game between players, seats rotated, in parallel.

Each match is a task: the game's text, the players in seat (role) order, the
clocks. A task runs in a worker process (a local process pool, one worker per
core by default) or on a Dask cluster, and plays one full match over HTTP
through the GameController (`lineup.play_match_with_players`); it returns the record, and the
driver writes every record, a JSON summary, a CSV of the matches and a PNG plot
(when matplotlib is installed: the `plots` extra; the agent itself needs none).

Seats rotate: in match i, seat r (the game's r-th player role) goes to player
(i + r) mod P, so with two players in a two-role game they alternate sides. The
role `random` of a GDL-II game is no seat: the controller plays it, and its
goal counts for nobody.

A tournament can be resumed (`resume`, `resume.py`): a match whose record is
already in the output folder is read back instead of played again. A killed
tournament takes its local workers (and the players in them) with it
(`parent_watch.py`), so resuming is the way to go on.

Scores: in each match a seat scores 1 for each other seat it beats on goal
value and 1/2 for each tie, divided by the number of other seats (a two-player
game: 1 win, 1/2 draw, 0 loss; a one-player game: goal / 100). A player's
winrate is its mean score over its matches, with a Wilson 95% interval that
counts a draw as half a win.

Why Dask for clusters (not Ray): its scheduler and workers are plain Python
processes that start in about a second, bind to the address they are given
(`dask scheduler --host 127.0.0.1`), and run ordinary functions with pickled
arguments, which is all a match task needs. Ray brings a large binary runtime
(GCS, raylet, object store, dashboard) that takes far longer to start and more
memory on a 2-core machine, for features (actors, object store) a tournament
does not use. A Dask worker is a long-lived process, so its Prolog engine
starts once and serves every match the worker plays.

Why tqdm for the progress bar (not rich): it does this one job, in a pure
Python wheel of about 80 KB with no dependency, and handles terminal width,
rates and time estimates; rich is a whole terminal renderer (with pygments and
markdown-it) for a single line.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import csv
import itertools
import json
import logging
import math
import multiprocessing
import os
import time
import traceback
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from ..gdl import load_game
from ..player.records import MatchRecord, load_record, record_filename, write_record
from ..search.registry import machine_cores
from .lineup import PlayedMatch, parse_player_spec, play_match_with_players
from .parent_watch import exit_with_parent
from .resume import plan_stamp, played_records
from .scores import PlayerSummary, count_engines, seat_scores, tally, wilson_interval

log = logging.getLogger(__name__)

#: Tasks handed to each worker ahead of time (one playing, one waiting).
_IN_FLIGHT_PER_WORKER = 2


@dataclass(frozen=True)
class MatchTask:
    """Everything a worker needs to play one match; plain data, so it pickles."""

    index: int
    match_id: str
    game_text: str
    game_name: str
    seats: tuple[str, ...]  # player specs, one per role in role order
    seat_players: tuple[int, ...]  # which player (index into the tournament's list) sits there
    labels: tuple[str, ...]  # the players' names in the record, one per seat
    start_clock: float
    play_clock: float
    seed: int
    engine: str = "prolog"
    #: the role index of each seat (every role but `random`, in role order)
    seat_roles: tuple[int, ...] = ()
    #: turns after which the controller aborts a match that has not ended (None: no limit)
    max_turns: Optional[int] = None
    #: seconds past a clock the controller still takes a reply (None: the controller's default)
    grace: Optional[float] = None


def run_match_task(task: MatchTask) -> dict:
    """Play one match (in a worker process); returns its record as JSON, or the failure."""
    return play_task(task, _controller_record)


def _controller_record(played: PlayedMatch) -> dict:
    """The controller's record, with the engine each in-process seat played on
    (`seat_engines`): kept in the record, a resumed run still knows them."""
    record = played.record
    record.extra["seatEngines"] = seat_engines(played)
    return {"record": record.to_json(),
            "players": [None if own is None else own.to_json() for own in played.player_records]}


def seat_engines(played: PlayedMatch) -> list[Optional[str]]:
    """Per seat, the engine its player's own record names (None for a player
    at an address, or a record without one). A player asked for "auto" plays
    on Prolog when its propnet does not build within its share of the start
    clock: the same player then searches a hundred times slower."""
    return [None if own is None else own.extra.get("engine") for own in played.player_records]


def play_task(task: MatchTask, report: Callable[[PlayedMatch], dict]) -> dict:
    """Play one match (in a worker process); `report` turns what was played into
    the plain data the driver gets back. A failure is reported, never raised: the
    run goes on. Every task function (`run_match_task`, the experiment's) is this."""
    began = time.monotonic()
    try:
        game = load_game(task.game_text)
        seats = [replace(parse_player_spec(text), label=label) for text, label in zip(task.seats, task.labels)]
        played = asyncio.run(play_match_with_players(
            game, seats, task.start_clock, task.play_clock, match_id=task.match_id,
            game_name=task.game_name, seed=task.seed, engine=task.engine, max_turns=task.max_turns,
            grace=task.grace,
        ))
        return {"index": task.index, **report(played), "seconds": time.monotonic() - began,
                "worker": os.getpid()}
    except Exception as error:  # reported as a failed match, the tournament goes on
        return {"index": task.index, "failure": f"{type(error).__name__}: {error}",
                "traceback": traceback.format_exc(), "seconds": time.monotonic() - began,
                "worker": os.getpid()}


@dataclass
class TournamentResult:
    """What a tournament produced: per-match rows, per-player summaries, the files."""

    game_name: str
    players: list[str]
    games: int
    start_clock: float
    play_clock: float
    backend: str
    seconds: float = 0.0
    rows: list[dict] = field(default_factory=list)
    summaries: list[PlayerSummary] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "game": self.game_name, "players": self.players, "games": self.games,
            "startClock": self.start_clock, "playClock": self.play_clock, "backend": self.backend,
            "seconds": round(self.seconds, 2), "summary": [s.to_json() for s in self.summaries],
            "failures": self.failures, "matches": self.rows,
        }


def seating(index: int, players: int, roles: int) -> tuple[int, ...]:
    """The player (index) in each seat of match `index`: seat r gets player (index + r) mod P.

    >>> seating(0, 2, 2), seating(1, 2, 2), seating(1, 2, 3)
    ((0, 1), (1, 0), (1, 0, 1))
    """
    return tuple((index + r) % players for r in range(roles))


def player_labels(players: Sequence[str]) -> list[str]:
    """Names for the players; the same spec twice (self-play) gets #1, #2."""
    labels = []
    for index, text in enumerate(players):
        if players.count(text) > 1:
            text = f"{text} #{players[:index].count(text) + 1}"
        labels.append(text)
    return labels


def run_tournament(
    game_path: Path,
    players: Sequence[str],
    games: int,
    start_clock: float,
    play_clock: float,
    out_dir: Path,
    *,
    workers: Optional[int] = None,
    cluster: Optional[str] = None,
    seed: int = 0,
    engine: str = "prolog",
    progress: Optional[Callable[[int, int, "TournamentResult"], None]] = None,
    resume: bool = False,
    max_turns: Optional[int] = None,
    grace: Optional[float] = None,
) -> TournamentResult:
    """Play `games` matches and write tournament.json, matches.csv, winrate.png (with
    matplotlib) and the match records under `out_dir`. `cluster` is a Dask scheduler
    address; `progress(done, games, result)` is called at the start and after each match.
    `resume`: reuse the plan in `out_dir` and the records already there (`resume.py`).
    `max_turns`: the controller aborts a match still going after that many turns
    (a game whose rules never end it); an aborted match scores for nobody.
    `grace`: seconds past a clock the controller still takes a reply (None: 1 s,
    as ggp-base's server; Tiltyard waits 5 s). In-process players' own records
    (their turns with the search's figures) go to `out_dir/players`."""
    specs = [parse_player_spec(text) for text in players]  # fail before any process starts
    if workers is None and not cluster and any(spec.is_remote for spec in specs):
        workers = 1  # a remote player takes one match at a time: parallel STARTs would get busy
    game_path = Path(game_path)
    game_text = game_path.read_text(encoding="utf-8", errors="replace")
    game = load_game(game_text)
    game_name = game_path.stem
    out_dir = Path(out_dir)
    plan = {"game": game_name, "players": list(players), "startClock": start_clock, "playClock": play_clock,
            "seed": seed, "maxTurns": max_turns, **({} if grace is None else {"grace": grace})}
    stamp = plan_stamp(out_dir, plan, resume)
    labels = player_labels(list(players))
    tasks = []
    for i in range(games):
        seats = seating(i, len(players), len(game.player_roles))
        tasks.append(MatchTask(
            index=i, match_id=f"ggp-agent.tournament.{game_name}.{stamp}.{i:04d}",
            game_text=game_text, game_name=game_name,
            seats=tuple(players[p] for p in seats), seat_players=seats,
            labels=tuple(labels[p] for p in seats),
            start_clock=start_clock, play_clock=play_clock, seed=seed * 100003 + i, engine=engine,
            seat_roles=game.player_roles, max_turns=max_turns, grace=grace,
        ))
    backend = f"dask {cluster}" if cluster else f"process pool ({workers or machine_cores()} workers)"
    result = TournamentResult(game_name, labels, games, start_clock, play_clock, backend)
    result.summaries = [PlayerSummary(label, asked_engine=None if spec.is_remote else spec.config.engine)
                        for label, spec in zip(labels, specs)]
    records_dir = out_dir / "records"
    began = time.monotonic()
    done = 0
    kept = played_records(records_dir, {task.index: task.match_id for task in tasks}) if resume else {}
    for index, record in sorted(kept.items()):
        done += 1
        _absorb(result, tasks[index], {"index": index, "record": record.to_json(), "resumed": True}, records_dir)
    if progress is not None:
        progress(done, games, result)
    for outcome in run_tasks([task for task in tasks if task.index not in kept], workers, cluster):
        done += 1
        _absorb(result, tasks[outcome["index"]], outcome, records_dir)
        if progress is not None:
            progress(done, games, result)
    result.seconds = time.monotonic() - began
    result.rows.sort(key=lambda row: row["index"])
    _write_outputs(result, out_dir)
    return result


def run_tasks(tasks: Sequence[MatchTask], workers: Optional[int], cluster: Optional[str],
              function: Callable[[MatchTask], dict] = run_match_task) -> Iterator[dict]:
    """Run `function` on every task, on a Dask cluster (`cluster`, the scheduler's
    address) or on a local process pool of `workers`; yield each result as it comes.

    A few tasks per worker are in flight at a time, the rest wait here: a long
    run does not hand the cluster thousands of games' texts at once, and a run
    that is stopped leaves the unstarted tasks unstarted. `function` is a
    module-level function (it travels by name).
    """
    pending = iter(tasks)
    if cluster:
        try:
            from distributed import Client, as_completed
        except ImportError:
            raise RuntimeError("a cluster needs Dask's distributed: pip install 'ggp-agent[cluster]'") from None

        run = uuid.uuid4().hex[:8]  # keys unique to this run: a rerun may play the same match ids
        with Client(cluster, timeout="30s") as client:
            def submit(task: MatchTask):
                return client.submit(function, task, pure=False, key=f"{task.match_id}-{run}")

            slots = _IN_FLIGHT_PER_WORKER * max(1, sum(client.nthreads().values()))
            running = as_completed([submit(task) for task in itertools.islice(pending, slots)])
            for future in running:
                following = next(pending, None)
                if following is not None:
                    running.add(submit(following))
                yield future.result()
        return
    count = workers or machine_cores()
    context = multiprocessing.get_context("spawn")  # no fork: the parent may hold Prolog and threads
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=count, mp_context=context,
                                                  initializer=exit_with_parent, initargs=(os.getpid(),))
    try:
        running = {pool.submit(function, task) for task in itertools.islice(pending, _IN_FLIGHT_PER_WORKER * count)}
        while running:
            done, running = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                following = next(pending, None)
                if following is not None:
                    running.add(pool.submit(function, following))
                yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _absorb(result: TournamentResult, task: MatchTask, outcome: dict, records_dir: Path) -> None:
    row = {"index": task.index, "matchId": task.match_id, "seats": list(task.labels),
           "seconds": round(outcome.get("seconds", 0.0), 2), "worker": outcome.get("worker")}
    if "failure" in outcome:
        row.update({"failed": outcome["failure"]})
        result.failures.append({"index": task.index, "failure": outcome["failure"],
                                "traceback": outcome.get("traceback", "")})
        result.rows.append(row)
        return
    record = MatchRecord.from_json(outcome["record"])
    own_records = _own_records(task, outcome, records_dir.parent / "players")
    if not outcome.get("resumed"):  # a record read back from the folder is there already
        write_record(record, records_dir)
        for seat, own in enumerate(own_records):
            if own is not None:
                write_record(own, records_dir.parent / "players", f".seat{seat}")
    roles = task.seat_roles or tuple(range(len(record.roles)))
    errors = [record.errors_by_player()[r] for r in roles]
    goals = [record.goal_values[r] for r in roles] if record.goal_values else None
    engines = record.extra.get("seatEngines") or [None] * len(task.seat_players)
    row.update({"roles": [record.roles[r] for r in roles], "goals": goals, "errors": errors,
                "turns": len(record.moves), "aborted": record.is_aborted, "engines": engines})
    if record.is_aborted:
        row["abortReason"] = record.abort_reason or ""
    result.rows.append(row)
    if record.is_aborted or not goals:
        return
    tally(result.summaries, task.seat_players, goals, errors)
    count_engines(result.summaries, task.seat_players, engines)
    for seat, own in enumerate(own_records):
        if own is not None and seat < len(task.seat_players):
            result.summaries[task.seat_players[seat]].turn_stats.extend(
                turn.get("stats") for turn in own.extra.get("turns") or () if isinstance(turn, dict))


def _own_records(task: MatchTask, outcome: dict, players_dir: Path) -> list[Optional[MatchRecord]]:
    """Each seat's own record (an in-process player's: its turns with the
    search's figures), from the outcome, or read back from `players_dir` for
    a resumed match; None for a seat that has none."""
    if not outcome.get("resumed"):
        return [None if own is None else MatchRecord.from_json(own) for own in outcome.get("players") or ()]
    paths = [players_dir / record_filename(task.match_id, f".seat{seat}") for seat in range(len(task.seat_players))]
    return [load_record(path) if path.exists() else None for path in paths]


def _write_outputs(result: TournamentResult, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / "tournament.json"
    csv_path = out_dir / "matches.csv"
    png_path = out_dir / "winrate.png"
    roles = max((len(row.get("roles") or row["seats"]) for row in result.rows), default=0)
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["index", "match_id", "turns", "aborted", "seconds"]
                        + [f"seat{r}_player" for r in range(roles)]
                        + [f"seat{r}_role" for r in range(roles)]
                        + [f"seat{r}_goal" for r in range(roles)]
                        + [f"seat{r}_errors" for r in range(roles)] + ["failure", "abort_reason"])
        for row in result.rows:
            def cells(values):
                values = list(values or [])
                return values + [""] * (roles - len(values))
            writer.writerow([row["index"], row["matchId"], row.get("turns", ""), row.get("aborted", ""),
                             row["seconds"]] + cells(row["seats"]) + cells(row.get("roles"))
                            + cells(row.get("goals")) + cells(row.get("errors"))
                            + [row.get("failed", ""), row.get("abortReason", "")])
    result.files = {"json": str(json_path), "csv": str(csv_path)}
    if plot_winrates(result, png_path):
        result.files["png"] = str(png_path)
    result.files["records"] = str(out_dir / "records")
    json_path.write_text(json.dumps(result.to_json(), indent=1), encoding="utf-8")


def plot_winrates(result: TournamentResult, path: Path) -> bool:
    """Winrate of each player with its 95% interval, and the first player's running
    winrate; returns False, with a log line, when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        log.info("no %s: matplotlib is not installed (pip install 'ggp-agent[plots]')", path.name)
        return False

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (bars, running) = plt.subplots(1, 2, figsize=(10, 4), gridspec_kw={"width_ratios": [1, 2]})
    labels = [s.label for s in result.summaries]
    rates = [0.0 if math.isnan(s.winrate) else s.winrate for s in result.summaries]
    # Error bars are never negative (matplotlib refuses them): a winrate of 0 or 1 sits a rounding
    # error outside its own interval.
    lows = [max(0.0, rate - (0.0 if math.isnan(s.interval()[0]) else s.interval()[0]))
            for rate, s in zip(rates, result.summaries)]
    highs = [max(0.0, (0.0 if math.isnan(s.interval()[1]) else s.interval()[1]) - rate)
             for rate, s in zip(rates, result.summaries)]
    bars.bar(range(len(labels)), rates, yerr=[lows, highs], capsize=6, color="#4c72b0")
    bars.set_xticks(range(len(labels)), [short_label(label) for label in labels], rotation=15)
    bars.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    bars.set_ylim(0, 1)
    bars.set_ylabel("winrate (draw = 1/2), 95% interval")
    bars.set_title(f"{result.game_name}: {sum(s.matches for s in result.summaries[:1])} scored matches")

    first = labels[0] if labels else ""
    xs, ys, lo, hi = [], [], [], []
    score, count = 0.0, 0
    for row in result.rows:
        goals = row.get("goals")
        if not goals or row.get("aborted") or first not in row["seats"]:
            continue
        scores = seat_scores(goals)
        seats = [r for r, label in enumerate(row["seats"]) if label == first]
        score += sum(scores[r] for r in seats) / len(seats)
        count += 1
        low, high = wilson_interval(score, count)
        xs.append(count)
        ys.append(score / count)
        lo.append(low)
        hi.append(high)
    if xs:
        running.plot(xs, ys, color="#4c72b0", label=f"{short_label(first)} winrate")
        running.fill_between(xs, lo, hi, color="#4c72b0", alpha=0.2, label="95% interval")
    running.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    running.set_ylim(0, 1)
    running.set_xlabel("matches played")
    running.set_title(f"running winrate of {short_label(first)}")
    running.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return True


def short_label(label: str, limit: int = 28) -> str:
    """A player's label cut to fit a plot's axis or a progress bar."""
    return label if len(label) <= limit else label[: limit - 3] + "..."


__all__ = ["MatchTask", "TournamentResult", "play_task", "player_labels", "plot_winrates", "run_match_task",
           "run_tasks", "run_tournament", "seating", "short_label"]
