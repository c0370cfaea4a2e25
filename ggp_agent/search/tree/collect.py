"""Garbage collection: keep what the new root reaches, slide it down, rebuild the tables.

The arena never grows (`arena.py`), so after the match moves on, once a pool
is more than half full, the worker marks what the new root reaches and slides
nodes, edges and tables down in place before its next batch.
"""

from __future__ import annotations

import numpy as np

from ...propnet.jit.decorators import allocating_kernel, kernel
from .arena import (
    C_AMAF, C_EDGES, C_NODES, C_PERM, C_PROVEN, C_ROOT, C_TRANSITIONS, C_TT, EXPANDED, MARKED, PROVEN,
)
from .table import transition_slot, tt_insert


@allocating_kernel
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
            if e < A.edge_regret.shape[0]:
                A.edge_regret[d] = A.edge_regret[e]
            child = A.edge_child[e]
            A.edge_child[d] = remap[child] if child >= 0 else -1
        for r in range(roles + 1):
            A.node_edges[node, r] -= shift
        A.node_pick[node] -= shift
        free = A.node_edges[node, roles]
    A.counters[C_EDGES] = free
    # tables: slide down in table order, owners renumbered
    A.counters[C_AMAF] = _slide_tables(A.node_flags, remap, A.counters[C_AMAF], A.amaf_owner, A.node_amaf,
                                       A.amaf_n, A.amaf_w)
    A.counters[C_PERM] = _slide_tables(A.node_flags, remap, A.counters[C_PERM], A.perm_owner, A.node_perm,
                                       A.perm_n, A.perm_q)
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
            A.node_legal[d, :] = A.node_legal[node, :]
            A.node_visits[d] = A.node_visits[node]
            A.node_flags[d] = A.node_flags[node]
            A.node_goals[d, :] = A.node_goals[node, :]
            A.node_proof[d] = A.node_proof[node]
            A.node_edges[d, :] = A.node_edges[node, :]
            A.node_amaf[d] = A.node_amaf[node]
            A.node_perm[d] = A.node_perm[node]
            A.node_pick[d] = A.node_pick[node]
            A.node_pick_until[d] = A.node_pick_until[node]
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
        tt_insert(A, node)
    A.tr_node[:] = 0
    A.tr_joint[:] = 0
    A.counters[C_TRANSITIONS] = 0
    mask = A.tr_node.shape[0] - 1
    for i in range(n_tr):
        parent = remap[tr_parent[i]]
        child = remap[tr_kid[i]]
        if parent < 0 or child < 0:
            continue
        s = transition_slot(A, parent, tr_key[i])
        while A.tr_node[s] != 0:
            s = (s + 1) & mask
        A.tr_node[s] = parent + 1
        A.tr_joint[s] = tr_key[i]
        A.tr_child[s] = child
        A.counters[C_TRANSITIONS] += 1
    return kept


@kernel
def _slide_tables(node_flags, remap, used, owners, node_table, counts, values):
    """Keep a pool's tables whose owner is marked: slide them down in table
    order, renumber their owners; returns how many are kept."""
    kept = 0
    for t in range(used):
        owner = owners[t]
        if (node_flags[owner] & MARKED) != 0 and node_table[owner] == t:
            if kept != t:  # element by element: a slice is an array view, which needs NRT
                for c in range(counts.shape[1]):
                    counts[kept, c] = counts[t, c]
                for c in range(values.shape[1]):
                    values[kept, c] = values[t, c]
            owners[kept] = remap[owner]
            node_table[owner] = kept
            kept += 1
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
