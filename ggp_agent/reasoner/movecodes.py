"""Move codes: one small dense integer per (role, ground move) of a game.

The search keys its AMAF and permutation statistics by code rather than by tree
edge, so that what it learns about a move in one position carries over to every
other position (docs/search.md, "Codes"). Both engines hand out codes through
this one table, so a search never cares which engine answers:

- the propnet knows every move in advance; its codes are the indexes of its input
  propositions, assigned role by role, each role's moves in KIF-text order
  (`MoveCodes.fixed`), and the table is frozen;
- the Prolog engine meets moves as it plays; it interns each one the first time
  it appears (`MoveCodes.intern`), so codes grow in order of discovery.

A code maps back to its role and its GDL term (`role_of`, `move_of`). This module
must not know about Prolog or numba.
"""

from __future__ import annotations

import threading
from typing import Iterable, Optional, Sequence

from ..gdl.terms import Term


class UnknownMoveError(KeyError):
    """A frozen table was asked for a move it does not hold (the move is never legal)."""


class MoveCodes:
    """The two-way mapping between (role index, move term) and dense codes."""

    def __init__(self, n_roles: int) -> None:
        self.n_roles = n_roles
        self._code: dict[tuple[int, Term], int] = {}
        self._roles: list[int] = []
        self._moves: list[Term] = []
        self._frozen = False
        self._lock = threading.Lock()

    @classmethod
    def fixed(cls, moves_per_role: Sequence[Iterable[Term]]) -> "MoveCodes":
        """A frozen table: role 0's moves first, each role's moves sorted by KIF text.

        The propnet's input propositions are numbered the same way, so a code
        is also the index of its input proposition, and each role's codes form
        one contiguous range (`codes_of`).
        """
        table = cls(len(moves_per_role))
        for role, moves in enumerate(moves_per_role):
            for move in sorted(set(moves), key=str):
                table._add(role, move)
        table._frozen = True
        return table

    @property
    def frozen(self) -> bool:
        return self._frozen

    def __len__(self) -> int:
        return len(self._moves)

    def get(self, role: int, move: Term) -> Optional[int]:
        """The code of `move` for role index `role`, or None when it has none."""
        return self._code.get((role, move))

    def code(self, role: int, move: Term) -> int:
        """The code of a move; a frozen table raises `UnknownMoveError` for a new one,
        an open one interns it."""
        found = self._code.get((role, move))
        if found is not None:
            return found
        if self._frozen:
            raise UnknownMoveError(f"{move} is not a move of role {role} in this game")
        return self.intern(role, move)

    def intern(self, role: int, move: Term) -> int:
        """The code of a move, giving it the next free code when it is new."""
        found = self._code.get((role, move))
        if found is not None:
            return found
        if self._frozen:
            raise UnknownMoveError(f"{move} is not a move of role {role} in this game")
        with self._lock:
            found = self._code.get((role, move))
            if found is None:
                found = self._add(role, move)
        return found

    def role_of(self, code: int) -> int:
        """The role index a code belongs to."""
        return self._roles[code]

    def move_of(self, code: int) -> Term:
        """The GDL term of a code's move."""
        return self._moves[code]

    def codes_of(self, role: int) -> range:
        """A frozen table's codes for one role (a contiguous range)."""
        if not self._frozen:
            raise ValueError("only a frozen table keeps each role's codes contiguous")
        first = next((c for c, r in enumerate(self._roles) if r == role), len(self._roles))
        last = first
        while last < len(self._roles) and self._roles[last] == role:
            last += 1
        return range(first, last)

    def _add(self, role: int, move: Term) -> int:
        if not 0 <= role < self.n_roles:
            raise ValueError(f"role index {role} out of range 0..{self.n_roles - 1}")
        code = len(self._moves)
        self._code[(role, move)] = code
        self._roles.append(role)
        self._moves.append(move)
        return code
