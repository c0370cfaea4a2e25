"""Engine registry: a name on the command line to a `StateMachine` for a game.

Callers (CLI, player, controller) never import an engine class directly.
`auto` is not an engine of its own: it builds the propnet within a budget and
falls back to Prolog (`engine_choice.choose_state_machine`).
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


def _auto(game: ValidatedGame, time_limit: float = 10.0, **options) -> StateMachine:
    from .engine_choice import choose_state_machine

    return choose_state_machine(game, time_limit, **options)[0]


ENGINES: dict[str, EngineFactory] = {"prolog": _prolog, "propnet": _propnet, "auto": _auto}

#: Names that choose between engines rather than being one.
CHOOSERS = frozenset({"auto"})


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
