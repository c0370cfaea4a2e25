"""Which processor cores a player may use: a fair match on a shared machine.

Two players on one two-core machine measure each other fairly only when each
thinks on a core of its own (a champion that searches on one thread pinned to
core 0, our agent to core 1). Linux keeps a CPU affinity per thread, and a new
thread inherits its creator's: pinning the threads a player starts its work
from pins the search threads they start in turn. This module reads a core list
(`0`, `0,1`, `2-3`), checks it against the cores this process may use, and pins
the calling thread. It imports nothing from the package, so every layer may
use it.
"""

from __future__ import annotations

import os
from typing import Iterable


def allowed_cores() -> frozenset[int]:
    """The cores this process may run on: the main thread's CPU affinity, which a
    container's cpuset or `taskset` narrows where `os.cpu_count` would still count
    the host's."""
    try:
        return frozenset(os.sched_getaffinity(os.getpid()))
    except AttributeError:  # pragma: no cover - not Linux
        return frozenset(range(os.cpu_count() or 1))


def parse_cores(text: str) -> tuple[int, ...]:
    """A core list this process may use (`read_core_list`), or a ValueError
    naming the cores it may not run on and those it may."""
    cores = set(read_core_list(text))
    allowed = allowed_cores()
    missing = sorted(cores - allowed)
    if missing:
        raise ValueError(
            f"cores {text!r}: this process may not run on {', '.join(map(str, missing))} "
            f"(it may use {format_cores(allowed)})"
        )
    return tuple(sorted(cores))


def read_core_list(text: str) -> tuple[int, ...]:
    """Read a core list as `taskset -c` writes it: numbers and ranges joined by
    commas or `+` (`0`, `0,1`, `0-3`, `1+3`); ValueError says what is wrong.
    Whether the machine has those cores is `parse_cores`'s question.

    >>> read_core_list("2-3,0")
    (0, 2, 3)
    """
    cores: set[int] = set()
    for item in filter(None, text.replace("+", ",").split(",")):
        first, dash, last = item.strip().partition("-")
        try:
            low = int(first)
            high = int(last) if dash else low
        except ValueError:
            raise ValueError(f"cores {text!r}: {item!r} is not a core number or a range like 0-3") from None
        if low < 0 or high < low:
            raise ValueError(f"cores {text!r}: {item!r} is not a range of core numbers")
        cores.update(range(low, high + 1))
    if not cores:
        raise ValueError(f"cores {text!r}: no core named")
    return tuple(sorted(cores))


def format_cores(cores: Iterable[int]) -> str:
    """A core list as `parse_cores` reads it (`0,2,3`)."""
    return ",".join(str(core) for core in sorted(cores))


def pin_this_thread(cores: Iterable[int]) -> None:
    """Keep the calling thread (and the threads it starts from now on) on `cores`."""
    os.sched_setaffinity(0, set(cores))


def pin_this_process(cores: Iterable[int]) -> None:
    """Keep every thread of the process on `cores`: those already running too
    (numpy's and numba's libraries start threads of their own at import, and a
    thread keeps the affinity it started with), and every thread started later."""
    wanted = set(cores)
    for task in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(task), wanted)
        except ProcessLookupError:  # the thread ended meanwhile
            pass


def unpin_this_thread() -> None:
    """Let the calling thread run on every core of the process (a thread shared
    by several players, such as the Prolog engine's, belongs to none of them)."""
    os.sched_setaffinity(0, set(allowed_cores()))
