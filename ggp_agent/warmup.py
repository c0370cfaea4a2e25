"""Load (or compile, the first time) everything a START would otherwise wait for.

Numba compiles a kernel the first time it meets its argument types and caches
the result on disk (`NUMBA_CACHE_DIR`); SWI-Prolog starts and loads our runtime
the first time a game is compiled. `warm_up()` does both ahead of time: the
Docker image runs it at build time so the kernels are compiled into the image,
and `ggp-agent serve` runs it at start-up so the first START compiles nothing.

Each part that has numba kernels offers a `warm_up()` function; this module
calls every one that is installed and skips the ones that are not (yet): a
part that lands later is picked up by adding its hook to WARM_UP_HOOKS.
Each step reports how many functions numba compiled during it: 0 when the
cache served, which is what a log should show after the first run.
"""

from __future__ import annotations

import importlib
import logging
import time
from dataclasses import dataclass
from typing import Callable, Optional

from .numba_cache import counting_compilations

log = logging.getLogger(__name__)

#: (module, function) of each part's warm-up, in the order they run.
WARM_UP_HOOKS: tuple[tuple[str, str], ...] = (
    ("ggp_agent.propnet.kernels", "warm_up"),
    ("ggp_agent.search.warmup", "warm_up"),
)

#: A game small enough to load and play in milliseconds (Prolog's warm-up).
_TINY_GAME = """
(role a) (role b) (init (turn a))
(<= (legal ?r go) (true (turn ?r)))
(<= (legal a wait) (true (turn b))) (<= (legal b wait) (true (turn a)))
(<= (next (turn b)) (true (turn a))) (<= (next done) (true (turn b)))
(<= terminal (true done)) (goal a 50) (goal b 50)
"""


@dataclass(frozen=True)
class WarmUpStep:
    """What one part did: `status` is "ok", "absent" or "failed"; `compiled`
    counts the functions numba compiled meanwhile (not loaded from its cache)."""

    part: str
    status: str
    seconds: float
    detail: str = ""
    compiled: int = 0


def warm_up(hooks: tuple[tuple[str, str], ...] = WARM_UP_HOOKS, prolog: bool = True) -> list[WarmUpStep]:
    """Start Prolog and run every installed part's warm-up; never raises."""
    steps = []
    if prolog:
        steps.append(_timed("prolog", _warm_prolog))
    for module_name, function_name in hooks:
        part = f"{module_name}.{function_name}"
        function = _find(module_name, function_name)
        if isinstance(function, str):
            steps.append(WarmUpStep(part, "absent", 0.0, function))
            continue
        steps.append(_timed(part, function))
    for step in steps:
        level = logging.ERROR if step.status == "failed" else logging.INFO
        log.log(level, "warm-up %s: %s in %.2f s, %d numba functions compiled%s", step.part, step.status,
                step.seconds, step.compiled, f" ({step.detail})" if step.detail else "")
    return steps


def _find(module_name: str, function_name: str) -> "Callable[[], object] | str":
    """The hook, or a string saying why there is none."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            return f"{error.name} is not installed"
        raise
    function: Optional[Callable] = getattr(module, function_name, None)
    if function is None:
        return f"{module_name} has no {function_name}()"
    return function


def _timed(part: str, function: Callable[[], object]) -> WarmUpStep:
    began = time.perf_counter()
    with counting_compilations() as compiled:
        try:
            function()
        except Exception as error:  # noqa: BLE001 - reported; the server still serves
            return WarmUpStep(part, "failed", time.perf_counter() - began,
                              f"{type(error).__name__}: {error}"[:300], len(compiled))
    return WarmUpStep(part, "ok", time.perf_counter() - began, compiled=len(compiled))


def _warm_prolog() -> None:
    from .reasoner.prolog_machine import PrologStateMachine

    with PrologStateMachine.from_text(_TINY_GAME) as machine:
        state = machine.initial_state()
        machine.legal_moves(state, 0)
        machine.bounded_playout(state, 10, 0.05)
