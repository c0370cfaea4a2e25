"""Recursion without fixpoint sweeps, and the sparse pass after the moves: the lanes'
evaluation agrees with the one-state kernels and with the dense pass."""

import numpy as np
import pytest

from ggp_agent.gdl import load_game
from ggp_agent.propnet import lane_gates, lane_kernels, state_kernels
from ggp_agent.propnet.arrays import new_lanes, new_rng, new_work
from ggp_agent.propnet.machine import PropnetStateMachine
from ggp_agent.propnet.sparse_plan import plan_sparse

from ..helpers import GAMES, REACH

pytestmark = pytest.mark.usefixtures("compiled_kernels")


@pytest.fixture(scope="module")
def machines():
    return {name: PropnetStateMachine(load_game(path)) for name, path in
            [("nogo", GAMES / "nogo_5x5.kif"), ("hex", GAMES / "hex_5x5.kif"), ("reach", REACH),
             ("breakthrough", GAMES / "breakthrough_6x6.kif")]}


def random_states(machine, n, seed, depth=20):
    """n states reached by random moves (the one-state kernels)."""
    net = machine.net
    work = new_work(net)
    rng = new_rng(seed)
    codes = np.zeros((depth, net.n_roles), dtype=np.int32)
    states = []
    for k in range(n):
        state_kernels.load_state(net, work, net.init_words)
        state_kernels.random_playout(net, work, rng, k % depth, codes)
        states.append(state_kernels.current_state(work).copy())
    return states


def test_parallel_components_are_found_from_the_rules(machines):
    """NoGo's liberty code grounds to one component per (bit, value), all of one
    shape: they form one group. Hex's two players' paths read different cells."""
    nogo, hex_net = machines["nogo"].net, machines["hex"].net
    assert len(nogo.scc_lo) >= 2 and len(nogo.group_lead) == 1
    assert nogo.group_size[0] == len(nogo.scc_lo)
    assert (nogo.scc_group == 0).all()
    assert len(hex_net.scc_lo) == 2 and len(hex_net.group_lead) == 0


@pytest.mark.parametrize("game", ["nogo", "hex", "reach"])
def test_lane_components_agree_with_change_propagation(game, machines):
    """256 different states in the lanes, every gate before the moves evaluated by
    the lanes' worklists (groups, hops past relay ANDs), equals what change
    propagation (the incremental update) finds for each state alone."""
    machine = machines[game]
    net = machine.net
    lanes = new_lanes(net)
    states = random_states(machine, 256, seed=7)
    for lane, words in enumerate(states):
        lane_kernels.load_lane(net, lanes.value, lane, words)
    lane_gates.lane_forward(net, lanes, net.first_gate, net.split)
    work = new_work(net)
    members = np.flatnonzero(net.scc[: net.split] >= 0)
    assert len(members) > 0 and lanes.value[members].any()  # components true in some lanes
    for lane in range(0, 256, 5):
        state_kernels.load_state(net, work, states[lane])
        bits = (lanes.value[: net.split, lane >> 6] >> np.uint64(lane & 63)) & np.uint64(1)
        assert (bits[net.first_gate:] == work.value[net.first_gate: net.split]).all(), lane


def test_sparse_pass_plays_the_same_playouts_as_the_dense_pass(machines):
    """The sparse pass after the moves (forced on a small network) gives the lanes
    the same next states: the same random numbers make the same playouts."""
    machine = machines["breakthrough"]
    dense = machine.net
    sparse = dense._replace(**plan_sparse(dense, new_lanes(dense), new_rng(3), min_gates=0, share=1.0))
    assert sparse.post_sparse == 1 and dense.post_sparse == 0
    n, steps = 300, 200
    starts = np.array(random_states(machine, n, seed=5), dtype=np.uint64)
    results = []
    for net in (dense, sparse):
        codes = np.zeros((n, steps, net.n_roles), dtype=np.int32)
        lengths = np.zeros(n, dtype=np.int32)
        goals = np.zeros((n, net.n_roles), dtype=np.int32)
        lane_kernels.lane_playouts(net, new_lanes(net), starts, n, new_rng(11), steps, codes, lengths, goals)
        results.append((codes, lengths, goals))
    assert (results[0][1] == results[1][1]).all()
    assert (results[0][0] == results[1][0]).all() and (results[0][2] == results[1][2]).all()
