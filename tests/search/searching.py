"""What the tree search's tests share: a search prepared at a state, and whose turn it is.

The tic-tac-toe machines they search are fixtures (`conftest.py`).
"""

from __future__ import annotations

from ggp_agent.search.driver.tree_search import TreeSearch
from ggp_agent.search.registry import make_tree_search


def search_at(machine, role, state, rule="mcps", seed=0, **options) -> TreeSearch:
    """A search of `rule` for `role`, prepared at `state` in an 8 MB arena."""
    search = make_tree_search(rule, machine, role, seed=seed, memory_cap=8 << 20, options=options or None)
    search.prepare(state)
    return search


def mover_of(machine, state) -> int:
    """The role with a choice in `state` (0 when none has one)."""
    for role in range(len(machine.roles)):
        if len(machine.legal_moves(state, role)) > 1:
            return role
    return 0


def joint_of(machine, state, role, move):
    """A joint move: `move` for `role`, every other role's first legal move."""
    return [move if r == role else machine.legal_moves(state, r)[0] for r in range(len(machine.roles))]
