"""The state machine every game engine implements, and what crosses its boundary.

Players, the GameController, `replay` and the tests see games only through this
protocol (as ggp-base's gamers see only its `StateMachine`), so the Prolog engine
and the propnet are interchangeable and one test suite runs against both.

A state is a frozenset of ground fluents (the X of each `(true X)`); a move is a
ground term; a joint move is one move per role, in role order. Roles are addressed
by their index in `roles`. Engines keep faster internal forms (Prolog terms,
bitsets) behind this boundary.

GDL-II games (`ValidatedGame.dialect`) go through the same protocol: the chance
role `random` is a role like the others (its legal moves are asked for the same
way; the game master, or whoever runs the match, picks among them uniformly),
and `percepts` says what each role perceives after a joint move.
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from ..gdl.terms import Term

State = frozenset  # frozenset[Term]
JointMove = tuple  # tuple[Term, ...], one per role


class ReasonerError(Exception):
    """The engine could not answer: the game is broken, too big, or too slow."""


class ReasonerTimeout(ReasonerError):
    """A query ran past its time limit (a runaway recursion, a huge game)."""


class ReasonerResourceError(ReasonerError):
    """A query exhausted a bounded resource (Prolog stacks, table space)."""


class IllegalMoveError(ReasonerError):
    """A joint move holds a move that is not legal for its role in the state."""


@runtime_checkable
class StateMachine(Protocol):
    """Roles, initial state, legal moves, next state, terminal and goals of a game."""

    @property
    def roles(self) -> tuple[Term, ...]:
        """The roles in the order the game declares them (the order of joint moves)."""
        ...

    def initial_state(self) -> State:
        """The fluents true in the first state (from `init`)."""
        ...

    def legal_moves(self, state: State, role: int) -> tuple[Term, ...]:
        """The moves legal for role index `role` in `state`, sorted by their KIF text."""
        ...

    def next_state(self, state: State, joint_move: Sequence[Term]) -> State:
        """The state after every role plays its move of `joint_move` (role order)."""
        ...

    def percepts(self, state: State, joint_move: Sequence[Term], role: int) -> tuple[Term, ...]:
        """What role index `role` perceives when `joint_move` is played in `state`.

        Every P of a true `(sees ROLE P)` with `state` as the current state and
        `joint_move` as the moves (the `does`), evaluated as `next` is; sorted as
        legal moves are, without duplicates. A game without `sees` rules (every
        perfect-information game) gives every role no percepts: `()`. The moves
        are not checked for legality, as in `next_state`; a joint move of the
        wrong length raises IllegalMoveError.
        """
        ...

    def is_terminal(self, state: State) -> bool:
        """True when the game is over in `state`."""
        ...

    def goal_values(self, state: State) -> tuple[int, ...]:
        """Each role's goal value (0..100) in `state`.

        A role with no goal value gets 0, one with several gets the highest; the
        engine logs such a game once (real games, e.g. chess, have these bugs).
        The chance role `random` plays for no goal: 0 when the game gives it
        none, without a log line.
        """
        ...

    def close(self) -> None:
        """Free what the engine holds (a Prolog module, arrays)."""
        ...


def sorted_moves(moves) -> tuple[Term, ...]:
    """Moves (and percepts) in the order the protocol boundary promises: by KIF
    text, no duplicates."""
    return tuple(sorted(set(moves), key=str))


def state_to_kif(state: State) -> list[str]:
    """A state as the sorted KIF strings the oracle traces use."""
    return sorted(str(fluent) for fluent in state)
