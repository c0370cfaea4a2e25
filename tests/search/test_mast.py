"""MAST playouts (`playout=mast`): the lanes play each role's best-ranked legal
move in a share of lanes, and the ranking is the search's own move averages."""

from __future__ import annotations

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.propnet.network.arrays import new_lanes, new_rng
from ggp_agent.propnet.kernels.lane_gates import LANES, WORDS, lane_forward
from ggp_agent.propnet.kernels.lane_kernels import choose_moves, clear_inputs, load_lane, prefer_moves
from ggp_agent.search.tree.mast import mast_rank
from ggp_agent.search.registry import make_tree_search

from ..helpers import GAMES

pytestmark = pytest.mark.usefixtures("compiled_kernels")

ALL = np.full(WORDS, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)


@pytest.fixture(scope="module")
def tictactoe():
    machine = make_state_machine("propnet", load_game(GAMES / "tictactoe.kif"))
    yield machine
    machine.close()


def _chosen_at_start(net, sixteenths, order, seed=3):
    """Every lane at the initial state, a random move per role, then the
    preference pass; the lanes and the random choices before the pass."""
    lanes = new_lanes(net)
    for lane in range(LANES):
        load_lane(net, lanes.value, lane, net.init_words)
    lane_forward(net, lanes, net.first_gate, net.split)
    clear_inputs(net, lanes)
    rng = new_rng(seed)
    choose_moves(net, lanes, rng, ALL)
    drawn = lanes.role_choice.copy()
    prefer_moves(net, lanes, rng, ALL, order, sixteenths)
    return lanes, drawn


def _input_codes(net, lanes, lane):
    """The move codes whose input proposition is set in `lane`."""
    base = 1 + net.n_fluents
    k, bit = lane >> 6, np.uint64(1) << np.uint64(lane & 63)
    return [c for c in range(net.n_codes) if lanes.value[base + c, k] & bit]


def _reversed_order(net):
    """Each role's codes, last first: a ranking unlike the code numbering."""
    order = np.zeros(net.n_codes, dtype=np.int32)
    for r in range(net.n_roles):
        lo, hi = net.role_lo[r], net.role_lo[r + 1]
        order[lo:hi] = np.arange(hi - 1, lo - 1, -1)
    return order


def test_every_lane_plays_its_first_ranked_legal_move_when_all_are_greedy(tictactoe):
    net = tictactoe.net
    order = _reversed_order(net)
    lanes, _ = _chosen_at_start(net, 16, order)
    legal = [set(tictactoe.legal_codes(tictactoe.initial_state(), r)) for r in range(net.n_roles)]
    mover = next(r for r in range(net.n_roles) if len(legal[r]) > 1)
    best = next(c for c in order[net.role_lo[mover]:net.role_lo[mover + 1]] if c in legal[mover])
    for lane in range(LANES):
        assert lanes.role_choice[mover, lane] == best
        chosen = _input_codes(net, lanes, lane)
        # one input per role: the preferred move replaced the drawn one
        assert len(chosen) == net.n_roles and best in chosen


def test_no_lane_changes_its_draw_when_none_is_greedy(tictactoe):
    net = tictactoe.net
    lanes, drawn = _chosen_at_start(net, 0, _reversed_order(net))
    assert (lanes.role_choice == drawn).all()


def test_half_the_lanes_take_the_ranked_move_at_eight_sixteenths(tictactoe):
    net = tictactoe.net
    order = _reversed_order(net)
    lanes, drawn = _chosen_at_start(net, 8, order)
    mover = int(np.argmax([len(set(lanes.role_choice[r])) for r in range(net.n_roles)]))
    best = lanes.role_choice[mover][np.bincount(lanes.role_choice[mover]).argmax()]
    share = float(np.mean(lanes.role_choice[mover] == best))
    # a half greedy, plus the random half's 1 in 9
    assert 0.40 < share < 0.72, share
    assert (lanes.role_choice[mover] != drawn[mover]).any()


def test_the_ranking_is_the_search_own_move_averages(tictactoe):
    search = make_tree_search("mcps", tictactoe, 0, seed=2, memory_cap=32 << 20,
                              options={"playout": "mast"})
    search.prepare(tictactoe.initial_state())
    search.search(3000)
    A, net = search.arena, tictactoe.net
    assert A.mast_n.sum() > 3000
    # ranked at the start of each lane call: rank the averages as they stand
    mast_rank(A, net.role_lo, new_rng(1))
    for r in range(net.n_roles):
        lo, hi = net.role_lo[r], net.role_lo[r + 1]
        ranked = A.mast_order[lo:hi]
        assert sorted(ranked) == list(range(lo, hi))
        means = [A.mast_w[c] / A.mast_n[c] if A.mast_n[c] else 1.0 for c in ranked]
        assert all(a >= b - 1e-6 for a, b in zip(means, means[1:]))
    # noop never carries a choice in tic-tac-toe, so it is never counted
    for c in range(net.n_codes):
        if str(tictactoe.move_codes.move_of(c)) == "noop":
            assert A.mast_n[c] == 0


def test_a_mast_search_still_plays_only_legal_moves(tictactoe):
    search = make_tree_search("mcps", tictactoe, 0, seed=4, memory_cap=32 << 20,
                              options={"playout": "mast", "mast_epsilon": 0.0})
    search.prepare(tictactoe.initial_state())
    search.search(2000)
    assert search.best_move() in tictactoe.legal_moves(tictactoe.initial_state(), 0)
