"""Which engine plays a game: the registry of engines by name, and the choice (`auto`).

Callers (CLI, player, controller) never import an engine class directly: they
name an engine (`prolog`, `propnet`, `lazy` or `auto`) and get a `StateMachine`.

Why a choice: a compiled engine runs random playouts one to three orders of
magnitude faster than the Prolog engine. The full propnet is the fastest,
but grounding can blow up (chess's threats, sudoku's goal, arithmetic over
large ranges); the lazy engine (`propnet/lazy/`) grounds nothing that
depends on the state and evaluates the rules on each state instead, slower
than a network but far faster than Prolog. `propnet` names the compiled
engine: the full network when it builds within its share of the time,
else the lazy engine (`compiled_engine`). So a START gives the compiled
engine a budget, a share of the start clock (`propnet_budget`): grounding
and building stop when it runs out (caps on atoms and instances, deadline
checks in the builders), and the game then goes to the Prolog engine, which
needs no grounding. Either way play goes on; the choice and its reason are
logged and returned. A player can let the build go on past the budget
(`start_engine`'s `background_s`): it then plays on Prolog until the
compiled engine is ready and switches to it between two moves
(`player/upgrade.py`). A GDL-II game gets a compiled engine too when it
builds: it answers legal, next, terminal and goal (all a search needs), a
Prolog engine it owns answers the percepts.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from dataclasses import dataclass
from typing import Callable, Optional

from .gdl.validate import ValidatedGame
from .reasoner.statemachine import ReasonerError, StateMachine

log = logging.getLogger(__name__)

EngineFactory = Callable[..., StateMachine]

#: Share of the start clock the propnet may take, at least MIN_BUDGET_S and at
#: most MAX_BUDGET_S seconds: the rest of START (the search's set-up, the
#: reply's trip) needs the other half, and a build that takes a minute would
#: not pay for itself in a match.
PROPNET_SHARE = 0.5
MIN_BUDGET_S = 1.0
MAX_BUDGET_S = 60.0

_PROLOG_OPTIONS = ("query_time_limit", "load_time_limit")

#: Seconds a propnet build may go on in the background after the START's
#: budget ran out (`start_engine`): every corpus game builds within 60 s on a
#: 2-core machine (docs/propnet.md, "Build time and fallbacks"); twice that
#: for a busy machine.
BACKGROUND_BUILD_S = 120.0


def propnet_budget(start_clock: float, cap: float = MAX_BUDGET_S) -> float:
    """Seconds the propnet may take out of a START clock of `start_clock` seconds.

    >>> propnet_budget(10.0), propnet_budget(1.0), propnet_budget(600.0)
    (5.0, 1.0, 60.0)
    """
    return min(cap, max(MIN_BUDGET_S, PROPNET_SHARE * start_clock))


@dataclass(frozen=True)
class EngineChoice:
    """The engine chosen for a game, why, and what trying the propnet cost."""

    engine: str
    reason: str
    build_s: float


# The engines are imported when first asked for: a command that plays no game
# (`ggp-agent ping`, a container's health check) must not load numba or Prolog.


def _prolog(game: ValidatedGame, **options) -> StateMachine:
    from .reasoner.prolog_machine import PrologStateMachine

    return PrologStateMachine(game, **{k: v for k, v in options.items() if k in _PROLOG_OPTIONS})


def _full_propnet(game: ValidatedGame, **options) -> StateMachine:
    from .propnet.machine.state_machine import PropnetStateMachine

    return PropnetStateMachine(game, **options)


def _lazy(game: ValidatedGame, time_limit: float = 60.0, **options) -> StateMachine:
    from .propnet.lazy.machine import LazyStateMachine

    return LazyStateMachine(game, time_limit=time_limit, **options)


def _propnet(game: ValidatedGame, time_limit: float = 60.0, **options) -> StateMachine:
    """The full network when it builds, else the lazy engine (`compiled_engine`)."""
    return compiled_engine(game, time_limit, **options)


#: Share of a compiled engine's time the full network may take: the rest is
#: kept for the lazy engine, should the network give up (chess gives up at
#: its cap on atoms after about 19 s; the lazy engine builds in a few).
FULL_NETWORK_SHARE = 0.75

#: How a full network that passed a cap (not the time limit) gives up.
CAPPED_GROUNDING = "grounding gave up (too many"


def compiled_engine(game: ValidatedGame, time_limit: float, **options) -> StateMachine:
    """A compiled engine within `time_limit` seconds: the full propnet when it
    builds within its share, else the lazy engine (its rules evaluated on
    each state) in the time left; PropnetUnavailable, with both reasons,
    when neither is made. A network that gave up at a relation only the
    goal reads (sudoku) is built again without the goal, and plays beside
    the lazy engine's goal program (`HybridStateMachine`)."""
    from .propnet.lazy.hybrid import HybridStateMachine, goal_only
    from .propnet.machine.state_machine import PropnetUnavailable

    started = time.perf_counter()
    try:
        return _full_propnet(game, time_limit=FULL_NETWORK_SHARE * time_limit, **options)
    except PropnetUnavailable as error:
        full = error
    if full.reason.startswith(CAPPED_GROUNDING) and goal_only(game, full.reason):
        left = FULL_NETWORK_SHARE * time_limit - (time.perf_counter() - started)
        log.info("engine: the full propnet gave up on the goal (%s); a network without it gets %.2f s",
                 full.reason, left)
        try:
            return HybridStateMachine(game, time_limit=left, **options)
        except ReasonerError as error:
            log.info("engine: no network for the moves (%s)", error)
    left = time_limit - (time.perf_counter() - started)
    log.info("engine: the full propnet gave up (%s); the lazy engine gets %.2f s", full.reason, left)
    try:
        if left <= 0:
            raise ReasonerError("no time left")
        return _lazy(game, time_limit=left, **options)
    except ReasonerError as error:
        raise PropnetUnavailable(f"{full.reason}; the lazy engine: {error}", time.perf_counter() - started,
                                 full.profile) from error


def _auto(game: ValidatedGame, time_limit: float = 10.0, **options) -> StateMachine:
    return choose_state_machine(game, time_limit, **options)[0]


ENGINES: dict[str, EngineFactory] = {"prolog": _prolog, "propnet": _propnet, "lazy": _lazy, "auto": _auto}

#: Names that choose between engines rather than being one, each with the
#: engine it plays on when it can.
CHOOSERS = {"auto": "propnet"}


#: What the engine named "propnet" may give: the full network, or where that
#: does not ground, the lazy engine or a network beside the lazy goal program
#: (`compiled_engine`).
COMPILED_ENGINES = frozenset({"propnet", "hybrid", "lazy"})


def serves(asked: str, used: str) -> bool:
    """Whether a player that asked for engine `asked` plays on what it asked
    for when it plays on `used`: a chooser's preferred engine, and for the
    propnet any compiled engine.

    >>> serves("auto", "lazy"), serves("auto", "prolog"), serves("lazy", "propnet")
    (True, False, False)
    """
    wanted = first_choice(asked)
    return used == wanted or (wanted == "propnet" and used in COMPILED_ENGINES)


def first_choice(engine: str) -> str:
    """The engine a name asks for: itself, or a chooser's preferred engine.

    >>> first_choice("auto"), first_choice("prolog")
    ('propnet', 'prolog')
    """
    return CHOOSERS.get(engine, engine)


def make_state_machine(engine: str, game: ValidatedGame, **options) -> StateMachine:
    """A state machine for `game` from the engine called `engine`.

    `options` go to the engine (e.g. `query_time_limit` for Prolog, `time_limit`
    for the propnet's build or `auto`'s budget); an engine ignores the ones it
    does not know.
    """
    try:
        factory = ENGINES[engine]
    except KeyError:
        raise ValueError(f"unknown engine {engine!r}; known: {', '.join(sorted(ENGINES))}") from None
    return factory(game, **options)


def start_engine(engine: str, game: ValidatedGame, budget_s: float, background_s: float = 0.0,
                 **options) -> tuple[StateMachine, Optional[concurrent.futures.Future]]:
    """An engine for a match: `make_state_machine`'s, and for `auto` with
    `background_s`, a build that may go on for that long in a thread of its
    own after `budget_s`: the game then starts on Prolog, and the future
    holds the propnet once it is built (or the reason it is not).

    The build starts once, in the background, with the long time limit, and
    the START waits for it up to `budget_s`: no work is thrown away when it
    is not ready by then.
    """
    if engine != "auto" or background_s <= budget_s:
        return make_state_machine(engine, game, time_limit=budget_s, **options), None
    future: concurrent.futures.Future = concurrent.futures.Future()
    started = time.perf_counter()

    def build() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(_propnet(game, time_limit=background_s, **options))
        except BaseException as error:  # noqa: BLE001 - handed to whoever waits
            future.set_exception(error)

    threading.Thread(target=build, name="ggp-propnet-build", daemon=True).start()
    try:
        machine = future.result(timeout=max(0.0, budget_s))
    except concurrent.futures.TimeoutError:
        log.info("engine: prolog while the propnet builds in the background (%.2f s so far, up to %.0f s)",
                 time.perf_counter() - started, background_s)
        return _prolog(game, **options), future
    except Exception as error:  # noqa: BLE001 - the build failed within the budget
        log.info("engine: prolog (%s)", error)
        return _prolog(game, **options), None
    log.info("engine: propnet built in %.2f s", time.perf_counter() - started)
    return machine, None


def choose_state_machine(game: ValidatedGame, budget_s: float, **options) -> tuple[StateMachine, EngineChoice]:
    """The propnet if it builds within `budget_s` seconds, else the Prolog engine.

    `options` go to both engines (each ignores those it does not know).
    """
    from .propnet.machine.state_machine import PropnetUnavailable

    started = time.perf_counter()
    if budget_s > 0:
        try:
            machine = _propnet(game, time_limit=budget_s, **options)
        except PropnetUnavailable as error:
            reason = f"propnet unavailable after {error.seconds:.2f} s: {error.reason}"
        else:
            how = (f"an earlier build of these rules in this process ({machine.stats['build_s']:.2f} s then)"
                   if machine.cached else f"built in {machine.build_s:.2f} s")
            size = ", ".join(part for part, shown in (
                (f"{machine.stats.get('gates')} gates, {machine.stats.get('propositions')} propositions",
                 "gates" in machine.stats),
                (f"{machine.stats.get('rules')} rules in its programs", "rules" in machine.stats)) if shown)
            choice = EngineChoice(machine.engine_name, f"{machine.engine_name} {how} ({size})",
                                  time.perf_counter() - started)
            log.info("engine: %s", choice.reason)
            return machine, choice
    else:
        reason = "no time for a propnet"
    spent = time.perf_counter() - started
    machine = _prolog(game, **options)
    choice = EngineChoice("prolog", reason, spent)
    log.info("engine: prolog (%s)", reason)
    return machine, choice
