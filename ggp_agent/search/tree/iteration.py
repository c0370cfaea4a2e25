"""The tree logic over the arena: one iteration's descent, expansion and backup. Engine-free.

Why engine-free: the same numba code must serve a game with a propnet (the
fused batch kernel in `kernels.py` calls these functions between propnet
steps) and a game that fell back to Prolog (`runners/serial.MachineRunner` calls them
from Python between Prolog queries). So the tree never computes a state itself. A
descent stops and says what it needs:

- `NEED_EXPAND`: the node at the end of the path has no edges yet; the caller
  puts every role's legal codes in `A.legal`/`A.legal_count` and calls `expand`.
- `NEED_CHILD`: the joint move in `A.path_move[depth]` leads to a state the
  tree does not link yet; the caller computes it and calls `attach_child`
  (which finds it in the transposition table or adds it).
- `AT_END`: the path ends in a terminal or proven node (its goals are exact).
- `AT_CAP`: the path reached the depth cap; the caller plays out from there.

Then the caller plays a random playout (codes in `A.rollout`, goal values in
`A.goals`) and calls `backup`.

The tree is a graph of states (transpositions merge; paths are kept per
iteration in `A.path_node`). Edges are per role: at every node each role picks
its own move (decoupled selection, as CadiaPlayer does), and a role with one
legal move has no choice to make. Where one role chooses, its edges point to
the children; where several do, the children hang in the transitions table
under (node, joint move).
"""

from __future__ import annotations

from ...propnet.jit.decorators import kernel
from .arena import (
    C_AMAF, C_AMAF_REF, C_CODES, C_EDGES, C_FORCE_EDGE, C_FULL, C_ITERATIONS, C_LEAF_DEPTH, C_LEAVES,
    C_MAX_DEPTH, C_PATH, C_PERM_REF, C_ROLLOUT_STEPS, C_ROLLOUTS, C_ROOT, C_STAMP, EXPANDED, PROVEN, TERMINAL,
)
from .mast import mast_record
from .mcps import freeze, record_playout
from .params import (P_AMAF_ALLOC, P_AMAF_HORIZON, P_MAX_DEPTH, P_PLAYOUT, P_RHO, P_RULE, P_SIM, P_SOLVER,
                     PLAYOUT_MAST, RULE_MCPS, RULE_UCT, SIM_RM)
from .regret import regret_backup
from .select import choose_edge
from .solver import try_prove
from .table import choosers, find_child, link_child, new_node, note_code, tt_find

NEED_EXPAND = 0
NEED_CHILD = 1
AT_END = 2
AT_CAP = 3


@kernel
def expand(A, node):
    """Give `node` its edges from A.legal / A.legal_count (each role's legal codes,
    role after role). Returns 1, 0 when the edge pool is full, -1 when a role has
    no legal move (a broken game: the caller treats the node as a dead end)."""
    roles = A.legal_count.shape[0]
    total = 0
    for r in range(roles):
        if A.legal_count[r] <= 0:
            return -1
        total += A.legal_count[r]
    first = A.counters[C_EDGES]
    if first + total > A.edge_code.shape[0]:
        A.counters[C_FULL] += 1
        return 0
    A.counters[C_EDGES] = first + total
    e = first
    k = 0
    for r in range(roles):
        A.node_edges[node, r] = e
        for _ in range(A.legal_count[r]):
            A.edge_code[e] = A.legal[k]
            A.edge_feat[e] = A.legal[k]
            A.edge_n[e] = 0
            A.edge_w[e] = 0.0
            A.edge_child[e] = -1
            if e < A.edge_regret.shape[0]:
                A.edge_regret[e] = 0.0
            e += 1
            k += 1
    A.node_edges[node, roles] = e
    A.node_flags[node] |= EXPANDED
    return 1


@kernel
def _amaf_table(A, node):
    """Give `node` an AMAF table (zeroed) if the pool has one left."""
    t = A.counters[C_AMAF]
    if t >= A.amaf_n.shape[0]:
        return -1
    A.counters[C_AMAF] = t + 1
    A.amaf_owner[t] = node
    A.node_amaf[node] = t
    for c in range(A.amaf_n.shape[1]):
        A.amaf_n[t, c] = 0
        A.amaf_w[t, c] = 0.0
    return t


@kernel
def set_root(A, P, node):
    """Make `node` the root (the root always gets an AMAF table when the rule uses one)."""
    A.counters[C_ROOT] = node
    if int(P[P_RULE]) != RULE_UCT and A.node_amaf[node] < 0:
        _amaf_table(A, node)


@kernel
def root_done(A, P):
    """True when searching the root can teach nothing (terminal, or proven and
    no root edge forced: an ensemble still learns the values of the other moves)."""
    flags = A.node_flags[A.counters[C_ROOT]]
    if flags & TERMINAL:
        return True
    return P[P_SOLVER] != 0.0 and (flags & PROVEN) != 0 and A.counters[C_FORCE_EDGE] < 0


@kernel
def begin_iteration(A):
    A.path_node[0] = A.counters[C_ROOT]
    A.counters[C_PATH] = 1
    A.counters[C_AMAF_REF] = -1
    A.counters[C_PERM_REF] = -1


@kernel
def descend(A, P, rng):
    """Follow the selection rule from the end of the path until the tree needs
    the engine or the path ends (see the module docstring); returns the status."""
    rule = int(P[P_RULE])
    rho = P[P_RHO]
    solver = P[P_SOLVER] != 0.0
    cap = min(int(P[P_MAX_DEPTH]), A.path_edge.shape[0])
    roles = A.node_edges.shape[1] - 1
    root = A.counters[C_ROOT]
    while True:
        depth = A.counters[C_PATH] - 1
        node = A.path_node[depth]
        flags = A.node_flags[node]
        proven_end = solver and (flags & PROVEN) != 0 and not (depth == 0 and A.counters[C_FORCE_EDGE] >= 0)
        if (flags & TERMINAL) != 0 or proven_end:
            return AT_END
        if (flags & EXPANDED) == 0:
            return NEED_EXPAND
        if depth >= cap:
            return AT_CAP
        if rule != RULE_UCT:
            visits = A.node_visits[node]
            if A.node_amaf[node] >= 0 and (node == root or visits >= rho):
                A.counters[C_AMAF_REF] = node
            if rule == RULE_MCPS and node != root and visits >= rho:
                if A.node_perm[node] < 0:
                    freeze(A, P, node, depth)
                if A.node_perm[node] >= 0:
                    A.counters[C_PERM_REF] = node
        many, key_role = choosers(A, node)
        amaf_ref = A.counters[C_AMAF_REF]
        perm_ref = A.counters[C_PERM_REF]
        forced = A.counters[C_FORCE_EDGE] if depth == 0 else -1
        for r in range(roles):
            if A.node_edges[node, r] <= forced < A.node_edges[node, r + 1]:
                e = forced  # an ensemble search tries this root move in every tree
            else:
                e = choose_edge(A, P, node, r, amaf_ref, perm_ref, rng, solver and many == 1 and r == key_role)
            A.path_edge[depth, r] = e
            A.path_move[depth, r] = A.edge_code[e]
            feature = A.edge_feat[e]
            if A.node_edges[node, r + 1] - A.node_edges[node, r] > 1:
                A.path_code[depth, r] = feature
            else:
                A.path_code[depth, r] = ~feature
        child = find_child(A, node, depth)
        if child < 0:
            return NEED_CHILD
        A.path_node[depth + 1] = child
        A.counters[C_PATH] = depth + 2


@kernel
def attach_child(A, h, check, words):
    """The state reached by the pending joint move (hashes and words): link it
    under the path's last node and step into it. Returns (child, is_new);
    child -1 when the node pool is full (the caller plays out without a node)."""
    depth = A.counters[C_PATH] - 1
    node = A.path_node[depth]
    child = tt_find(A, h, check, words)
    is_new = 0
    if child < 0:
        child = new_node(A, h, check, words)
        if child < 0:
            A.counters[C_FULL] += 1
            return -1, 0
        is_new = 1
    link_child(A, node, depth, child)
    A.path_node[depth + 1] = child
    A.counters[C_PATH] = depth + 2
    return child, is_new


@kernel
def _amaf_within(A, n_rollout, steps, length, horizon, n_codes):
    """AMAF with a horizon (`SearchParams.amaf_horizon`): node k gets the
    distinct codes played at steps k .. k + horizon - 1 only (the tree path,
    then the rollout), so that a move's prior speaks of its effect soon after
    the node rather than at any time in the game."""
    roles = A.node_edges.shape[1] - 1
    total = steps + n_rollout
    for k in range(length):
        t = A.node_amaf[A.path_node[k]]
        if t < 0:
            continue
        A.counters[C_STAMP] += 1
        stamp = A.counters[C_STAMP]
        seen = 0
        for step in range(k, min(k + horizon, total)):
            for r in range(roles):
                c = A.path_code[step, r] if step < steps else A.rollout[step - steps, r]
                seen = note_code(A.stamp, A.seen, c, n_codes, stamp, seen)
        _amaf_add(A, t, seen)


@kernel
def _amaf_add(A, t, seen):
    """AMAF table t counts the codes A.seen[:seen], each scored for its role."""
    for i in range(seen):
        c = A.seen[i]
        A.amaf_n[t, c] += 1
        role = A.code_role[c]
        if role >= 0:
            A.amaf_w[t, c] += A.reward[role]


@kernel
def backup(A, P, n_rollout, chosen_last, leaf_depth):
    """Back the playout up the path: A.goals (0..100 per role) is its outcome,
    A.rollout[:n_rollout] its random part; `chosen_last` is 1 when the path's
    last node chose a joint move whose child has no node (pool full);
    `leaf_depth` the depth of the new leaf or -1."""
    rule = int(P[P_RULE])
    roles = A.node_edges.shape[1] - 1
    length = A.counters[C_PATH]
    steps = length - 1 + chosen_last
    for r in range(roles):
        A.reward[r] = A.goals[r] / 100.0
    amaf_alloc = P[P_AMAF_ALLOC]
    for k in range(length):
        node = A.path_node[k]
        A.node_visits[node] += 1
        if rule != RULE_UCT and A.node_amaf[node] < 0 and A.node_visits[node] >= amaf_alloc:
            _amaf_table(A, node)
    for k in range(steps):
        for r in range(roles):
            e = A.path_edge[k, r]
            A.edge_n[e] += 1
            A.edge_w[e] += A.reward[r]
    if P[P_SIM] == SIM_RM:
        regret_backup(A, P, steps)
    if P[P_PLAYOUT] == PLAYOUT_MAST:
        mast_record(A, n_rollout, steps)
    if rule != RULE_UCT:
        # AMAF: node k gets every distinct code played from step k on (first
        # occurrence), scored for the code's role. Built from the end backwards.
        n_codes = min(A.counters[C_CODES], A.amaf_n.shape[1])
        horizon = int(P[P_AMAF_HORIZON])
        if horizon > 0:
            _amaf_within(A, n_rollout, steps, length, horizon, n_codes)
        A.counters[C_STAMP] += 1
        stamp = A.counters[C_STAMP]
        seen = 0
        for t in range(n_rollout - 1, -1, -1):
            for r in range(roles):
                seen = note_code(A.stamp, A.seen, A.rollout[t, r], n_codes, stamp, seen)
        for k in range(steps, -1, -1):
            if k < steps:
                for r in range(roles):
                    seen = note_code(A.stamp, A.seen, A.path_code[k, r], n_codes, stamp, seen)
            if k < length and horizon == 0:
                t = A.node_amaf[A.path_node[k]]
                if t >= 0:
                    _amaf_add(A, t, seen)
        if rule == RULE_MCPS:
            record_playout(A, P, seen, A.goals)
    A.counters[C_ITERATIONS] += 1
    if n_rollout > 0:
        A.counters[C_ROLLOUTS] += 1
        A.counters[C_ROLLOUT_STEPS] += n_rollout
    if leaf_depth >= 0:
        A.counters[C_LEAVES] += 1
        A.counters[C_LEAF_DEPTH] += leaf_depth
    if length - 1 > A.counters[C_MAX_DEPTH]:
        A.counters[C_MAX_DEPTH] = length - 1
    if P[P_SOLVER] != 0.0:
        k = length - 1
        while k >= 1 and (A.node_flags[A.path_node[k]] & PROVEN) != 0:
            if not try_prove(A, A.path_node[k - 1]):
                break
            k -= 1


@kernel
def reset_counters(A):
    """Zero the per-move figures (iterations, leaves, rollouts, depth)."""
    A.counters[C_ITERATIONS] = 0
    A.counters[C_LEAF_DEPTH] = 0
    A.counters[C_LEAVES] = 0
    A.counters[C_ROLLOUT_STEPS] = 0
    A.counters[C_ROLLOUTS] = 0
    A.counters[C_MAX_DEPTH] = 0
    A.counters[C_FULL] = 0
