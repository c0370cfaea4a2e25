"""A pool worker ends when the process that started it is gone.

Why: a tournament's worker plays whole matches with its players in-process,
and a pondering player's search threads never run out of work. When the
tournament is killed (SIGTERM from an operator or a batch system, SIGKILL, a
crash), Python runs no clean-up and the process pool never tells its
workers: they went on searching, orphaned, a gigabyte each, until someone
found them. No signal reaches a child when its parent dies (Linux's
PR_SET_PDEATHSIG exists but is Linux-only and fires on the death of the
parent *thread*), so each worker watches for it: once its parent process is
gone the worker is re-parented (`os.getppid()` changes), and it exits at
once without waiting for its match.
"""

from __future__ import annotations

import os
import threading
import time

#: How often a worker looks at its parent, in seconds: an orphan lives at most this long.
POLL_SECONDS = 0.5


def parent_gone(parent: int) -> bool:
    """True when the process this one was started by (`parent`) is no longer its parent."""
    return os.getppid() != parent


def exit_with_parent(parent: int, poll_seconds: float = POLL_SECONDS) -> None:
    """Pool initializer: start a daemon thread that ends this process (exit
    status 1, no clean-up: the match in hand is lost either way) as soon as
    `parent` is no longer its parent. `parent` is the pid the starting process
    passes (`os.getpid()` there): read here, `os.getppid()` could already be
    the adoptive parent."""

    def watch() -> None:
        while not parent_gone(parent):
            time.sleep(poll_seconds)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
