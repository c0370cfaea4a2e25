"""The settings a search leaves at "auto" and decides at START, from the rules.

Each is measured by random playouts from the start, once per match, and
logged with its reason: `codes` (move or effect codes, `codes_choice.py`),
`priors` (MCPS's priors whole or capped, `priors_choice.py`) and
`heuristic` (a heuristic found in the rules, `heuristic_choice.py`). One
place decides them all, so that a search, the bench and the status page
read the same reasons. Together they take at most `start_budget` of the
START clock (each measurement has its own ceiling too, and overruns its
share by one playout at most): the rest of the START clock builds the
propnet and thinks.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import replace
from typing import Optional

from ...reasoner.statemachine import State, StateMachine
from ..tree.params import SearchParams
from .codes_choice import resolve_codes
from .heuristic_choice import resolve_heuristic
from .priors_choice import resolve_priors

log = logging.getLogger(__name__)

#: The share of the START clock the decisions may take together (the bound
#: promised is a tenth; half of that leaves room for a loaded machine).
START_SHARE = 0.05


def start_budget(start_clock: float) -> float:
    """Seconds the START decisions may take out of a START clock of `start_clock` seconds."""
    return START_SHARE * start_clock


def decide_auto_settings(name: str, params: SearchParams, runner, machine: StateMachine, state: State,
                         terminal: bool, seconds: Optional[float] = None) -> tuple[SearchParams, dict[str, str]]:
    """`params` with every "auto" setting decided for the match at `state`,
    and the reason for each decided setting (search `name` logs them), within
    `seconds` together (None: each measurement's own ceiling), shared evenly
    among the settings left to decide."""
    deciders = {
        "codes": lambda share: resolve_codes(params.rule, runner, state, terminal, share),
        "priors": lambda share: resolve_priors(params.rule, machine, state, terminal, share),
        "heuristic": lambda share: resolve_heuristic(runner, state, terminal, share),
    }
    pending = [setting for setting in deciders if getattr(params, setting) == "auto"]
    deadline = None if seconds is None else time.perf_counter() + seconds
    reasons = {}
    for index, setting in enumerate(pending):
        resolve = deciders[setting]
        began = time.perf_counter()
        share = math.inf if deadline is None else max(0.0, (deadline - began) / (len(pending) - index))
        value, reason = resolve(share)
        params = replace(params, **{setting: value})
        reasons[setting] = reason
        log.info("search %s: %s %s: %s (decided in %.3f s)", name, value, setting, reason,
                 time.perf_counter() - began)
    return params, reasons
