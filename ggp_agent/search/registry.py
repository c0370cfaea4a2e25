"""Every search by its rule name (the names live in `params.py`: `SEARCH_RULES`).

Tree rules (`mcps`, `grave`, `uct`) are the numba tree searches of
`tree_search.py` (in a GDL-II match, an ensemble of them: `determinized.py`);
the flat rules (`mc`, `random`, `legal`) those of `flat.py`.
"""

from __future__ import annotations

from typing import Callable, Optional

from ..reasoner.statemachine import StateMachine
from .flat import LegalSearch, MonteCarloSearch, RandomSearch
from .interface import Search
from .determinized import make_determinized_search
from .params import FLAT_RULES, RULES, SEARCH_RULES, split_options
from .tree_search import make_tree_search

#: The rules that run the numba tree search (MCPS is the agent's default).
TREE_RULES: tuple[str, ...] = tuple(RULES)

_FLAT: dict[str, Callable[..., Search]] = dict(zip(FLAT_RULES, (MonteCarloSearch, RandomSearch, LegalSearch)))


def make_search(rule: str, machine: StateMachine, role_index: int, *, seed: Optional[int] = None,
                hidden: bool = False, options: Optional[dict] = None, **settings) -> Search:
    """A search of the named rule for role index `role_index` over `machine`.

    `options` are constants by name (e.g. {"c": 0.7}, or {"trees": 4} for the
    ensemble); `settings` go to the tree searches (`ponder`, `memory_cap`,
    `clock_seconds`); the flat rules ignore both. `hidden`: a GDL-II match,
    where a tree rule runs as Ensemble Determinization MCTS over the player's
    belief (`determinized.py`).
    """
    tree_options, ensemble_options = split_options(options or {})
    if rule in TREE_RULES and hidden:
        return make_determinized_search(rule, machine, role_index, seed=seed, options=tree_options,
                                        ensemble_options=ensemble_options, **settings)
    if rule in TREE_RULES:
        return make_tree_search(rule, machine, role_index, seed=seed, options=tree_options, **settings)
    if rule in _FLAT:
        return _FLAT[rule](machine, role_index, seed=seed)
    raise ValueError(f"unknown search rule {rule!r}; known: {', '.join(SEARCH_RULES)}")
