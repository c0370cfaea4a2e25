"""What the grounder hands the network builder: a game's ground program as integers.

A module of its own, data only, so that the network builder (which kernel
modules import) does not depend on the grounder's code: an edit to the
grounder then leaves every kernel's cache as it is (`cache_stamp.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...gdl.terms import Term


@dataclass
class Grounding:
    """The ground program of a game's state-dependent part."""

    roles: tuple[Term, ...]
    #: "base" (the game's base/input were complete) or "relaxed" (a fixpoint)
    mode: str
    n_atoms: int
    #: flat int64: per instance head, literal count, literals (2 * atom + negated)
    instances: np.ndarray
    n_instances: int
    #: relation -> [(atom id, argument terms)] for state-dependent wanted relations
    dynamic_atoms: dict[tuple[str, int], list[tuple[int, tuple[Term, ...]]]]
    #: relation -> [argument terms] for static wanted relations (exact answers)
    static_atoms: dict[tuple[str, int], list[tuple[Term, ...]]]
    seconds: float
    #: rules after factoring, and how many auxiliary relations that made
    n_rules: int = 0
    n_aux: int = 0
    notes: list[str] = field(default_factory=list)
    #: (step, CPU seconds, answers or instances) per step, the costliest first
    profile: tuple = ()

    def atoms_of(self, relation: tuple[str, int]) -> tuple[list, list]:
        """(dynamic (id, args) pairs, static args) of a wanted relation."""
        return self.dynamic_atoms.get(relation, []), self.static_atoms.get(relation, [])
