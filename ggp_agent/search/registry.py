"""Every search by its rule name, and a player's search options by name.

Rule names live in `tree/params.py` (`SEARCH_RULES`). Tree rules (`mcps`,
`grave`, `uct`) are the numba tree searches of `driver/tree_search.py`, one
per thread merged at the root (`parallel/root_parallel.py`) or sharing one
tree (`parallel/shared_tree.py`) when a propnet runs them on several cores
(in a GDL-II match, an ensemble of them: `hidden/determinized.py`); the flat
rules (`mc`, `random`, `legal`) those of `flat.py`. Options are the tree
rules' constants (`SearchParams`) and the ensemble's (`EnsembleParams`),
checked here by name for every caller (player specs, the command line).
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping, Optional

from ..cores import allowed_cores
from ..propnet.machine.state_machine import PropnetStateMachine
from ..reasoner.statemachine import StateMachine
from .contract.interface import Search
from .driver.tree_search import TreeSearch
from .flat import LegalSearch, MonteCarloSearch, RandomSearch
from .hidden.determinized import make_determinized_search
from .hidden.ensemble import ENSEMBLE_CONSTANTS, EnsembleParams
from .parallel.root_parallel import RootParallelSearch
from .parallel.shared_tree import SharedTreeSearch
from .tree.arena import DEFAULT_MEMORY_CAP
from .tree.params import FLAT_RULES, PARALLEL, RULES, SEARCH_RULES, TREE_CONSTANTS, SearchParams, tree_params

#: The rules that run the numba tree search (MCPS is the agent's default).
TREE_RULES: tuple[str, ...] = tuple(RULES)

_FLAT: dict[str, Callable[..., Search]] = dict(zip(FLAT_RULES, (MonteCarloSearch, RandomSearch, LegalSearch)))


def machine_cores() -> int:
    """The cores this process may run on (`cores.allowed_cores`: its CPU
    affinity, which a container's cpuset or `taskset` narrows)."""
    return len(allowed_cores())


#: A tree per core unless asked otherwise (`--threads`, `threads=` in a player
#: spec): the play clock buys twice the iterations on two cores, and two
#: agents pondering with two threads each on a two-core machine answer in time
#: (docs/search.md, "Threads: root and tree parallelism").
DEFAULT_THREADS = machine_cores()


def make_tree_search(
    rule: str,
    machine: StateMachine,
    role_index: int,
    *,
    seed: Optional[int] = None,
    options: Optional[dict] = None,
    **settings,
) -> TreeSearch:
    """A `TreeSearch` of the named rule; `options` override `SearchParams` fields
    (text values are converted), `settings` go to `TreeSearch` (ponder,
    memory_cap, clock_seconds, ...)."""
    return TreeSearch(machine, role_index, params=tree_params(rule, options), seed=seed, **settings)


def search_threads(threads: Optional[int], machine: StateMachine) -> int:
    """Threads a tree search gets: `threads` (None: `DEFAULT_THREADS`), and
    one over any engine but a propnet (the Prolog engine answers from one
    thread; more searches would only queue on it)."""
    wanted = DEFAULT_THREADS if threads is None else int(threads)
    if wanted < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    return wanted if isinstance(machine, PropnetStateMachine) else 1


def make_search(rule: str, machine: StateMachine, role_index: int, *, seed: Optional[int] = None,
                hidden: bool = False, threads: Optional[int] = None, parallel: str = "root",
                **settings) -> Search:
    """A search of the named rule for role index `role_index` over `machine`.

    `settings` go to the tree searches (`make_tree_search`):
    `options` (rule constants by name, e.g. {"c": 0.7}), `ponder`,
    `memory_cap`, `clock_seconds`, `start_seconds` (what the START decisions
    may take, `start_choices.start_budget`), `batch` (leaves at once on the lanes; 1:
    one at a time); `threads` (None: `DEFAULT_THREADS`) trees share the
    memory cap and are merged at the root, or with `parallel="tree"` the
    threads search one tree on their own lanes (`shared_tree.py`; it needs
    the lanes: a propnet and batch above 1). The flat rules ignore
    them. Ensemble constants (e.g. {"trees": 4}) in `options` are for
    `hidden`: a GDL-II match, where a tree rule runs as Ensemble
    Determinization MCTS over the player's belief (`determinized.py`).
    """
    if parallel not in PARALLEL:
        raise ValueError(f"unknown parallel search {parallel!r}; known: {', '.join(PARALLEL)}")
    tree_options, ensemble_options = split_options(settings.pop("options", None) or {})
    if rule in TREE_RULES and hidden:
        settings.pop("batch", None)  # the ensemble's trees run one leaf at a time
        return make_determinized_search(rule, machine, role_index, seed=seed, options=tree_options,
                                        ensemble_options=ensemble_options, **settings)
    settings["options"] = tree_options
    if rule in TREE_RULES:
        count = search_threads(threads, machine)
        if count == 1:
            return make_tree_search(rule, machine, role_index, seed=seed, **settings)
        params = tree_params(rule, settings.get("options"))
        if parallel == "tree" and settings.get("batch") != 1:
            settings.pop("options", None)
            return SharedTreeSearch(machine, role_index, threads=count, params=params, seed=seed, **settings)
        cap = settings.pop("memory_cap", None)
        share = None if cap is None else max(1, int(cap) // count)
        base = 0 if seed is None else int(seed)
        return RootParallelSearch([
            make_tree_search(rule, machine, role_index, seed=None if seed is None else base * 7919 + k,
                             memory_cap=share if share is not None else _default_share(count),
                             name=f"{rule}-role{role_index}-t{k}", **settings)
            for k in range(count)])
    if rule in _FLAT:
        return _FLAT[rule](machine, role_index, seed=seed)
    raise ValueError(f"unknown search rule {rule!r}; known: {', '.join(SEARCH_RULES)}")


def _default_share(count: int) -> int:
    """Each tree's arena cap when the player set none: the default cap split."""
    return max(1, DEFAULT_MEMORY_CAP // count)


#: Every constant a player may set by name: the tree rules', then Ensemble
#: Determinization MCTS's (GDL-II matches, `ensemble.py`).
CONSTANTS = TREE_CONSTANTS + ENSEMBLE_CONSTANTS


def checked_option(key: str, value: str) -> tuple[str, str]:
    """`(key, value)` as a player's search option, or ValueError naming what is wrong
    (an unknown constant, or a value the constant cannot take)."""
    if key not in CONSTANTS:
        raise ValueError(f"unknown search constant {key!r} (known: {', '.join(CONSTANTS)})")
    if key in ENSEMBLE_CONSTANTS:
        EnsembleParams().with_options({key: value})
    else:
        SearchParams().with_options({key: value})
    return key, value


def checked_options(items: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """`KEY=VALUE` items (a command line's) as search options, each as
    `checked_option` takes it; ValueError names the first bad one."""
    options = []
    for item in items:
        key, equals, value = item.partition("=")
        if not equals:
            raise ValueError(f"search option {item!r}: expected KEY=VALUE")
        options.append(checked_option(key, value))
    return tuple(options)


def split_options(options: Mapping[str, object]) -> tuple[dict, dict]:
    """A player's search options as (the tree rule's, the ensemble's)."""
    tree = {key: value for key, value in options.items() if key not in ENSEMBLE_CONSTANTS}
    return tree, {key: value for key, value in options.items() if key in ENSEMBLE_CONSTANTS}
