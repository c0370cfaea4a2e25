"""Numba tree search: UCT, GRAVE and MCPS in one arena layout and one kernel family.

`driver.TreeSearch` is what the player runs; `params.SearchParams` holds the
rule and its constants. See DESIGN.md, "Search", and docs/experiments.md.
"""

from .params import RULES, SearchParams

__all__ = ["RULES", "SearchParams"]
