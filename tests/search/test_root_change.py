"""The tree across a root change: the subtree kept, the rest collected, a corrupt root replaced."""

from __future__ import annotations

import numpy as np
import pytest

from ggp_agent.search.driver.figures import answer_summary
from ggp_agent.search.tree.arena import C_NODES, C_ROOT, EXPANDED
from ggp_agent.search.tree.root import root_child

from .searching import joint_of, mover_of, search_at

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


def test_tree_reuse_keeps_the_subtree(tictactoe):
    machine = tictactoe
    state = machine.initial_state()
    search = search_at(machine, 0, state)
    search.search(3000)
    move = search.best_move()
    joint = joint_of(machine, state, 0, move)
    A = search.arena
    root = int(A.counters[C_ROOT])
    child_edges = [e for e in range(A.node_edges[root, 0], A.node_edges[root, 1]) if A.edge_code[e] == machine.move_codes.get(0, move)]
    visits = int(A.edge_n[child_edges[0]])
    root_visits = int(A.node_visits[root])
    assert search.stats()["tree_kept"] is None  # no root change yet
    state = machine.next_state(state, joint)
    search.advance(joint, state)
    kept = int(A.node_visits[A.counters[C_ROOT]])
    assert kept >= visits - 1 > 0
    stats = search.stats()
    assert stats["iterations"] == 0
    # the share of the search the move left standing, in the stats and the move's log line
    assert stats["tree_kept"] == pytest.approx(kept / root_visits, abs=1e-4)
    assert 0 < stats["tree_kept"] < 1
    assert f"kept={stats['tree_kept']}" in answer_summary(stats)


def test_garbage_collection_keeps_what_the_root_reaches(tictactoe):
    machine = tictactoe
    state = machine.initial_state()
    search = search_at(machine, 0, state)
    search.search(3000)
    A = search.arena
    before = int(A.counters[C_NODES])
    joint = joint_of(machine, state, 0, search.best_move())
    state = machine.next_state(state, joint)
    search.advance(joint, state)
    visits = int(A.node_visits[A.counters[C_ROOT]])
    search.collect_now(state)
    assert int(A.counters[C_NODES]) < before
    assert int(A.node_visits[A.counters[C_ROOT]]) == visits
    # the collected tree is consistent: searching on and asking for moves works
    search.search(2000)
    assert search.best_move() in machine.legal_moves(state, 0) or mover_of(machine, state) != 0


def test_a_root_that_does_not_offer_our_legal_moves_is_replaced(tictactoe, caplog):
    """A tree whose new root lists moves other than our legal ones (a
    corrupted node) is not trusted: the search starts afresh at the state and
    says so, instead of proposing a move that is not legal."""
    machine = tictactoe
    state = machine.initial_state()
    search = search_at(machine, 0, state)
    search.search(3000)
    A = search.arena
    def child_of(move):
        joint = joint_of(machine, state, 0, move)
        codes = np.asarray([search._runner.code_of(r, m) for r, m in enumerate(joint)], dtype=np.int32)
        return joint, codes, int(root_child(A, codes))

    # a move whose child the search has expanded (which ones depends on the seed)
    joint, codes, child = max((child_of(move) for move in machine.legal_moves(state, 0)),
                              key=lambda found: found[2] >= 0 and bool(A.node_flags[found[2]] & EXPANDED))
    assert child >= 0 and A.node_flags[child] & EXPANDED
    ours = int(A.node_edges[child, 0])
    A.edge_code[ours] = codes[0]  # our only move there (noop) now reads as a mark
    state = machine.next_state(state, joint)
    with caplog.at_level("ERROR"):
        search.advance(joint, state, legal_moves=tuple(machine.legal_moves(state, 0)))
    assert "starting a fresh tree" in caplog.text
    search.search(500)
    assert search.best_move() in machine.legal_moves(state, 0)
