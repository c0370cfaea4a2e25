"""The numba tree search plays well, plays any game, and compiles nothing per game.

The tic-tac-toe checks are the seed tutorial's (`../shared/seeds/002_*`): in
every reachable position where exactly one move wins (by minimax), the search
plays it at 2,000 iterations, and it never loses to a random player. Beside
them: the solver (`test_solver.py`), root changes (`test_root_change.py`),
MCPS's window (`test_mcps_window.py`) and the arena's memory (`test_arena.py`).
"""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.tree.arena import C_CODES, C_ROOT
from ggp_agent.search.warmup import all_kernels

from .searching import joint_of, mover_of, search_at

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")

RULES = ["uct", "grave", "mcps"]


def one_winning_move_positions(machine):
    """(state, mover, the winning move) for every reachable non-terminal position
    where exactly one move of the mover wins with best play (the tutorial's set)."""
    seen, positions, stack = set(), [], [machine.initial_state()]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        if machine.is_terminal(state):
            continue
        positions.append(state)
        mover = mover_of(machine, state)
        for move in machine.legal_moves(state, mover):
            stack.append(machine.next_state(state, joint_of(machine, state, mover, move)))

    @functools.lru_cache(maxsize=None)
    def value(state):
        if machine.is_terminal(state):
            return machine.goal_values(state)
        mover = mover_of(machine, state)
        options = [value(machine.next_state(state, joint_of(machine, state, mover, move)))
                   for move in machine.legal_moves(state, mover)]
        return max(options, key=lambda goals: goals[mover])

    cases = []
    for state in positions:
        mover = mover_of(machine, state)
        wins = [move for move in machine.legal_moves(state, mover)
                if value(machine.next_state(state, joint_of(machine, state, mover, move)))[mover] == 100]
        if len(wins) == 1:
            cases.append((state, mover, wins[0]))
    return cases


@pytest.fixture(scope="module")
def winning_positions(tictactoe):
    return one_winning_move_positions(tictactoe)


def test_the_tutorial_counts_1686_positions_with_one_winning_move(winning_positions):
    assert len(winning_positions) == 1686


def test_mcps_plays_the_one_winning_move_in_every_position(tictactoe, winning_positions):
    missed = []
    for index, (state, mover, win) in enumerate(winning_positions):
        search = search_at(tictactoe, mover, state, seed=index)
        search.search(2000)
        move = search.best_move()
        if move != win:
            missed.append((sorted(map(str, state)), str(win), str(move)))
    assert missed == []


@pytest.mark.parametrize("rule", ["uct", "grave"])
def test_every_rule_finds_the_winning_moves(tictactoe, winning_positions, rule):
    sample = winning_positions[::7]
    found = 0
    for index, (state, mover, win) in enumerate(sample):
        search = search_at(tictactoe, mover, state, rule=rule, seed=index)
        search.search(2000)
        found += search.best_move() == win
    assert found == len(sample)


def test_the_same_rules_run_over_prolog(tictactoe_prolog, winning_positions):
    for index, (state, mover, win) in enumerate(winning_positions[::60]):
        search = search_at(tictactoe_prolog, mover, state, seed=index)
        search.search(2000)
        assert search.best_move() == win


def _play_random(machine, rule, seat, games, iterations, seed):
    """Games of the search (seat) against uniformly random moves, with tree reuse."""
    rng = random.Random(seed)
    results = []
    for game in range(games):
        state = machine.initial_state()
        search = search_at(machine, seat, state, rule=rule, seed=seed * 1000 + game)
        while not machine.is_terminal(state):
            joint = []
            for role in range(len(machine.roles)):
                moves = machine.legal_moves(state, role)
                if role == seat and len(moves) > 1:
                    search.search(iterations)
                    move = search.best_move()
                    assert move in moves
                else:
                    move = rng.choice(moves)
                joint.append(move)
            state = machine.next_state(state, joint)
            search.advance(joint, state)
        results.append(machine.goal_values(state)[seat])
    return results


@pytest.mark.parametrize("seat", [0, 1])
def test_never_loses_to_random_quick(tictactoe, seat):
    assert min(_play_random(tictactoe, "mcps", seat, games=10, iterations=2000, seed=seat)) >= 50


@pytest.mark.slow
@pytest.mark.parametrize("seat", [0, 1])
def test_never_loses_to_random_in_200_games(tictactoe, seat):
    results = _play_random(tictactoe, "mcps", seat, games=200, iterations=2000, seed=10 + seat)
    assert min(results) >= 50
    assert results.count(100) > 100


SIMULTANEOUS = """
(role a) (role b)
(init (round 0))
(<= (legal ?r (pick ?x)) (role ?r) (choice ?x))
(choice 1) (choice 2) (choice 3)
(<= (next (round 1)) (true (round 0)))
(<= (next (round 2)) (true (round 1)))
(<= (next (last ?r ?x)) (does ?r (pick ?x)))
(<= (next (score ?r ?x)) (true (last ?r ?x)))
(<= terminal (true (round 2)))
(<= (same) (does a (pick ?x)) (does b (pick ?x)))
(<= (goal a 100) (true (last a ?x)) (true (last b ?x)))
(<= (goal a 0) (true (last a ?x)) (true (last b ?y)) (distinct ?x ?y))
(<= (goal b 0) (true (last a ?x)) (true (last b ?x)))
(<= (goal b 100) (true (last a ?x)) (true (last b ?y)) (distinct ?x ?y))
(<= (goal ?r 50) (role ?r) (true (round 0)))
(<= (goal ?r 50) (role ?r) (true (round 1)))
"""


THREE_PLAYERS = """
(role r) (role g) (role y)
(init (turn r)) (init (count 0))
(<= (legal ?p (take ?n)) (true (turn ?p)) (amount ?n))
(<= (legal ?p noop) (role ?p) (not (true (turn ?p))))
(amount 1) (amount 2)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
(<= (next (count ?m)) (does ?p (take 1)) (true (count ?n)) (succ ?n ?m))
(<= (next (count ?k)) (does ?p (take 2)) (true (count ?n)) (succ ?n ?m) (succ ?m ?k))
(<= (next (turn g)) (true (turn r)))
(<= (next (turn y)) (true (turn g)))
(<= (next (turn r)) (true (turn y)))
(<= (next (last ?p)) (does ?p (take ?n)))
(<= over (true (count 6)))
(<= over (true (count 7)))
(<= terminal over)
(<= (goal ?p 100) (true (last ?p)) over)
(<= (goal ?p 0) (role ?p) (not (true (last ?p))))
(<= (goal ?p 0) (true (last ?p)) (not over))
"""


PUZZLE = """
(role solver)
(init (at 0))
(<= (legal solver (step ?n)) (true (at ?m)) (hop ?m ?n))
(hop 0 1) (hop 0 2) (hop 1 3) (hop 2 4) (hop 3 5) (hop 4 5) (hop 4 6) (hop 1 6)
(<= (next (at ?n)) (does solver (step ?n)))
(<= terminal (true (at 5)))
(<= terminal (true (at 6)))
(<= (goal solver 100) (true (at 5)) (true (at 5)))
(<= (goal solver 30) (true (at 6)))
(<= (goal solver 0) (true (at ?n)) (distinct ?n 5) (distinct ?n 6))
"""


@pytest.mark.parametrize("engine", ["propnet", "prolog"])
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("text", [SIMULTANEOUS, THREE_PLAYERS, PUZZLE], ids=["simultaneous", "three", "puzzle"])
def test_any_number_of_roles_and_simultaneous_moves(engine, rule, text):
    machine = make_state_machine(engine, load_game(text))
    try:
        rng = random.Random(2)
        for seat in range(len(machine.roles)):
            state = machine.initial_state()
            search = search_at(machine, seat, state, rule=rule, seed=seat)
            while not machine.is_terminal(state):
                search.search(300)
                joint = []
                for role in range(len(machine.roles)):
                    moves = machine.legal_moves(state, role)
                    move = search.best_move() if role == seat else rng.choice(moves)
                    assert move in moves
                    joint.append(move)
                state = machine.next_state(state, joint)
                search.advance(joint, state)
            if len(machine.roles) == 1:
                assert machine.goal_values(state) == (100,)
    finally:
        machine.close()


def test_the_puzzle_is_solved():
    machine = make_state_machine("propnet", load_game(PUZZLE))
    try:
        search = search_at(machine, 0, machine.initial_state())
        search.search(200)
        assert search.stats()["root_proven"]
        assert str(search.best_move()) == "(step 1)" or str(search.best_move()) == "(step 2)"
    finally:
        machine.close()


def test_codes_met_by_prolog_are_registered(tictactoe_prolog):
    search = search_at(tictactoe_prolog, 0, tictactoe_prolog.initial_state())
    search.search(200)
    A = search.arena
    assert int(A.counters[C_CODES]) >= 10
    roles = A.code_role[: int(A.counters[C_CODES])]
    assert set(roles.tolist()) <= {0, 1}


def test_a_new_game_needs_no_compilation(tictactoe):
    """After the warm-up (this module's fixture), searching a game never seen
    before adds no kernel signature, nor loads one from the disk cache in the
    middle of a match (a root change that loaded `clear_window` took 0.15 s on
    a quiet machine and 1.8 s on a loaded one, and a 1 s reply went out 0.8 s
    late)."""
    dispatchers = all_kernels()
    before = {name: len(d.signatures) for name, d in dispatchers.items()}
    for engine in ("propnet", "prolog"):
        machine = make_state_machine(engine, load_game(THREE_PLAYERS))
        try:
            for rule in RULES:
                search = search_at(machine, 1, machine.initial_state(), rule=rule)
                search.search(200)
                search.best_move()
                state = machine.next_state(machine.initial_state(), [machine.legal_moves(machine.initial_state(), r)[0] for r in range(3)])
                search.advance([machine.legal_moves(machine.initial_state(), r)[0] for r in range(3)], state)
                search.advance(None, state)  # no joint move: MCPS clears its window (also after an unexpanded root)
                search.collect_now(state)
        finally:
            machine.close()
    after = {name: len(d.signatures) for name, d in all_kernels().items()}
    assert after == before


def test_effect_codes_key_the_statistics_by_what_a_move_changes(tictactoe):
    """codes=effects: only fluents that depend on moves count (the turn marker
    does not), and every move of the chooser tried from the root has its
    effect's code (learnt when its child was computed), one per cell."""
    from ggp_agent.search.runners.kernels import move_dependent_fluents

    machine = tictactoe
    mask = np.zeros(machine.net.n_words, dtype=np.uint64)
    move_dependent_fluents(machine.net, mask)
    dynamic = {str(f) for i, f in enumerate(machine.fluents) if int(mask[i >> 6]) >> (i & 63) & 1}
    assert dynamic and all(text.startswith("(cell") for text in dynamic)
    assert not any(text.startswith("(control") for text in dynamic)

    state = machine.initial_state()
    search = search_at(machine, 0, state, codes="effects")
    search.search(500)
    A = search.arena
    root = int(A.counters[C_ROOT])
    features = A.edge_feat[A.node_edges[root, 0]:A.node_edges[root, 1]]
    assert len(set(features.tolist())) == 9 and features.min() >= len(machine.move_codes)
    assert int(A.counters[C_CODES]) > len(machine.move_codes)


def test_effect_codes_find_the_winning_moves(tictactoe, winning_positions):
    for index, (state, mover, win) in enumerate(winning_positions[::11]):
        search = search_at(tictactoe, mover, state, seed=index, codes="effects")
        search.search(2000)
        assert search.best_move() == win


def test_effect_codes_over_prolog_fall_back_to_move_codes(tictactoe_prolog):
    search = search_at(tictactoe_prolog, 0, tictactoe_prolog.initial_state(), codes="effects")
    assert search.params.codes == "moves"
    search.search(100)
    assert search.best_move() in tictactoe_prolog.legal_moves(tictactoe_prolog.initial_state(), 0)
