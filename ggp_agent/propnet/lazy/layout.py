"""A compiled rule program and its working tables, as flat arrays.

Why flat arrays: the evaluator (`vm.py`) is a set of generic numba kernels,
and a game is data: every game's program has the same array types, so one
compiled kernel serves every game and a START compiles nothing.

A program is a stratified Datalog program over ground terms as ids (the
grounder's `term_store`): relations, their *views*, rules as sequences of
*operations*, and components in evaluation order.

- A **view** of a relation holds its tuples taken apart by one shape: the
  identity view holds the tuples as they are (one cell per argument); a
  shaped view holds, for the tuples whose arguments have the shape's
  function structure, the leaves of that structure (`(true (cell ?x ?y ?p))`
  reads the view of `true` by `(cell _ _ _)`: three cells a row). A tuple
  inserted into a relation goes into each of its views it matches.
- An **index** of a view chains its rows by the hash of some of their
  cells (the bound ones of some literal); the identity view's index on all
  its cells finds duplicates.
- A rule is its body's operations in evaluation order, then its head: a
  scan of a view (through an index when some leaves are bound), a negated
  lookup, or a `distinct` test; each leaf of a scanned row is compared with
  a key, bound to a register, or ignored.

Shapes and term specs are trees in preorder: a shape node is a leaf slot or
a function (its tag and arity); a term spec node is a constant, a register
or a function. This module must not know about rules' text or numba: it
holds the arrays and their sizes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# -- operation kinds ---------------------------------------------------------------------------
OP_SCAN = 0
OP_NEG = 1
OP_DISTINCT = 2
OP_SAME = 3  # (not (distinct a b))

# -- leaf modes of a scanned row ----------------------------------------------------------------
LEAF_KEY_CONST = 0  # part of the index key: a constant
LEAF_KEY_VAR = 1  # part of the index key: a register bound before
LEAF_BIND = 2  # binds a register
LEAF_CHECK = 3  # equals a register bound earlier in the same row
LEAF_IGNORE = 4  # a variable used nowhere else

# -- shape and term spec nodes ------------------------------------------------------------------
NODE_LEAF = 0  # shape: a leaf slot (value: its index among the view's cells)
NODE_FUNC = 1  # shape and spec: a function (value: its tag's id; arity)
NODE_CONST = 2  # spec: a term id
NODE_VAR = 3  # spec: a register

# -- what an evaluation returns -----------------------------------------------------------------
OK = 0
TERMS_FULL = -1  # the term store needs room: grow it and evaluate again
WORK_LIMIT = -2  # an evaluation made more tuples than its budget
VIEW_FULL = -3  # T.status[1] holds the view that needs room

#: Head generation of rows loaded once and kept (the static relations).
KEPT_GENERATION = 0


class Program(NamedTuple):
    """One compiled program: read-only, shared by every table set made for it."""

    n_rel: int
    n_view: int
    n_index: int
    n_rule: int
    n_comp: int
    max_regs: int
    max_ops: int
    max_width: int
    max_spec: int
    #: the relations the caller fills (e.g. the state, the moves) and reads
    #: back, in an order the caller sets (-1: absent from the program)
    inputs: np.ndarray
    outputs: np.ndarray
    rel_arity: np.ndarray
    #: views of each relation, CSR; the first is the identity view
    rel_view_ptr: np.ndarray
    rel_views: np.ndarray
    #: the identity view's index on every cell (duplicates)
    rel_dedup: np.ndarray
    #: 1 for a relation whose tuples are loaded once (static)
    rel_static: np.ndarray
    view_rel: np.ndarray
    view_width: np.ndarray
    #: the view's shape, one preorder tree per argument of its relation (CSR)
    view_shape_ptr: np.ndarray
    shape_kind: np.ndarray
    shape_val: np.ndarray
    shape_arity: np.ndarray
    #: indexes of each view (CSR)
    view_index_ptr: np.ndarray
    view_indexes: np.ndarray
    index_view: np.ndarray
    #: the cells each index hashes, in order (CSR)
    index_key_ptr: np.ndarray
    index_keys: np.ndarray
    rule_head_rel: np.ndarray
    rule_op_ptr: np.ndarray
    #: per head argument, its term spec's range (CSR over rules)
    rule_harg_ptr: np.ndarray
    harg_lo: np.ndarray
    harg_hi: np.ndarray
    #: a rule of a recursive component: its variants for the semi-naive
    #: rounds, one per literal of its own component, that literal first
    #: (CSR over rules: the variant's rule number and its delta operation)
    rule_delta_ptr: np.ndarray
    delta_rule: np.ndarray
    delta_op: np.ndarray
    op_kind: np.ndarray
    op_view: np.ndarray
    op_index: np.ndarray
    op_leaf_lo: np.ndarray
    #: `distinct` operands: term spec ranges
    op_a_lo: np.ndarray
    op_a_hi: np.ndarray
    op_b_lo: np.ndarray
    op_b_hi: np.ndarray
    leaf_mode: np.ndarray
    leaf_val: np.ndarray
    spec_kind: np.ndarray
    spec_val: np.ndarray
    spec_arity: np.ndarray
    #: components in evaluation order: their rules, whether recursive, their views (CSR)
    comp_rule_ptr: np.ndarray
    comp_rules: np.ndarray
    comp_rec: np.ndarray
    comp_view_ptr: np.ndarray
    comp_views: np.ndarray


class Tables(NamedTuple):
    """One evaluator's tuples and scratch for one program (never shared between threads)."""

    view_base: np.ndarray  # int64: first cell of the view in `cells`
    view_cap: np.ndarray  # int64: rows it has room for
    view_n: np.ndarray  # int64: rows it holds
    cells: np.ndarray  # int32
    index_head_base: np.ndarray  # int64: first bucket in heads_*
    index_mask: np.ndarray  # int64: buckets - 1
    index_next_base: np.ndarray  # int64: first chain link in `nexts` (one per row of the view)
    #: int64 per bucket: generation << 32 | newest row; a bucket is valid when
    #: it holds this evaluation's generation (or the kept one); -1 empty
    heads: np.ndarray
    nexts: np.ndarray  # int32
    #: [0]: this evaluation's generation; [1]: tuples made; [2]: the budget of tuples
    counters: np.ndarray  # int64
    #: rows each rule's scans looked at, summed over evaluations (where the time goes)
    rule_rows: np.ndarray  # int64
    #: [0]: the last status, [1]: the view that was full
    status: np.ndarray  # int64
    delta_lo: np.ndarray  # int64 per view: the last round's rows (semi-naive)
    delta_hi: np.ndarray
    regs: np.ndarray  # int32
    it_row: np.ndarray  # int64 per operation level
    it_lo: np.ndarray
    it_hi: np.ndarray
    leaves: np.ndarray  # int32
    args: np.ndarray  # int32
    stack: np.ndarray  # int32


class Terms(NamedTuple):
    """The term store's arrays (`term_store.TermStore`), as the kernels take them."""

    left: np.ndarray
    right: np.ndarray
    slot_key: np.ndarray
    slot_id: np.ndarray
    count: np.ndarray


def terms_of(store) -> Terms:
    """The kernels' view of a `TermStore` (taken again after the store grows)."""
    return Terms(store.left, store.right, store.slot_key, store.slot_id, store.count)


#: Rows a dynamic view starts with room for; it doubles when full.
FIRST_ROWS = 16

#: Tuples one evaluation may make: past it the state is beyond this engine (a
#: runaway derivation), and the caller hears so rather than waiting.
DEFAULT_WORK_BUDGET = 20_000_000


def _buckets(rows: int) -> int:
    return 1 << max(3, int(2 * max(rows, 1) - 1).bit_length())


def new_tables(program: Program, caps: np.ndarray, work_budget: int = DEFAULT_WORK_BUDGET) -> Tables:
    """Empty tables for `program`, view v with room for caps[v] rows (the
    static relations are loaded by `vm.load_static` afterwards)."""
    caps = np.maximum(np.asarray(caps, dtype=np.int64), 1)
    widths = program.view_width.astype(np.int64)
    view_base = np.zeros(program.n_view, dtype=np.int64)
    if program.n_view:
        view_base[1:] = np.cumsum(caps * np.maximum(widths, 1))[:-1]
    n_cells = int((caps * np.maximum(widths, 1)).sum())
    index_view = program.index_view
    buckets = np.array([_buckets(int(caps[v])) for v in index_view], dtype=np.int64)
    head_base = np.zeros(program.n_index, dtype=np.int64)
    next_base = np.zeros(program.n_index, dtype=np.int64)
    if program.n_index:
        head_base[1:] = np.cumsum(buckets)[:-1]
        next_base[1:] = np.cumsum(caps[index_view])[:-1]
    n_heads = int(buckets.sum())
    n_nexts = int(caps[index_view].sum()) if program.n_index else 0
    levels = max(1, program.max_ops + 1)
    counters = np.zeros(3, dtype=np.int64)
    counters[0] = KEPT_GENERATION
    counters[2] = work_budget
    return Tables(
        view_base=view_base, view_cap=caps.copy(), view_n=np.zeros(program.n_view, dtype=np.int64),
        cells=np.zeros(max(1, n_cells), dtype=np.int32),
        index_head_base=head_base, index_mask=buckets - 1, index_next_base=next_base,
        heads=np.full(max(1, n_heads), -1, dtype=np.int64),
        nexts=np.full(max(1, n_nexts), -1, dtype=np.int32),
        counters=counters, rule_rows=np.zeros(max(1, program.n_rule), dtype=np.int64),
        status=np.zeros(2, dtype=np.int64),
        delta_lo=np.zeros(program.n_view, dtype=np.int64), delta_hi=np.zeros(program.n_view, dtype=np.int64),
        regs=np.zeros(max(1, program.max_regs), dtype=np.int32),
        it_row=np.zeros(levels, dtype=np.int64), it_lo=np.zeros(levels, dtype=np.int64),
        it_hi=np.zeros(levels, dtype=np.int64),
        leaves=np.zeros(max(1, program.max_width), dtype=np.int32),
        args=np.zeros(max(1, int(program.rel_arity.max(initial=0))), dtype=np.int32),
        stack=np.zeros(max(8, 2 * program.max_spec + 8), dtype=np.int32),
    )
