"""The one thread that talks to SWI-Prolog.

pyswip keeps one engine with a global query flag, and Prolog's foreign interface
is per thread, so every Prolog call in the process goes through this thread: the
caller submits a function and waits for its result. Calls from the server's event
loop, the search worker and the tests therefore serialize here instead of racing.
ctypes releases the GIL while Prolog runs, so Python threads keep working.

Waiting calls run in order of urgency, then of arrival: a thread inside
`urgent_calls()` (the player computing its legal-move fallback) goes ahead of
every search call that is queued. A call that is already running is never
interrupted, so callers that may run long (playouts) keep each call short.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import queue
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

from ..cores import unpin_this_thread
from . import swipl

log = logging.getLogger(__name__)

T = TypeVar("T")

RUNTIME_FILE = Path(__file__).with_name("gdl_runtime.pl")

#: Prolog stack limit (all stacks together), MiB; env GGP_PROLOG_STACK_MB.
STACK_LIMIT_MB = int(os.environ.get("GGP_PROLOG_STACK_MB", "1024"))
#: Space for answer tables, MiB; env GGP_PROLOG_TABLE_MB.
TABLE_SPACE_MB = int(os.environ.get("GGP_PROLOG_TABLE_MB", "1024"))


#: Urgency of a call: lower runs first among the calls waiting.
URGENT = 0
NORMAL = 1

class _Caller(threading.local):
    """The calling thread's urgency (NORMAL until `urgent_calls` says otherwise),
    and the least time limit its queries get (0: the engine's own)."""

    urgency = NORMAL
    time_limit = 0.0


_caller = _Caller()


@contextlib.contextmanager
def urgent_calls(at_least: float = 0.0):
    """Prolog calls made by this thread in the block go ahead of waiting normal
    ones, and each query may run `at_least` seconds when that is longer than
    its engine's limit (the player following the match: a step slower than
    the engine's limit but within a few play clocks is caught up, not lost)."""
    previous = _caller.urgency, _caller.time_limit
    _caller.urgency = URGENT
    _caller.time_limit = max(at_least, previous[1])
    try:
        yield
    finally:
        _caller.urgency, _caller.time_limit = previous


def caller_time_limit(limit: float) -> float:
    """The time limit of a query made by this thread: `limit` (the engine's),
    raised to what an enclosing `urgent_calls(at_least=...)` allows."""
    return max(limit, _caller.time_limit)


class PrologThread:
    """A daemon thread that owns SWI-Prolog; `call(fn, ...)` runs fn on it."""

    _instance: Optional["PrologThread"] = None
    _instance_lock = threading.Lock()

    def __init__(self) -> None:
        self._jobs: "queue.PriorityQueue[tuple[int, int, Callable, tuple, Future]]" = queue.PriorityQueue()
        self._arrivals = itertools.count()
        self._ready: Future = Future()
        self._thread = threading.Thread(target=self._run, name="prolog", daemon=True)
        self._thread.start()
        self._ready.result()

    @classmethod
    def instance(cls) -> "PrologThread":
        """The process-wide Prolog thread, started on first use."""
        with cls._instance_lock:
            if cls._instance is None:
                cls._instance = PrologThread()
            return cls._instance

    def call(self, function: Callable[..., T], *args: Any) -> T:
        """Run `function(*args)` on the Prolog thread and return its result.

        Called from the Prolog thread itself, it runs inline (no deadlock).
        Inside `urgent_calls()` it goes ahead of the normal calls waiting.
        """
        if threading.current_thread() is self._thread:
            return function(*args)
        future: Future = Future()
        urgency = _caller.urgency
        self._jobs.put((urgency, next(self._arrivals), function, args, future))
        return future.result()

    def _run(self) -> None:
        # Every player of the process calls Prolog: its thread runs on every core
        # the process may use, whichever pinned player's thread started it.
        unpin_this_thread()
        try:
            swipl.initialize()
            from .prolog_query import call_predicate, consult_runtime  # needs the API bound

            consult_runtime(RUNTIME_FILE)
            call_predicate(
                "ggp_runtime", "configure",
                [
                    lambda ref: swipl.api.put_int64(ref, STACK_LIMIT_MB * 1024 * 1024),
                    lambda ref: swipl.api.put_int64(ref, TABLE_SPACE_MB * 1024 * 1024),
                ],
            )
        except BaseException as error:  # noqa: BLE001 - reported to the waiter
            self._ready.set_exception(error)
            return
        self._ready.set_result(True)
        while True:
            _urgency, _arrival, function, args, future = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(function(*args))
            except BaseException as error:  # noqa: BLE001 - handed to the caller
                future.set_exception(error)
