"""Nodes, transpositions and transitions: how the search finds a state's node and a child.

The tree is a graph of states: a state met twice is one node (the transposition
table, open addressing on the engine's 64-bit hash; a match needs a second,
independent hash, and the full state words when the engine has them). Where one
role chooses at a node, its edges point at the children; where several do, the
children hang in the transitions table under (node, joint move). Codes are
registered here too, including effect codes (a move's effect on the fluents that
depend on moves), which are interned like states.
"""

from __future__ import annotations

import numpy as np

from ...propnet.kernels.bits import mix64, popcount64
from ...propnet.jit.decorators import kernel
from .arena import C_CODES, C_NODES, C_TRANSITIONS, C_TT, PROVEN, TERMINAL

_K1 = np.uint64(0x9E3779B97F4A7C15)


@kernel
def words_check(words):
    """A second 64-bit hash of state words, independent of the propnet's Zobrist hash."""
    h = np.uint64(0x51ED270B27FD5EA3)
    for w in range(words.shape[0]):
        h = mix64(h ^ (words[w] + _K1 * np.uint64(w + 1)))
    return h


@kernel
def register_code(A, code, role):
    """Make a code known (Prolog interns codes as it meets moves)."""
    if code < A.code_role.shape[0]:
        A.code_role[code] = role
        if code >= A.counters[C_CODES]:
            A.counters[C_CODES] = code + 1


@kernel
def note_code(stamps, distinct, c, n_codes, stamp, seen):
    """Add code c to a list of distinct codes (`distinct[:seen]`) unless it is
    there already (`stamps[c] == stamp`) or is not a choice; returns the new
    count. An iteration's codes for the AMAF backup and a freeze's codes use
    it. Arrays, not the arena, so that LLVM inlines it."""
    if 0 <= c < n_codes and stamps[c] != stamp:
        stamps[c] = stamp
        distinct[seen] = c
        seen += 1
    return seen


@kernel
def effect_hash(role, before, after, dynamic):
    """A move's effect as a non-zero 64-bit key: the role, and the change from
    state `before` to `after` (uint64 words) on the fluents marked in `dynamic`
    (those that depend on moves). One key for the search's effect codes and
    for the codes choice's measurement (`codes_choice.py`)."""
    h = mix64(np.uint64(role + 1) * _K1 ^ np.uint64(0x6A09E667F3BCC909))
    for w in range(dynamic.shape[0]):
        h = mix64(h ^ (((before[w] ^ after[w]) & dynamic[w]) + _K1 * np.uint64(w + 1)))
    if h == np.uint64(0):
        h = np.uint64(1)
    return h


@kernel
def destination_hash(role, group, before, after, dynamic):
    """A destination code's key (`SearchParams.codes` "destinations"): the
    role, the move's destination group, and how many move-dependent fluents
    the move changed (a capture or an attack changes more than a plain move)."""
    changed = np.uint64(0)
    for w in range(dynamic.shape[0]):
        changed += popcount64((before[w] ^ after[w]) & dynamic[w])
    h = mix64(np.uint64(role + 1) * _K1 ^ np.uint64(0xBB67AE8584CAA73B))
    h = mix64(h ^ (np.uint64(group) + _K1))
    h = mix64(h ^ (changed * _K1 + np.uint64(7)))
    if h == np.uint64(0):
        h = np.uint64(1)
    return h


@kernel
def effect_code(A, role, move, before, after):
    """The statistics code of a role's move (code `move`) that turned state
    `before` into `after` (uint64 words): its effect (`effect_hash` over
    `A.dynamic`), or with destination codes its destination and how much it
    changed (`destination_hash`; a move with no group keeps its effect),
    interned on first sight. -1 when the table is full (the caller keeps the
    move code)."""
    group = A.code_group[move] if 0 <= move < A.code_group.shape[0] else -1
    if group >= 0:
        h = destination_hash(role, group, before, after, A.dynamic)
    else:
        h = effect_hash(role, before, after, A.dynamic)
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
def learn_effect(A, node, depth, before, after):
    """Effect codes are learnt when a child is first computed: where one role
    chooses at `node`, the edge it took at path step `depth` (which turned
    state `before` into `after`) takes its effect's code as its statistics
    code, and the path records that code for the backup. Until then the edge
    keeps its move code, which effect-coded playouts never record: an edge
    not yet tried has no prior and is tried first (`select.edge_value`), as
    the paper's first-play rule would, and no look-ahead of every move is
    made at expansion."""
    many, role = choosers(A, node)
    if many != 1:
        return
    edge = A.path_edge[depth, role]
    feature = effect_code(A, role, A.edge_code[edge], before, after)
    if feature >= 0:
        A.edge_feat[edge] = feature
        A.path_code[depth, role] = feature


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
def tt_insert(A, node):
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
    A.node_pick_until[node] = 0
    tt_insert(A, node)
    return node


@kernel
def set_terminal(A, node, goals):
    """Mark a node terminal with its goal values (0..100 per role)."""
    A.node_flags[node] |= TERMINAL | PROVEN
    A.node_proof[node] = 0
    for r in range(A.node_goals.shape[1]):
        A.node_goals[node, r] = goals[r]


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
def transition_slot(A, node, key):
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
    i = transition_slot(A, node, key)
    while A.tr_node[i] != 0:
        if A.tr_node[i] == node + 1 and A.tr_joint[i] == key:
            return A.tr_child[i]
        i = (i + 1) & mask
    return -1


@kernel
def _transition_insert(A, node, key, child):
    if A.counters[C_TRANSITIONS] * 4 >= A.tr_node.shape[0] * 3:
        return False
    mask = A.tr_node.shape[0] - 1
    i = transition_slot(A, node, key)
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
        _transition_insert(A, node, _joint_key(A, node, depth), child)
