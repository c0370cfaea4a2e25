"""Relations as integer tables: what a relation holds, and what matches a pattern.

- `Table`: one relation's atoms, each a row of argument ids (`term_store`)
  and the atom's own id, in the order they were found (the rows a
  semi-naive round added are a slice).
- `view`: the rows of a table that match a literal's pattern (constants,
  repeated variables, function terms taken apart), as one column per
  variable (a `joins.View`).
- `build`: the ids of a term or an atom under rows of bindings.

This module must not know about rules' meaning (which relation is static,
what a round is) nor about joins.
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from ...gdl.terms import Symbol, Term, Variable
from .joins import View
from .term_store import TermStore

@dataclass
class Table:
    """One relation's atoms: rows of argument ids and the atoms' ids."""

    key: tuple[str, int]
    tag: int
    rows: np.ndarray
    atoms: np.ndarray
    n: int = 0
    #: the rows the last round added: rows[delta[0]:delta[1]]
    delta: tuple[int, int] = (0, 0)

    @classmethod
    def empty(cls, key: tuple[str, int], tag: int) -> "Table":
        return cls(key, tag, np.zeros((16, key[1]), dtype=np.int32), np.zeros(16, dtype=np.int32))

    def add(self, rows: np.ndarray, atoms: np.ndarray) -> None:
        """Append atoms known to be new and distinct."""
        count = len(atoms)
        if self.n + count > len(self.atoms):
            size = max(2 * len(self.atoms), self.n + count)
            grown_rows = np.zeros((size, self.key[1]), dtype=np.int32)
            grown_rows[: self.n] = self.rows[: self.n]
            grown_atoms = np.zeros(size, dtype=np.int32)
            grown_atoms[: self.n] = self.atoms[: self.n]
            self.rows, self.atoms = grown_rows, grown_atoms
        self.rows[self.n: self.n + count] = rows
        self.atoms[self.n: self.n + count] = atoms
        self.n += count

    def slice(self, delta: bool) -> tuple[int, int]:
        return self.delta if delta else (0, self.n)

    def nbytes(self) -> int:
        return self.rows.nbytes + self.atoms.nbytes


def view(store: TermStore, table: Table, args: tuple[Term, ...], lo: int, hi: int) -> View:
    """The rows lo..hi of `table` that match the argument patterns `args`
    (`covered`: hi)."""
    rows = table.rows[lo:hi]
    atoms = table.atoms[lo:hi]
    columns: dict[Variable, np.ndarray] = {}
    keep = np.ones(len(atoms), dtype=bool)
    checks: list[tuple[np.ndarray, Term]] = [(rows[:, i], arg) for i, arg in enumerate(args)]
    while checks:
        values, pattern = checks.pop()
        if isinstance(pattern, Variable):
            if pattern in columns:
                keep &= columns[pattern] == values
            else:
                columns[pattern] = values
        elif isinstance(pattern, Symbol):
            constant = store.known_symbol(("c", pattern.name))
            keep &= values == (constant if constant is not None else -2)
        else:
            tag = store.known_symbol(("f", pattern.functor, len(pattern.args)))
            found, parts = store.unchain(values, len(pattern.args))
            keep &= found == (tag if tag is not None else -2)
            checks.extend(zip(parts, pattern.args))
    if keep.all():
        return View({v: np.ascontiguousarray(c) for v, c in columns.items()}, atoms, hi)
    return View({v: c[keep] for v, c in columns.items()}, atoms[keep], hi)


def build(store: TermStore, term: Term, columns: dict[Variable, np.ndarray], n: int, insert: bool) -> np.ndarray:
    """The ids of `term` under each row of bindings (-1 for a compound never
    made, without `insert`)."""
    if isinstance(term, Variable):
        return columns[term]
    if isinstance(term, Symbol):
        symbol = store.symbol(("c", term.name)) if insert else store.known_symbol(("c", term.name))
        return np.full(n, -1 if symbol is None else symbol, dtype=np.int32)
    return build_chain(store, ("f", term.functor, len(term.args)), term.args, columns, n, insert)


def build_chain(store: TermStore, tag_key: tuple, args, columns, n: int, insert: bool) -> np.ndarray:
    tag = store.symbol(tag_key) if insert else store.known_symbol(tag_key)
    if tag is None:
        return np.full(n, -1, dtype=np.int32)
    return store.chain(tag, [build(store, arg, columns, n, insert) for arg in args], n, insert)


def member(flags: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """flags[id] for each id, False for -1 or an id beyond the flags."""
    valid = (ids >= 0) & (ids < len(flags))
    result = np.zeros(len(ids), dtype=bool)
    result[valid] = flags[ids[valid]]
    return result
