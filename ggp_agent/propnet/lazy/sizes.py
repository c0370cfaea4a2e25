"""Expected sizes of literals, for the order a rule's body is joined in.

Why measured: a join order is chosen once per rule (`program.py`), and the
wrong one can cost a thousand times the right one (chess's legal rule read
from the king's square outwards, or from every cell inwards). What is known
before any state is evaluated: the static relations exactly, the initial
state for `true`, and one move per role for `does`. A relation derived per
state is unknown until states are evaluated; `InitialSizes` guesses it
small, and a demand relation smaller (it holds what callers ask, a few
bindings), so that the literals known to be small go first.

This module must not know about numba.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ...gdl.terms import Compound, Symbol, Variable, relation_key
from ..grounding.demand import DEMAND_PREFIX
from ..grounding.evaluate import Model
from ..grounding.relations import Table, view
from ..grounding.term_store import TermStore
from .program import leaves_of, view_key

#: Guesses for relations derived per state (rows, values of a variable).
DERIVED_ROWS = 32.0
DERIVED_VALUES = 8.0
DEMAND_ROWS = 4.0
DEMAND_VALUES = 4.0


class InitialSizes:
    """Sizes from the static relations, the initial state and one move per role."""

    def __init__(self, store: TermStore, model: Model, init_ids: np.ndarray, n_roles: int) -> None:
        self.store = store
        self.model = model
        self.n_roles = n_roles
        self.state = Table.empty(("true", 1), -1)
        self.state.add(init_ids.reshape(-1, 1).astype(np.int32), init_ids.astype(np.int32))
        self._memo: dict = {}

    def estimate(self, literal) -> tuple[float, dict[Variable, float]]:
        found = self._memo.get(literal)
        if found is None:
            found = self._memo[literal] = self._estimate(literal)
        return found

    def _estimate(self, literal) -> tuple[float, dict]:
        key = relation_key(literal)
        args = () if isinstance(literal, Symbol) else literal.args
        names = {v for arg in args for v in _variables(arg)}
        if key == ("true", 1):
            return _measured(self.store, self.state, args)
        if key == ("does", 2):
            values = {name: 1.0 for name in names}
            if isinstance(args[0], Variable):
                values[args[0]] = float(self.n_roles)
            return float(self.n_roles if isinstance(args[0], Variable) else 1), values
        table: Optional[Table] = self.model.tables.get(key)
        if table is not None:  # a static relation computed whole (the others are not in the model)
            return _measured(self.store, table, args)
        if key[0].startswith(DEMAND_PREFIX):
            return DEMAND_ROWS, {name: DEMAND_VALUES for name in names}
        return DERIVED_ROWS, {name: DERIVED_VALUES for name in names}


def _measured(store: TermStore, table: Table, args) -> tuple[float, dict]:
    found = view(store, table, tuple(args), 0, table.n)
    if found.n == 0:
        return 0.0, {}
    return float(found.n), {name: float(found.distinct(name)) for name in found.columns}


def _variables(term):
    if isinstance(term, Variable):
        yield term
    elif isinstance(term, Compound):
        for arg in term.args:
            yield from _variables(arg)


class SampledSizes(InitialSizes):
    """Sizes from states met in random playouts (`sampling.Sample`): each
    literal's view (`true`'s and the derived relations') as it was there,
    rows and distinct values per cell averaged over the evaluations; the
    static relations and `does` as `InitialSizes` has them."""

    def __init__(self, store: TermStore, model: Model, init_ids: np.ndarray, n_roles: int, found) -> None:
        super().__init__(store, model, init_ids, n_roles)
        self.views = found.views

    def _estimate(self, literal) -> tuple[float, dict]:
        key = relation_key(literal)
        stats = self.views.get(view_key(literal))
        if stats is None or stats.evaluations == 0 or key == ("does", 2) or self.model.tables.get(key) is not None:
            return super()._estimate(literal)
        rows = stats.rows / stats.evaluations
        values: dict = {}
        for position, leaf in enumerate(leaves_of(literal)):
            distinct = max(1.0, stats.distinct[position] / stats.evaluations)
            if isinstance(leaf, Symbol):
                rows /= distinct
            else:
                values[leaf] = min(values.get(leaf, distinct), distinct)
        return rows, values
