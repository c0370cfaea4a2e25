"""MCPS's permutation window (Algorithm 2's counts) and the picks it lets stand between freezes."""

from __future__ import annotations

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.tree import mcps
from ggp_agent.search.tree.arena import C_NODES, C_ROOT, PENDING, PROVEN, Capacity, new_arena
from ggp_agent.search.tree.params import MCPS_PICK_REFRESH, P_PICK_REFRESH, SearchParams
from ggp_agent.search.tree.select import PICK_STAND_MAX, _let_stand, _standing_pick

from ..helpers import GAMES, give_edges
from .searching import joint_of, mover_of, search_at

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


def test_window_freeze_matches_a_direct_count():
    """Algorithm 2 on a hand-made window: n̂ and Q̂ for a path (a0) are the counts
    and mean outcomes of the playouts containing a0 and each code."""
    params = SearchParams(rule="mcps", window=128)
    P = params.pack()
    capacity = Capacity(nodes=16, edges=64, amaf_tables=4, perm_tables=4, transitions=16,
                        codes=4, window=128, max_depth=4, max_rollout=4)
    A = new_arena(capacity, n_roles=2, n_words=1, code_role=np.array([0, 0, 1, 1], dtype=np.int32),
                  goal_values=[[0, 50, 100], [0, 50, 100]])
    rng = np.random.default_rng(5)
    playouts = []
    for _ in range(300):  # more than the window: old slots are overwritten
        codes = sorted(set(rng.choice(4, size=rng.integers(1, 4)).tolist()))
        goal0 = int(rng.choice([0, 50, 100]))
        goals = np.array([goal0, 100 - goal0], dtype=np.int32)
        A.seen[: len(codes)] = codes
        mcps.record_playout(A, P, len(codes), goals)
        playouts.append((codes, goals))
    A.path_code[0, 0] = 1
    A.path_code[0, 1] = ~3  # no choice: ignored
    give_edges(A, 5, [[0, 1], [2, 3]])
    assert mcps.freeze(A, P, 5, 1)
    table = A.node_perm[5]
    recent = playouts[-128:]
    for code in range(4):
        chosen = [g for codes, g in recent if 1 in codes and code in codes]
        assert A.perm_n[table, code] == len(chosen)
        if chosen:
            role = A.code_role[code]
            expected = sum(g[role] for g in chosen) / (100.0 * len(chosen))
            assert A.perm_q[table, code] == pytest.approx(expected, rel=1e-6)
        else:
            assert A.perm_q[table, code] == 1.0
    # the match played code 2: only playouts containing it stay valid
    mcps.restrict_window(A, P, np.array([2], dtype=np.int32), 1)
    give_edges(A, 6, [[0, 1], [2, 3]])
    assert mcps.freeze(A, P, 6, 0)
    kept = [g for codes, g in recent if 2 in codes]
    assert A.perm_n[A.node_perm[6], 0] == sum(1 for codes, _ in recent if 2 in codes and 0 in codes)
    assert len(kept) > 0


def test_a_freeze_counts_the_codes_of_the_node_and_its_children_only():
    """A frozen table serves the node's edges and, until they freeze their
    own, its children's: those codes get their counts, a code met in neither
    gets none (the freeze's cost is per code it counts)."""
    P = SearchParams(rule="mcps", window=128).pack()
    capacity = Capacity(nodes=16, edges=64, amaf_tables=4, perm_tables=4, transitions=16,
                        codes=4, window=128, max_depth=4, max_rollout=4)
    A = new_arena(capacity, n_roles=2, n_words=1, code_role=np.array([0, 0, 1, 1], dtype=np.int32),
                  goal_values=[[0, 100], [0, 100]])
    A.seen[:4] = [0, 1, 2, 3]
    for _ in range(10):  # every playout holds every code
        mcps.record_playout(A, P, 4, np.array([100, 0], dtype=np.int32))
    give_edges(A, 5, [[0], [3]])  # at node 5 role 0 plays code 0 (role 1 has no choice)
    give_edges(A, 6, [[0], [2]])  # its child: role 1 plays code 2
    A.edge_child[A.node_edges[5, 0]] = 6
    give_edges(A, 7, [[1], [3]])  # not a child of node 5
    assert mcps.freeze(A, P, 5, 0)
    counts = A.perm_n[A.node_perm[5]].tolist()
    assert counts == [10, 0, 10, 10]  # code 1 is only at node 7
    assert A.perm_q[A.node_perm[5], 0] == 1.0 and A.perm_q[A.node_perm[5], 2] == 0.0


def _standing_codes(A) -> dict:
    """{state hash: the move code of the node's standing pick}, asserting that
    every standing pick is an edge of its own node."""
    codes = {}
    for node in range(int(A.counters[C_NODES])):
        if A.node_pick_until[node] > 0:
            pick = int(A.node_pick[node])
            roles = A.node_edges.shape[1] - 1
            assert any(A.node_edges[node, r] <= pick < A.node_edges[node, r + 1] for r in range(roles))
            codes[int(A.node_hash[node])] = int(A.edge_code[pick])
    return codes


def test_standing_picks_stay_on_their_own_nodes_edges_through_moves_and_collections():
    """None stands across a root change (the permutation window changes with
    it); a collection, which slides nodes and edges down, moves each with its
    node: it still names one of its node's own edges, the move it chose."""
    machine = make_state_machine("propnet", load_game(GAMES / "breakthrough_6x6.kif"))
    state = machine.initial_state()
    search = make_tree_search("mcps", machine, 0, seed=0, memory_cap=256 << 20, options={"pick_refresh": 0.1})
    search.prepare(state)
    A = search.arena
    for ply in range(4):
        search.search(20_000)
        assert len(_standing_codes(A)) > 0
        role = mover_of(machine, state)
        joint = joint_of(machine, state, role, machine.legal_moves(state, role)[0])
        state = machine.next_state(state, joint)
        search.advance(joint, state)
        assert _standing_codes(A) == {}
        search.search(5_000)
        before = _standing_codes(A)
        nodes = int(A.counters[C_NODES])
        search.collect_now(state)
        assert int(A.counters[C_NODES]) < nodes
        after = _standing_codes(A)
        assert after and all(before.get(h) == code for h, code in after.items())


def test_a_standing_pick_holds_for_its_share_of_visits_and_at_most_sixteen_passes():
    """The pick stands while its edge's visits (a lane's virtual loss counts
    as one) stay below what they were plus `pick_refresh` of the node's
    visits, at most PICK_STAND_MAX: lanes out at once cannot all pile onto
    it. A proven child or one a lane computes ends it at once."""
    machine = make_state_machine("propnet", load_game(GAMES / "breakthrough_6x6.kif"))
    search = search_at(machine, 0, machine.initial_state())
    search.search(3000)
    A, P = search.arena, search._packed
    root = int(A.counters[C_ROOT])
    e = int(A.node_edges[root, 0])
    for visits, passes in ((50, 5), (100_000, PICK_STAND_MAX), (10, 0)):
        A.node_pick_until[root] = 0
        _let_stand(A, P, root, e, visits)
        stood = 0
        while _standing_pick(A, root) == e:
            A.edge_n[e] += 1
            stood += 1
        assert stood == passes
        A.edge_n[e] -= stood
    _let_stand(A, P, root, e, 100_000)
    child = int(A.edge_child[e])
    assert child >= 0 and _standing_pick(A, root) == e
    flags = int(A.node_flags[child])
    A.node_flags[child] = flags | PROVEN
    assert _standing_pick(A, root) == -1
    A.node_flags[child] = flags
    A.edge_child[e] = PENDING
    assert _standing_pick(A, root) == -1
    A.edge_child[e] = child


def test_mcps_lets_picks_stand_unless_told_and_the_baselines_scan_every_time():
    assert SearchParams().pack()[P_PICK_REFRESH] == MCPS_PICK_REFRESH > 0
    for rule in ("uct", "grave"):
        assert SearchParams(rule=rule).pack()[P_PICK_REFRESH] == 0
    assert SearchParams().with_options({"pick_refresh": "0"}).pack()[P_PICK_REFRESH] == 0
    with pytest.raises(ValueError):
        SearchParams().with_options({"pick_refresh": "2"})
