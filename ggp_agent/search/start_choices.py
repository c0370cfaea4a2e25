"""The settings a search leaves at "auto" and decides at START, from the rules.

Each is measured by random playouts from the start, once per match, and
logged with its reason: `codes` (move or effect codes, `codes_choice.py`)
and `priors` (MCPS's priors whole or capped, `priors_choice.py`). One
place decides them all, so that a search, the bench and the status page
read the same reasons.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace

from ..reasoner.statemachine import State, StateMachine
from .codes_choice import resolve_codes
from .params import SearchParams
from .priors_choice import resolve_priors

log = logging.getLogger(__name__)


def decide_auto_settings(name: str, params: SearchParams, runner, machine: StateMachine, state: State,
                         terminal: bool) -> tuple[SearchParams, dict[str, str]]:
    """`params` with every "auto" setting decided for the match at `state`,
    and the reason for each decided setting (search `name` logs them)."""
    deciders = {
        "codes": lambda: resolve_codes(params.rule, runner, state, terminal),
        "priors": lambda: resolve_priors(params.rule, machine, state, terminal),
    }
    reasons = {}
    for setting, resolve in deciders.items():
        if getattr(params, setting) != "auto":
            continue
        began = time.perf_counter()
        value, reason = resolve()
        params = replace(params, **{setting: value})
        reasons[setting] = reason
        log.info("search %s: %s %s: %s (decided in %.3f s)", name, value, setting, reason,
                 time.perf_counter() - began)
    return params, reasons
