"""The tree logic over the arena: descent, expansion bookkeeping, backup, solver,
root moves and garbage collection. Engine-free.

Why engine-free: the same numba code must serve a game with a propnet (the
fused batch kernel in `kernels.py` calls these functions between propnet
steps) and a game that fell back to Prolog (`driver.PrologLoop` calls them from
Python between Prolog queries). So the tree never computes a state itself. A
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

import numpy as np
from numba import njit

from .arena import (
    C_AMAF, C_AMAF_REF, C_CODES, C_EDGES, C_FULL, C_ITERATIONS, C_LEAF_DEPTH, C_LEAVES,
    C_MAX_DEPTH, C_NODES, C_PATH, C_PERM, C_PERM_REF, C_PROVEN, C_ROLLOUT_STEPS, C_ROLLOUTS,
    C_ROOT, C_STAMP, C_TRANSITIONS, C_TT, EXPANDED, MARKED, PROVEN, TERMINAL,
)
from .jit import kernel
from .mcps import freeze, record_playout
from .params import P_AMAF_ALLOC, P_MAX_DEPTH, P_RHO, P_RULE, P_SOLVER, RULE_MCPS, RULE_UCT
from .select import choose_edge, role_best_goal

NEED_EXPAND = 0
NEED_CHILD = 1
AT_END = 2
AT_CAP = 3

_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xBF58476D1CE4E5B9)
_K3 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)


@kernel
def mix64(x):
    """splitmix64's finalizer: a well-spread 64-bit hash of x."""
    x = (x ^ (x >> _S30)) * _K2
    x = (x ^ (x >> _S27)) * _K3
    return x ^ (x >> _S31)


@kernel
def words_check(words):
    """A second 64-bit hash of state words, independent of the propnet's Zobrist hash."""
    h = np.uint64(0x51ED270B27FD5EA3)
    for w in range(words.shape[0]):
        h = mix64(h ^ (words[w] + _K1 * np.uint64(w + 1)))
    return h


# -- codes, nodes, tables -----------------------------------------------------------


@kernel
def register_code(A, code, role):
    """Make a code known (Prolog interns codes as it meets moves)."""
    if code < A.code_role.shape[0]:
        A.code_role[code] = role
        if code >= A.counters[C_CODES]:
            A.counters[C_CODES] = code + 1


@kernel
def effect_code(A, role, before, after):
    """The statistics code of a role's move that turned state `before` into
    `after` (uint64 words): its effect on the fluents that depend on moves
    (`A.dynamic`), interned on first sight. -1 when the table is full (the
    caller keeps the move code)."""
    h = mix64(np.uint64(role + 1) * _K1 ^ np.uint64(0x6A09E667F3BCC909))
    for w in range(A.dynamic.shape[0]):
        h = mix64(h ^ (((before[w] ^ after[w]) & A.dynamic[w]) + _K1 * np.uint64(w + 1)))
    if h == np.uint64(0):
        h = np.uint64(1)
    mask = A.effect_key.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    while A.effect_key[i] != np.uint64(0):
        if A.effect_key[i] == h:
            return A.effect_code[i]
        i = (i + 1) & mask
    code = A.counters[C_CODES]
    if code >= A.code_role.shape[0] or (code + 1) * 2 > A.effect_key.shape[0]:
        return -1
    A.counters[C_CODES] = code + 1
    A.code_role[code] = role
    A.effect_key[i] = h
    A.effect_code[i] = code
    return code


@kernel
def _same_state(A, node, h, check, words):
    if A.node_hash[node] != h or A.node_check[node] != check:
        return False
    for w in range(A.node_words.shape[1]):
        if A.node_words[node, w] != words[w]:
            return False
    return True


@kernel
def tt_find(A, h, check, words):
    """The node holding the state (hash h, second hash check, words), or -1."""
    mask = A.tt.shape[0] - 1
    i = np.int64(h & np.uint64(mask))
    while True:
        slot = A.tt[i]
        if slot == 0:
            return -1
        node = slot - 1
        if _same_state(A, node, h, check, words):
            return node
        i = (i + 1) & mask


@kernel
def _tt_insert(A, node):
    if A.counters[C_TT] * 4 >= A.tt.shape[0] * 3:
        return False
    mask = A.tt.shape[0] - 1
    i = np.int64(A.node_hash[node] & np.uint64(mask))
    while A.tt[i] != 0:
        i = (i + 1) & mask
    A.tt[i] = node + 1
    A.counters[C_TT] += 1
    return True


@kernel
def new_node(A, h, check, words):
    """A fresh node for a state (in the transposition table), or -1 when full."""
    node = A.counters[C_NODES]
    if node >= A.node_hash.shape[0]:
        return -1
    A.counters[C_NODES] = node + 1
    A.node_hash[node] = h
    A.node_check[node] = check
    for w in range(A.node_words.shape[1]):
        A.node_words[node, w] = words[w]
    A.node_visits[node] = 0
    A.node_flags[node] = 0
    A.node_proof[node] = 0
    for r in range(A.node_goals.shape[1]):
        A.node_goals[node, r] = 0
    for r in range(A.node_edges.shape[1]):
        A.node_edges[node, r] = 0
    A.node_amaf[node] = -1
    A.node_perm[node] = -1
    _tt_insert(A, node)
    return node


@kernel
def set_terminal(A, node, goals):
    """Mark a node terminal with its goal values (0..100 per role)."""
    A.node_flags[node] |= TERMINAL | PROVEN
    A.node_proof[node] = 0
    for r in range(A.node_goals.shape[1]):
        A.node_goals[node, r] = goals[r]


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
            e += 1
            k += 1
    A.node_edges[node, roles] = e
    A.node_flags[node] |= EXPANDED
    return 1


@kernel
def choosers(A, node):
    """(number of roles with more than one move at node, the first such role or 0)."""
    count = 0
    key = -1
    for r in range(A.node_edges.shape[1] - 1):
        if A.node_edges[node, r + 1] - A.node_edges[node, r] > 1:
            count += 1
            if key < 0:
                key = r
    return count, max(key, 0)


@kernel
def _joint_key(A, node, depth):
    key = 0
    radix = 1
    for r in range(A.node_edges.shape[1] - 1):
        lo = A.node_edges[node, r]
        key += (A.path_edge[depth, r] - lo) * radix
        radix *= A.node_edges[node, r + 1] - lo
    return key


@kernel
def _tr_slot(A, node, key):
    h = mix64(np.uint64(node) * _K1 ^ np.uint64(key))
    return np.int64(h & np.uint64(A.tr_node.shape[0] - 1))


@kernel
def find_child(A, node, depth):
    """The child of `node` by the joint move in A.path_edge[depth], or -1."""
    many, key_role = choosers(A, node)
    if many <= 1:
        return A.edge_child[A.path_edge[depth, key_role]]
    key = _joint_key(A, node, depth)
    mask = A.tr_node.shape[0] - 1
    i = _tr_slot(A, node, key)
    while A.tr_node[i] != 0:
        if A.tr_node[i] == node + 1 and A.tr_joint[i] == key:
            return A.tr_child[i]
        i = (i + 1) & mask
    return -1


@kernel
def _tr_insert(A, node, key, child):
    if A.counters[C_TRANSITIONS] * 4 >= A.tr_node.shape[0] * 3:
        return False
    mask = A.tr_node.shape[0] - 1
    i = _tr_slot(A, node, key)
    while A.tr_node[i] != 0:
        i = (i + 1) & mask
    A.tr_node[i] = node + 1
    A.tr_joint[i] = key
    A.tr_child[i] = child
    A.counters[C_TRANSITIONS] += 1
    return True


@kernel
def link_child(A, node, depth, child):
    many, key_role = choosers(A, node)
    if many <= 1:
        A.edge_child[A.path_edge[depth, key_role]] = child
    else:
        _tr_insert(A, node, _joint_key(A, node, depth), child)


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


# -- one iteration -------------------------------------------------------------------


@kernel
def set_root(A, P, node):
    """Make `node` the root (the root always gets an AMAF table when the rule uses one)."""
    A.counters[C_ROOT] = node
    if int(P[P_RULE]) != RULE_UCT and A.node_amaf[node] < 0:
        _amaf_table(A, node)


@kernel
def root_done(A, P):
    """True when searching the root can teach nothing (terminal, or proven)."""
    flags = A.node_flags[A.counters[C_ROOT]]
    if flags & TERMINAL:
        return True
    return P[P_SOLVER] != 0.0 and (flags & PROVEN) != 0


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
        if (flags & TERMINAL) != 0 or (solver and (flags & PROVEN) != 0):
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
        for r in range(roles):
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
    if rule != RULE_UCT:
        # AMAF: node k gets every distinct code played from step k on (first
        # occurrence), scored for the code's role. Built from the end backwards.
        n_codes = min(A.counters[C_CODES], A.amaf_n.shape[1])
        A.counters[C_STAMP] += 1
        stamp = A.counters[C_STAMP]
        seen = 0
        for t in range(n_rollout - 1, -1, -1):
            for r in range(roles):
                c = A.rollout[t, r]
                if 0 <= c < n_codes and A.stamp[c] != stamp:
                    A.stamp[c] = stamp
                    A.seen[seen] = c
                    seen += 1
        for k in range(steps, -1, -1):
            if k < steps:
                for r in range(roles):
                    c = A.path_code[k, r]
                    if 0 <= c < n_codes and A.stamp[c] != stamp:
                        A.stamp[c] = stamp
                        A.seen[seen] = c
                        seen += 1
            if k < length:
                t = A.node_amaf[A.path_node[k]]
                if t >= 0:
                    for i in range(seen):
                        c = A.seen[i]
                        A.amaf_n[t, c] += 1
                        role = A.code_role[c]
                        if role >= 0:
                            A.amaf_w[t, c] += A.reward[role]
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
def _prove(A, node, child):
    A.node_flags[node] |= PROVEN
    A.node_proof[node] = A.node_proof[child] + 1
    A.counters[C_PROVEN] += 1
    for r in range(A.node_goals.shape[1]):
        A.node_goals[node, r] = A.node_goals[child, r]


@kernel
def try_prove(A, node):
    """Mark `node` proven when its children decide it: where one role chooses,
    a child proven to give that role its best goal, or every child proven (the
    value is the child best for that role); where no role chooses, the one
    child. Nodes where several roles choose are never proven (no pure minimax
    value exists in general)."""
    if (A.node_flags[node] & PROVEN) != 0:
        return True
    if (A.node_flags[node] & EXPANDED) == 0:
        return False
    many, role = choosers(A, node)
    if many >= 2:
        return False
    lo = A.node_edges[node, role]
    hi = A.node_edges[node, role + 1]
    best_goal = role_best_goal(A, role)
    best = -1
    all_proven = True
    for e in range(lo, hi):
        child = A.edge_child[e]
        if child < 0 or (A.node_flags[child] & PROVEN) == 0:
            all_proven = False
            continue
        g = A.node_goals[child, role]
        if g >= best_goal:
            _prove(A, node, child)
            return True
        if best < 0 or better_proof(A, role, child, best):
            best = child
    if all_proven and best >= 0:
        _prove(A, node, best)
        return True
    return False


@kernel
def better_proof(A, role, child, other):
    """Whether proven `child` is a better choice than proven `other` for `role`:
    a higher goal, or at an equal goal the shorter proof (a win comes sooner)
    unless the goal is nothing (a loss comes later). Proof lengths make every
    proven line end: a node's proof is one longer than the child's it rests on,
    so following shortest wins (and the opponent's longest losses) never cycles."""
    g = A.node_goals[child, role]
    h = A.node_goals[other, role]
    if g != h:
        return g > h
    if g > 0:
        return A.node_proof[child] < A.node_proof[other]
    return A.node_proof[child] > A.node_proof[other]


# -- the root ---------------------------------------------------------------------------


@kernel
def root_child(A, joint_codes):
    """The root's child by a joint move (one code per role), or -1 when the tree
    does not hold it."""
    root = A.counters[C_ROOT]
    if (A.node_flags[root] & EXPANDED) == 0:
        return -1
    for r in range(A.node_edges.shape[1] - 1):
        found = -1
        for e in range(A.node_edges[root, r], A.node_edges[root, r + 1]):
            if A.edge_code[e] == joint_codes[r]:
                found = e
                break
        if found < 0:
            return -1
        A.path_edge[0, r] = found
    return find_child(A, root, 0)


@kernel
def root_choice_codes(A, joint_codes, out):
    """The statistics codes of a joint move (move codes, one per role) that were
    a choice at the root (into out); returns how many, or -1 when the root has
    no edges (unknown)."""
    root = A.counters[C_ROOT]
    if (A.node_flags[root] & EXPANDED) == 0:
        return -1
    n = 0
    for r in range(A.node_edges.shape[1] - 1):
        lo = A.node_edges[root, r]
        hi = A.node_edges[root, r + 1]
        if hi - lo > 1:
            for e in range(lo, hi):
                if A.edge_code[e] == joint_codes[r]:
                    out[n] = A.edge_feat[e]
                    n += 1
                    break
    return n


@kernel
def best_edge(A, role):
    """The edge `role` should play at the root: a proven win if there is one;
    else the most visited edge that is not a proven loss (a proven result worth
    more than that edge's mean goes first); -1 when the root has no edges."""
    root = A.counters[C_ROOT]
    if (A.node_flags[root] & EXPANDED) == 0:
        return -1
    lo = A.node_edges[root, role]
    hi = A.node_edges[root, role + 1]
    many, key_role = choosers(A, root)
    solver = many == 1 and key_role == role
    best_goal = role_best_goal(A, role)
    best = -1
    best_n = -1
    proven_best = -1
    proven_goal = -1
    for e in range(lo, hi):
        if solver:
            child = A.edge_child[e]
            if child >= 0 and (A.node_flags[child] & PROVEN) != 0:
                g = A.node_goals[child, role]
                if proven_best < 0 or better_proof(A, role, child, A.edge_child[proven_best]):
                    proven_goal = g
                    proven_best = e
                if g >= best_goal or g <= 0:
                    continue
        if A.edge_n[e] > best_n:
            best_n = A.edge_n[e]
            best = e
    if proven_best >= 0 and proven_goal >= best_goal:
        return proven_best  # the shortest proven win
    if best < 0:
        return proven_best if proven_best >= 0 else lo
    if proven_best >= 0 and best_n > 0:
        mean = 100.0 * A.edge_w[best] / best_n
        if proven_goal > mean:
            return proven_best
    return best


# -- garbage collection -------------------------------------------------------------------


@njit(cache=True, nogil=True)
def collect_garbage(A):
    """Keep only what the root reaches: mark from the root, then slide nodes,
    edges and tables down in place and rebuild the hash tables. Returns the
    nodes kept."""
    n_nodes = A.counters[C_NODES]
    root = A.counters[C_ROOT]
    roles = A.node_edges.shape[1] - 1
    # transitions as CSR by parent, so a marking pass can follow them
    n_tr = 0
    for i in range(A.tr_node.shape[0]):
        if A.tr_node[i] != 0:
            n_tr += 1
    tr_parent = np.empty(n_tr, dtype=np.int32)
    tr_key = np.empty(n_tr, dtype=np.int64)
    tr_kid = np.empty(n_tr, dtype=np.int32)
    j = 0
    for i in range(A.tr_node.shape[0]):
        if A.tr_node[i] != 0:
            tr_parent[j] = A.tr_node[i] - 1
            tr_key[j] = A.tr_joint[i]
            tr_kid[j] = A.tr_child[i]
            j += 1
    order = np.argsort(tr_parent)
    start = np.zeros(n_nodes + 1, dtype=np.int64)
    for i in range(n_tr):
        start[tr_parent[i] + 1] += 1
    for i in range(n_nodes):
        start[i + 1] += start[i]
    # mark
    for node in range(n_nodes):
        A.node_flags[node] &= ~MARKED
    stack = A.gc_stack
    top = 0
    A.node_flags[root] |= MARKED
    stack[top] = root
    top += 1
    while top > 0:
        top -= 1
        node = stack[top]
        if (A.node_flags[node] & EXPANDED) != 0:
            for e in range(A.node_edges[node, 0], A.node_edges[node, roles]):
                child = A.edge_child[e]
                if child >= 0 and (A.node_flags[child] & MARKED) == 0:
                    A.node_flags[child] |= MARKED
                    stack[top] = child
                    top += 1
        for i in range(start[node], start[node + 1]):
            child = tr_kid[order[i]]
            if (A.node_flags[child] & MARKED) == 0:
                A.node_flags[child] |= MARKED
                stack[top] = child
                top += 1
    # new node indexes
    remap = A.gc_remap
    kept = 0
    for node in range(n_nodes):
        if (A.node_flags[node] & MARKED) != 0:
            remap[node] = kept
            kept += 1
        else:
            remap[node] = -1
    # edges: slide kept nodes' edge blocks down, in the order of their old offsets
    expanded = np.empty(kept, dtype=np.int64)
    n_expanded = 0
    for node in range(n_nodes):
        if (A.node_flags[node] & (MARKED | EXPANDED)) == (MARKED | EXPANDED):
            expanded[n_expanded] = node
            n_expanded += 1
    offsets = np.empty(n_expanded, dtype=np.int64)
    for i in range(n_expanded):
        offsets[i] = A.node_edges[expanded[i], 0]
    by_offset = np.argsort(offsets)
    free = 0
    for i in range(n_expanded):
        node = expanded[by_offset[i]]
        lo = A.node_edges[node, 0]
        shift = lo - free
        for e in range(lo, A.node_edges[node, roles]):
            d = e - shift
            A.edge_code[d] = A.edge_code[e]
            A.edge_feat[d] = A.edge_feat[e]
            A.edge_n[d] = A.edge_n[e]
            A.edge_w[d] = A.edge_w[e]
            child = A.edge_child[e]
            A.edge_child[d] = remap[child] if child >= 0 else -1
        for r in range(roles + 1):
            A.node_edges[node, r] -= shift
        free = A.node_edges[node, roles]
    A.counters[C_EDGES] = free
    # tables: slide down in table order, owners renumbered
    kept_tables = 0
    for t in range(A.counters[C_AMAF]):
        owner = A.amaf_owner[t]
        if (A.node_flags[owner] & MARKED) != 0 and A.node_amaf[owner] == t:
            if kept_tables != t:
                A.amaf_n[kept_tables, :] = A.amaf_n[t, :]
                A.amaf_w[kept_tables, :] = A.amaf_w[t, :]
            A.amaf_owner[kept_tables] = remap[owner]
            A.node_amaf[owner] = kept_tables
            kept_tables += 1
    A.counters[C_AMAF] = kept_tables
    kept_tables = 0
    for t in range(A.counters[C_PERM]):
        owner = A.perm_owner[t]
        if (A.node_flags[owner] & MARKED) != 0 and A.node_perm[owner] == t:
            if kept_tables != t:
                A.perm_n[kept_tables, :] = A.perm_n[t, :]
                A.perm_q[kept_tables, :] = A.perm_q[t, :]
            A.perm_owner[kept_tables] = remap[owner]
            A.node_perm[owner] = kept_tables
            kept_tables += 1
    A.counters[C_PERM] = kept_tables
    # nodes: slide down (new index <= old index, ascending: safe in place)
    proven = 0
    for node in range(n_nodes):
        d = remap[node]
        if d < 0:
            continue
        if d != node:
            A.node_hash[d] = A.node_hash[node]
            A.node_check[d] = A.node_check[node]
            A.node_words[d, :] = A.node_words[node, :]
            A.node_visits[d] = A.node_visits[node]
            A.node_flags[d] = A.node_flags[node]
            A.node_goals[d, :] = A.node_goals[node, :]
            A.node_proof[d] = A.node_proof[node]
            A.node_edges[d, :] = A.node_edges[node, :]
            A.node_amaf[d] = A.node_amaf[node]
            A.node_perm[d] = A.node_perm[node]
        A.node_flags[d] &= ~MARKED
        if (A.node_flags[d] & PROVEN) != 0:
            proven += 1
    A.counters[C_NODES] = kept
    A.counters[C_ROOT] = remap[root]
    A.counters[C_PROVEN] = proven
    # hash tables from scratch
    A.tt[:] = 0
    A.counters[C_TT] = 0
    for node in range(kept):
        _tt_insert(A, node)
    A.tr_node[:] = 0
    A.tr_joint[:] = 0
    A.counters[C_TRANSITIONS] = 0
    mask = A.tr_node.shape[0] - 1
    for i in range(n_tr):
        parent = remap[tr_parent[i]]
        child = remap[tr_kid[i]]
        if parent < 0 or child < 0:
            continue
        s = _tr_slot(A, parent, tr_key[i])
        while A.tr_node[s] != 0:
            s = (s + 1) & mask
        A.tr_node[s] = parent + 1
        A.tr_joint[s] = tr_key[i]
        A.tr_child[s] = child
        A.counters[C_TRANSITIONS] += 1
    return kept


@kernel
def clear_tree(A):
    """Forget every node (the window and the codes stay)."""
    A.counters[C_NODES] = 0
    A.counters[C_EDGES] = 0
    A.counters[C_AMAF] = 0
    A.counters[C_PERM] = 0
    A.counters[C_TT] = 0
    A.counters[C_TRANSITIONS] = 0
    A.counters[C_PROVEN] = 0
    A.counters[C_ROOT] = -1
    for i in range(A.tt.shape[0]):
        A.tt[i] = 0
    for i in range(A.tr_node.shape[0]):
        A.tr_node[i] = 0
    for i in range(A.gc_remap.shape[0]):
        A.gc_remap[i] = -1


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


@kernel
def depth_of_tree(A, limit):
    """Nodes the tree reaches below the root along its most visited line (a cheap
    'depth reached' figure for the logs), at most `limit`."""
    node = A.counters[C_ROOT]
    depth = 0
    while depth < limit and (A.node_flags[node] & EXPANDED) != 0:
        many, role = choosers(A, node)
        if many >= 2:
            break
        best = -1
        best_n = 0
        for e in range(A.node_edges[node, role], A.node_edges[node, role + 1]):
            if A.edge_n[e] > best_n and A.edge_child[e] >= 0:
                best_n = A.edge_n[e]
                best = e
        if best < 0:
            break
        node = A.edge_child[best]
        depth += 1
    return depth
