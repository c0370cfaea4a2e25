"""Ground terms as integers for the grounder: one id per distinct term, shared structure.

Why: the grounder joins relations of millions of atoms; as integers in numpy
arrays they join by sorting (`relations.py`), compare with `==` and take four
bytes each. Every ground term gets one id ("hash-consing"): a symbol (a
constant, or the tag that names a function or a relation with its arity) is
an id of its own, and a compound is a chain of pairs, `(f a b)` =
pair(pair(tag f/2, a), b), each pair interned once in an open-addressing hash
table run by a numba kernel. The same term built twice gets the same id, an
atom's id is its identity, and atoms that share a prefix share its pairs (the
2^20 atoms of a 20-argument relation over bits take 2^21 pairs, not 20 * 2^20).

This module must not know about rules or relations: it interns, builds and
takes apart terms.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ...gdl.terms import Compound, Symbol, Term
from .term_kernels import EMPTY, intern_pairs, rehash

#: Ids and slots a store starts with (it doubles as it fills; small, so that
#: every game, the warm-up's too, runs the kernel that grows it).
FIRST_CAPACITY = 64


class TermStore:
    """Every ground term and atom of one grounding, as ids (module docstring).

    A symbol is a key: ("c", name) a constant, ("f", name, arity) the tag of
    a function, ("r", name, arity) the tag of a relation; a 0-ary relation's
    atom is its tag.
    """

    def __init__(self, capacity: int = FIRST_CAPACITY) -> None:
        self.left = np.full(capacity, -1, dtype=np.int32)
        self.right = np.full(capacity, -1, dtype=np.int32)
        self.slot_key = np.full(2 * capacity, EMPTY, dtype=np.int64)
        self.slot_id = np.zeros(2 * capacity, dtype=np.int32)
        self.count = np.zeros(2, dtype=np.int64)
        self._symbols: dict[tuple, int] = {}
        self._symbol_of: dict[int, tuple] = {}
        self._terms: dict[int, Term] = {}
        #: constants the rules write `(name)` (the terms read back keep that spelling)
        self.parenthesized: frozenset = frozenset()

    @property
    def n_ids(self) -> int:
        return int(self.count[0])

    def nbytes(self) -> int:
        return self.left.nbytes + self.right.nbytes + self.slot_key.nbytes + self.slot_id.nbytes

    # -- interning -------------------------------------------------------------

    def symbol(self, key: tuple) -> int:
        """The id of a symbol key (module docstring), made on first use."""
        found = self._symbols.get(key)
        if found is not None:
            return found
        if self.n_ids >= len(self.left):
            self._grow_ids()
        new = self.n_ids
        self.count[0] += 1
        self._symbols[key] = new
        self._symbol_of[new] = key
        return new

    def known_symbol(self, key: tuple) -> Optional[int]:
        return self._symbols.get(key)

    def pairs(self, lefts: np.ndarray, rights: np.ndarray, insert: bool = True) -> np.ndarray:
        """The pair ids of (lefts[i], rights[i]) (int32); -1 where a side is -1
        or, without `insert`, where the pair was never made."""
        lefts = np.ascontiguousarray(lefts, dtype=np.int32)
        rights = np.ascontiguousarray(rights, dtype=np.int32)
        out = np.empty(len(lefts), dtype=np.int32)
        start = 0
        while True:
            start = intern_pairs(self.slot_key, self.slot_id, self.left, self.right, self.count, lefts, rights, out,
                                 insert, start)
            if start >= len(lefts):
                return out
            if self.n_ids >= len(self.left):
                self._grow_ids()
            else:
                self._grow_table()

    def chain(self, tag: int, args: list[np.ndarray], n: int, insert: bool = True) -> np.ndarray:
        """The ids of `n` terms tag(args[0][i], args[1][i], ...)."""
        current = np.full(n, tag, dtype=np.int32)
        for arg in args:
            current = self.pairs(current, arg, insert)
        return current

    def unchain(self, ids: np.ndarray, arity: int) -> tuple[np.ndarray, list[np.ndarray]]:
        """(tag, args) of each term as a chain of `arity` pairs; tag -1 where
        an id is not such a chain (too short, or -1)."""
        current = np.asarray(ids, dtype=np.int32)
        args = []
        for _ in range(arity):
            valid = current >= 0
            safe = np.where(valid, current, 0)
            args.append(np.where(valid, self.right[safe], -1))
            current = np.where(valid, self.left[safe], -1)
        args.reverse()
        return current, args

    # -- reading back ----------------------------------------------------------------

    def term(self, term_id: int) -> Term:
        """The term of an id (a term, not a relation's atom)."""
        found = self._terms.get(term_id)
        if found is not None:
            return found
        args = []
        current = term_id
        left, right = self.left, self.right
        while left[current] >= 0:
            args.append(int(right[current]))
            current = int(left[current])
        key = self._symbol_of[current]
        if not args:
            term: Term = Symbol(key[1], parenthesized=key[1] in self.parenthesized)
        else:
            term = Compound(key[1], tuple(self.term(a) for a in reversed(args)))
        self._terms[term_id] = term
        return term

    # -- growth --------------------------------------------------------------------

    def make_room(self) -> None:
        """Double whatever is at least half full (ids, the pair table): for
        callers that intern pairs in kernels of their own, which stop when
        the store is full (`lazy.vm.intern_pair`)."""
        if 2 * self.n_ids >= len(self.left):
            self._grow_ids()
        if 4 * int(self.count[1]) >= len(self.slot_key):
            self._grow_table()

    def _grow_ids(self) -> None:
        size = 2 * len(self.left)
        self.left = _resized(self.left, size)
        self.right = _resized(self.right, size)

    def _grow_table(self) -> None:
        size = 2 * len(self.slot_key)
        self.slot_key = np.full(size, EMPTY, dtype=np.int64)
        self.slot_id = np.zeros(size, dtype=np.int32)
        rehash(self.slot_key, self.slot_id, self.left, self.right, self.n_ids)


def _resized(values: np.ndarray, size: int) -> np.ndarray:
    grown = np.full(size, -1, dtype=values.dtype)
    grown[: len(values)] = values
    return grown
