"""Recursion without fixpoint sweeps, and the sparse pass after the moves: the lanes'
evaluation agrees with the one-state kernels and with the dense pass."""

import numpy as np
import pytest

from ggp_agent.gdl import load_game
from ggp_agent.propnet.kernels import lane_gates, lane_kernels, state_kernels
from ggp_agent.propnet.network.arrays import new_lanes, new_rng, new_work
from ggp_agent.propnet.machine.state_machine import PropnetStateMachine
from ggp_agent.propnet.network.sparse_plan import FIRED, MARKED, MARKED_COST, gate_roles, planned, sampled_density

from ..helpers import GAMES, JOIN, REACH

pytestmark = pytest.mark.usefixtures("compiled_kernels")


@pytest.fixture(scope="module")
def machines():
    return {name: PropnetStateMachine(load_game(path)) for name, path in
            [("nogo", GAMES / "nogo_5x5.kif"), ("hex", GAMES / "hex_5x5.kif"), ("reach", REACH),
             ("breakthrough", GAMES / "breakthrough_6x6.kif"), ("join", JOIN)]}


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


@pytest.mark.parametrize("game", ["breakthrough", "nogo", "hex", "reach", "join"])
def test_sparse_pass_plays_the_same_playouts_as_the_dense_pass(game, machines):
    """The sparse pass after the moves (forced on a small network, which it
    renumbers so that the gates a node fires or marks sit together) gives the
    lanes the same next states: the same random numbers make the same
    playouts."""
    machine = machines[game]
    dense = machine.net
    network, sparse = planned(machine.network, min_gates=0, share=1.0)
    assert sparse.post_sparse == 1 and dense.post_sparse == 0
    assert network.n_nodes == machine.network.n_nodes and network.fluents == machine.network.fluents
    assert len(sparse.fire_node) + len(sparse.trig_node) > 0
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


def test_the_sparse_plan_fires_joins_from_the_gate_after_the_moves(machines):
    """An AND whose inputs all come before the moves is fired; an AND of such
    inputs and one gate after the moves (AtariGo's relabelling join, here
    JOIN's `next (group ?x ?g2)`) is fired from that gate when the gate is
    seen no more often than the rest, even where a fluent is less dense."""
    joins = early = 0
    for machine in machines.values():
        net = machine.net
        density, seen = sampled_density(net, 3)
        role = np.zeros(net.n_nodes, dtype=np.int64)
        trigger = np.full(net.n_nodes, -1, dtype=np.int64)
        gate_roles(net.split, net.kind, net.scc, net.scc_lo, net.in_ptr, net.in_lit, density, seen, MARKED_COST,
                   role, trigger)
        for g in range(net.split, net.n_nodes):
            lits = net.in_lit[net.in_ptr[g]: net.in_ptr[g + 1]]
            nodes, late = lits >> 1, lits[(lits >> 1) >= net.split]
            if net.kind[g] != 1 or net.scc[g] >= 0 or (lits & 1).all():
                continue
            if len(late) == 0:
                assert role[g] == FIRED and trigger[g] in nodes
                early += 1
            elif len(late) == 1 and late[0] & 1 == 0 and seen[late[0] >> 1] <= seen[nodes].min():
                assert (role[g], trigger[g]) == (FIRED, late[0] >> 1)
                joins += 1
    assert joins > 0 and early > 0
