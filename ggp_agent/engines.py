"""Engine registry: a name on the command line to a `StateMachine` for a game.

The propnet engine registers itself here when it lands; callers (CLI, player,
controller) never import an engine class directly.
"""

from __future__ import annotations

from typing import Callable

from .gdl.validate import ValidatedGame
from .reasoner.statemachine import StateMachine

EngineFactory = Callable[..., StateMachine]


def _prolog(game: ValidatedGame, **options) -> StateMachine:
    from .reasoner.prolog_machine import PrologStateMachine

    return PrologStateMachine(game, **options)


ENGINES: dict[str, EngineFactory] = {"prolog": _prolog}


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
