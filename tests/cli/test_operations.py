"""What an operator runs: `ggp-agent warmup`, `ggp-agent ping`, settings from the environment."""

import json
import os
import socket
import subprocess
import sys
import urllib.request

import pytest

from ggp_agent.search.warmup import WarmUpStatus, warm_up
from ..helpers import ServeProcess

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


def _cli(*arguments: str, env=None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ggp_agent.cli", *arguments], capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_warm_up_runs_each_engine_and_every_search_once():
    steps = warm_up()
    assert [(step.part, step.status) for step in steps] == [("prolog", WarmUpStatus.OK), ("propnet", WarmUpStatus.OK),
                                                            ("lazy", WarmUpStatus.OK)]


def test_the_warmup_command_reports_every_part():
    done = _cli("warmup")
    assert done.returncode == 0, done.stderr
    assert "prolog: ok" in done.stdout and "propnet: ok" in done.stdout and "lazy: ok" in done.stdout


def test_serve_takes_its_settings_from_the_environment_and_ping_reads_info(tmp_path):
    env = {"GGP_NAME": "from-env", "GGP_RECORDS": str(tmp_path / "records"), "GGP_MARGIN": "0.25",
           "GGP_WARMUP": "0"}
    with ServeProcess(log_path=tmp_path / "serve.log", env=env) as agent:
        ping = _cli("ping", agent.address)
        assert ping.returncode == 0, ping.stderr
        assert ping.stdout.strip() == "((name from-env) (status available))"
        status = agent.post("(info)").text
    assert status == "((name from-env) (status available))"
    assert "warm-up" not in (tmp_path / "serve.log").read_text()


def test_serve_says_at_start_that_it_cannot_write_records_and_keeps_serving(tmp_path):
    from ggp_agent.player.records import records_folder_problem

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    records = blocker / "records"  # no folder can be made under a file
    problem = f"cannot write match records to {records}: Not a directory; matches are played but not recorded"
    assert records_folder_problem(records) == problem
    assert records_folder_problem(tmp_path / "records") is None and (tmp_path / "records").is_dir()
    assert records_folder_problem(None) is None

    with ServeProcess(log_path=tmp_path / "serve.log", env={"GGP_RECORDS": str(records), "GGP_WARMUP": "0"}) as agent:
        assert agent.post("(info)").text == "((name ggp-agent) (status available))"
        base = f"http://{agent.address}/"
        with urllib.request.urlopen(base + "status.json", timeout=10) as response:
            status = json.loads(response.read())
        with urllib.request.urlopen(base, timeout=10) as response:
            page = response.read().decode()
        log = agent.log()
    assert any(" ERROR " in line and line.endswith(problem) for line in log.splitlines()), log
    assert status["records"] == {"folder": str(records), "problem": problem}
    assert "cannot write match records to" in page


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any folder: no permission to be denied")
def test_a_folder_owned_by_another_user_gets_the_command_that_fixes_it(tmp_path):
    from ggp_agent.player.records import records_folder_problem

    locked = tmp_path / "records"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        problem = records_folder_problem(locked)
    finally:
        locked.chmod(0o700)
    assert problem.startswith(f"cannot write match records to {locked}: Permission denied")
    assert problem.endswith(f"(fix: chown -R {os.getuid()}:{os.getgid()} {locked}, in Docker on the host folder "
                            "mounted there)")


def test_ping_fails_when_nobody_answers():
    with socket.socket() as sock:  # a port that is free, then closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = _cli("ping", f"127.0.0.1:{port}", "--timeout", "2")
    assert done.returncode == 1 and "no reply" in done.stderr


def test_search_options_reach_the_search_and_bad_ones_stop_serve(tmp_path):
    import asyncio

    from ggp_agent.referee.controller import PlayerAddress
    from ggp_agent.gdl import load_game
    from ggp_agent.referee.lineup import PlayerSpec, parse_player_spec, play_match
    from ggp_agent.player.records import load_record
    from ..helpers import TICTACTOE

    bad = _cli("serve", "--port", "0", "--search-option", "codes=sideways")
    assert bad.returncode == 2 and "codes" in bad.stderr
    unknown = _cli("serve", "--port", "0", "--search-option", "speed=11")
    assert unknown.returncode == 2 and "unknown search constant 'speed'" in unknown.stderr

    records = tmp_path / "records"
    env = {"GGP_SEARCH_OPTIONS": "codes=effects", "GGP_RECORDS": str(records)}
    with ServeProcess("--margin", "0.3", "--search-option", "rho=20",
                      log_path=tmp_path / "serve.log", env=env) as agent:
        seat = PlayerSpec("agent", address=PlayerAddress.parse(agent.address))
        record = asyncio.run(play_match(load_game(TICTACTOE), [seat, parse_player_spec("random")], 10, 1.0, seed=3))
    assert record.error_count() == 0, record.error_details
    mine = load_record(next(records.glob("*.player.json")))
    searched = [turn["stats"] for turn in mine.extra["turns"] if turn["source"] == "search"]
    assert searched and all(stats["codes"] == "effects" for stats in searched)


def test_a_bad_choice_from_the_environment_stops_serve_at_start():
    """argparse checks a choice given as a flag, not a default: a bad value
    from the environment must stop `serve` too, not fail its first START."""
    for variable, value in (("GGP_SEARCH", "sideways"), ("GGP_PARALLEL", "both"), ("GGP_ENGINE", "abacus")):
        done = _cli("serve", "--port", "0", "--no-warmup", env={**os.environ, variable: value}, timeout=60)
        assert done.returncode == 2, (variable, done.stdout, done.stderr)
        assert f"error: {variable}={value}: expected one of" in done.stderr


def test_serve_searches_one_shared_tree_when_told(tmp_path):
    """`GGP_THREADS=2 GGP_PARALLEL=tree`: the search of every move is one tree
    that two threads share (its figures say so), and the match is clean."""
    import asyncio

    from ggp_agent.gdl import load_game
    from ggp_agent.player.records import load_record
    from ggp_agent.referee.controller import PlayerAddress
    from ggp_agent.referee.lineup import PlayerSpec, parse_player_spec, play_match
    from ..helpers import TICTACTOE

    records = tmp_path / "records"
    env = {"GGP_THREADS": "2", "GGP_PARALLEL": "tree", "GGP_RECORDS": str(records)}
    with ServeProcess("--margin", "0.3", "--engine", "propnet", log_path=tmp_path / "serve.log", env=env) as agent:
        seat = PlayerSpec("agent", address=PlayerAddress.parse(agent.address))
        record = asyncio.run(play_match(load_game(TICTACTOE), [seat, parse_player_spec("random")], 10, 1.0, seed=5))
    assert record.error_count() == 0, record.error_details
    mine = load_record(next(records.glob("*.player.json")))
    searched = [turn["stats"] for turn in mine.extra["turns"] if turn["source"] == "search"]
    assert searched and all(stats.get("parallel") == "tree" for stats in searched), searched[:1]
