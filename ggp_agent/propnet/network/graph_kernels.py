"""The network builder's graph work as numba kernels: the raw graph, constants folded, rebuilt.

Why: a network can hold hundreds of thousands of gates, and the builder walks
it several times (constant folding, rebuilding, ordering); in Python that took
tens of seconds on the big games, here it takes a fraction of one. Like the
playout kernels these are generic (compiled once, cached on disk): a game is
data, never code. `gates.py` calls them and keeps the meaning; this module
knows only integers.

Conventions (as in `gates.py`): nodes below `first_gate` are leaves (node 0
is the constant FALSE), a literal is `2 * node + negated`, kinds are 1 for
AND and 2 for OR; gate inputs are CSR arrays (`in_ptr`, `in_lit`).
"""


from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from ..jit.decorators import allocating_kernel

AND, OR = 1, 2


@allocating_kernel
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


@allocating_kernel
def _atom_literal(code, atom_lit, or_node):
    atom = code >> 1
    negated = code & 1
    if atom_lit[atom] >= 0:
        return atom_lit[atom] ^ negated
    return (2 * or_node[atom]) ^ negated


@allocating_kernel
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


@allocating_kernel
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


@allocating_kernel
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


@allocating_kernel
def _sort_small(a, lo, hi):
    for i in range(lo + 1, hi):
        x = a[i]
        j = i - 1
        while j >= lo and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@allocating_kernel
def _hash(kind, lits, lo, hi):
    h = np.uint64(1469598103934665603) ^ np.uint64(kind)
    for i in range(lo, hi):
        h ^= np.uint64(lits[i])
        h *= np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))


@allocating_kernel
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
