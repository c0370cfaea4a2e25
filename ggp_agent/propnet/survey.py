"""Which games get a propnet within a budget, and how long each build takes.

Why: the agent gives the propnet a share of the start clock and falls back to
the lazy engine, then to Prolog, past it; `ggp-agent survey` says for which
games that happens, why, and what the build costs (wall and CPU seconds: on a
loaded machine the wall clock says more about the neighbours than about us).
A game whose full network gives up is built on the lazy engine too, within
the same budget (`lazy`, `lazy_s`).
"""

from __future__ import annotations

import time
from pathlib import Path

from ..gdl import GdlError, load_game
from ..reasoner.statemachine import ReasonerError
from .machine.state_machine import PropnetStateMachine, PropnetUnavailable


def survey_game(path: Path, budget: float) -> dict:
    """Build one game's propnet within `budget` seconds; what happened."""
    row: dict = {"game": path.stem}
    try:
        game = load_game(path)
    except GdlError as error:
        return dict(row, built=False, wall_s=0.0, cpu_s=0.0, reason=f"invalid GDL: {error}")
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        machine = PropnetStateMachine(game, time_limit=budget)
    except PropnetUnavailable as error:
        row = dict(row, built=False, wall_s=round(time.perf_counter() - wall, 2),
                   cpu_s=round(time.process_time() - cpu, 2), reason=error.reason, steps=_steps(error.profile))
        return dict(row, **_lazy(game, budget))
    row.update(
        built=True,
        wall_s=round(time.perf_counter() - wall, 2),
        cpu_s=round(time.process_time() - cpu, 2),
        mode=machine.stats["mode"],
        propositions=machine.stats["propositions"],
        gates=machine.stats["gates"],
        edges=machine.stats["edges"],
        grounding_s=machine.stats["grounding_s"],
        network_s=machine.stats["network_s"],
        plan_s=machine.stats["plan_s"],
        atoms=machine.stats["atoms"],
        instances=machine.stats["instances"],
        steps=_steps(machine.profile),
    )
    return row


#: Steps of a grounding's profile a survey row keeps.
KEPT_STEPS = 5


def _steps(profile: tuple) -> list:
    """The costliest steps of a grounding: [step (at most 120 characters), CPU seconds, count]."""
    return [[step[:120], round(seconds, 2), count] for step, seconds, count in profile[:KEPT_STEPS]]


def _lazy(game, budget: float) -> dict:
    """The lazy engine's build of a game whose network gave up: whether it
    built within `budget`, and its wall seconds (or why not)."""
    from .lazy.machine import LazyStateMachine

    wall = time.perf_counter()
    try:
        machine = LazyStateMachine(game, time_limit=budget)
    except ReasonerError as error:
        return {"lazy": False, "lazy_s": round(time.perf_counter() - wall, 2), "lazy_reason": str(error)[:300]}
    machine.close()
    return {"lazy": True, "lazy_s": round(time.perf_counter() - wall, 2), "lazy_rules": machine.stats["rules"]}
