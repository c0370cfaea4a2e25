"""Engine choice: a compiled engine when one builds within its budget (the
full propnet, else the lazy engine), Prolog otherwise.

Either way the game is playable, and the log says which engine plays and why
(an operator reading a slow match wants to know it ran on Prolog).
"""

from __future__ import annotations

import logging

import pytest

from ggp_agent.engines import choose_state_machine, make_state_machine, propnet_budget
from ggp_agent.gdl import load_game, parse_term
from ggp_agent.reasoner import IllegalMoveError

from ..helpers import GAMES

#: A point walking through a 150 x 150 x 150 grid: Prolog sees one position
#: and three moves at a time, a grounder sees all 3,375,000 positions the point
#: could reach, more than any grounder finishes in a second.
EXPLODING = """
(role r)
""" + " ".join(f"(succ {i} {i + 1})" for i in range(149)) + """
(init (at 0 0 0))
(legal r x) (legal r y) (legal r z)
(<= (next (at ?x2 ?y ?z)) (does r x) (true (at ?x ?y ?z)) (succ ?x ?x2))
(<= (next (at ?x ?y2 ?z)) (does r y) (true (at ?x ?y ?z)) (succ ?y ?y2))
(<= (next (at ?x ?y ?z2)) (does r z) (true (at ?x ?y ?z)) (succ ?z ?z2))
(<= terminal (true (at 149 ?y ?z)))
(goal r 100)
"""

#: Role b has no legal move in the initial state (a broken game): the manager
#: sends `nil` for it, which both engines apply as no move at all.
STUCK = """
(role a) (role b)
(init s)
(legal a go)
(<= (next t) (does a go))
(<= terminal (true t))
(goal a 100) (goal b 0)
"""


def _choose(text: str, budget: float, caplog):
    with caplog.at_level(logging.INFO, logger="ggp_agent.engines"):
        machine, choice = choose_state_machine(load_game(text), budget)
    return machine, choice


def test_a_small_game_gets_the_propnet_and_the_log_says_so(caplog):
    machine, choice = _choose((GAMES / "tictactoe.kif").read_text(), 10.0, caplog)
    try:
        assert choice.engine == "propnet" and type(machine).__name__ == "PropnetStateMachine"
        assert "gates" in choice.reason and choice.build_s < 10.0
        assert f"engine: {choice.reason}" in caplog.text
    finally:
        machine.close()


def test_a_game_that_does_not_ground_in_time_plays_on_the_lazy_engine(caplog):
    """The full network gives up within its share of the budget (at the
    atom cap or at its time limit, whichever comes first on the machine);
    the lazy engine, which grounds nothing that depends on the state, builds
    in the rest (the grid's 3,375,000 positions are never enumerated). A
    budget of 1 s left the lazy engine 0.05-0.25 s, under load too little:
    the grounder checks its deadline between joins, so the full network's
    share overruns by a join."""
    machine, choice = _choose(EXPLODING, 4.0, caplog)
    try:
        assert choice.engine == "lazy", choice
        assert choice.build_s < 6.0  # the budget stopped the grounder
        assert "engine: the full propnet gave up (grounding gave up (" in caplog.text
        assert f"engine: {choice.reason}" in caplog.text
        state = machine.initial_state()
        assert sorted(map(str, machine.legal_moves(state, 0))) == ["x", "y", "z"]
        [up] = [move for move in machine.legal_moves(state, 0) if str(move) == "y"]
        [fluent] = machine.next_state(state, [up])
        assert str(fluent) == "(at 0 1 0)"
    finally:
        machine.close()


def test_a_game_no_compiled_engine_makes_in_time_plays_on_prolog(caplog):
    # a fact of its own: not the lazy build an earlier test kept in this process
    machine, choice = _choose(EXPLODING + "(unused no_time)", 0.001, caplog)
    try:
        assert choice.engine == "prolog", choice
        assert choice.reason.startswith("propnet unavailable after")
        assert "the lazy engine:" in choice.reason, choice
        assert "engine: prolog (propnet unavailable" in caplog.text
        state = machine.initial_state()
        assert sorted(map(str, machine.legal_moves(state, 0))) == ["x", "y", "z"]
    finally:
        machine.close()


def test_a_role_without_a_legal_move_plays_on_the_propnet_which_applies_nil(caplog):
    machine, choice = _choose(STUCK, 10.0, caplog)
    try:
        assert choice.engine == "propnet", choice
        state = machine.initial_state()
        assert machine.legal_moves(state, 1) == ()
        after = machine.next_state(state, (parse_term("go"), parse_term("nil")))
        assert [str(f) for f in after] == ["t"] and machine.is_terminal(after)
        assert machine.goal_values(after) == (100, 0)
        with pytest.raises(IllegalMoveError, match="never a legal move of a"):
            machine.next_state(state, (parse_term("nil"), parse_term("nil")))  # a has a move: nil is illegal
    finally:
        machine.close()


def test_no_budget_means_prolog_at_once(caplog):
    machine, choice = _choose(STUCK, 0.0, caplog)
    machine.close()
    assert (choice.engine, choice.reason) == ("prolog", "no time for a propnet")


@pytest.mark.parametrize("start_clock, budget", [(10, 5.0), (2, 1.0), (1000, 60.0)])
def test_the_budget_is_a_share_of_the_start_clock(start_clock, budget):
    assert propnet_budget(start_clock) == budget


def test_engine_auto_is_the_same_choice():
    machine = make_state_machine("auto", load_game(EXPLODING), time_limit=1.0)
    try:
        assert type(machine).__name__ == "LazyStateMachine"
    finally:
        machine.close()
