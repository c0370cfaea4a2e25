"""Joins of integer tables: the grounder's inner loop.

Why numpy: a rule's instances are the rows of a join of its literals'
relations; sorted integer keys and `searchsorted` join millions of rows in a
fraction of a second, where Prolog took microseconds per answer (the
grounder's profile: docs/propnet.md, "Where the time goes").

- `View`: the rows of a relation that match a literal, one column per
  variable, with sorted indexes on the variables joins look them up by.
  A view of a growing table grows with it (`extended`): a semi-naive round
  adds the round's rows to the view and to its indexes (a merge, not a
  sort), so a recursion of hundreds of rounds does not sort the whole
  relation at each one. `projected` keeps some of its variables, each
  combination once (a group of literals the head does not need becomes an
  existence test, not a product), and grows the same way.
- `Bindings`: the rows of a partial join, one column per bound variable;
  `join` extends them by a view, `keep` projects them (dropping duplicates).

Keys of several columns are the ids of the chain of their values in the
term store (`term_store.TermStore.chain`): the same for every join, so an
index serves them all. Every join counts its rows before it makes them:
past `max_rows` it raises `JoinTooLarge` rather than allocating (a grounding
bomb stops at a cap, not at the machine's memory). This module must not
know about rules or relations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...gdl.terms import Variable
from .term_kernels import EMPTY, first_of_each
from .term_store import TermStore

#: Rows a join may make, and rows times columns (int32 cells): beyond these a
#: network would not pay for itself anyway, and the arrays stay under a
#: gigabyte.
MAX_ROWS = 24_000_000
MAX_CELLS = 160_000_000

#: A view's count of distinct values is counted again once it has grown by this share.
RECOUNT_GROWTH = 0.25

#: The tag of the chains that make multi-column keys (no term has it: it is not a symbol key).
_KEY_TAG = ("key",)


class JoinTooLarge(Exception):
    """A join would make more rows than its limit."""

    def __init__(self, rows: int) -> None:
        self.rows = rows
        super().__init__(f"a join of {rows} rows")


def keys(store: TermStore, columns: list[np.ndarray], insert: bool) -> np.ndarray:
    """One int64 key per row, equal exactly where the rows are (-1, without
    `insert`, for a combination never keyed)."""
    if len(columns) == 1:
        return columns[0].astype(np.int64)
    return store.chain(store.symbol(_KEY_TAG), columns, len(columns[0]), insert).astype(np.int64)


@dataclass
class Index:
    """A view's rows sorted by the key of some of its variables."""

    keys: np.ndarray
    positions: np.ndarray

    @classmethod
    def of(cls, row_keys: np.ndarray, offset: int = 0) -> "Index":
        order = np.argsort(row_keys, kind="stable")
        return cls(row_keys[order], order + offset)

    def merged(self, other: "Index") -> "Index":
        at = np.searchsorted(self.keys, other.keys, side="right")
        return Index(np.insert(self.keys, at, other.keys), np.insert(self.positions, at, other.positions))

    def ranges(self, probe: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.searchsorted(self.keys, probe, side="left"), np.searchsorted(self.keys, probe, side="right")


@dataclass
class View:
    """Rows matching a literal: a column per variable, the atoms, indexes."""

    columns: dict[Variable, np.ndarray]
    atoms: Optional[np.ndarray]
    #: the table's rows this view has read (it grows from there)
    covered: int = 0
    indexes: dict = field(default_factory=dict)
    _distinct: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else (
            len(self.atoms) if self.atoms is not None else 0)

    def distinct(self, variable: Variable) -> int:
        """How many values `variable` takes (counted again as the view grows)."""
        count, at = self._distinct.get(variable, (0, -1))
        if at < 0 or self.n > at * (1 + RECOUNT_GROWTH):
            count = max(1, len(np.unique(self.columns[variable])))
            self._distinct[variable] = (count, self.n)
        return count

    def index(self, store: TermStore, variables: tuple) -> Index:
        found = self.indexes.get(variables)
        if found is None:
            found = self.indexes[variables] = Index.of(keys(store, [self.columns[v] for v in variables], True))
        return found

    def extended(self, store: TermStore, more: "View") -> "View":
        """This view and the rows of `more` (the table's rows after
        `covered`), indexes merged."""
        if more.n == 0:
            self.covered = more.covered
            return self
        columns = {v: np.concatenate([c, more.columns[v]]) for v, c in self.columns.items()}
        atoms = None if self.atoms is None else np.concatenate([self.atoms, more.atoms])
        indexes = {variables: index.merged(Index.of(keys(store, [more.columns[v] for v in variables], True), self.n))
                   for variables, index in self.indexes.items()}
        return View(columns, atoms, more.covered, indexes, dict(self._distinct))

    def projected(self, store: TermStore, variables: tuple) -> "View":
        """The view's rows on `variables` only, each combination once (its
        index on all of them kept)."""
        if not variables:
            return View({}, np.zeros(min(self.n, 1), dtype=np.int32), self.covered)
        row_keys = keys(store, [self.columns[v] for v in variables], True)
        first = first_occurrences(row_keys)
        found = View({v: self.columns[v][first] for v in variables}, None, self.covered)
        found.indexes[variables] = Index.of(row_keys[first])
        return found

    def projected_more(self, store: TermStore, more: "View", variables: tuple) -> "View":
        """This projected view, grown by the rows of `more` (a full view's
        new rows) whose combination it does not hold yet."""
        if not variables:
            if self.n or not more.n:
                self.covered = more.covered
                return self
            return View({}, np.zeros(1, dtype=np.int32), more.covered)
        index = self.indexes[variables]
        row_keys = keys(store, [more.columns[v] for v in variables], True)
        first = first_occurrences(row_keys)
        row_keys = row_keys[first]
        lo, hi = index.ranges(row_keys)
        fresh = first[hi == lo]
        if len(fresh) == 0:
            self.covered = more.covered
            return self
        added = View({v: more.columns[v][fresh] for v in variables}, None, more.covered)
        return self.extended(store, added)


@dataclass
class Bindings:
    """Rows of a partial join: a column (int32) per bound variable."""

    columns: dict[Variable, np.ndarray]
    n: int

    @classmethod
    def unit(cls) -> "Bindings":
        """The join of nothing: one row that binds nothing."""
        return cls({}, 1)

    def where(self, mask: np.ndarray) -> "Bindings":
        if mask.all():
            return self
        return Bindings({v: c[mask] for v, c in self.columns.items()}, int(mask.sum()))

    def keep(self, wanted: set) -> "Bindings":
        """Only the variables in `wanted`, each row once."""
        kept = {v: c for v, c in self.columns.items() if v in wanted}
        if len(kept) == len(self.columns):
            return self
        if not kept:
            return Bindings({}, min(self.n, 1))
        first = first_occurrences(row_keys(list(kept.values())))
        if len(first) == self.n:
            return Bindings(kept, self.n)
        return Bindings({v: c[first] for v, c in kept.items()}, len(first))


def join(store: TermStore, bindings: Bindings, found: View, new: list, max_rows: int = MAX_ROWS) -> Bindings:
    """`bindings` extended by the rows of `found` that agree with them on
    the variables both have, with the view's variables `new`."""
    shared = tuple(v for v in found.columns if v in bindings.columns)
    if not shared:
        total = bindings.n * found.n
        _check(total, len(bindings.columns) + len(new), max_rows)
        left = np.repeat(np.arange(bindings.n), found.n)
        right = np.tile(np.arange(found.n), bindings.n)
    else:
        index = found.index(store, shared)
        probe = keys(store, [bindings.columns[v] for v in shared], False)
        lo, hi = index.ranges(probe)
        counts = hi - lo
        total = int(counts.sum())
        _check(total, len(bindings.columns) + len(new), max_rows)
        left = np.repeat(np.arange(bindings.n), counts)
        starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
        right = index.positions[starts + np.arange(total)]
    columns = {v: c[left] for v, c in bindings.columns.items()}
    for v in new:
        columns[v] = found.columns[v][right]
    return Bindings(columns, total)


def first_occurrences(values: np.ndarray) -> np.ndarray:
    """The positions of the first occurrence of each distinct value (int64 >= 0), in order."""
    size = 1 << max(4, (2 * len(values)).bit_length())
    out = np.empty(len(values), dtype=np.int64)
    count = first_of_each(np.ascontiguousarray(values, dtype=np.int64), np.full(size, EMPTY, dtype=np.int64), out)
    return out[:count]


def row_keys(columns: list[np.ndarray]) -> np.ndarray:
    """One int64 key per row, equal exactly where the rows are, for this set
    of rows only (dropping duplicates): the columns in mixed radix while
    that fits in 62 bits, ranked when not."""
    result = columns[0].astype(np.int64)
    for column in columns[1:]:
        column = column.astype(np.int64)
        radix = int(column.max()) + 1 if len(column) else 1
        top = int(result.max()) + 1 if len(result) else 1
        if top * radix >= 1 << 62:
            result = np.unique(result, return_inverse=True)[1].astype(np.int64)
            top = int(result.max()) + 1 if len(result) else 1
            if top * radix >= 1 << 62:
                column = np.unique(column, return_inverse=True)[1].astype(np.int64)
                radix = int(column.max()) + 1
        result = result * radix + column
    return result


def _check(rows: int, width: int, max_rows: int) -> None:
    if rows > max_rows or rows * max(1, width) > MAX_CELLS:
        raise JoinTooLarge(rows)
