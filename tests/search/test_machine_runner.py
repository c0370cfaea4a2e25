"""The search driven from Python (`MachineRunner`): on a shared engine its
calls stay short; on an engine of its own (the lazy engine's twin) a playout
is one call, and the player's engine is left alone."""

from __future__ import annotations

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.runners.serial import MachineRunner

from ..helpers import GAMES


@pytest.fixture(scope="module", params=["prolog", "lazy"])
def machine(request):
    machine = make_state_machine(request.param, load_game(GAMES / "tictactoe.kif"))
    yield machine
    machine.close()


def _search(machine, limit: float):
    search = make_tree_search("mcps", machine, 0, seed=3)
    runner = search._runner
    assert isinstance(runner, MachineRunner)
    runner.SINGLE_CALL_LIMIT = limit
    search.prepare(machine.initial_state())
    return search, runner


def test_the_lazy_engine_searches_on_a_twin_and_prolog_on_the_players_engine(machine):
    search, runner = _search(machine, MachineRunner.SINGLE_CALL_LIMIT)
    own = machine.engine_name == "lazy"
    assert runner.shares_engine is not own and (runner.machine is machine) is not own
    if own:
        assert runner.machine.move_codes is machine.move_codes
        state = machine.initial_state()
        move = machine.legal_moves(state, 0)[4]
        assert runner.machine.legal_moves(state, 0) == machine.legal_moves(state, 0)
        assert runner.machine.next_state(state, [move, machine.legal_moves(state, 1)[0]]) == \
            machine.next_state(state, [move, machine.legal_moves(state, 1)[0]])
    search.stop()


def test_a_slow_playout_is_stepped_only_on_a_shared_engine(machine):
    # every one-call playout is "slow" under a limit of 0
    search, runner = _search(machine, 0.0)
    assert search.search(50) >= 1
    assert runner.stepping is runner.shares_engine
    assert search.best_move() in machine.legal_moves(machine.initial_state(), 0)
    search.stop()


def test_closing_the_twin_leaves_the_players_engine_whole():
    game = load_game(GAMES / "montyhall.kif")
    machine = make_state_machine("lazy", game)
    try:
        twin = machine.for_search()
        twin.close()
        state = machine.initial_state()
        joint = [machine.legal_moves(state, r)[0] for r in range(len(machine.roles))]
        assert machine.percepts(state, joint, 0) == machine.percept_engine.percepts(state, joint, 0)
    finally:
        machine.close()
