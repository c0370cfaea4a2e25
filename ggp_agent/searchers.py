"""The search a player runs, behind one small interface, and the searches we have today.

The player never looks inside a search: it starts it on the initial state, tells
it each joint move the manager reports (with the state our engine computed), asks
for the best move when the clock says so, reads a stats dict for the logs and the
status page, and stops it. The numba UCT/GRAVE/MCPS search of a later issue is
one more class with these five methods and one more name in `make_search`.

Today's rules:

* `mc`: flat Monte Carlo over any StateMachine. A worker thread plays random
  playouts from the root, one per legal move of ours in turn (the least tried
  first), and keeps each move's mean goal value. It thinks from START on and
  between turns (pondering); a new root discards the old statistics.
* `random`: a random legal move, no thread (ggp-base's RandomGamer).
* `legal`: the first legal move by KIF text, no thread (ggp-base's LegalGamer).

`best_move` and `stats` never block on the engine: they read what the worker
thread has published, so the player can call them on the event loop at the
deadline. A search may fail in any way; the player keeps a legal move of its own.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Optional, Protocol, Sequence

from .gdl import Term
from .reasoner.statemachine import State, StateMachine

log = logging.getLogger(__name__)

#: Search rule names accepted by `make_search` (and the CLI's `--search`).
SEARCH_RULES = ("mc", "random", "legal")

#: A playout stops after this many steps even if the game goes on (a value of 0
#: is then backed up unless the state has goals); keeps one playout bounded.
DEFAULT_MAX_PLAYOUT_DEPTH = 500


class Search(Protocol):
    """What the player needs from a search; every method may be called from any thread."""

    #: False for a search that gains nothing from time (random, legal): the
    #: player then answers at once instead of waiting for the deadline.
    thinks: bool

    def start(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        """Begin thinking from `state` (the initial state); returns at once.

        `legal_moves`, when given, are our role's legal moves in `state` (empty
        when it is terminal), already computed by the player: no need to ask the
        engine again.
        """
        ...

    def advance(self, joint_move: Sequence[Term], state: State,
                legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        """The match moved on by `joint_move` to `state` (computed by the player's
        engine); a search with its own engine may use the joint move alone."""
        ...

    def best_move(self) -> Optional[Term]:
        """The best move for our role at the current root now, or None if none is
        known yet. Must not block on the engine."""
        ...

    def stop(self) -> None:
        """Stop thinking and release the worker thread; may wait for it briefly."""
        ...

    def stats(self) -> dict:
        """Figures about the current root for logs and the status page (JSON-safe)."""
        ...

    # Optional: `hold()`, called on the event loop when a joint move arrives,
    # asks a search that shares the player's engine to make no engine call until
    # `advance()`; it must return at once (set a flag).


@dataclass
class _Root:
    generation: int
    state: State
    moves: tuple[Term, ...]
    visits: dict = field(default_factory=dict)  # move -> [count, total goal]
    playouts: int = 0
    started: float = field(default_factory=time.monotonic)


class _Stale(Exception):
    """The root moved (or the player asked for the engine) during a playout."""


class MonteCarloSearch:
    """Flat Monte Carlo: random playouts per legal move, in one worker thread.

    The engine may be shared (the Prolog engine runs every call on one thread,
    for every match and the controller in the process), so the search keeps
    each of its calls short: an engine with `bounded_playout` plays a playout
    as a series of calls of CALL_BUDGET seconds each (checking between them
    whether the root moved or the player wants the engine), any other engine
    step by step. `hold()` makes it leave the engine alone until the next
    `advance()`, so the player's own calls for a new joint move wait for one
    short call at most.
    """

    rule = "mc"
    thinks = True

    #: Wall-clock seconds one playout call may hold the engine (between steps).
    CALL_BUDGET = 0.05
    #: Time limit of one playout call as a whole, in seconds: a single step
    #: slower than this is a game too slow to sample; the playout fails.
    CALL_TIME_LIMIT = 2.0

    def __init__(
        self,
        machine: StateMachine,
        role_index: int,
        *,
        seed: Optional[int] = None,
        max_playout_depth: int = DEFAULT_MAX_PLAYOUT_DEPTH,
    ):
        self._machine = machine
        self._role = role_index
        self._rng = random.Random(seed)
        self._max_depth = max_playout_depth
        self._lock = threading.Lock()
        self._root: Optional[_Root] = None
        self._generation = 0
        self._stopping = threading.Event()
        self._root_changed = threading.Event()
        self._held = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._total_playouts = 0
        self._errors = 0
        self._last_error: Optional[str] = None

    def start(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self._set_root(state, legal_moves)
        self._thread = threading.Thread(
            target=self._run, name=f"mc-search-role{self._role}", daemon=True
        )
        self._thread.start()

    def hold(self) -> None:
        """A joint move is coming: make no engine call until the next `advance`."""
        self._held.set()

    def advance(self, joint_move: Sequence[Term], state: State,
                legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self._set_root(state, legal_moves)

    def _set_root(self, state: State, legal_moves: Optional[tuple[Term, ...]]) -> None:
        moves = _our_moves(self._machine, state, self._role, legal_moves)
        with self._lock:
            self._generation += 1
            self._root = _Root(self._generation, state, moves, {m: [0, 0.0] for m in moves})
        self._held.clear()
        self._root_changed.set()

    def best_move(self) -> Optional[Term]:
        with self._lock:
            root = self._root
            if root is None or not root.moves:
                return None
            if len(root.moves) == 1:
                return root.moves[0]
            tried = [(total / count, move) for move, (count, total) in root.visits.items() if count]
        if not tried:
            return None
        best_value = max(value for value, _ in tried)
        return self._rng.choice([move for value, move in tried if value == best_value])

    def stop(self) -> None:
        self._stopping.set()
        self._root_changed.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)
            if self._thread.is_alive():
                log.warning("search thread %s did not stop within 5 s", self._thread.name)

    def stats(self) -> dict:
        with self._lock:
            root = self._root
            if root is None:
                return {"rule": self.rule, "playouts": 0}
            elapsed = max(time.monotonic() - root.started, 1e-9)
            ranked = sorted(
                ((total / count if count else 0.0, count, str(move))
                 for move, (count, total) in root.visits.items()),
                reverse=True,
            )
            figures = {
                "rule": self.rule,
                "playouts": root.playouts,
                "playouts_per_second": round(root.playouts / elapsed, 1),
                "total_playouts": self._total_playouts,
                "legal_moves": len(root.moves),
                "playout_mode": "bounded calls" if hasattr(self._machine, "bounded_playout") else "step by step",
                "top_moves": [
                    {"move": text, "visits": count, "mean_goal": round(value, 2)}
                    for value, count, text in ranked[:5]
                ],
                "errors": self._errors,
            }
            if self._last_error:
                figures["last_error"] = self._last_error
            return figures

    def _run(self) -> None:
        failures_in_a_row = 0
        while not self._stopping.is_set():
            with self._lock:
                root = self._root
                move = None
                if root is not None and len(root.moves) > 1 and not self._held.is_set():
                    least = min(count for count, _ in root.visits.values())
                    move = self._rng.choice([m for m, (c, _) in root.visits.items() if c == least])
            if move is None:
                # Nothing to decide (terminal, a forced move) or on hold: wait for a new root.
                self._root_changed.wait(0.05)
                self._root_changed.clear()
                continue
            try:
                value = self._playout(root, move)
            except _Stale:
                continue
            except Exception as error:  # a broken game or a closed engine
                failures_in_a_row += 1
                with self._lock:
                    self._errors += 1
                    self._last_error = f"{type(error).__name__}: {error}"[:300]
                if failures_in_a_row == 1:
                    log.warning("playout failed: %s", self._last_error)
                self._stopping.wait(min(1.0, 0.01 * 2 ** min(failures_in_a_row, 7)))
                continue
            failures_in_a_row = 0
            with self._lock:
                self._total_playouts += 1
                if self._root is root:
                    entry = root.visits[move]
                    entry[0] += 1
                    entry[1] += value
                    root.playouts += 1

    def _check(self, root: _Root) -> None:
        if self._stopping.is_set() or self._held.is_set() or self._root is not root:
            raise _Stale()

    def _playout(self, root: _Root, first_move: Term) -> float:
        machine = self._machine
        roles = range(len(machine.roles))
        rng = self._rng
        state = root.state
        joint = [
            first_move if r == self._role else rng.choice(machine.legal_moves(state, r))
            for r in roles
        ]
        self._check(root)
        state = machine.next_state(state, joint)
        bounded_playout = getattr(machine, "bounded_playout", None)
        if bounded_playout is not None:
            steps_left = self._max_depth
            while True:
                self._check(root)
                progress = bounded_playout(state, steps_left, self.CALL_BUDGET, time_limit=self.CALL_TIME_LIMIT)
                if progress.finished:
                    return float(progress.goals[self._role])
                steps_left -= progress.steps
                state = progress.reached
        for _ in range(self._max_depth):
            self._check(root)
            if machine.is_terminal(state):
                break
            joint = [rng.choice(machine.legal_moves(state, r)) for r in roles]
            state = machine.next_state(state, joint)
        return float(machine.goal_values(state)[self._role])


class RandomSearch:
    """A random legal move each turn; thinks not at all (a baseline and a sparring partner)."""

    rule = "random"
    thinks = False

    def __init__(self, machine: StateMachine, role_index: int, *, seed: Optional[int] = None):
        self._machine = machine
        self._role = role_index
        self._rng = random.Random(seed)
        self._moves: tuple[Term, ...] = ()

    def start(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self._moves = _our_moves(self._machine, state, self._role, legal_moves)

    def advance(self, joint_move: Sequence[Term], state: State,
                legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self._moves = _our_moves(self._machine, state, self._role, legal_moves)

    def best_move(self) -> Optional[Term]:
        return self._rng.choice(self._moves) if self._moves else None

    def stop(self) -> None:
        pass

    def stats(self) -> dict:
        return {"rule": self.rule, "legal_moves": len(self._moves)}


class LegalSearch(RandomSearch):
    """The first legal move in KIF order (ggp-base's LegalGamer): predictable, for tests."""

    rule = "legal"

    def best_move(self) -> Optional[Term]:
        return self._moves[0] if self._moves else None


def _our_moves(machine: StateMachine, state: State, role: int,
               known: Optional[tuple[Term, ...]]) -> tuple[Term, ...]:
    """Our legal moves in `state` (none when terminal), from the caller when it knows them."""
    if known is not None:
        return tuple(known)
    return () if machine.is_terminal(state) else tuple(machine.legal_moves(state, role))


def make_search(rule: str, machine: StateMachine, role_index: int, *, seed: Optional[int] = None) -> Search:
    """A search of the named rule for role index `role_index` over `machine`."""
    if rule == "mc":
        return MonteCarloSearch(machine, role_index, seed=seed)
    if rule == "random":
        return RandomSearch(machine, role_index, seed=seed)
    if rule == "legal":
        return LegalSearch(machine, role_index, seed=seed)
    raise ValueError(f"unknown search rule {rule!r}; known: {', '.join(SEARCH_RULES)}")
