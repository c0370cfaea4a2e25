"""Tournaments: seats, scores and intervals; real tournaments of in-process
players on the local process pool and on a real local Dask cluster (127.0.0.1)."""

import csv
import io
import json
import logging
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ggp_agent.referee.scores import PlayerSummary, seat_scores, wilson_interval
from ggp_agent.referee.tournament import TournamentResult, player_labels, plot_winrates, run_tournament, seating
from ggp_agent.referee.tournament_view import engine_warnings, format_summary, progress_bar
from ..helpers import TICTACTOE

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")

PLAYERS = ["agent:time=0.1", "random"]


def test_seats_alternate_and_scores():
    assert [seating(i, 2, 2) for i in range(4)] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert seating(2, 3, 2) == (2, 0)
    assert seat_scores([100, 0]) == [1.0, 0.0]
    assert seat_scores([0, 50, 50]) == [0.0, 0.75, 0.75]
    assert player_labels(["agent", "agent", "random"]) == ["agent #1", "agent #2", "random"]


def test_wilson_interval():
    low, high = wilson_interval(20, 20)
    assert high == 1.0 and 0.83 < low < 0.84
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and 0.16 < high < 0.17
    assert all(math.isnan(x) for x in wilson_interval(0, 0))  # no matches, no interval


def _halfway_result() -> TournamentResult:
    """Two of four matches played: agent won one and drew one against random."""
    result = TournamentResult("tictactoe", ["agent", "random"], 4, 5, 1, "test")
    result.summaries = [PlayerSummary("agent", matches=2, score=1.5, wins=1, draws=1),
                        PlayerSummary("random", matches=2, score=0.5, draws=1, losses=1)]
    result.rows = [{"index": 0, "seats": ["agent", "random"], "goals": [100, 0]},
                   {"index": 1, "seats": ["random", "agent"], "goals": [50, 50]}]
    return result


def test_the_progress_bar_counts_matches_and_shows_the_first_players_winrate():
    stream = io.StringIO()
    update = progress_bar(stream)
    result = _halfway_result()
    low, high = result.summaries[0].interval()
    update(0, 4, result)  # the start
    assert "0/4" in stream.getvalue()
    update(1, 4, result)
    update(2, 4, result)
    assert "2/4" in stream.getvalue() and f"agent 0.75 [{low:.2f}, {high:.2f}]" in stream.getvalue()
    update(4, 4, result)
    assert "4/4" in stream.getvalue() and stream.getvalue().endswith("\n")  # closed at the last match


def test_the_plot_is_drawn_with_matplotlib_and_skipped_with_a_log_line_without(tmp_path, monkeypatch, caplog):
    pytest.importorskip("matplotlib")
    assert plot_winrates(_halfway_result(), tmp_path / "with.png")
    assert (tmp_path / "with.png").read_bytes().startswith(b"\x89PNG")
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    with caplog.at_level(logging.INFO, logger="ggp_agent.referee.tournament"):
        assert not plot_winrates(_halfway_result(), tmp_path / "without.png")
    assert not (tmp_path / "without.png").exists()
    assert "no without.png: matplotlib is not installed (pip install 'ggp-agent[plots]')" in caplog.text


def check_outputs(result, out: Path, games: int):
    assert not result.failures, result.failures
    data = json.loads((out / "tournament.json").read_text())
    assert data["games"] == games and len(data["matches"]) == games
    assert sum(s["matches"] for s in data["summary"]) == 2 * games
    for summary in data["summary"]:
        assert summary["errors"] == 0
        assert summary["ci95"][0] <= summary["winrate"] <= summary["ci95"][1]
    with (out / "matches.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == games
    assert [row["seat0_player"] for row in rows[:2]] == PLAYERS  # seats alternate
    assert [row["seat1_player"] for row in rows[:2]] == PLAYERS[::-1]
    assert all(row["seat0_goal"] != "" for row in rows)
    png = (out / "winrate.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    assert len(list((out / "records").glob("*.json"))) == games


def test_small_tournament_on_the_local_pool(tmp_path):
    result = run_tournament(TICTACTOE, ["random", "legal"], 4, 5, 1, tmp_path, workers=2)
    assert [s.matches for s in result.summaries] == [4, 4]
    assert not result.failures


def test_a_resumed_tournament_plays_only_the_missing_matches(tmp_path):
    first = run_tournament(TICTACTOE, ["random", "legal"], 2, 5, 1, tmp_path, workers=1, seed=4)
    records = {path.name: path.stat().st_mtime_ns for path in (tmp_path / "records").glob("*.json")}
    assert len(records) == 2
    resumed = run_tournament(TICTACTOE, ["random", "legal"], 3, 5, 1, tmp_path, workers=1, seed=4, resume=True)
    after = {path.name: path.stat().st_mtime_ns for path in (tmp_path / "records").glob("*.json")}
    assert len(after) == 3 and all(after[name] == stamp for name, stamp in records.items())
    assert [s.matches for s in resumed.summaries] == [3, 3]
    assert [row["goals"] for row in resumed.rows[:2]] == [row["goals"] for row in first.rows]
    with pytest.raises(ValueError, match="another tournament"):
        run_tournament(TICTACTOE, ["legal", "random"], 3, 5, 1, tmp_path, workers=1, seed=4, resume=True)


def test_each_players_engine_is_counted_and_kept_for_a_resumed_run(tmp_path):
    """An "auto" player says which engine it got (here the propnet, which
    tic-tac-toe builds at once), a Prolog player says Prolog: no warning."""
    players = ["agent:search=random", "agent:search=random,engine=prolog"]
    result = run_tournament(TICTACTOE, players, 2, 5, 1, tmp_path, workers=1, seed=3)
    assert [s.engines for s in result.summaries] == [{"propnet": 2}, {"prolog": 2}]
    assert [row["engines"] for row in result.rows] == [["propnet", "prolog"], ["prolog", "propnet"]]
    assert engine_warnings(result) == []
    # each in-process seat's own record (its turns, its engine) is kept beside the controller's
    own = sorted((tmp_path / "players").glob("*.json"))
    assert [path.name.rsplit(".", 2)[-2] for path in own] == ["seat0", "seat1", "seat0", "seat1"]
    assert all(json.loads(path.read_text())["engine"] in ("propnet", "prolog") for path in own)
    resumed = run_tournament(TICTACTOE, players, 2, 5, 1, tmp_path, workers=1, seed=3, resume=True)
    assert [s.engines for s in resumed.summaries] == [{"propnet": 2}, {"prolog": 2}]


def test_each_agent_turn_and_match_says_what_its_tree_kept_of_the_replies(tmp_path):
    """An in-process agent's own record holds, per turn, the opponent's
    replies since its last answer (found in the tree, the share of the
    visits kept, their rank among our replies) and the root change's time,
    and per match their summary; the tournament adds them up per player."""
    players = ["agent:time=0.1,threads=1", "random"]
    result = run_tournament(TICTACTOE, players, 2, 5, 1, tmp_path, workers=1, seed=5)
    assert not result.failures
    for path in sorted((tmp_path / "players").glob("*.json")):
        record = json.loads(path.read_text())
        if record["searchRule"] != "mcps":
            continue
        turns = [turn for turn in record["turns"] if turn["source"] == "search"]
        assert turns
        # a search's first turn has no root change: the match's, and under load
        # the propnet's that took over from Prolog between two moves
        firsts = {turns[0]["turn"]}
        if "engineSwitchedAtTurn" in record:
            firsts.add(min(turn["turn"] for turn in turns if turn["turn"] >= record["engineSwitchedAtTurn"]))
        assert all("root_change_s" in turn["stats"] for turn in turns if turn["turn"] not in firsts)
        searched = [turn["stats"] for turn in turns]
        replies = [reply for stats in searched for reply in stats["replies"]]
        assert replies and all(reply["found"] and reply["moves"] > 1 for reply in replies)
        assert record["treeReuse"]["replies"] == len(replies)
    agent = json.loads((tmp_path / "tournament.json").read_text())["summary"][0]
    assert agent["treeReuse"]["replies"] >= 2 and agent["treeReuse"]["found"] == 1.0
    assert "replies, found 1.000" in format_summary(result)


def test_a_player_that_fell_back_to_prolog_is_named_in_the_summary():
    """A knightThrough series can play most matches on Prolog (its propnet
    takes longer than half of a 10 s start clock when two players build it
    in one process under load): the summary says so."""
    result = TournamentResult("knightThrough", ["agent", "agent:engine=prolog"], 40, 10, 2, "test")
    result.summaries = [PlayerSummary("agent", matches=40, asked_engine="auto",
                                      engines={"propnet": 1, "lazy": 1, "prolog": 38}),
                        PlayerSummary("agent:engine=prolog", matches=40, asked_engine="prolog",
                                      engines={"prolog": 40})]
    warnings = engine_warnings(result)
    assert warnings == ["  warning: agent played 38 on prolog of 40 matches, not on the engine it asked for (auto): "
                        "give its propnet more time with a longer --startclock (now 10 s)"]
    assert warnings[0] in format_summary(result)


def test_the_random_role_is_no_seat(tmp_path):
    montyhall = TICTACTOE.parent / "montyhall.kif"
    result = run_tournament(montyhall, ["random"], 2, 5, 1, tmp_path, workers=1)
    assert not result.failures and [s.matches for s in result.summaries] == [2]
    assert all(row["roles"] == ["contestant"] and len(row["goals"]) == 1 for row in result.rows)


@pytest.mark.slow
def test_twenty_matches_on_the_local_pool(tmp_path):
    result = run_tournament(TICTACTOE, PLAYERS, 20, 5, 1, tmp_path, workers=2)
    check_outputs(result, tmp_path, 20)
    assert result.summaries[0].winrate > result.summaries[1].winrate  # searching beats random


def test_cli_tournament_self_play(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "ggp_agent.cli", "-q", "tournament", str(TICTACTOE), "--players", "legal", "legal",
         "--games", "2", "--workers", "1", "--startclock", "5", "--playclock", "1", "--out", str(tmp_path),
         "--no-progress", "--grace", "2.5"],
        capture_output=True, text=True, timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    assert "legal #1" in completed.stdout and "legal #2" in completed.stdout
    data = json.loads((tmp_path / "tournament.json").read_text())
    # legal vs legal is deterministic: the same seat wins both times.
    assert data["summary"][0]["winrate"] == data["summary"][1]["winrate"] == 0.5
    assert json.loads((tmp_path / "plan.json").read_text())["grace"] == 2.5


@pytest.mark.slow
def test_twenty_matches_on_a_local_dask_cluster(dask_cluster, tmp_path):
    out = tmp_path / "out"
    result = run_tournament(TICTACTOE, PLAYERS, 20, 5, 1, out, cluster=dask_cluster)
    assert result.backend == f"dask {dask_cluster}"
    check_outputs(result, out, 20)
    workers = {row["worker"] for row in result.rows if "worker" in row}
    assert os.getpid() not in workers


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state, parent, ...);
    empty when the process is gone."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return bool(fields) and fields[0] != "Z"


def _pool_workers(pid: int) -> list[int]:
    """The live process-pool workers (`spawn_main`) whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        fields = _stat(int(entry.name)) if entry.name.isdigit() else []
        if fields and fields[0] != "Z" and int(fields[1]) == pid:
            try:
                if b"spawn_main" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:  # gone meanwhile
                continue
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the workers through Linux's /proc")
def test_a_killed_tournament_leaves_no_worker_playing(tmp_path):
    """SIGTERM ends the tournament with no clean-up of its own; its worker,
    in the middle of a 50-second move, must not play on as an orphan."""
    tournament = subprocess.Popen(
        [sys.executable, "-m", "ggp_agent.cli", "-q", "tournament", str(TICTACTOE),
         "--players", "agent:search=mc,engine=prolog,time=50", "random", "--games", "2", "--workers", "1",
         "--startclock", "5", "--playclock", "60", "--out", str(tmp_path), "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while not workers and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _pool_workers(tournament.pid)
        assert workers, "the tournament started no worker within a minute"
        time.sleep(3)  # the match is under way: the agent thinks for 50 s
        assert all(_alive(pid) for pid in workers)
        tournament.terminate()
        tournament.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers), "a worker played on after its tournament was killed"
    finally:
        tournament.kill()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, 9)
