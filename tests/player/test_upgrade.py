"""A propnet that outlives the START's budget takes over the match between two moves.

The game below grounds a relation of 2^21 atoms (five seconds of CPU;
Prolog, which reads the state first, never enumerates them): more than the
two seconds a four-second start clock gives the propnet. The
player starts on Prolog, the build goes on in the background, and the match
moves to the propnet at a turn between; every reply stays legal and the
record says where the switch happened."""

import time

import pytest

from ggp_agent.engines import start_engine
from ggp_agent.gdl import load_game
from ggp_agent.player.records import load_record

from ..helpers import ServerThread

BITS = 21
STEPS = 60
SLOW_TO_GROUND = "(role me) (init (step 0)) (bit 0) (bit 1) " + " ".join(
    f"(succ {i} {i + 1})" for i in range(STEPS)) + f"""
(<= (combo {" ".join(f"?b{i}" for i in range(BITS))}) (true (step 3)) {" ".join(f"(bit ?b{i})" for i in range(BITS))})
(legal me a) (legal me b)
(<= (legal me c) (true (step 5)) (combo {" ".join(f"?b{i}" for i in range(BITS))}))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step {STEPS})))
(<= (goal me 100) (true (step {STEPS})))
"""


def test_the_build_goes_on_past_the_budget_and_hands_over_a_propnet():
    game = load_game(SLOW_TO_GROUND)
    machine, pending = start_engine("auto", game, 0.05, background_s=120.0)
    try:
        assert machine.engine_name == "prolog" and pending is not None
        propnet = pending.result(timeout=120)
        assert propnet.engine_name == "propnet"
        state = machine.initial_state()
        assert sorted(map(str, propnet.legal_moves(state, 0))) == sorted(map(str, machine.legal_moves(state, 0)))
    finally:
        machine.close()


def test_without_a_background_build_a_slow_propnet_is_not_waited_for():
    # other rules than the other tests' (a build of the same rules is shared by the process)
    started = time.perf_counter()
    machine, pending = start_engine("auto", load_game(SLOW_TO_GROUND + "(unused 1)"), 0.05)
    waited = time.perf_counter() - started
    machine.close()
    # Prolog, or the lazy engine when its programs compile in the budget's
    # last hundredth of a second (it did in CI): never the full network,
    # whose grounding takes seconds, and nothing left building
    assert machine.engine_name in {"prolog", "lazy"} and pending is None
    assert waited < 3.0  # the full grounding takes five seconds


@pytest.mark.slow
def test_a_propnet_built_past_the_start_clock_takes_over_between_moves(tmp_path):
    with ServerThread(name="upgrade", search="mcps", record_dir=tmp_path, safety_margin=0.3) as server:
        rules = SLOW_TO_GROUND + "(unused 2)"  # not built yet in this process
        assert server.post(f"(START m.up me ({rules}) 4 1)").text == "ready"
        replies = [server.post("(play m.up nil)").text]
        for _ in range(STEPS - 1):
            time.sleep(0.5)  # the game is solved at once: a match as long as a real one's
            replies.append(server.post(f"(play m.up ({replies[-1]}))").text)
        assert server.post(f"(stop m.up ({replies[-1]}))").text == "done"
        server.call(server.player.wait_idle())
    assert all(reply in {"a", "b", "c"} for reply in replies), replies
    record = load_record(next(tmp_path.glob("*.player.json")))
    assert record.extra["engine"] == "propnet"
    assert 0 < record.extra["engineSwitchedAtTurn"] < STEPS
    assert record.goal_values == [100] and len(record.moves) == STEPS
