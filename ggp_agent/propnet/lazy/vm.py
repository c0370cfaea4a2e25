"""The evaluator: a compiled rule program run over one state's facts, in numba.

What it does: `reset` empties the dynamic relations, the caller inserts the
state's facts (`insert_tuple`), and `run` computes every relation of the
program, component by component in their order, a recursive component by
semi-naive rounds (each round joins one recursive literal against the rows
the round before added, the others against all). A rule is a backtracking
walk over its operations (`layout.py`): scans through hash indexes, negated
lookups, `distinct`. Its head is built (compound arguments interned in the
term store) and inserted once: a duplicate is found by the relation's index
on every cell, and a new tuple is added to each view whose shape it has.

Nothing here allocates: tables have fixed room, and a kernel that runs out
returns a status (`layout.TERMS_FULL`, `VIEW_FULL` with the view) so that the
caller grows what is full and evaluates again (an evaluation is a pure
function of the facts). Every table is emptied in constant time: an index
bucket is valid only when it holds the evaluation's generation (one int64 a
bucket: the generation above the row, so a probe reads one cache line).

This module must not know about games, moves or states: it runs programs.
"""

from __future__ import annotations

import numpy as np

from ..jit.decorators import inline_kernel, kernel
from .layout import (
    KEPT_GENERATION, LEAF_BIND, LEAF_CHECK, LEAF_KEY_CONST, LEAF_KEY_VAR, NODE_CONST, NODE_FUNC, NODE_LEAF,
    NODE_VAR, OK, OP_DISTINCT, OP_NEG, OP_SAME, OP_SCAN, TERMS_FULL, VIEW_FULL, WORK_LIMIT,
)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL = np.uint64(0xBF58476D1CE4E5B9)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S32I = np.int64(32)
_LOW32 = np.int64(0xFFFFFFFF)
#: Generations stay below this, so that one shifted up stays a positive int64.
_LAST_GENERATION = 1 << 30
_EMPTY = -1


# -- terms -------------------------------------------------------------------------------------

@inline_kernel
def _term_slot(key, mask):
    mixed = np.uint64(key) * _GOLDEN
    return np.int64((mixed ^ (mixed >> _S32)) & np.uint64(mask))


@inline_kernel
def intern_pair(S, a, b, insert):
    """The id of the pair (a, b) in the term store (`term_kernels.intern_pairs`'
    table): -1 when it was never made and `insert` is off, TERMS_FULL when
    the store has no room left."""
    mask = np.int64(len(S.slot_key) - 1)
    key = (np.int64(a) << np.int64(32)) | np.int64(b)
    h = _term_slot(key, mask)
    while True:
        found = S.slot_key[h]
        if found == key:
            return np.int64(S.slot_id[h])
        if found == _EMPTY:
            if not insert:
                return np.int64(-1)
            n_ids = S.count[0]
            if n_ids >= len(S.left) or S.count[1] >= len(S.slot_key) // 2:
                return np.int64(TERMS_FULL)
            S.slot_key[h] = key
            S.slot_id[h] = n_ids
            S.left[n_ids] = a
            S.right[n_ids] = b
            S.count[0] = n_ids + 1
            S.count[1] += 1
            return np.int64(n_ids)
        h = (h + 1) & mask


@inline_kernel
def build_spec(P, T, S, lo, hi):
    """The id of the term spec P.spec_*[lo:hi] under the registers (compounds
    interned); TERMS_FULL when the store is full."""
    stack = T.stack
    top = 0
    for node in range(hi - 1, lo - 1, -1):
        kind = P.spec_kind[node]
        if kind == NODE_CONST:
            stack[top] = P.spec_val[node]
            top += 1
        elif kind == NODE_VAR:
            stack[top] = T.regs[P.spec_val[node]]
            top += 1
        else:
            current = np.int64(P.spec_val[node])
            for _ in range(P.spec_arity[node]):
                top -= 1
                current = intern_pair(S, current, stack[top], True)
                if current < 0:
                    return np.int64(TERMS_FULL)
            stack[top] = current
            top += 1
    return np.int64(stack[0])


@inline_kernel
def match_shape(P, T, S, v, args):
    """Take `args` (a tuple of the view's relation) apart by the view's
    shape into T.leaves; False when the tuple does not have that shape."""
    stack = T.stack
    leaves = T.leaves
    lo = P.view_shape_ptr[v]
    hi = P.view_shape_ptr[v + 1]
    arg = 0
    top = 0
    for node in range(lo, hi):
        if top == 0:  # the next argument's tree starts here
            stack[0] = args[arg]
            arg += 1
            top = 1
        top -= 1
        term = np.int64(stack[top])
        if P.shape_kind[node] == NODE_LEAF:
            leaves[P.shape_val[node]] = term
            continue
        arity = P.shape_arity[node]
        current = term
        for k in range(arity):  # children pushed last first: the first is popped next
            if current < 0 or S.left[current] < 0:
                return False
            stack[top + k] = S.right[current]
            current = S.left[current]
        if current != P.shape_val[node]:
            return False
        top += arity
    return True


# -- indexes -----------------------------------------------------------------------------------

@inline_kernel
def _mix(h, value):
    h = (h ^ np.uint64(np.int64(value) & np.int64(0xFFFFFFFF))) * _MUL
    return h ^ (h >> _S31)


@inline_kernel
def _row_hash(P, T, ix, cell0):
    h = _GOLDEN
    for k in range(P.index_key_ptr[ix], P.index_key_ptr[ix + 1]):
        h = _mix(h, T.cells[cell0 + P.index_keys[k]])
    return h


@inline_kernel
def _bucket_row(T, ix, h):
    """The newest row of the bucket of hash h in index ix (-1 when none this evaluation)."""
    head = T.heads[T.index_head_base[ix] + np.int64(h & np.uint64(T.index_mask[ix]))]
    generation = head >> _S32I
    if generation == T.counters[0] or generation == KEPT_GENERATION:
        return head & _LOW32
    return np.int64(-1)


@inline_kernel
def _append(P, T, v, values, n, known_ix, known_h):
    """Append a row of `n` cells to view v and chain it into its indexes
    (index `known_ix`'s hash of the row is `known_h`, already computed);
    VIEW_FULL when the view has no room."""
    row = T.view_n[v]
    if row >= T.view_cap[v]:
        T.status[1] = v
        return VIEW_FULL
    width = P.view_width[v]
    cell0 = T.view_base[v] + row * max(width, 1)
    for k in range(n):
        T.cells[cell0 + k] = values[k]
    T.view_n[v] = row + 1
    generation = T.counters[0]
    for i in range(P.view_index_ptr[v], P.view_index_ptr[v + 1]):
        ix = P.view_indexes[i]
        h = known_h if ix == known_ix else _row_hash(P, T, ix, cell0)
        slot = T.index_head_base[ix] + np.int64(h & np.uint64(T.index_mask[ix]))
        head = T.heads[slot]
        if (head >> _S32I) == generation or (head >> _S32I) == KEPT_GENERATION:
            T.nexts[T.index_next_base[ix] + row] = head & _LOW32
        else:
            T.nexts[T.index_next_base[ix] + row] = -1
        T.heads[slot] = (generation << _S32I) | row
    return OK


@inline_kernel
def insert_tuple(P, T, S, r, args):
    """Insert args[:arity] into relation r: 1 when new, 0 when it was there,
    a negative status when a view is full."""
    arity = P.rel_arity[r]
    identity = P.rel_views[P.rel_view_ptr[r]]
    ix = P.rel_dedup[r]
    h = _GOLDEN
    for k in range(arity):
        h = _mix(h, args[k])
    row = _bucket_row(T, ix, h)
    base = T.view_base[identity]
    width = max(arity, 1)
    nexts0 = T.index_next_base[ix]
    while row >= 0:
        cell0 = base + row * width
        same = True
        for k in range(arity):
            if T.cells[cell0 + k] != args[k]:
                same = False
                break
        if same:
            return 0
        row = np.int64(T.nexts[nexts0 + row])
    T.counters[1] += 1
    if T.counters[1] > T.counters[2]:
        return WORK_LIMIT
    status = _append(P, T, identity, args, arity, ix, h)
    if status != OK:
        return status
    for i in range(P.rel_view_ptr[r] + 1, P.rel_view_ptr[r + 1]):
        v = P.rel_views[i]
        if match_shape(P, T, S, v, args):
            status = _append(P, T, v, T.leaves, P.view_width[v], -1, h)
            if status != OK:
                return status
    return 1


@inline_kernel
def _key_hash(P, T, o):
    """The hash of an operation's key leaves under the registers."""
    h = _GOLDEN
    leaf0 = P.op_leaf_lo[o]
    for k in range(P.view_width[P.op_view[o]]):
        mode = P.leaf_mode[leaf0 + k]
        if mode == LEAF_KEY_CONST:
            h = _mix(h, P.leaf_val[leaf0 + k])
        elif mode == LEAF_KEY_VAR:
            h = _mix(h, T.regs[P.leaf_val[leaf0 + k]])
    return h


@inline_kernel
def _row_matches(P, T, o, cell0):
    """Compare a row with the operation's leaves, binding its free ones."""
    leaf0 = P.op_leaf_lo[o]
    regs = T.regs
    for k in range(P.view_width[P.op_view[o]]):
        mode = P.leaf_mode[leaf0 + k]
        value = T.cells[cell0 + k]
        if mode == LEAF_KEY_CONST:
            if value != P.leaf_val[leaf0 + k]:
                return False
        elif mode == LEAF_KEY_VAR or mode == LEAF_CHECK:
            if value != regs[P.leaf_val[leaf0 + k]]:
                return False
        elif mode == LEAF_BIND:
            regs[P.leaf_val[leaf0 + k]] = value
    return True


# -- rules -------------------------------------------------------------------------------------

@inline_kernel
def _emit(P, T, S, rule):
    """Build the rule's head under the registers and insert it (status, or OK)."""
    args = T.args
    n = 0
    for a in range(P.rule_harg_ptr[rule], P.rule_harg_ptr[rule + 1]):
        term = build_spec(P, T, S, P.harg_lo[a], P.harg_hi[a])
        if term < 0:
            return term
        args[n] = term
        n += 1
    status = insert_tuple(P, T, S, P.rule_head_rel[rule], args)
    return status if status < 0 else OK


@inline_kernel
def run_rule(P, T, S, rule, delta_op):
    """Every instance of the rule's body, its head inserted for each; the
    operation `delta_op` (or none, -1) reads only its view's last round."""
    first = P.rule_op_ptr[rule]
    n_ops = P.rule_op_ptr[rule + 1] - first
    level = 0
    entering = True
    while level >= 0:
        if level == n_ops:
            status = _emit(P, T, S, rule)
            if status != OK:
                return status
            level -= 1
            entering = False
            continue
        o = first + level
        kind = P.op_kind[o]
        if kind == OP_SCAN:
            v = P.op_view[o]
            ix = P.op_index[o]
            width = max(P.view_width[v], 1)
            base = T.view_base[v]
            if entering:
                if o == delta_op:
                    T.it_lo[level] = T.delta_lo[v]
                    T.it_hi[level] = T.delta_hi[v]
                else:
                    T.it_lo[level] = 0
                    T.it_hi[level] = T.view_n[v]
                row = _bucket_row(T, ix, _key_hash(P, T, o)) if ix >= 0 else T.it_lo[level]
            elif ix >= 0:
                row = np.int64(T.nexts[T.index_next_base[ix] + T.it_row[level]])
            else:
                row = T.it_row[level] + 1
            lo = T.it_lo[level]
            hi = T.it_hi[level]
            found = False
            if ix >= 0:
                nexts0 = T.index_next_base[ix]
                while row >= lo:  # a chain runs newest first: -1 ends it too
                    T.rule_rows[rule] += 1
                    if row < hi and _row_matches(P, T, o, base + row * width):
                        found = True
                        break
                    row = np.int64(T.nexts[nexts0 + row])
            else:
                while row < hi:
                    T.rule_rows[rule] += 1
                    if _row_matches(P, T, o, base + row * width):
                        found = True
                        break
                    row += 1
            if found:
                T.it_row[level] = row
                level += 1
                entering = True
            else:
                level -= 1
                entering = False
            continue
        if not entering:  # a test has one way through: back again
            level -= 1
            continue
        passed = False
        if kind == OP_NEG:
            v = P.op_view[o]
            ix = P.op_index[o]
            width = max(P.view_width[v], 1)
            base = T.view_base[v]
            row = _bucket_row(T, ix, _key_hash(P, T, o))
            passed = True
            while row >= 0:
                if _row_matches(P, T, o, base + row * width):
                    passed = False
                    break
                row = np.int64(T.nexts[T.index_next_base[ix] + row])
        else:
            a = build_spec(P, T, S, P.op_a_lo[o], P.op_a_hi[o])
            b = build_spec(P, T, S, P.op_b_lo[o], P.op_b_hi[o])
            if a < 0 or b < 0:
                return TERMS_FULL
            passed = (a != b) if kind == OP_DISTINCT else (a == b)
        if passed:
            level += 1
            entering = True
        else:
            level -= 1
            entering = False
    return OK


# -- programs ----------------------------------------------------------------------------------

@inline_kernel
def reset(P, T):
    """Empty every relation but the static ones, in constant time per view."""
    T.counters[0] += 1
    T.counters[1] = 0
    if T.counters[0] >= _LAST_GENERATION:  # once in a billion evaluations: start the generations again
        for slot in range(len(T.heads)):
            if (T.heads[slot] >> _S32I) != KEPT_GENERATION:
                T.heads[slot] = -1
        T.counters[0] = KEPT_GENERATION + 1
    for v in range(P.n_view):
        if P.rel_static[P.view_rel[v]] == 0:
            T.view_n[v] = 0


@kernel
def run(P, T, S):
    """Every relation of the program from the facts inserted since `reset`."""
    for c in range(P.n_comp):
        rules_lo = P.comp_rule_ptr[c]
        rules_hi = P.comp_rule_ptr[c + 1]
        for i in range(rules_lo, rules_hi):
            status = run_rule(P, T, S, P.comp_rules[i], -1)
            if status != OK:
                T.status[0] = status
                return status
        if P.comp_rec[c] == 0:
            continue
        views_lo = P.comp_view_ptr[c]
        views_hi = P.comp_view_ptr[c + 1]
        for i in range(views_lo, views_hi):
            v = P.comp_views[i]
            T.delta_lo[v] = 0
            T.delta_hi[v] = T.view_n[v]
        while True:
            for i in range(rules_lo, rules_hi):
                rule = P.comp_rules[i]
                for k in range(P.rule_delta_ptr[rule], P.rule_delta_ptr[rule + 1]):
                    o = P.delta_op[k]
                    v = P.op_view[o]
                    if T.delta_hi[v] > T.delta_lo[v]:
                        status = run_rule(P, T, S, P.delta_rule[k], o)
                        if status != OK:
                            T.status[0] = status
                            return status
            grew = False
            for i in range(views_lo, views_hi):
                v = P.comp_views[i]
                T.delta_lo[v] = T.delta_hi[v]
                T.delta_hi[v] = T.view_n[v]
                if T.delta_hi[v] > T.delta_lo[v]:
                    grew = True
            if not grew:
                break
    T.status[0] = OK
    return OK


@kernel
def load_kept(P, T, S, r, rows):
    """Insert rows (n x arity, int32) into relation r for good (a static
    relation: `reset` keeps them); a negative status when a view is full."""
    saved = T.counters[0]
    T.counters[0] = KEPT_GENERATION
    status = OK
    for i in range(rows.shape[0]):
        for k in range(rows.shape[1]):
            T.args[k] = rows[i, k]
        found = insert_tuple(P, T, S, r, T.args)
        if found < 0:
            status = found
            break
    T.counters[0] = saved
    T.counters[1] = 0
    return status
