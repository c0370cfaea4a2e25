"""The lazy engine: a game's rules evaluated on each state, for games whose network gives up.

It must answer as the Prolog engine does on any game (the protocol suite
runs it through the `engine` fixture, and `tests/engines/test_agree.py` and
the corpus replay check it step by step); these tests check what is its
own: the compiled engine falls back to it, playouts that outgrow their
tables go on, rules a plain stratification refuses, and bounds.
"""

from __future__ import annotations

import logging
import random

import numpy as np
import pytest

from ggp_agent.engines import choose_state_machine, make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.propnet.lazy.build import build_lazy
from ggp_agent.propnet.lazy.machine import LazyStateMachine
from ggp_agent.reasoner.prolog_machine import PrologStateMachine
from ggp_agent.reasoner.statemachine import ReasonerError

from ..helpers import GAMES

#: Futoshiki's goal: a relation that negates itself, which no order of
#: relations computes; split by its heads' constants it is two relations.
SELF_NEGATED_GOAL = """
(role robot)
(init (cell 1 blank)) (init (cell 2 blank))
(<= (legal robot (fill ?c)) (true (cell ?c blank)))
(<= (next (cell ?c done)) (does robot (fill ?c)))
(<= (next (cell ?c ?s)) (true (cell ?c ?s)) (does robot (fill ?d)) (distinct ?c ?d))
(<= terminal (not (true (cell 1 blank))))
(<= (goal robot 0) (true (cell ?c blank)))
(<= (goal robot 100) (not (goal robot 0)))
"""

#: Crissrace's pattern: `stuck` asked of two cells, the second ask reading
#: the first `stuck`, and `stuck` negating what that ask guards: with the
#: usual demand a negation inside a recursion.
STUCK_TWICE = """
(role p)
(init (cell a)) (init (cell b)) (init (free c))
(car a c) (car b c) (location a) (location b) (location c)
(<= (movable ?b) (true (cell ?b)) (car ?b ?c) (true (free ?c)))
(<= (stuck ?b) (location ?b) (not (movable ?b)))
(<= (legal p (go ?b)) (true (cell ?b)) (movable ?b))
(<= (legal p wait) (true (cell ?b1)) (stuck ?b1) (true (cell ?b2)) (distinct ?b1 ?b2) (stuck ?b2))
(<= (moved ?b) (does p (go ?b)))
(<= anymove (does p (go ?b)))
(<= (next (cell ?b)) (true (cell ?b)) (not (moved ?b)))
(<= (next (cell ?c)) (does p (go ?b)) (car ?b ?c))
(<= (next (free ?c)) (true (free ?c)) (not anymove))
(<= terminal (not (true (free c))))
(goal p 100)
"""

#: Six cells filled with 1 to 4, the goal a join of all six with a static
#: relation of them (1,296 rows, no factoring splits it): as many instances
#: in the relaxed model, where the moves and the next state take a hundred.
SIX_CELL_GOAL = """
(role p)
(value 1) (value 2) (value 3) (value 4)
(cell 1) (cell 2) (cell 3) (cell 4) (cell 5) (cell 6)
(init (round 0))
(<= (legal p (put ?c ?v)) (cell ?c) (value ?v) (not (filled ?c)))
(<= (filled ?c) (true (mark ?c ?v)))
(<= (next (mark ?c ?v)) (does p (put ?c ?v)))
(<= (next (mark ?c ?v)) (true (mark ?c ?v)))
(<= terminal (true (mark 1 ?a)) (true (mark 2 ?b)) (true (mark 3 ?c)) (true (mark 4 ?d)) (true (mark 5 ?e))
    (true (mark 6 ?f)))
(<= (fine ?a ?b ?c ?d ?e ?f) (value ?a) (value ?b) (value ?c) (value ?d) (value ?e) (value ?f)
    (distinct ?a ?b) (distinct ?c ?d) (distinct ?e ?f) (distinct ?a ?f))
(<= (goal p 100) (true (mark 1 ?a)) (true (mark 2 ?b)) (true (mark 3 ?c)) (true (mark 4 ?d)) (true (mark 5 ?e))
    (true (mark 6 ?f)) (fine ?a ?b ?c ?d ?e ?f))
(<= (goal p 0) (not (goal p 100)))
"""

#: A relation that grows without end on the state: the evaluation's budget stops it.
RUNAWAY = """
(role r)
(init (n z))
(<= (count ?x) (true (n ?x)))
(<= (count (s ?x)) (count ?x))
(<= (legal r go) (count ?x))
(<= (next (n z)) (does r go))
(<= terminal (true (n done)))
(goal r 0)
"""


def walk_against_prolog(machine, game, steps: int, seed: int) -> int:
    """Random steps compared with Prolog (states, legal moves, terminal,
    goals); how many terminal states were met."""
    rng = random.Random(seed)
    terminals = 0
    with PrologStateMachine(game) as prolog:
        ours = theirs = None
        for _ in range(steps):
            if ours is None:
                ours, theirs = machine.initial_state(), prolog.initial_state()
            assert ours == theirs
            assert machine.is_terminal(ours) == prolog.is_terminal(theirs)
            assert machine.goal_values(ours) == prolog.goal_values(theirs)
            if machine.is_terminal(ours):
                terminals += 1
                ours = None
                continue
            legal = [machine.legal_moves(ours, role) for role in range(len(game.roles))]
            assert legal == [prolog.legal_moves(theirs, role) for role in range(len(game.roles))]
            joint = [rng.choice(moves) for moves in legal]
            ours, theirs = machine.next_state(ours, joint), prolog.next_state(theirs, joint)
    return terminals


def test_the_compiled_engine_is_the_lazy_one_when_the_network_passes_a_cap(caplog):
    """`propnet` falls back to the lazy engine when grounding gives up (here a
    cap of 50 atoms), and the choice says so; the game plays as on Prolog."""
    game = load_game(GAMES / "connectfour.kif")
    with caplog.at_level(logging.INFO, logger="ggp_agent.engines"):
        machine, choice = choose_state_machine(game, 30.0, max_atoms=50)
    try:
        assert choice.engine == "lazy" and isinstance(machine, LazyStateMachine), choice
        assert "rules in its programs" in choice.reason
        assert "the full propnet gave up (grounding gave up (too many atoms" in caplog.text
        assert walk_against_prolog(machine, game, 150, seed=3) >= 2
    finally:
        machine.close()


def test_a_goal_that_alone_passes_the_cap_is_left_to_the_lazy_engine_beside_a_network(caplog):
    """The full network gives up at the goal (1,296 instances, the cap 1,000
    here); a network of the moves without it plays beside the lazy engine's
    goal program, and the goals of its playouts are the rules' goals."""
    game = load_game(SIX_CELL_GOAL)
    with caplog.at_level(logging.INFO, logger="ggp_agent.engines"):
        machine, choice = choose_state_machine(game, 30.0, max_instances=1000)
    try:
        assert choice.engine == "hybrid", choice
        assert "gave up on the goal" in caplog.text
        assert walk_against_prolog(machine, game, 60, seed=2) >= 5
        with PrologStateMachine(game) as prolog:
            for seed in range(20):
                record = machine.random_playout_moves(machine.initial_state(), seed=seed)
                state = prolog.initial_state()
                for joint in record.moves:
                    state = prolog.next_state(state, [move for move, _ in joint])
                assert record.terminal and prolog.goal_values(state) == record.goals
    finally:
        machine.close()


def test_a_playout_that_outgrows_its_tables_goes_on_where_it_stopped():
    """Tables start small and grow when a kernel finds them full: a playout
    stopped by a full table goes on from there, and plays what a machine
    with room plays from the same seed."""
    game = load_game(GAMES / "breakthrough_6x6.kif")
    lazy = build_lazy(game)
    lazy.rows.clear()  # no room learnt from the build's sampling: every table starts at its smallest
    small, roomy = LazyStateMachine(game, lazy=lazy), LazyStateMachine(game, lazy=lazy)
    state = roomy.initial_state()
    for seed in range(5):
        roomy.random_playout_moves(state, seed=seed)
    grown = sum(int(e.caps.sum()) for e in small._evaluators.values())
    for seed in range(5):
        assert small.random_playout_moves(state, seed=seed) == roomy.random_playout_moves(state, seed=seed)
    assert sum(int(e.caps.sum()) for e in small._evaluators.values()) > grown


def test_recorded_playouts_replay_to_their_end_and_goals():
    game = load_game(GAMES / "hex_5x5.kif")
    machine = LazyStateMachine(game)
    start = machine.initial_state()
    for seed in range(4):
        record = machine.random_playout_moves(start, seed=seed)
        state = start
        for joint in record.moves:
            for role, (move, choice) in enumerate(joint):
                legal = machine.legal_moves(state, role)
                assert move in legal and choice == (len(legal) > 1)
            state = machine.next_state(state, [move for move, _ in joint])
        assert machine.is_terminal(state) == record.terminal
        assert machine.goal_values(state) == record.goals


def test_a_relation_that_negates_itself_is_split_by_its_heads_constants():
    game = load_game(SELF_NEGATED_GOAL)
    machine = LazyStateMachine(game)
    assert any("goal/2 split by the constants of its heads" in note for note in machine.lazy.notes)
    assert walk_against_prolog(machine, game, 40, seed=1) >= 5


def test_demand_from_the_state_when_the_usual_demand_negates_inside_a_recursion():
    game = load_game(STUCK_TWICE)
    machine = LazyStateMachine(game)
    assert "legal: demand from the state" in machine.lazy.notes
    assert walk_against_prolog(machine, game, 40, seed=1) >= 5


def test_an_evaluation_past_its_budget_is_an_error_that_names_it():
    """Said by the build when its opening check meets it, and by a state's
    evaluation on a build that was not checked (given to the machine)."""
    game = load_game(RUNAWAY)
    with pytest.raises(ReasonerError, match="budget of tuples"):
        LazyStateMachine(game, work_budget=20_000)
    machine = LazyStateMachine(game, lazy=build_lazy(game), work_budget=20_000)
    with pytest.raises(ReasonerError, match="budget of tuples"):
        machine.legal_moves(machine.initial_state(), 0)


def test_a_new_game_compiles_nothing_on_the_lazy_engine(compiled_kernels):
    from ggp_agent.search.warmup import all_kernels

    dispatchers = all_kernels()
    before = {name: len(d.signatures) for name, d in dispatchers.items()}
    with make_state_machine("lazy", load_game(STUCK_TWICE)) as machine:
        state = machine.initial_state()
        machine.legal_moves(state, 0)
        machine.random_playout(state, seed=1)
        machine.goal_values(state)
    assert {name: len(d.signatures) for name, d in all_kernels().items()} == before
