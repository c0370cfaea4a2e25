"""A game's lazy programs, built once per process and shared by its machines.

As for the propnet (`compiled.py`): a process often builds the same rules
again (a tournament's in-process players start the same game side by side,
a match server replays its games), and a build of the same rules under way
is waited for rather than started twice. Each machine copies the term store
(evaluations add terms to it), so sharing a build shares nothing mutable.
A new build passes the caller's check (the machine compares its initial
state and first moves with the rules', `machine/opening.py`) before it is
kept. Failures are not kept.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import Callable, Optional

from ...gdl.validate import ValidatedGame
from ...reasoner.statemachine import ReasonerError
from .build import LazyGame, build_lazy

#: Games kept per process, the least recently used dropped first.
KEPT_GAMES = 4


class LazyGames:
    """The process's lazy builds by rules."""

    def __init__(self, kept: int = KEPT_GAMES) -> None:
        self.kept = kept
        self._games: collections.OrderedDict = collections.OrderedDict()
        self._lock = threading.Lock()
        self._building: dict = {}

    def get(self, game: ValidatedGame, time_limit: float,
            check: Optional[Callable[[LazyGame, float], dict]] = None) -> tuple[LazyGame, bool]:
        """`game` built, and whether an earlier build served (ReasonerError when
        it cannot be in time). A new build is kept once `check(build, seconds
        left)` returned its figures (`LazyGame.checked`) without raising."""
        key = game.rules
        started = time.perf_counter()
        with self._lock:
            found = self._games.get(key)
            if found is not None:
                self._games.move_to_end(key)
                return found, True
            lock = self._building.setdefault(key, threading.Lock())
        if not lock.acquire(timeout=max(0.0, time_limit)):
            raise ReasonerError(f"time limit: another lazy build of the same rules took all of {time_limit:.2f} s")
        try:
            with self._lock:
                found = self._games.get(key)
            if found is not None:
                return found, True
            built = build_lazy(game, time_limit - (time.perf_counter() - started))
            if check is not None:
                built.checked = check(built, time_limit - (time.perf_counter() - started))
            with self._lock:
                self._games[key] = built
                while len(self._games) > self.kept:
                    self._games.popitem(last=False)
            return built, False
        finally:
            lock.release()
            with self._lock:
                if self._building.get(key) is lock and not lock.locked():
                    self._building.pop(key, None)


#: The process's one set of lazy builds (`LazyStateMachine` reads it).
LAZY_GAMES = LazyGames()
