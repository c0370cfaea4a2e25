"""`Search.answer_ready`: the searches say when more thinking cannot change
their move, so the player answers at once (and only then)."""

from __future__ import annotations

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.flat import MonteCarloSearch
from ggp_agent.search.registry import make_tree_search

from ..helpers import DOORS, GAMES, LEFT_RECURSION

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


@pytest.fixture(scope="module")
def doors():
    machine = make_state_machine("propnet", load_game(DOORS))
    yield machine
    machine.close()


@pytest.mark.parametrize("rule", ["uct", "grave", "mcps"])
def test_three_proven_losses_leave_the_fourth_move_decided(doors, rule):
    # Move codes: with effect codes the three traps share one code, so GRAVE
    # and MCPS learn from one trap to leave the other two unvisited (unproven).
    search = make_tree_search(rule, doors, 0, seed=1, options={"codes": "moves"})
    search.prepare(doors.initial_state())
    assert not search.answer_ready()  # nothing known before the first iteration
    search.search(50)
    assert search.answer_ready()
    assert str(search.best_move()) == "(open 4)"
    assert not search.stats()["root_proven"]  # decided by the losses, not by a proof of the root


def test_an_open_position_is_not_decided_and_the_solver_off_decides_nothing(doors):
    connect_four = make_state_machine("propnet", load_game(GAMES / "connectfour.kif"))
    try:
        search = make_tree_search("mcps", connect_four, 0, seed=1)
        search.prepare(connect_four.initial_state())
        search.search(2000)
        assert not search.answer_ready()
    finally:
        connect_four.close()
    blind = make_tree_search("mcps", doors, 0, seed=1, options={"solver": "0"})
    blind.prepare(doors.initial_state())
    blind.search(200)
    assert not blind.answer_ready()


def test_the_worker_publishes_a_proven_win_and_the_opponents_turn():
    rules = (GAMES / "connectfour.kif").read_text(encoding="utf-8").replace(
        "(init (control red))", "(init (control red)) (init (cell 1 1 red)) (init (cell 1 2 red)) "
        "(init (cell 1 3 red)) (init (cell 2 1 yellow)) (init (cell 3 1 yellow)) (init (cell 5 1 yellow))")
    machine = make_state_machine("propnet", load_game(rules))
    try:
        red = make_tree_search("mcps", machine, 0, seed=1)
        yellow = make_tree_search("mcps", machine, 1, seed=1)
        for search in (red, yellow):
            search.start(machine.initial_state())
        assert yellow.answer_ready()  # noop is yellow's only move: known at once
        assert _eventually(red.answer_ready)
        assert str(red.best_move()) == "(drop 1)" and red.stats()["root_proven"]
    finally:
        red.stop()
        yellow.stop()
        machine.close()


def test_monte_carlo_knows_only_a_single_move(doors):
    search = MonteCarloSearch(doors, 1, seed=1)
    assert not search.answer_ready()
    search.start(doors.initial_state())
    try:
        assert search.answer_ready()  # `you` has only noop at the doors
        search.advance([], doors.next_state(doors.initial_state(), _moves(doors, "(open 4)", "noop")))
        assert not search.answer_ready()  # left or right
    finally:
        search.stop()


def _moves(machine, *texts):
    state = machine.initial_state()
    found = []
    for role, text in enumerate(texts):
        [move] = [m for m in machine.legal_moves(state, role) if str(m) == text]
        found.append(move)
    return found


def _eventually(condition, seconds: float = 5.0) -> bool:
    import time

    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if condition():
            return True
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("parallel", ["root", "tree"])
def test_two_threads_publish_the_proven_win_too(doors, parallel):
    """Root and tree parallelism keep the interface's promise: a forced answer
    is known at once from the worker threads, and the move is the forced one."""
    from ggp_agent.search.registry import make_search

    search = make_search("mcps", doors, 0, seed=1, threads=2, parallel=parallel, memory_cap=16 << 20,
                         options={"codes": "moves"})  # as above: effect codes leave two traps unproven
    search.start(doors.initial_state())
    try:
        assert _eventually(search.answer_ready)
        assert str(search.best_move()) == "(open 4)"
    finally:
        search.stop()


@pytest.mark.parametrize("parallel", ["root", "tree"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_threads_end_a_proven_line_through_a_cycle(parallel, seed):
    """LEFT_RECURSION's every state is a proven win, and (go a) from (at a)
    stays put: the two-thread searches, as one tree does, take the shortest
    proven win, so the match ends in two moves. (The root merge used to take
    the most visited proven win, and a served match walked the loop for an
    hour.)"""
    from ggp_agent.search.registry import make_search

    machine = make_state_machine("propnet", load_game(LEFT_RECURSION))
    search = make_search("mcps", machine, 0, seed=seed, threads=2, parallel=parallel, memory_cap=16 << 20)
    state = machine.initial_state()
    try:
        search.start(state, tuple(machine.legal_moves(state, 0)))
        turns = 0
        while not machine.is_terminal(state) and turns < 10:
            assert _eventually(search.answer_ready)
            move = search.best_move()
            state = machine.next_state(state, [move])
            turns += 1
            if not machine.is_terminal(state):
                search.advance([move], state, tuple(machine.legal_moves(state, 0)))
        assert machine.is_terminal(state) and turns == 2
    finally:
        search.stop()
        machine.close()
