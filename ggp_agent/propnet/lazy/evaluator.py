"""One program's tables for one evaluator, grown when a kernel finds them too small.

Why here: the machine and the build's sampling (`sampling.py`) both run
programs on states, and a kernel that runs out of room only says which
table (`layout.VIEW_FULL`, `TERMS_FULL`): growing it, reloading the static
relations and evaluating again is this one class's job.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ...reasoner.statemachine import ReasonerError
from . import game_kernels as gk
from .layout import DEFAULT_WORK_BUDGET, FIRST_ROWS, OK, TERMS_FULL, VIEW_FULL, WORK_LIMIT, Tables, new_tables, terms_of
from .vm import load_kept


class Evaluator:
    """One program's tables, grown as they are found too small."""

    def __init__(self, compiled, store, rows: Optional[dict] = None, work_budget: int = DEFAULT_WORK_BUDGET) -> None:
        """`rows`: room each view is known to need, by view key (the build's
        sampling); `work_budget`: tuples one evaluation may make."""
        self.compiled = compiled
        self.work_budget = work_budget
        program = compiled.program
        rows = rows or {}
        self.caps = np.array([max(FIRST_ROWS, rows.get(key, 0)) for key in compiled.views], dtype=np.int64)
        for relation, rows in compiled.kept:
            lo, hi = program.rel_view_ptr[relation], program.rel_view_ptr[relation + 1]
            self.caps[program.rel_views[lo:hi]] = max(FIRST_ROWS, len(rows))
        self.tables: Optional[Tables] = None
        self.remake(store)

    def remake(self, store) -> None:
        """New tables at the current sizes, the static relations loaded."""
        program = self.compiled.program
        while True:
            tables = new_tables(program, self.caps, self.work_budget)
            for relation, rows in self.compiled.kept:
                status = load_kept(program, tables, terms_of(store), relation, rows)
                if status == TERMS_FULL:
                    store.make_room()
                    break
                if status == VIEW_FULL:
                    self.caps[int(tables.status[1])] *= 2
                    break
                if status != OK:
                    raise ReasonerError(f"static relations could not be loaded (status {status})")
            else:
                self.tables = tables
                tables.counters[0] = 1
                return

    def grow(self, status: int, store) -> None:
        """Make room for what `status` says was full."""
        if status == TERMS_FULL:
            store.make_room()
        elif status == VIEW_FULL:
            self.caps[int(self.tables.status[1])] *= 4
            self.remake(store)
        elif status == WORK_LIMIT:
            raise ReasonerError("the lazy engine's evaluation of a state passed its budget of tuples")
        else:
            raise ReasonerError(f"the lazy engine failed (status {status})")

    def evaluate(self, store, state: np.ndarray, n: int, role_ids: np.ndarray, moves: np.ndarray) -> Tables:
        """Run the program on state[:n] (and the joint move `moves`), growing
        tables until it fits: the tables holding the result."""
        while True:
            status = gk.evaluate(self.compiled.program, self.tables, terms_of(store), state, n, role_ids, moves)
            if status == OK:
                return self.tables
            self.grow(int(status), store)
