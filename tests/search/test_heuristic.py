"""A heuristic found at START (`choices/heuristic_choice.py`) and used in the tree (`tree/heuristic.py`).

Breakthrough's pieces can be lost and their count goes with the outcome:
material is found, a set for each side. Hex's stones are never lost and
their count changes every turn: nothing is found, and the search plays as
without a heuristic. In the tree the heuristic's implicit minimax makes a
capture visible as soon as its child is computed; a playout cut at
`cutoff` scores an outcome drawn from the heuristic.
"""

from __future__ import annotations

import numpy as np
import pytest

from ggp_agent.propnet.network.arrays import new_rng, new_work
from ggp_agent.search.choices.heuristic_choice import MIN_CORRELATION, find_heuristic, sample
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.tree.arena import C_CUTOFFS, C_HEUR_SETS, C_NODES, C_ROOT, C_ROLLOUT_STEPS, C_ROLLOUTS
from ggp_agent.search.tree.heuristic import state_value

pytestmark = pytest.mark.usefixtures("compiled_kernels")

#: Settings the START would decide, fixed so that the tests do not depend on the clock.
FIXED = {"codes": "moves", "priors": "capped"}


def _found(machine):
    samples = sample(machine.net, new_work(machine.net), new_rng(1), machine.state_words(machine.initial_state()),
                     seconds=5.0)
    return find_heuristic(machine.network.fluents, machine.game.rules, len(machine.roles), *samples)


def test_breakthrough_has_material_for_each_side(machines):
    machine = machines("breakthrough_6x6.kif")
    found = _found(machine)
    assert found.found and found.playouts >= 100
    kept = {pieces.name: role for pieces, role, _ in found.sets}
    assert kept == {"(cell ... white)": 0, "(cell ... black)": 1}
    for candidate in found.candidates:
        assert candidate.correlations[candidate.role] >= MIN_CORRELATION
    assert found.reason.startswith("material")


@pytest.mark.parametrize("game", ["hex_5x5.kif", "connectfour.kif", "tictactoe.kif"])
def test_placement_games_have_no_material(machines, game):
    """Stones, discs and marks are never lost, and their counts change every turn."""
    found = _found(machines(game))
    assert not found.found
    assert found.candidates == () or all(c.role < 0 for c in found.candidates)


@pytest.mark.parametrize("game, heuristic", [("breakthrough_6x6.kif", "on"), ("hex_5x5.kif", "off")])
def test_auto_uses_a_heuristic_where_one_is_found(machines, game, heuristic):
    machine = machines(game)
    search = make_tree_search("mcps", machine, 0, seed=1, start_seconds=20)
    search.prepare(machine.initial_state())
    stats = search.stats()
    assert stats["heuristic"] == heuristic
    assert stats["heuristic_reason"].startswith("material") == (heuristic == "on")
    assert int(search.arena.counters[C_HEUR_SETS]) == (2 if heuristic == "on" else 0)


def test_a_state_is_worth_its_material_lead(machines):
    """White one pawn up: worth more than a half to white, as much less to black."""
    machine = machines("breakthrough_6x6.kif")
    search = make_tree_search("mcps", machine, 0, seed=1, options={**FIXED, "heuristic": "on"}, start_seconds=20)
    state = machine.initial_state()
    search.prepare(state)
    A = search.arena
    words = machine.state_words(state).copy()
    goals = np.zeros(2, dtype=np.int32)
    assert state_value(A, words, goals, 0) == pytest.approx(0.5)
    black = [i for i, f in enumerate(machine.network.fluents) if str(f) == "(cell a6 black)"][0]
    words[black >> 6] &= ~np.uint64(1 << (black & 63))
    white, black_value = state_value(A, words, goals, 0), state_value(A, words, goals, 1)
    assert white > 0.55 and white + black_value == pytest.approx(1.0)


#: Breakthrough 6x6, white to move, with six captures among its moves.
CAPTURES_AVAILABLE = [
    "(move b2 c3)", "(move f5 f4)", "(move e2 d3)", "(move c5 d4)", "(move a2 a3)", "(move f4 e3)",
    "(move a3 b4)", "(move a5 a4)", "(move a1 a2)", "(move e6 f5)", "(move b1 b2)", "(move d6 c5)",
    "(move f2 f3)", "(move a4 a3)", "(move d2 e3)", "(move e5 e4)",
]


def _play(machine, moves):
    state = machine.initial_state()
    for index, text in enumerate(moves):
        mover = index % 2
        joint = [next(m for m in machine.legal_moves(state, r) if str(m) == text) if r == mover
                 else machine.legal_moves(state, r)[0] for r in (0, 1)]
        state = machine.next_state(state, joint)
    return state


def test_the_minimax_steers_selection(machines):
    """A child the heuristic's minimax rates a sure win draws the next
    descent where the rule alone would not go (minimax 0: the rule's choice)."""
    from dataclasses import replace

    from ggp_agent.propnet.network.arrays import new_rng
    from ggp_agent.search.tree.select import choose_edge

    machine = machines("breakthrough_6x6.kif")
    search = make_tree_search("mcps", machine, 0, seed=5, options={**FIXED, "heuristic": "on", "pick_refresh": 0},
                              start_seconds=20)
    search.prepare(_play(machine, CAPTURES_AVAILABLE))
    search.search(600)
    search._runner.forget_inflight(search.arena)
    A = search.arena
    root = int(A.counters[C_ROOT])
    lo, hi = int(A.node_edges[root, 0]), int(A.node_edges[root, 1])
    with_child = [e for e in range(lo, hi) if A.edge_child[e] >= 0]
    rule = search.params.pack()
    plain = replace(search.params, minimax=0.0).pack()
    chosen_by_rule = int(choose_edge(A, plain, root, 0, root, -1, new_rng(1), True))
    other = next(e for e in with_child if e != chosen_by_rule)
    A.node_mm[int(A.edge_child[other]), 0] = 1.0  # as if the tree below proved it wins on material
    A.node_mm[int(A.edge_child[other]), 1] = 0.0
    assert int(choose_edge(A, plain, root, 0, root, -1, new_rng(1), True)) == chosen_by_rule
    assert int(choose_edge(A, rule, root, 0, root, -1, new_rng(1), True)) == other


def test_the_minimax_of_a_node_is_its_best_child_for_the_chooser(machines):
    machine = machines("breakthrough_6x6.kif")
    search = make_tree_search("mcps", machine, 0, seed=4, options={**FIXED, "heuristic": "on"}, batch=1,
                              start_seconds=20)
    search.prepare(_play(machine, CAPTURES_AVAILABLE))
    search.search(2000)
    A = search.arena
    root = int(A.counters[C_ROOT])
    lo, hi = int(A.node_edges[root, 0]), int(A.node_edges[root, 1])
    values = [float(A.node_mm[c, 0]) for c in A.edge_child[lo:hi] if c >= 0]
    assert values
    missing = any(c < 0 for c in A.edge_child[lo:hi])
    expected = max(values + ([float(A.node_h[root, 0])] if missing else []))
    assert float(A.node_mm[root, 0]) == pytest.approx(expected)
    assert int(A.counters[C_NODES]) > 100


@pytest.mark.parametrize("heuristic", ["on", "off"])
def test_playouts_are_cut_and_scored_by_the_heuristic(machines, heuristic):
    machine = machines("breakthrough_6x6.kif")
    search = make_tree_search("mcps", machine, 0, seed=2,
                              options={**FIXED, "heuristic": heuristic, "cutoff": 4}, start_seconds=20)
    search.prepare(machine.initial_state())
    search.search(3000)
    A = search.arena
    cut = int(A.counters[C_CUTOFFS])
    mean_playout = int(A.counters[C_ROLLOUT_STEPS]) / max(1, int(A.counters[C_ROLLOUTS]))
    if heuristic == "on":
        assert cut > 1000 and mean_playout <= 4.0
    else:
        assert cut == 0 and mean_playout > 10
