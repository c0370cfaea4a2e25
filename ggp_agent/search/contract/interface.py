"""What a player asks of a search: the `Search` interface every search implements.

The player never looks inside a search: it starts it on the initial state, tells
it each joint move the manager reports (with the state our engine computed), asks
for the best move when the clock says so, reads a stats dict for the logs and the
status page, and stops it. `best_move` and `stats` never block on the engine:
they read what the search's worker thread has published, so the player can call
them at its deadline. A search may fail in any way; the player keeps a legal
move of its own.

In a GDL-II match the player cannot see the state: it keeps a belief (the
states its moves and percepts leave possible, `belief.Belief`) and hands it to
`observe` each turn instead of calling `advance`.

Every method a player calls is declared here, with a default where a search may
have nothing to do (`hold`), know nothing (`answer_ready`) or can do without
knowing more (`observe`); a player never asks a search what it can do.
"""

from __future__ import annotations

import abc
from typing import Optional, Sequence

from ...gdl.terms import Term
from ...reasoner.statemachine import State
from .belief import Belief


class Search(abc.ABC):
    """One role's search in one match; every method may be called from any thread."""

    #: The search's rule name, as `registry.make_search` knows it.
    rule: str = ""

    #: False for a search that gains nothing from time (random, legal): the
    #: player then answers at once instead of waiting for the deadline.
    thinks: bool = True

    @abc.abstractmethod
    def start(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        """Begin thinking from `state` (the initial state); returns at once.

        `legal_moves`, when given, are our role's legal moves in `state` (empty
        when it is terminal), already computed by the player: no need to ask the
        engine again.
        """

    @abc.abstractmethod
    def advance(self, joint_move: Optional[Sequence[Term]], state: State,
                legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        """The match moved on by `joint_move` to `state` (computed by the player's
        engine); a search with its own engine may use the joint move alone.
        `joint_move` is None when nobody knows it (`observe`'s default)."""

    @abc.abstractmethod
    def best_move(self) -> Optional[Term]:
        """The best move for our role at the current root now, or None if none is
        known yet. Must not block on the engine."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop thinking and release the worker thread; may wait for it briefly."""

    @abc.abstractmethod
    def stats(self) -> dict:
        """Figures about the current root for logs and the status page (JSON-safe)."""

    def observe(self, belief: Belief, legal_moves: tuple[Term, ...]) -> None:
        """GDL-II: the match moved on to a state we cannot see; `belief` holds the
        states consistent with what we perceived, `legal_moves` are ours (the
        same in all of them). By default the likeliest state is searched as if
        it were the state (one determinization); the ensemble search
        (`determinized.py`) spreads over many."""
        self.advance(None, belief.most_likely(), legal_moves)

    def think_until(self, deadline: Optional[float]) -> None:
        """The player will ask for the move at `deadline` (a `time.monotonic()`
        value; None: no move is due). A search that starts work it cannot
        finish by then (a batch of leaves) may use it; the others ignore it."""

    def hold(self) -> None:
        """A joint move has arrived: make no engine call until `advance`.

        Called on the event loop, so it must return at once (set a flag). A
        search that shares the player's engine (the one Prolog thread) leaves it
        to the player, whose own calls then wait for one short call at most; a
        search with an engine of its own has nothing to do.
        """

    def answer_ready(self) -> bool:
        """True when more thinking cannot change `best_move` (our role has one
        move, the root is terminal or proven, every move but one is a proven
        loss): the player then replies at once instead of waiting for its
        deadline, and the search goes on pondering.

        Called on the event loop, often, while a PLAY waits: it must return at
        once (read a flag the worker keeps). The default knows nothing early.
        """
        return False
