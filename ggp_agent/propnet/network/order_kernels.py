"""The network builder's last graph work as numba kernels: gates put in
evaluation order, cyclic components found, everything renumbered.

Same conventions as `graph_kernels.py` (leaves below `first_gate`, literals
`2 * node + negated`, CSR gate inputs); `gates.py` keeps the meaning.
"""

from __future__ import annotations

import numpy as np

from ..jit.decorators import allocating_kernel


@allocating_kernel
def order_gates(n, first_gate, alive_roots, lo_of, hi_of, lits, input_lo):
    """Live gates in evaluation order and their cyclic components.

    Returns (order, scc, post, bad): `order` lists the live gates inputs first,
    the pre-move gates (no input proposition upstream) before the post-move
    ones, each strongly connected component contiguous; scc[g] is the cyclic
    component id of gate g or -1; post[g] 1 for post-move gates; bad is 1 when
    a cycle holds a negated wire (unstratified).
    """
    live = np.zeros(n, dtype=np.uint8)
    stack = np.zeros(n + 1, dtype=np.int64)
    top = 0
    for lit in alive_roots:
        node = lit >> 1
        if node >= first_gate and live[node] == 0:
            live[node] = 1
            stack[top] = node
            top += 1
    while top > 0:
        top -= 1
        node = stack[top]
        for k in range(lo_of[node], hi_of[node]):
            child = lits[k] >> 1
            if child >= first_gate and live[child] == 0:
                live[child] = 1
                stack[top] = child
                top += 1
    # Tarjan, iterative, over gate -> input edges: components come out inputs first
    index = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.uint8)
    tstack = np.zeros(n + 1, dtype=np.int64)
    ttop = 0
    work_node = np.zeros(n + 1, dtype=np.int64)
    work_pos = np.zeros(n + 1, dtype=np.int64)
    comp_of = np.full(n, -1, dtype=np.int64)
    comp_order = np.zeros(n, dtype=np.int64)  # nodes in emission order
    comp_start = np.zeros(n + 1, dtype=np.int64)
    n_comp = 0
    emitted = 0
    counter = 0
    for root in range(first_gate, n):
        if live[root] == 0 or index[root] >= 0:
            continue
        wtop = 0
        work_node[0] = root
        work_pos[0] = lo_of[root]
        index[root] = counter
        low[root] = counter
        counter += 1
        tstack[ttop] = root
        ttop += 1
        on_stack[root] = 1
        wtop = 1
        while wtop > 0:
            node = work_node[wtop - 1]
            pos = work_pos[wtop - 1]
            recurse = False
            while pos < hi_of[node]:
                child = lits[pos] >> 1
                pos += 1
                if child < first_gate:
                    continue
                if index[child] < 0:
                    work_pos[wtop - 1] = pos
                    work_node[wtop] = child
                    work_pos[wtop] = lo_of[child]
                    index[child] = counter
                    low[child] = counter
                    counter += 1
                    tstack[ttop] = child
                    ttop += 1
                    on_stack[child] = 1
                    wtop += 1
                    recurse = True
                    break
                if on_stack[child] == 1 and index[child] < low[node]:
                    low[node] = index[child]
            if recurse:
                continue
            wtop -= 1
            if wtop > 0:
                parent = work_node[wtop - 1]
                if low[node] < low[parent]:
                    low[parent] = low[node]
            if low[node] == index[node]:
                comp_start[n_comp] = emitted
                while True:
                    ttop -= 1
                    member = tstack[ttop]
                    on_stack[member] = 0
                    comp_of[member] = n_comp
                    comp_order[emitted] = member
                    emitted += 1
                    if member == node:
                        break
                n_comp += 1
    comp_start[n_comp] = emitted
    scc = np.full(n, -1, dtype=np.int64)
    post = np.zeros(n, dtype=np.uint8)
    comp_post = np.zeros(n_comp, dtype=np.uint8)
    bad = 0
    n_cyclic = 0
    for c in range(n_comp):
        a = comp_start[c]
        b = comp_start[c + 1]
        cyclic = b - a > 1
        is_post = 0
        for i in range(a, b):
            g = comp_order[i]
            for k in range(lo_of[g], hi_of[g]):
                child = lits[k] >> 1
                if child < first_gate:
                    if child >= input_lo:
                        is_post = 1
                    continue
                if comp_of[child] == c:
                    cyclic = True
                    if lits[k] & 1:
                        bad = 1
                elif post[child] == 1:
                    is_post = 1
        comp_post[c] = is_post
        for i in range(a, b):
            g = comp_order[i]
            post[g] = is_post
            if cyclic:
                scc[g] = n_cyclic
        if cyclic:
            n_cyclic += 1
    order = np.zeros(emitted, dtype=np.int64)
    k = 0
    for phase in range(2):
        for c in range(n_comp):
            if comp_post[c] == phase:
                for i in range(comp_start[c], comp_start[c + 1]):
                    order[k] = comp_order[i]
                    k += 1
    return order, scc, post, bad


@allocating_kernel
def renumber(order, first_gate, kind, lo_of, hi_of, lits, scc, post):
    """The ordered gates as final arrays: gate order[i] becomes node first_gate + i.

    Returns (kind, in_ptr, in_lit, scc, split) over all nodes, leaves first.
    """
    n_old = len(kind)
    n_gates = len(order)
    n = first_gate + n_gates
    number = np.full(n_old, -1, dtype=np.int64)
    for i in range(n_gates):
        number[order[i]] = first_gate + i
    out_kind = np.zeros(n, dtype=np.uint8)
    in_ptr = np.zeros(n + 1, dtype=np.int64)
    total = 0
    for i in range(n_gates):
        g = order[i]
        total += hi_of[g] - lo_of[g]
    in_lit = np.zeros(total, dtype=np.int64)
    out_scc = np.full(n, -1, dtype=np.int64)
    split = n
    pos = 0
    for i in range(n_gates):
        g = order[i]
        node = first_gate + i
        out_kind[node] = kind[g]
        for k in range(lo_of[g], hi_of[g]):
            lit = lits[k]
            child = lit >> 1
            if child >= first_gate:
                lit = (number[child] << 1) | (lit & 1)
            in_lit[pos] = lit
            pos += 1
        in_ptr[node + 1] = pos
        out_scc[node] = scc[g]
        if post[g] == 1 and split == n:
            split = node
    for node in range(first_gate):
        in_ptr[node + 1] = 0
    # leaves have no inputs: in_ptr[0..first_gate] stay 0, gates continue from there
    return out_kind, in_ptr, in_lit, out_scc, split, number


@allocating_kernel
def gathered_order(split, in_ptr, in_lit, scc, source):
    """New numbers (old node -> new node) that put side by side the gates
    after the moves that one node fires or marks (`source[g]`, or -1): the
    nodes before `split` keep theirs; the gates after it go level by level
    (a gate's level is one more than its highest input's after the moves, so
    the order stays topological), within a level by the new number of their
    source, or of their first-numbered input when they have none; a cyclic
    component moves whole, its members in their order.
    """
    n = len(scc)
    unit = np.arange(n)
    for g in range(split + 1, n):
        if scc[g] >= 0 and scc[g - 1] == scc[g]:
            unit[g] = unit[g - 1]
    level = np.zeros(n, dtype=np.int64)
    for g in range(split, n):
        u = unit[g]
        for e in range(in_ptr[g], in_ptr[g + 1]):
            c = in_lit[e] >> 1
            if c >= split and unit[c] != u and level[unit[c]] + 1 > level[u]:
                level[u] = level[unit[c]] + 1
    heads = np.zeros(n, dtype=np.int64)
    count = 0
    for g in range(split, n):
        if unit[g] == g:
            heads[count] = g
            count += 1
    heads = heads[:count]
    by_level = heads[np.argsort(level[heads], kind="mergesort")]
    number = np.arange(n)
    key = np.zeros(count, dtype=np.int64)
    at = split
    lo = 0
    while lo < count:
        hi = lo
        while hi < count and level[by_level[hi]] == level[by_level[lo]]:
            g = by_level[hi]
            best = n
            h = g
            while h < n and unit[h] == g:
                if source[h] >= 0:
                    best = min(best, number[source[h]])
                else:
                    for e in range(in_ptr[h], in_ptr[h + 1]):
                        c = in_lit[e] >> 1
                        if c < split or unit[c] != g:
                            best = min(best, number[c])
                h += 1
            key[hi] = best
            hi += 1
        for u in by_level[lo:hi][np.argsort(key[lo:hi], kind="mergesort")]:
            h = u
            while h < n and unit[h] == u:
                number[h] = at
                at += 1
                h += 1
        lo = hi
    return number
