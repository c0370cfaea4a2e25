"""One thing a whole process shares among its players: set up by the first
user, torn down by the last, counted under one lock.

A tournament worker runs several players in one process, yet some things
are the process's, not a player's: the garbage collector's freeze
(`collector.py`) and the stall watch (`server/stall_watch.py`). Each player
(or server) enters while it needs the thing and leaves once; a leave without
an enter is a pairing bug and raises rather than hiding a count gone wrong.
"""

from __future__ import annotations

import threading
from typing import Callable, Generic, Optional, TypeVar

T = TypeVar("T")


class SharedUse(Generic[T]):
    """The count of a process-wide thing's users. `first()` makes the thing
    when the count leaves 0, `every()` runs at each enter (after `first`), and
    `last(thing)` undoes it when the count comes back to 0."""

    def __init__(self, first: Callable[[], T], last: Callable[[T], None],
                 every: Callable[[], None] = lambda: None) -> None:
        self._first, self._last, self._every = first, last, every
        self._lock = threading.Lock()
        self._users = 0
        self._thing: Optional[T] = None

    def enter(self) -> T:
        """One user more: the thing, made if this is the first user."""
        with self._lock:
            if self._users == 0:
                self._thing = self._first()
            self._every()
            self._users += 1
            return self._thing

    def leave(self) -> None:
        """One user less: the last one undoes the thing."""
        with self._lock:
            if self._users == 0:
                raise RuntimeError("a shared use was left more often than entered")
            self._users -= 1
            if self._users == 0:
                thing, self._thing = self._thing, None
                self._last(thing)

    @property
    def users(self) -> int:
        """How many users hold the thing now (the status page, tests)."""
        return self._users


__all__ = ["SharedUse"]
