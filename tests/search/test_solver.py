"""The solver: proven results found, taken and played by their proof, through cycles too."""

from __future__ import annotations

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.tree.arena import C_ROOT, PROVEN, Capacity, new_arena
from ggp_agent.search.tree.root import best_edge
from ggp_agent.search.tree.solver import _proof_rank, proof_rank

from ..helpers import LEFT_RECURSION, give_edges
from .searching import joint_of, mover_of, search_at

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


def test_a_proven_win_is_taken_and_a_proven_loss_avoided(tictactoe):
    # After x (1 1), o (2 1), x (1 2), o (2 2): x wins at (1 3) at once, and any
    # other move lets o win at (2 3). The solver must see both.
    machine = tictactoe
    start = machine.initial_state()
    line = ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)"]
    state = start
    for text in line:
        mover = mover_of(machine, state)
        legal = {str(m): m for m in machine.legal_moves(state, mover)}
        state = machine.next_state(state, joint_of(machine, state, mover, legal[text]))
    search = search_at(machine, 0, state, rule="mcps", seed=3)
    search.search(300)
    assert str(search.best_move()) == "(mark 1 3)"
    stats = search.stats()
    assert stats["root_proven"] and stats["move_value"] == 1.0


#: LEFT_RECURSION's game has a self-loop ((go a) from (at a) stays put) next
#: to a two-step win: every state is worth 100, so the root is proven at once,
#: and a solver that took any proven child would walk the loop forever.
CYCLE = LEFT_RECURSION


@pytest.mark.parametrize("engine", ["propnet", "prolog"])
def test_proven_lines_end_even_through_cycles(engine):
    machine = make_state_machine(engine, load_game(CYCLE))
    try:
        state = machine.initial_state()
        search = search_at(machine, 0, state)
        turns = 0
        while not machine.is_terminal(state) and turns < 10:
            search.search(200)
            move = search.best_move()
            state = machine.next_state(state, [move])
            search.advance([move], state)
            turns += 1
        assert machine.is_terminal(state) and turns <= 3
    finally:
        machine.close()


def test_a_proven_root_plays_its_proof_not_its_most_visited_move():
    """Both moves proven draws (50 of a possible 100): the most visited one,
    whose mean is above 50, loops back (a proof of 5 moves), the other ends
    the game (1 move). The root is proven: the move is its proof's, the
    shorter line, in one tree as in the root merge of several
    (`votes.merge_votes`, its doctests)."""
    capacity = Capacity(nodes=8, edges=16, amaf_tables=2, perm_tables=2, transitions=8,
                        codes=3, window=64, max_depth=4, max_rollout=4)
    A = new_arena(capacity, n_roles=2, n_words=1, code_role=np.array([0, 0, 1], dtype=np.int32),
                  goal_values=[[0, 50, 100], [0, 50, 100]])
    give_edges(A, 0, [[0, 1], [2]])
    A.counters[C_ROOT] = 0
    loop, line = int(A.node_edges[0, 0]), int(A.node_edges[0, 0]) + 1
    for edge, child, proof, visits, reward in [(loop, 1, 5, 90, 60.0), (line, 2, 1, 10, 5.0)]:
        A.edge_child[edge] = child
        A.node_flags[child] |= PROVEN
        A.node_goals[child] = [50, 50]
        A.node_proof[child] = proof
        A.edge_n[edge], A.edge_w[edge] = visits, reward
    assert best_edge(A, 0) == loop  # an open root: the most visited edge, as before
    A.node_flags[0] |= PROVEN
    assert best_edge(A, 0) == line


def test_the_solver_order_is_one_rule_for_one_tree_and_for_the_merge():
    """`solver.proof_rank` ranks proven results for `better_proof` (compiled)
    and for `votes.merge_votes` (plain Python): the same numbers either way,
    and the order the solver needs: a higher goal first; at a goal above 0 the
    shorter proof (a win sooner), at 0 the longer (a loss later)."""
    results = [(goal, proof) for goal in (0, 50, 100) for proof in (0, 1, 2, 7, 400)]
    for goal, proof in results:
        assert _proof_rank(goal, proof) == proof_rank(goal, proof)
    ranked = sorted(results, key=lambda result: proof_rank(*result), reverse=True)
    assert ranked[:2] == [(100, 0), (100, 1)]
    assert ranked[-2:] == [(0, 1), (0, 0)]
    assert [goal for goal, _ in ranked] == sorted((goal for goal, _ in results), reverse=True)
