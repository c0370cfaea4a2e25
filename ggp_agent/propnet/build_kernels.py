"""The network builder's graph work as numba kernels (integer arrays in and out).

Why: a network can hold hundreds of thousands of gates, and the builder walks
it several times (constant folding, rebuilding, ordering); in Python that took
tens of seconds on the big games, here it takes a fraction of one. Like the
playout kernels these are generic (compiled once, cached on disk): a game is
data, never code. `network.py` calls them and keeps the meaning; this module
knows only integers.

Conventions (as in `network.py`): nodes below `first_gate` are leaves (node 0
is the constant FALSE), a literal is `2 * node + negated`, kinds are 1 for
AND and 2 for OR; gate inputs are CSR arrays (`in_ptr`, `in_lit`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

AND, OR = 1, 2


@njit(cache=True, nogil=True)
def raw_graph(instances, atom_lit, first_gate):
    """One OR gate per derived atom (atom_lit[a] < 0) over one AND gate per rule
    instance; an instance of one literal is a plain wire, one of none is TRUE.

    `instances` holds, per instance, the head atom, the literal count and the
    literals (2 * atom + negated). Returns (kind, in_ptr, in_lit, or_node):
    or_node[a] is the OR gate of derived atom a.
    """
    n_atoms = len(atom_lit)
    or_node = np.full(n_atoms, -1, dtype=np.int64)
    n_or = 0
    for a in range(n_atoms):
        if atom_lit[a] < 0:
            or_node[a] = first_gate + n_or
            n_or += 1
    # pass 1: sizes
    or_fanin = np.zeros(n_or, dtype=np.int64)
    n_and = 0
    and_edges = 0
    p = 0
    n = len(instances)
    while p < n:
        head = instances[p]
        count = instances[p + 1]
        if or_node[head] >= 0:
            or_fanin[or_node[head] - first_gate] += 1
            if count >= 2:
                n_and += 1
                and_edges += count
        p += 2 + count
    n_nodes = first_gate + n_or + n_and
    kind = np.zeros(n_nodes, dtype=np.uint8)
    in_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    for i in range(n_or):
        kind[first_gate + i] = OR
        in_ptr[first_gate + i + 1] = in_ptr[first_gate + i] + or_fanin[i]
    # AND gates follow; their sizes in pass 2
    in_lit = np.zeros(in_ptr[first_gate + n_or] + and_edges, dtype=np.int64)
    fill = in_ptr[:-1].copy()
    next_and = first_gate + n_or
    and_pos = in_ptr[first_gate + n_or]
    p = 0
    while p < n:
        head = instances[p]
        count = instances[p + 1]
        gate = or_node[head]
        if gate >= 0:
            if count == 0:
                wire = 1
            elif count == 1:
                wire = _atom_literal(instances[p + 2], atom_lit, or_node)
            else:
                kind[next_and] = AND
                in_ptr[next_and] = and_pos
                for k in range(count):
                    in_lit[and_pos] = _atom_literal(instances[p + 2 + k], atom_lit, or_node)
                    and_pos += 1
                in_ptr[next_and + 1] = and_pos
                wire = 2 * next_and
                next_and += 1
            in_lit[fill[gate]] = wire
            fill[gate] += 1
        p += 2 + count
    return kind, in_ptr, in_lit, or_node


@njit(cache=True, nogil=True)
def _atom_literal(code, atom_lit, or_node):
    atom = code >> 1
    negated = code & 1
    if atom_lit[atom] >= 0:
        return atom_lit[atom] ^ negated
    return (2 * or_node[atom]) ^ negated


@njit(cache=True, nogil=True)
def _positive_fanout(kind, in_ptr, in_lit, first_gate):
    n = len(kind)
    counts = np.zeros(n + 1, dtype=np.int64)
    for g in range(first_gate, n):
        for e in range(in_ptr[g], in_ptr[g + 1]):
            if in_lit[e] & 1 == 0:
                counts[(in_lit[e] >> 1) + 1] += 1
    out_ptr = np.cumsum(counts)
    out = np.zeros(out_ptr[n], dtype=np.int64)
    fill = out_ptr[:-1].copy()
    for g in range(first_gate, n):
        for e in range(in_ptr[g], in_ptr[g + 1]):
            if in_lit[e] & 1 == 0:
                src = in_lit[e] >> 1
                out[fill[src]] = g
                fill[src] += 1
    return out_ptr, out


@njit(cache=True, nogil=True)
def _least_fixpoint(kind, in_ptr, in_lit, first_gate, out_ptr, out, leaf_true, other):
    """Least model given leaf values (leaf_true: all leaves but node 0, or none);
    a negated input counts as true when other[node] is false."""
    n = len(kind)
    value = np.zeros(n, dtype=np.uint8)
    if leaf_true:
        for node in range(1, first_gate):
            value[node] = 1
    satisfied = np.zeros(n, dtype=np.int64)
    need = np.zeros(n, dtype=np.int64)
    work = np.zeros(n, dtype=np.int64)
    top = 0
    for g in range(first_gate, n):
        size = in_ptr[g + 1] - in_ptr[g]
        need[g] = size if kind[g] == AND else 1
        count = 0
        for e in range(in_ptr[g], in_ptr[g + 1]):
            lit = in_lit[e]
            node = lit >> 1
            if lit & 1:
                if other[node] == 0:
                    count += 1
            elif node < first_gate and value[node] == 1:
                count += 1
        satisfied[g] = count
        if count >= need[g] and (kind[g] == AND or size > 0):
            value[g] = 1
            work[top] = g
            top += 1
    while top > 0:
        top -= 1
        node = work[top]
        for e in range(out_ptr[node], out_ptr[node + 1]):
            g = out[e]
            if value[g] == 1:
                continue
            satisfied[g] += 1
            if satisfied[g] >= need[g]:
                value[g] = 1
                work[top] = g
                top += 1
    return value


@njit(cache=True, nogil=True)
def fold_constants(kind, in_ptr, in_lit, first_gate):
    """Per node: 1 when true in every state, 0 when in none, -1 otherwise
    (least-fixpoint semantics: an unsupported positive cycle is false)."""
    n = len(kind)
    out_ptr, out = _positive_fanout(kind, in_ptr, in_lit, first_gate)
    certain = np.zeros(n, dtype=np.uint8)
    while True:
        possible = _least_fixpoint(kind, in_ptr, in_lit, first_gate, out_ptr, out, True, certain)
        new_certain = _least_fixpoint(kind, in_ptr, in_lit, first_gate, out_ptr, out, False, possible)
        same = True
        for i in range(n):
            if new_certain[i] != certain[i]:
                same = False
                break
        certain = new_certain
        if same:
            break
    constant = np.full(n, -1, dtype=np.int8)
    for g in range(first_gate, n):
        if certain[g] == 1:
            constant[g] = 1
        elif possible[g] == 0:
            constant[g] = 0
    return constant


@njit(cache=True, nogil=True)
def _sort_small(a, lo, hi):
    for i in range(lo + 1, hi):
        x = a[i]
        j = i - 1
        while j >= lo and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True, nogil=True)
def _hash(kind, lits, lo, hi):
    h = np.uint64(1469598103934665603) ^ np.uint64(kind)
    for i in range(lo, hi):
        h ^= np.uint64(lits[i])
        h *= np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))


@njit(cache=True, nogil=True)
def rebuild(kind, in_ptr, in_lit, first_gate, constant, outputs):
    """Rebuild the gates that outputs reach, bottom up: constants folded, inputs
    sorted and deduplicated, `x and not x` folded, one-input gates turned into
    wires, identical gates merged. A gate met again while its own inputs are
    being rebuilt (a cycle) keeps its number ("pinned").

    Returns (mapped, new_kind, new_ptr_lo, new_ptr_hi, new_lits): mapped[n] is
    the literal node n became (-1 when unreached); a node with mapped[n] ==
    2 * n survives as a gate whose inputs are new_lits[new_ptr_lo[n]:new_ptr_hi[n]]
    (they may name pinned gates by their number).
    """
    n = len(kind)
    mapped = np.full(n, -1, dtype=np.int64)
    for node in range(first_gate):
        mapped[node] = 2 * node
    for g in range(first_gate, n):
        if constant[g] >= 0:
            mapped[g] = constant[g]
    state = np.zeros(n, dtype=np.uint8)  # 1 on the stack, 2 pinned
    new_kind = kind.copy()
    lo_of = np.zeros(n, dtype=np.int64)
    hi_of = np.zeros(n, dtype=np.int64)
    capacity = len(in_lit) + 16
    lits = np.zeros(capacity, dtype=np.int64)
    used = 0
    canonical = Dict.empty(key_type=types.int64, value_type=types.int64)
    stack_node = np.zeros(n, dtype=np.int64)
    stack_pos = np.zeros(n, dtype=np.int64)
    for root_lit in outputs:
        root = root_lit >> 1
        if mapped[root] >= 0:
            continue
        top = 0
        stack_node[0] = root
        stack_pos[0] = in_ptr[root]
        state[root] = 1
        top = 1
        while top > 0:
            node = stack_node[top - 1]
            pos = stack_pos[top - 1]
            descended = False
            while pos < in_ptr[node + 1]:
                child = in_lit[pos] >> 1
                pos += 1
                if mapped[child] < 0:
                    if state[child] == 1 or state[child] == 2:
                        state[child] = 2
                        continue
                    stack_pos[top - 1] = pos
                    stack_node[top] = child
                    stack_pos[top] = in_ptr[child]
                    state[child] = 1
                    top += 1
                    descended = True
                    break
            if descended:
                continue
            top -= 1
            pinned = state[node] == 2
            if state[node] == 1:
                state[node] = 0
            # build the node's inputs
            absorbing = 0 if kind[node] == AND else 1
            neutral = absorbing ^ 1
            start = used
            size = in_ptr[node + 1] - in_ptr[node]
            if used + size > capacity:
                capacity = 2 * capacity + size
                grown = np.zeros(capacity, dtype=np.int64)
                grown[:used] = lits[:used]
                lits = grown
            for e in range(in_ptr[node], in_ptr[node + 1]):
                lit = in_lit[e]
                m = mapped[lit >> 1]
                if m >= 0:
                    lit = m ^ (lit & 1)
                lits[used] = lit
                used += 1
            end = used
            if end - start > 24:
                lits[start:end] = np.sort(lits[start:end])
            else:
                _sort_small(lits, start, end)
            result = -1
            write = start
            i = start
            while i < end:
                lit = lits[i]
                i += 1
                if lit == neutral:
                    continue
                if lit == absorbing:
                    result = absorbing
                    break
                if write > start and lits[write - 1] == lit:
                    continue
                if write > start and lits[write - 1] == (lit ^ 1):
                    result = absorbing  # x and not x / x or not x
                    break
                lits[write] = lit
                write += 1
            if result < 0:
                if write == start:
                    result = neutral
                elif write - start == 1 and not pinned:
                    result = lits[start]
            if result >= 0:
                used = start
                if pinned:
                    # referenced inside a cycle by number: keep a one-input gate
                    lits[start] = result
                    used = start + 1
                    new_kind[node] = OR
                    lo_of[node] = start
                    hi_of[node] = used
                    mapped[node] = 2 * node
                else:
                    mapped[node] = result
                continue
            used = write
            if not pinned:
                key = _hash(kind[node], lits, start, write)
                if key in canonical:
                    other = canonical[key]
                    if new_kind[other] == kind[node] and hi_of[other] - lo_of[other] == write - start:
                        same = True
                        for k in range(write - start):
                            if lits[lo_of[other] + k] != lits[start + k]:
                                same = False
                                break
                        if same:
                            mapped[node] = 2 * other
                            used = start
                            continue
                else:
                    canonical[key] = node
            lo_of[node] = start
            hi_of[node] = write
            mapped[node] = 2 * node
    # pinned references: resolve the numbers they were written with
    for g in range(first_gate, n):
        if mapped[g] == 2 * g:
            for k in range(lo_of[g], hi_of[g]):
                lit = lits[k]
                m = mapped[lit >> 1]
                if m >= 0:
                    lits[k] = m ^ (lit & 1)
    return mapped, new_kind, lo_of, hi_of, lits[:used]


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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
