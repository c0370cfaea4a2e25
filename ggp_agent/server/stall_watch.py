"""Process stalls: stretches of time in which no Python thread of the process ran.

A step of our engine takes microseconds, yet in a tournament process a step
was once still unfinished 1.5 s after its PLAY arrived, and both players of
that process answered late at the same moment: the whole process had stopped
(a long garbage collection, a C call holding the GIL, the machine itself
paused), and nothing in the log said so. This watch is a thread that sleeps
`TICK_S` at a time and measures how late it wakes. A wake later than
`REPORT_S` is a stall: it is logged with how much of it Python's garbage
collector took (collections are timed through `gc.callbacks`), and counted
for the status page.

One watch serves the whole process (`acquire`/`release`, counted): a
tournament runs several players in one process, and a stall is the process's,
not a player's.
"""

from __future__ import annotations

import collections
import gc
import logging
import threading
import time
from typing import Optional

from ..player.shared_use import SharedUse

log = logging.getLogger(__name__)

#: How long the watch sleeps between looks, seconds (twenty wakes a second cost nothing).
TICK_S = 0.05
#: A wake this much later than asked is a stall worth a warning, seconds: far
#: beyond the scheduler's jitter, and a fifth of the default safety margin.
REPORT_S = 0.1
#: Garbage collections remembered, to attribute a stall (the last ones suffice).
COLLECTIONS_KEPT = 64


def overlap(collections_: list[tuple[float, float, int]], began: float, ended: float) -> tuple[float, int]:
    """Seconds of the garbage collections (began, ended, generation) that fall
    within [began, ended], and the oldest generation among them (-1: none)."""
    seconds, oldest = 0.0, -1
    for start, stop, generation in collections_:
        shared = min(stop, ended) - max(start, began)
        if shared > 0:
            seconds += shared
            oldest = max(oldest, generation)
    return seconds, oldest


class StallWatch:
    """A thread measuring how late it wakes; `snapshot()` for the status page."""

    def __init__(self, tick: float = TICK_S, report_over: float = REPORT_S) -> None:
        self.tick = tick
        self.report_over = report_over
        self._stopped = threading.Event()
        self._thread: Optional[threading.Thread] = None
        # Reentrant: a collection can start inside any allocation, also one
        # made while this thread holds the lock, and its callback takes it too
        # (a plain lock deadlocked there, and every thread after it).
        self._lock = threading.RLock()
        self._collections: collections.deque = collections.deque(maxlen=COLLECTIONS_KEPT)
        self._collecting_since: Optional[float] = None
        self._collecting_generation = -1
        self.stalls = 0
        self.longest = 0.0
        self.last: Optional[dict] = None

    def start(self) -> None:
        gc.callbacks.append(self._on_collection)
        self._thread = threading.Thread(target=self._run, name="stall-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._on_collection in gc.callbacks:
            gc.callbacks.remove(self._on_collection)
        if self._thread is not None:
            self._thread.join(timeout=1.0)

    def snapshot(self) -> dict:
        with self._lock:
            return {"stalls": self.stalls, "longest_s": round(self.longest, 3), "last": self.last,
                    "report_over_s": self.report_over}

    def _run(self) -> None:
        asked = time.perf_counter() + self.tick
        while not self._stopped.wait(max(0.0, asked - time.perf_counter())):
            woke = time.perf_counter()
            late = woke - asked
            if late > self.report_over:
                self._report(asked, woke)
            asked = woke + self.tick

    def _report(self, asked: float, woke: float) -> None:
        with self._lock:
            known = list(self._collections)
            if self._collecting_since is not None:  # its end not yet recorded: the watch ran first
                known.append((self._collecting_since, woke, self._collecting_generation))
            collected, generation = overlap(known, asked, woke)
            late = woke - asked
            self.stalls += 1
            self.longest = max(self.longest, late)
            self.last = {"seconds": round(late, 3), "garbage_collection_s": round(collected, 3),
                         "at": time.strftime("%Y-%m-%d %H:%M:%S")}
        cause = (f"{collected:.3f} s of it a garbage collection (generation {generation})" if generation >= 0
                 else "no garbage collection in it (a C call holding the GIL, or the machine paused)")
        log.warning("the process stalled for %.3f s: no Python thread ran (%s)", late, cause)

    def _on_collection(self, phase: str, info: dict) -> None:
        """`gc.callbacks`: time each collection (in whichever thread runs it)."""
        now = time.perf_counter()
        if phase == "start":
            self._collecting_since, self._collecting_generation = now, info.get("generation", -1)
        elif self._collecting_since is not None:
            with self._lock:
                self._collections.append((self._collecting_since, now, info.get("generation", -1)))
            self._collecting_since = None


def _started_watch() -> StallWatch:
    watch = StallWatch()
    watch.start()
    return watch


#: The process's one watch, started by its first user and stopped by its last.
_shared: SharedUse[StallWatch] = SharedUse(first=_started_watch, last=StallWatch.stop)


def acquire() -> StallWatch:
    """The process's watch, started by its first user."""
    return _shared.enter()


def release() -> None:
    """One user less; the last one stops the watch."""
    _shared.leave()
