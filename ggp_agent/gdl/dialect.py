"""GDL or GDL-II: which dialect a game is written in, decided in one place.

GDL-II (games with chance and hidden information) adds two reserved words to GDL:
the role `random`, whose move the game master picks uniformly among its legal
moves, and `(sees ROLE PERCEPT)`, what a role perceives after a joint move,
defined like `next` (its rules may use `true` and `does`). A GDL-II player sees
neither the state nor the others' moves, only its own percepts; so the dialect
decides the protocol's message forms and how a player must track the game.

A game is GDL-II when it declares the role `random` or has a `sees` rule. This
module knows nothing of Prolog or of the protocol.
"""

from __future__ import annotations

from enum import Enum
from typing import Collection, Optional, Sequence

from .terms import Symbol, Term

#: The chance role of GDL-II: a role like the others in `roles`, played by the
#: game master, uniformly at random among its legal moves.
RANDOM_ROLE = Symbol("random")

#: The GDL-II relation that says what a role perceives: `(sees ROLE PERCEPT)`.
SEES = ("sees", 2)


class Dialect(Enum):
    """The language a game is written in."""

    #: Perfect information and no chance: every player sees every joint move.
    GDL = "GDL"
    #: Chance (the `random` role) or hidden information (`sees` rules).
    GDL_II = "GDL-II"


def random_role_index(roles: Sequence[Term]) -> Optional[int]:
    """The index of the role `random` in `roles`, or None when the game has none."""
    return roles.index(RANDOM_ROLE) if RANDOM_ROLE in roles else None


def player_roles(roles: Sequence[Term]) -> tuple[int, ...]:
    """The indexes of the roles a player takes: every role but `random`, which
    the game master plays.

    >>> player_roles([Symbol("north"), Symbol("random"), Symbol("south")])
    (0, 2)
    """
    return tuple(index for index, role in enumerate(roles) if role != RANDOM_ROLE)


def dialect_of(roles: Sequence[Term], defined: Collection[tuple[str, int]]) -> Dialect:
    """GDL-II when a role is `random` or `defined` (the relations that have rules,
    as (name, arity)) holds `sees`; GDL otherwise."""
    if random_role_index(roles) is not None or SEES in defined:
        return Dialect.GDL_II
    return Dialect.GDL
