"""Permutation statistics (MCPS): the playout window as per-code bitsets.

The MCPS paper's third source of statistics (Cazenave 2026, Algorithms 1-2;
summarised in docs/search.md): for a node s reached by the codes a0..ad, the
playouts in the window that contain every ai, in any order, and for each code c
those that also contain c.

- `record_playout` writes one playout into slot p = cursor mod W: bit p of
  `win_bits[c]` for each code c it contains (the tree path and the rollout,
  choice codes only), and its outcome as bit planes per role (`arena.goal_planes`).
- `freeze` is Algorithm 2: V = AND of the path codes' bitsets, then for every
  code c, n̂ = popcount(V & B_c) and Q̂ = mean outcome for c's role over those
  playouts (1 when n̂ = 0). It walks only the words of V that are not zero,
  which deep in the tree are few.
- `restrict_window` keeps the window honest when the root moves: a playout
  recorded from an earlier root stays usable only if it contains the moves
  the match has played since, in any order (the permutation argument again).

Only the MCPS rule calls these; UCT and GRAVE pay nothing for them.
"""

from __future__ import annotations

import numpy as np

from ...propnet.kernels.bits import popcount64
from ...propnet.jit.decorators import kernel
from .arena import C_CODES, C_CURSOR, C_FREEZES, C_PERM, C_STAMP, EXPANDED
from .params import P_WINDOW
from .table import note_code

ONE = np.uint64(1)
ZERO = np.uint64(0)


@kernel
def window_size(A, P):
    """W: the playouts the window keeps (at most what the arena was made for)."""
    return min(int(P[P_WINDOW]), A.win_valid.shape[0] * 64)


@kernel
def record_playout(A, P, n_seen, goals):
    """Write the playout whose distinct codes are A.seen[:n_seen] and whose goal
    values (0..100 per role) are `goals` into the next slot of the window."""
    size = window_size(A, P)
    slot = A.counters[C_CURSOR] % size
    A.counters[C_CURSOR] += 1
    w = slot >> 6
    bit = ONE << np.uint64(slot & 63)
    keep = ~bit
    n_codes = min(A.counters[C_CODES], A.win_bits.shape[0])
    bits = A.win_bits
    for c in range(n_codes):
        bits[c, w] &= keep
    for i in range(n_seen):
        c = A.seen[i]
        bits[c, w] |= bit
    for role in range(A.plane_lo.shape[0] - 1):
        g = goals[role]
        for k in range(A.plane_lo[role], A.plane_lo[role + 1]):
            if A.plane_kind[k] == 0:
                on = g >= A.plane_param[k]
            else:
                on = ((g >> A.plane_param[k]) & 1) == 1
            if on:
                A.win_planes[k, w] |= bit
            else:
                A.win_planes[k, w] &= keep
    A.win_valid[w] |= bit


@kernel
def codes_to_freeze(A, node, n_codes):
    """The codes a frozen table of `node` is read for: those of the node's own
    edges and of its expanded children's edges (a node's table serves it and
    the nodes below it until they have ρ visits of their own, and selection
    reads only the codes of the edges it chooses among). Put in
    `A.seen[:count]` (free during a descent: a backup fills it afresh);
    returns count."""
    A.counters[C_STAMP] += 1
    stamp = A.counters[C_STAMP]
    roles = A.node_edges.shape[1] - 1
    count = 0
    for e in range(A.node_edges[node, 0], A.node_edges[node, roles]):
        count = note_code(A.stamp, A.seen, A.edge_feat[e], n_codes, stamp, count)
        child = A.edge_child[e]
        if child >= 0 and (A.node_flags[child] & EXPANDED) != 0:
            for f in range(A.node_edges[child, 0], A.node_edges[child, roles]):
                count = note_code(A.stamp, A.seen, A.edge_feat[f], n_codes, stamp, count)
    return count


@kernel
def freeze(A, P, node, depth):
    """Compute and freeze the permutation statistics of `node`, reached by the
    path steps 0..depth-1 in `A.path_code`, for the codes selection will read
    there (`codes_to_freeze`; the others get n̂ = 0: no permutation evidence,
    as for a code no playout in the window holds). Returns False when the
    pool is full.

    Why not every code, as Algorithm 2 states it: a freeze costs a popcount
    per code and live window word, near the root every word is live, and a
    node holds the edges of a few dozen codes out of hundreds (pawnWhopping
    246, knightThrough more): computing them all halved MCPS's iterations in
    play."""
    table = A.counters[C_PERM]
    if table >= A.perm_n.shape[0]:
        return False
    A.counters[C_PERM] = table + 1
    A.counters[C_FREEZES] += 1
    A.perm_owner[table] = node
    A.node_perm[node] = table
    size = window_size(A, P)
    words = (size + 63) >> 6
    n_codes = min(A.counters[C_CODES], A.win_bits.shape[0])
    v = A.win_scratch
    for w in range(words):
        v[w] = A.win_valid[w]
    if size & 63:
        v[words - 1] &= (ONE << np.uint64(size & 63)) - ONE
    for d in range(depth):
        for r in range(A.path_code.shape[1]):
            c = A.path_code[d, r]
            if 0 <= c < n_codes:
                for w in range(words):
                    v[w] &= A.win_bits[c, w]
    live = 0
    for w in range(words):
        if v[w] != ZERO:
            A.win_index[live] = w
            live += 1
    for c in range(A.perm_n.shape[1]):
        A.perm_n[table, c] = 0
        A.perm_q[table, c] = 1.0
    for i in range(codes_to_freeze(A, node, n_codes)):
        c = A.seen[i]
        role = A.code_role[c]
        if role < 0:
            continue
        count = 0
        total = 0.0
        plo = A.plane_lo[role]
        phi = A.plane_lo[role + 1]
        for j in range(live):
            w = A.win_index[j]
            x = v[w] & A.win_bits[c, w]
            if x != ZERO:
                count += popcount64(x)
                for k in range(plo, phi):
                    y = x & A.win_planes[k, w]
                    if y != ZERO:
                        total += A.plane_weight[k] * popcount64(y)
        A.perm_n[table, c] = count
        A.perm_q[table, c] = total / (100.0 * count) if count > 0 else 1.0
    return True


@kernel
def restrict_window(A, P, choice_codes, n_choice):
    """The match played `choice_codes[:n_choice]` (the codes that were a choice):
    keep valid only the playouts that contain all of them."""
    size = window_size(A, P)
    words = (size + 63) >> 6
    n_codes = min(A.counters[C_CODES], A.win_bits.shape[0])
    for i in range(n_choice):
        c = choice_codes[i]
        if 0 <= c < n_codes:
            for w in range(words):
                A.win_valid[w] &= A.win_bits[c, w]
        else:
            for w in range(words):
                A.win_valid[w] = ZERO


@kernel
def clear_window(A):
    for w in range(A.win_valid.shape[0]):
        A.win_valid[w] = ZERO
