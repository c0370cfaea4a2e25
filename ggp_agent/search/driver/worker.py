"""The thread a search thinks in: run steps until stopped, sleep when idle, back off on errors.

Every searching `Search` (flat Monte Carlo, the tree searches) thinks the same
way between the player's calls: a daemon thread repeats one step of work; a
step that finds nothing to do (no root, a terminal or proven root, a search
told not to ponder) makes the thread wait to be woken; a step that raises (a
broken game, a closed engine) is counted and logged once per run of failures,
and the thread backs off exponentially (10 ms doubling to 1 s) instead of
spinning, so the player's fallback move keeps the match going.
"""

from __future__ import annotations

import logging
import threading
from typing import Callable, Optional

log = logging.getLogger(__name__)

#: How long an idle worker sleeps before looking again, seconds (a wake-up cuts it short).
IDLE_WAIT_S = 0.05
#: Seconds `stop` waits for the thread to finish.
STOP_WAIT_S = 5.0


def backoff_seconds(failures_in_a_row: int) -> float:
    """The pause after the n-th failure in a row: 10 ms doubling, at most 1 s.

    >>> [backoff_seconds(n) for n in (1, 2, 7, 20)]
    [0.02, 0.04, 1.0, 1.0]
    """
    return min(1.0, 0.01 * 2 ** min(failures_in_a_row, 7))


class SearchWorker:
    """Runs `step` in a daemon thread until `stop`.

    `step()` returns True when it did some work and False when there was
    nothing to do (the thread then waits up to IDLE_WAIT_S, or until `wake`).
    `on_error(error)` records a step's exception (a search's error counters);
    the worker logs the first of a run of failures and backs off.
    """

    def __init__(self, name: str, step: Callable[[], bool], on_error: Callable[[Exception], None]) -> None:
        self.name = name
        self._step = step
        self._on_error = on_error
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._thread: Optional[threading.Thread] = None

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    @property
    def running(self) -> bool:
        """The thread is running steps (started, not stopped)."""
        return self._thread is not None and self._thread.is_alive() and not self._stopping.is_set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Cut an idle wait short (a new root, a stop)."""
        self._wake.set()

    def stop(self) -> None:
        """Ask the thread to end, and wait for it (a step in progress finishes first)."""
        self._stopping.set()
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=STOP_WAIT_S)
            if thread.is_alive():
                log.warning("search thread %s did not stop within %.0f s", self.name, STOP_WAIT_S)

    def _run(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            try:
                worked = self._step()
            except Exception as error:  # a broken game or engine: the player's fallback plays
                failures += 1
                self._on_error(error)
                if failures == 1:
                    log.warning("search %s: a step failed: %s: %s", self.name, type(error).__name__, error)
                self._stopping.wait(backoff_seconds(failures))
                continue
            failures = 0
            if not worked:
                self._wake.wait(IDLE_WAIT_S)
                self._wake.clear()
