"""The MCPS paper's experiment (`ggp-agent experiment mcps-vs-grave`): the matches it
plans, the lines it keeps, resuming, and real runs of MCPS against GRAVE on the
local process pool and on a real Dask cluster on 127.0.0.1."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ggp_agent.player.records import MatchRecord
from ggp_agent.referee.experiment import (
    ExperimentError, ExperimentPlan, append_line, cell_path, play_clock, plan_tasks, read_lines, run_experiment,
    search_sums,
)
from ggp_agent.referee.lineup import parse_player_spec
from ggp_agent.referee.paper_tables import Cell
from ..helpers import GAMES

#: These tests run agents: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Path:
    """A game library with Hex 5x5 and no Go: a cell whose game file is missing."""
    folder = tmp_path_factory.mktemp("library")
    (folder / "hex_5x5.kif").write_text((GAMES / "hex_5x5.kif").read_text())
    return folder


def tiny_plan(library: Path, matches=2, **options) -> ExperimentPlan:
    return ExperimentPlan(games=("hex", "go"), sizes=(5,), budgets=(0.05,), matches=matches, library=library,
                          start_clock=10.0, **options)


def test_the_plan_alternates_seats_pairs_cells_and_skips_finished_matches():
    plan = ExperimentPlan(games=("hex",), sizes=(5, 7), budgets=(0.25,), matches=5, library=GAMES)
    hex5, hex7 = plan.cells()
    todo = plan_tasks(plan, [hex5, hex7], {hex5: {0, 3}, hex7: set()})
    assert [(cell.size, number) for cell, number, _ in todo] == [
        (5, 1), (7, 0), (7, 1), (5, 2), (7, 2), (7, 3), (5, 4), (7, 4)]  # two per cell in turn
    for cell, number, task in todo:
        assert task.match_id == f"mcps-vs-grave.{cell.key}.{number:04d}"
        assert task.labels == (("mcps", "grave") if number % 2 == 0 else ("grave", "mcps"))
        assert task.play_clock == play_clock(0.25) and task.index == todo.index((cell, number, task))
    mcps, grave = plan.player_specs(0.25)
    for spec, rule in ((mcps, "mcps"), (grave, "grave")):
        config = parse_player_spec(spec).config
        assert config.search == rule and config.think_time == 0.25 and not config.ponder
        assert config.engine == "propnet" and ("rho", "30") in config.search_options
    assert ("window", "10000") in parse_player_spec(mcps).config.search_options


def test_the_play_clock_leaves_the_budget_whatever_the_adaptive_margin():
    from ggp_agent.player.timing import AdaptiveMargin

    for budget in (0.05, 0.25, 0.5, 1, 2):
        clock = play_clock(budget)
        worst = AdaptiveMargin(lateness=1e9).margin(clock)  # the margin after very late replies
        assert clock - worst > budget


def test_a_line_cut_short_is_dropped_and_repaired(tmp_path):
    path = tmp_path / "cells" / "hex_5x5-0.25s.jsonl"
    append_line(path, {"matchId": "a.0000"})
    append_line(path, {"matchId": "a.0001"})
    with path.open("a") as handle:
        handle.write('{"matchId": "a.00')  # a run killed mid-write
    assert [line["matchId"] for line in read_lines(path)] == ["a.0000", "a.0001"]
    assert path.read_text().endswith('"a.00')  # a reader leaves the file alone
    assert len(read_lines(path, repair=True)) == 2
    append_line(path, {"matchId": "a.0002"})
    assert [line["matchId"] for line in read_lines(path)] == ["a.0000", "a.0001", "a.0002"]


def test_search_sums_read_the_players_own_turns():
    def turn(source, stats):
        return {"turn": 0, "move": "m", "source": source, "timeUsed": 0.25, "marginLeft": 1.0, "stats": stats}

    record = MatchRecord("m", "g", ["red", "blue"], 10, 2, extra={"turns": [
        turn("search", {"iterations": 100, "iterations_per_s": 400.0, "mean_playout": 10.0, "mean_leaf_depth": 3.0}),
        turn("search", {"iterations": 300, "iterations_per_s": 1000.0, "mean_playout": 6.0, "mean_leaf_depth": None}),
        turn("search", {"iterations": 0, "iterations_per_s": 0.0, "mean_playout": None, "mean_leaf_depth": None}),
        turn("forced", {}), turn("fallback", {}),
    ]})
    sums = search_sums(record)
    assert sums["moves"] == 2 and sums["iterations"] == 400 and sums["fallbacks"] == 1 and sums["proven"] == 1
    assert sums["wall_seconds"] == pytest.approx(0.5)
    assert sums["seconds"] == pytest.approx(0.25 + 0.3)
    assert sums["playout_moves"] / sums["playout_weight"] == pytest.approx((1000 + 1800) / 400)
    assert sums["leaf_depth"] / sums["leaf_weight"] == 3.0
    assert search_sums(None)["moves"] == 0  # a remote player's record is not ours to read


def check_cell(out: Path, matches: int) -> list[dict]:
    """The hex 5x5 cell's lines: one per match, ids unique, seats alternated, searches counted."""
    lines = read_lines(cell_path(out, Cell("hex", 5, 0.05)))
    ids = [line["matchId"] for line in lines]
    assert sorted(ids) == [f"mcps-vs-grave.hex_5x5-0.05s.{n:04d}" for n in range(matches)]
    for line in lines:
        number = int(line["matchId"].rsplit(".", 1)[1])
        assert line["seats"] == (["mcps", "grave"] if number % 2 == 0 else ["grave", "mcps"])
        assert not line["aborted"] and sorted(line["goals"]) == [0, 100] and line["errors"] == [0, 0]
        assert all(sums["moves"] > 0 and sums["iterations"] > 0 and sums["seconds"] > 0 for sums in line["search"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["missing_games"] == ["go_5x5"]
    (cell,) = summary["cells"]
    assert cell["scored"] == matches and cell["figures"]["mcps"]["playouts_per_s"] > 0
    tables = (out / "tables.md").read_text()
    assert f"({matches}) / —" in tables and "No game file (not played): go_5x5." in tables
    return lines


def test_a_run_on_the_local_pool_and_its_rerun(tmp_path, library):
    out = tmp_path / "out"
    result = run_experiment(tiny_plan(library, 2), out, workers=1)
    assert result.played == 2 and not result.failures
    assert [cell.game_name for cell in result.missing] == ["go_5x5"]
    first = check_cell(out, 2)
    again = run_experiment(tiny_plan(library, 2), out, workers=1)  # everything is finished: nothing to play
    assert again.played == 0 and check_cell(out, 2) == first
    report = run_experiment(tiny_plan(library, 3), out, play=False)  # report only: plays nothing, locks nothing
    assert report.played == 0 and report.summaries[0].finished == 2


def test_two_runs_cannot_write_one_directory(tmp_path, library):
    import fcntl

    out = tmp_path / "out"
    out.mkdir()
    with (out / ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ExperimentError, match="another run"):
            run_experiment(tiny_plan(library, 2), out, workers=1)
    with pytest.raises(ExperimentError, match="no game file"):
        run_experiment(ExperimentPlan(("go",), (5,), (0.05,), 2, library=library), out, workers=1)


def experiment_command(out: Path, matches: int, cluster: str, library: Path) -> list[dict]:
    """`ggp-agent experiment mcps-vs-grave` on the cluster; the cell's lines after it."""
    completed = subprocess.run(
        [sys.executable, "-m", "ggp_agent.cli", "-q", "experiment", "mcps-vs-grave", "--games", "hex,go",
         "--sizes", "5", "--budgets", "0.05", "--matches", str(matches), "--library", str(library),
         "--out", str(out), "--cluster", cluster, "--no-progress"],
        capture_output=True, text=True, timeout=900,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "go_5x5: no game file, skipped" in completed.stdout
    return check_cell(out, matches)


@pytest.mark.slow
def test_the_command_on_a_dask_cluster_resumes_without_repeating_a_match(dask_cluster, tmp_path, library):
    out = tmp_path / "out"
    first = experiment_command(out, 2, dask_cluster, library)
    assert len(first) == 2
    # a rerun asked for more continues: the two finished matches stay as they were, two more are played
    second = experiment_command(out, 4, dask_cluster, library)
    assert len(second) == 4 and second[:2] == first
    from distributed import Client

    with Client(dask_cluster, timeout="60s") as client:
        worker_pids = set(client.run(os.getpid).values())
    assert {line["worker"] for line in second} <= worker_pids  # played by the cluster's workers
    # once more: nothing is left, nothing is played, no line is added
    third = experiment_command(out, 4, dask_cluster, library)
    assert third == second
    assert len(cell_path(out, Cell("hex", 5, 0.05)).read_text().splitlines()) == 4
