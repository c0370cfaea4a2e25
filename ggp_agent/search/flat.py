"""The flat searches: Monte Carlo over any engine, and the two that do not think.

* `mc`: flat Monte Carlo over any StateMachine. A worker thread plays random
  playouts from the root, one per legal move of ours in turn (the least tried
  first), and keeps each move's mean goal value. It thinks from START on and
  between turns (pondering); a new root discards the old statistics.
* `random`: a random legal move, no thread (ggp-base's RandomGamer).
* `legal`: the first legal move by KIF text, no thread (ggp-base's LegalGamer).

The numba tree searches (MCPS, GRAVE, UCT) are `tree_search.TreeSearch`.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Optional, Sequence

from ..gdl.terms import Term
from ..reasoner.statemachine import State, StateMachine
from .contract.interface import Search
from .driver.worker import SearchWorker

#: A playout stops after this many steps even if the game goes on (a value of 0
#: is then backed up unless the state has goals); keeps one playout bounded.
DEFAULT_MAX_PLAYOUT_DEPTH = 500


@dataclass
class _Root:
    state: State
    moves: tuple[Term, ...]
    visits: dict = field(default_factory=dict)  # move -> [count, total goal]
    playouts: int = 0
    started: float = field(default_factory=time.monotonic)


class _Stale(Exception):
    """The root moved (or the player asked for the engine) during a playout."""


class MonteCarloSearch(Search):
    """Flat Monte Carlo: random playouts per legal move, in one worker thread.

    The engine may be shared (the Prolog engine runs every call on one thread,
    for every match and the controller in the process), so the search keeps
    each of its calls short: a playout is a series of `bounded_playout` calls
    of CALL_BUDGET seconds each, and between them it checks whether the root
    moved or the player wants the engine. `hold()` makes it leave the engine
    alone until the next `advance()`, so the player's own calls for a new
    joint move wait for one short call at most.
    """

    rule = "mc"

    #: Wall-clock seconds one playout call may hold the engine (between steps).
    CALL_BUDGET = 0.05
    #: Time limit of one playout call as a whole, in seconds: a single step
    #: slower than this is a game too slow to sample; the playout fails.
    CALL_TIME_LIMIT = 2.0

    def __init__(self, machine: StateMachine, role_index: int, *, seed: Optional[int] = None,
                 max_playout_depth: int = DEFAULT_MAX_PLAYOUT_DEPTH):
        self._machine = machine
        self._role = role_index
        self._rng = random.Random(seed)
        self._max_depth = max_playout_depth
        self._lock = threading.Lock()
        self._root: Optional[_Root] = None
        self._held = threading.Event()
        self._worker = SearchWorker(f"mc-search-role{role_index}", self._step, self._record_error)
        self._total_playouts = 0
        self._errors = 0
        self._last_error: Optional[str] = None

    def start(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self._set_root(state, legal_moves)
        self._worker.start()

    def hold(self) -> None:
        self._held.set()

    def advance(self, joint_move: Optional[Sequence[Term]], state: State,
                legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self._set_root(state, legal_moves)

    def _set_root(self, state: State, legal_moves: Optional[tuple[Term, ...]]) -> None:
        moves = our_moves(self._machine, state, self._role, legal_moves)
        with self._lock:
            self._root = _Root(state, moves, {m: [0, 0.0] for m in moves})
        self._held.clear()
        self._worker.wake()

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

    def answer_ready(self) -> bool:
        """Nothing to choose: no root yet counts as not ready, one move as ready."""
        root = self._root
        return root is not None and len(root.moves) <= 1

    def stop(self) -> None:
        self._worker.stop()

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
                "top_moves": [
                    {"move": text, "visits": count, "mean_goal": round(value, 2)}
                    for value, count, text in ranked[:5]
                ],
                "errors": self._errors,
            }
            if self._last_error:
                figures["last_error"] = self._last_error
            return figures

    def _record_error(self, error: Exception) -> None:
        with self._lock:
            self._errors += 1
            self._last_error = f"{type(error).__name__}: {error}"[:300]

    def _step(self) -> bool:
        """One playout for the least tried move of the root; False when there is
        nothing to decide (terminal, a forced move) or the search is on hold."""
        with self._lock:
            root = self._root
            if root is None or len(root.moves) <= 1 or self._held.is_set():
                return False
            least = min(count for count, _ in root.visits.values())
            move = self._rng.choice([m for m, (c, _) in root.visits.items() if c == least])
        try:
            value = self._playout(root, move)
        except _Stale:
            return True
        with self._lock:
            self._total_playouts += 1
            if self._root is root:
                entry = root.visits[move]
                entry[0] += 1
                entry[1] += value
                root.playouts += 1
        return True

    def _check(self, root: _Root) -> None:
        if self._worker.stopping or self._held.is_set() or self._root is not root:
            raise _Stale()

    def _playout(self, root: _Root, first_move: Term) -> float:
        machine = self._machine
        rng = self._rng
        joint = [
            first_move if r == self._role else rng.choice(machine.legal_moves(root.state, r))
            for r in range(len(machine.roles))
        ]
        self._check(root)
        state = machine.next_state(root.state, joint)
        steps_left = self._max_depth
        while True:
            self._check(root)
            progress = machine.bounded_playout(state, steps_left, self.CALL_BUDGET, time_limit=self.CALL_TIME_LIMIT,
                                               seed=rng.randrange(2**31))
            if progress.finished:
                return float(progress.goals[self._role])
            steps_left -= progress.steps
            state = progress.reached


class RandomSearch(Search):
    """A random legal move each turn; thinks not at all (a baseline and a sparring partner)."""

    rule = "random"
    thinks = False

    def __init__(self, machine: StateMachine, role_index: int, *, seed: Optional[int] = None):
        self._machine = machine
        self._role = role_index
        self._rng = random.Random(seed)
        self._moves: tuple[Term, ...] = ()

    def start(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self._moves = our_moves(self._machine, state, self._role, legal_moves)

    def advance(self, joint_move: Optional[Sequence[Term]], state: State,
                legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self._moves = our_moves(self._machine, state, self._role, legal_moves)

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


def our_moves(machine: StateMachine, state: State, role: int,
              known: Optional[tuple[Term, ...]]) -> tuple[Term, ...]:
    """Our legal moves in `state` (none when terminal), from the caller when it knows them."""
    if known is not None:
        return tuple(known)
    return () if machine.is_terminal(state) else tuple(machine.legal_moves(state, role))
