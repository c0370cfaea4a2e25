"""Engine registry: a name on the command line to a `StateMachine` for a game.

Callers (CLI, player, controller) never import an engine class directly.

`auto` is what a player wants: the propnet when the game grounds within its
limits (every search iteration then runs in numba), else the Prolog engine
(the same searches run over it, slower). The propnet's `time_limit` option
bounds the attempt.
"""

from __future__ import annotations

import logging
from typing import Callable

from .gdl.validate import ValidatedGame
from .reasoner.statemachine import StateMachine

log = logging.getLogger(__name__)

EngineFactory = Callable[..., StateMachine]

_PROLOG_OPTIONS = ("query_time_limit", "load_time_limit")


def _prolog(game: ValidatedGame, **options) -> StateMachine:
    from .reasoner.prolog_machine import PrologStateMachine

    return PrologStateMachine(game, **{k: v for k, v in options.items() if k in _PROLOG_OPTIONS})


def _propnet(game: ValidatedGame, **options) -> StateMachine:
    from .propnet.machine import PropnetStateMachine

    return PropnetStateMachine(game, **options)


def _auto(game: ValidatedGame, **options) -> StateMachine:
    from .propnet.machine import PropnetUnavailable

    try:
        machine = _propnet(game, **options)
    except PropnetUnavailable as error:
        log.warning("no propnet for this game, using the Prolog engine: %s", error)
        return _prolog(game, **options)
    state = machine.initial_state()
    if not machine.is_terminal(state) and any(
            not machine.legal_moves(state, role) for role in range(len(machine.roles))):
        # A broken game: the manager will send `nil` for the role without a move,
        # which the propnet cannot apply (it has no input for it); Prolog can.
        log.warning("a role has no legal move in the initial state; using the Prolog engine")
        machine.close()
        return _prolog(game, **options)
    return machine


ENGINES: dict[str, EngineFactory] = {"prolog": _prolog, "propnet": _propnet, "auto": _auto}


def make_state_machine(engine: str, game: ValidatedGame, **options) -> StateMachine:
    """A state machine for `game` from the engine called `engine`.

    `options` go to the engine (e.g. `query_time_limit` for Prolog); an engine
    ignores the ones it does not know.
    """
    try:
        factory = ENGINES[engine]
    except KeyError:
        raise ValueError(f"unknown engine {engine!r}; known: {', '.join(sorted(ENGINES))}") from None
    return factory(game, **options)
