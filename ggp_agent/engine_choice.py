"""Which engine plays a game: the propnet when it builds in time, Prolog otherwise.

A propnet runs random playouts two to three orders of magnitude faster than
the Prolog engine, but grounding can blow up (chess-like games, arithmetic
over large ranges). So a START gives the propnet a budget, a share of the start
clock: grounding and building stop when it runs out (Prolog time limits,
caps on atoms and instances, deadline checks in the builder), and the game
then goes to the Prolog engine, which needs no grounding. Either way play
goes on; the choice and its reason are logged and returned. A GDL-II game goes
to Prolog too: the propnet refuses it at once (it does not evaluate `sees`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from .gdl.validate import ValidatedGame
from .reasoner.statemachine import StateMachine

log = logging.getLogger(__name__)

#: Share of the start clock the propnet may take, and what is kept back for
#: the rest of START (the search's set-up, the reply's trip).
DEFAULT_SHARE = 0.5
DEFAULT_RESERVE_S = 2.0
#: Never give the propnet more than this, whatever the clock (a build that
#: takes a minute would not pay for itself in a match).
MAX_BUDGET_S = 60.0


@dataclass(frozen=True)
class EngineChoice:
    """The engine chosen for a game, why, and what trying the propnet cost."""

    engine: str
    reason: str
    build_s: float


def propnet_budget(start_clock: float, share: float = DEFAULT_SHARE, reserve_s: float = DEFAULT_RESERVE_S) -> float:
    """Seconds the propnet may take out of a START clock of `start_clock` seconds."""
    return max(0.0, min(MAX_BUDGET_S, (start_clock - reserve_s) * share))


def choose_state_machine(game: ValidatedGame, budget_s: float, **options) -> tuple[StateMachine, EngineChoice]:
    """The propnet if it builds within `budget_s` seconds, else the Prolog engine.

    `options` go to both engines (each ignores those it does not know).
    """
    from .engines import make_state_machine
    from .propnet.machine import PropnetUnavailable

    started = time.perf_counter()
    if budget_s > 0:
        try:
            machine = make_state_machine("propnet", game, time_limit=budget_s, **options)
        except PropnetUnavailable as error:
            reason = f"propnet unavailable after {error.seconds:.2f} s: {error.reason}"
        else:
            refusal = _unplayable_on_propnet(machine)
            if refusal is None:
                choice = EngineChoice(
                    "propnet",
                    f"propnet built in {machine.build_s:.2f} s ({machine.stats['gates']} gates, "
                    f"{machine.stats['propositions']} propositions)",
                    machine.build_s,
                )
                log.info("engine: %s", choice.reason)
                return machine, choice
            machine.close()
            reason = refusal
    else:
        reason = "no time for a propnet"
    spent = time.perf_counter() - started
    machine = make_state_machine("prolog", game, **options)
    choice = EngineChoice("prolog", reason, spent)
    log.info("engine: prolog (%s)", reason)
    return machine, choice


def _unplayable_on_propnet(machine: StateMachine) -> str | None:
    """Why a built propnet still cannot play the game, or None.

    A role without a legal move in a non-terminal initial state makes the
    manager send `nil` for it: the propnet has no input for `nil`, while the
    Prolog engine applies it as a move that matches no `does` rule.
    """
    state = machine.initial_state()
    if machine.is_terminal(state):
        return None
    stuck = [name for role, name in enumerate(machine.roles) if not machine.legal_moves(state, role)]
    return f"{', '.join(map(str, stuck))} has no legal move in the initial state" if stuck else None
