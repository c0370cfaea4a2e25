"""Fitted priors: the bias of MCPS's priors measured in the tree, and the weight it gives them."""

from __future__ import annotations

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.driver.prior_fitting import MIN_SAMPLES, PriorFitting, fitted_prior_bias
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.tree.arena import C_NODES, Capacity, new_arena
from ggp_agent.search.tree.params import P_PRIOR_BIAS
from ggp_agent.search.tree.prior_fit import ERR_SAMPLES, ERR_SIZE, ERR_SQUARED, ERR_VARIANCE, prior_error

from ..helpers import GAMES, give_edges

pytestmark = pytest.mark.usefixtures("compiled_kernels")


def _arena_with_one_node(edge_stats, amaf_stats):
    """Node 0, 200 visits, role 0 chooses among codes 0..3 (role 1 has one move,
    code 4); its own AMAF table holds `amaf_stats` (n, w) per code."""
    capacity = Capacity(nodes=4, edges=16, amaf_tables=2, perm_tables=2, transitions=4,
                        codes=5, window=128, max_depth=4, max_rollout=4)
    A = new_arena(capacity, n_roles=2, n_words=1, code_role=np.array([0, 0, 0, 0, 1], dtype=np.int32))
    A.counters[C_NODES] = 1
    give_edges(A, 0, [[0, 1, 2, 3], [4]])
    A.node_visits[0] = 200
    A.node_amaf[0] = 0
    A.node_perm[0] = -1
    for e, (n, w) in enumerate(edge_stats):
        A.edge_n[e] = n
        A.edge_w[e] = w
    for code, (n, w) in enumerate(amaf_stats):
        A.amaf_n[0, code] = n
        A.amaf_w[0, code] = w
    return A


def test_the_error_is_the_squared_gap_less_the_sampling_variance():
    # edge 0: Q 0.7 over 100; its code's other playouts: 1,000 at 0.3
    # edge 1: 10 visits, too few to measure; edges 2, 3: no prior beyond their own playouts
    A = _arena_with_one_node([(100, 70.0), (10, 5.0), (50, 25.0), (60, 30.0)],
                             [(1100, 370.0), (500, 250.0), (50, 25.0), (60, 30.0), (0, 0.0)])
    out = np.zeros(ERR_SIZE)
    prior_error(A, 100, 20, out)
    variance = 0.7 * 0.3
    assert out[ERR_SAMPLES] == 1
    assert out[ERR_SQUARED] == pytest.approx(0.4 ** 2 - variance * (1 / 100 + 1 / 1000))
    assert out[ERR_VARIANCE] == pytest.approx(variance)
    out[:] = 0
    prior_error(A, 201, 20, out)  # the node is not visited enough
    assert out[ERR_SAMPLES] == 0


def test_priors_that_agree_keep_their_weight_and_biased_ones_lose_it():
    sums = np.zeros(ERR_SIZE)
    sums[ERR_SAMPLES] = MIN_SAMPLES - 1
    assert fitted_prior_bias(sums) is None  # too few edges measured
    sums[ERR_SAMPLES] = 100
    sums[ERR_VARIANCE] = 25.0   # a playout's variance 0.25
    sums[ERR_SQUARED] = -0.5    # errors no larger than sampling noise: unbiased
    assert fitted_prior_bias(sums) == 0.0
    sums[ERR_SQUARED] = 0.25    # b^2 = 0.0025: bias 0.05
    assert fitted_prior_bias(sums) == pytest.approx(0.01)  # worth at most 100 playouts


def test_a_fitted_search_writes_the_weight_its_tree_measures():
    machine = make_state_machine("propnet", load_game(GAMES / "connectfour.kif"))
    try:
        search = make_tree_search("mcps", machine, 0, seed=2, options={"priors": "fitted"})
        search.prepare(machine.initial_state())
        assert search._packed[P_PRIOR_BIAS] == 0.0  # the published weight to begin with
        fitting = search._fitting
        assert isinstance(fitting, PriorFitting)
        fitting.every = 0.0  # a scan after every batch
        search.search(40_000)
        assert fitting.fitted is not None and fitting.fitted > 0.0
        assert search._packed[P_PRIOR_BIAS] == fitting.fitted
        assert "prior_bias_fitted" in search.stats()
    finally:
        machine.close()
