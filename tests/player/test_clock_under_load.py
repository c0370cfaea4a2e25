"""200 consecutive moves at a 1 s play clock while another process keeps both
cores busy: every reply in time (measured by our GameController, from sending
the PLAY to reading the reply).

The agent is a separate `ggp-agent serve` process with its default settings
(0.5 s base margin, adaptive) and the Monte Carlo search, which thinks until its
deadline on every move; the load is one busy-looping process per core. The
worst margin is printed (`pytest -s`) for the record; the test asserts only the
protocol's requirement, a reply within the play clock.
"""

import asyncio
import json
import os
import subprocess
import sys

import pytest

from ggp_agent.referee.controller import PlayerAddress
from ggp_agent.gdl import load_game
from ggp_agent.referee.lineup import PlayerSpec, parse_player_spec, play_match
from ..helpers import ServeProcess

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")

PLAY_CLOCK = 1.0
TURNS = 50
MATCHES = 4

#: Two roles pick rock, paper or scissors at once, 50 times; the last pick wins.
#: Every turn is a real choice for both, so the agent thinks on every move.
DUEL = "\n".join([
    "(role left) (role right) (init (step 0))",
    " ".join(f"(succ {n} {n + 1})" for n in range(TURNS)),
    "(beats rock scissors) (beats scissors paper) (beats paper rock)",
    "(pick rock) (pick paper) (pick scissors)",
    f"""
(<= (legal ?r ?p) (role ?r) (pick ?p))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= (next (last ?a ?b)) (does left ?a) (does right ?b))
(<= terminal (true (step {TURNS})))
(<= (goal left 100) (true (last ?a ?b)) (beats ?a ?b))
(<= (goal left 0) (true (last ?a ?b)) (beats ?b ?a))
(<= (goal left 50) (true (last ?a ?a)))
(<= (goal right 100) (true (last ?a ?b)) (beats ?b ?a))
(<= (goal right 0) (true (last ?a ?b)) (beats ?a ?b))
(<= (goal right 50) (true (last ?a ?a)))
""",
])


def _busy_processes(count: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


@pytest.mark.slow
def test_two_hundred_moves_at_a_one_second_clock_with_both_cores_loaded(tmp_path):
    load = _busy_processes(os.cpu_count() or 2)
    try:
        with ServeProcess("--name", "loaded", "--records", str(tmp_path / "records"),
                          log_path=tmp_path / "serve.log") as agent:
            seat = PlayerSpec("loaded", address=PlayerAddress.parse(agent.address))

            async def matches():
                records = []
                for index in range(MATCHES):
                    seats = [seat, parse_player_spec("random")]
                    if index % 2:
                        seats.reverse()
                    records.append(await play_match(load_game(DUEL), seats, 10, PLAY_CLOCK, seed=index))
                return records

            records = asyncio.run(matches())
            status = json.loads(agent.post("(info)").text and _status(agent.port))
    finally:
        for process in load:
            process.kill()
            process.wait(timeout=10)
    ours = []
    for index, record in enumerate(records):
        seat_index = index % 2
        assert record.is_completed
        assert record.errors_by_player()[seat_index] == 0, record.error_details
        ours.extend(times[seat_index] for times in record.move_times)
    worst = max(ours)
    sources = {}
    for path in (tmp_path / "records").glob("*.player.json"):
        for turn in json.loads(path.read_text())["turns"]:
            sources[turn["source"]] = sources.get(turn["source"], 0) + 1
    print(f"\n{len(ours)} moves at a {PLAY_CLOCK:g} s play clock with {len(load)} busy processes: "
          f"worst reply {worst:.3f} s (worst margin {PLAY_CLOCK - worst:.3f} s), "
          f"mean {sum(ours) / len(ours):.3f} s; move sources {sources}; agent timing {status['timing']}")
    assert len(ours) >= 200
    assert worst < PLAY_CLOCK


def _status(port: int) -> str:
    from ..helpers import raw_request

    return raw_request(port, b"GET /status.json HTTP/1.0\r\n\r\n").text
