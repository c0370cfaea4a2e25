"""What a tree search decides at START, before its arena exists, and how the other trees of a match adopt it.

Three things are settled once per match: the settings left at "auto" (codes,
priors, heuristic: `choices/start_choices.py`), the heuristic found in the
rules (`choices/heuristic_choice.py`) and, where the player gives the time,
START's trials (`trials.py`). Each comes with a reason, logged and carried by
the search's figures (every turn of the match record). The first tree of a
match measures; the others adopt its decisions (`decided`, `adopt`), so the
trees agree and START measures once.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

from ...cores import allowed_cores
from ...gdl.dialect import random_role_index
from ...reasoner.statemachine import State, StateMachine
from ..choices.destinations import group_destinations
from ..choices.heuristic_choice import Heuristic, store_heuristic
from ..choices.start_choices import decide_auto_settings
from ..tree.arena import Arena, Capacity, new_arena, plan_capacity
from ..tree.params import EFFECT_CODINGS, SearchParams
from .trials import TrialResult, apply_trials, candidates, run_trials

log = logging.getLogger(__name__)

#: make(params, role, seed, heuristic) -> a prepared search of the match's kind (a trial player)
TrialSearchMaker = Callable[[SearchParams, int, int, Optional[Heuristic]], object]


@dataclass
class StartSetup:
    """A search's START decisions: its settings, why each holds, the heuristic
    found, and the trials played."""

    params: SearchParams
    reasons: dict[str, str]
    heuristic: Optional[Heuristic] = None
    trials: list[TrialResult] = field(default_factory=list)
    trial_reason: str = "no trials"
    #: decisions taken from another tree of the match (no measuring, no trials)
    adopted: bool = False

    @classmethod
    def configured(cls, params: SearchParams) -> "StartSetup":
        """The settings as the options gave them, before START."""
        return cls(params, {"codes": "set by the options", "priors": f"priors={params.priors} as configured",
                            "heuristic": f"heuristic={params.heuristic} as configured"})

    def decide(self, name: str, runner, machine: StateMachine, state: State, terminal: bool,
               start_seconds: Optional[float], trial_seconds: float, make: TrialSearchMaker,
               seed: int) -> SearchParams:
        """Settle every "auto" setting, then play START's trials where there is
        time for them; returns the settings to search with."""
        self.params, reasons = decide_auto_settings(name, self.params, runner, machine, state, terminal,
                                                    start_seconds)
        self.reasons.update(reasons)
        if (self.params.trials and trial_seconds > 0 and not self.adopted and not terminal
                and runner.supports_trials):
            self._run_trials(name, runner, machine, state, start_seconds, trial_seconds, make, seed)
        return self.params

    def fill_arena(self, A: Arena, runner, state: State, start_seconds: Optional[float], name: str) -> None:
        """What START decided that the arena holds: destination groups
        (`codes=destinations`) and the heuristic (measured now when the
        options set heuristic=on)."""
        if self.params.codes == "destinations":
            group_destinations(A, runner, state, start_seconds, name)
        if self.params.heuristic != "on":
            return
        if self.heuristic is None:
            self.heuristic = runner.find_heuristic(state, _seconds(start_seconds))
        if self.heuristic is not None:
            store_heuristic(A, self.heuristic)

    def _run_trials(self, name: str, runner, machine: StateMachine, state: State, start_seconds: Optional[float],
                    trial_seconds: float, make: TrialSearchMaker, seed: int) -> None:
        found = runner.find_heuristic(state, _seconds(start_seconds))
        heuristic = found if found.found else None
        trials = candidates(self.params, found.found)
        if not trials:
            self.trial_reason = "no candidate applies"
            return
        began = time.perf_counter()
        self.trials = run_trials(machine, state, lambda params, role, s: make(params, role, s, heuristic),
                                 self.params, trials, trial_seconds, threads=max(1, len(allowed_cores())),
                                 game_length=found.mean_length, seed=seed)
        params, self.trial_reason = apply_trials(self.params, self.trials)
        for result in self.trials:
            if result.kept and params == self.params.with_options(result.candidate.options):
                for option in result.candidate.options:
                    self.reasons[option] = f"START's trials: {result.describe()}"
        self.params = params
        if heuristic is not None and self.heuristic is None:
            self.heuristic = heuristic
        log.info("search %s: trials in %.1f s: %s", name, time.perf_counter() - began, self.trial_reason)

    def decided(self) -> tuple[dict[str, str], dict[str, str], Optional[Heuristic]]:
        """The settings decided, why, and the heuristic found: what another tree adopts."""
        return {name: getattr(self.params, name) for name in self.reasons}, dict(self.reasons), self.heuristic

    def adopt(self, values: dict[str, str], reasons: dict[str, str], heuristic: Optional[Heuristic]) -> None:
        """Another tree's decisions, before this one's START."""
        self.params = replace(self.params, **values)
        self.reasons.update(reasons)
        self.heuristic = heuristic
        self.adopted = True

    def figures(self) -> dict:
        """The decisions for the search's figures (logs, status page, record)."""
        return {
            "codes": self.params.codes, "codes_reason": self.reasons["codes"],
            "priors": self.params.priors, "priors_reason": self.reasons["priors"],
            "heuristic": self.params.heuristic, "heuristic_reason": self.reasons["heuristic"],
            "trials": self.trial_reason, "trial_results": [result.to_json() for result in self.trials],
        }


def _seconds(start_seconds: Optional[float]) -> float:
    """What finding the heuristic may take, given `start_seconds` for START's decisions."""
    return start_seconds if start_seconds else 1.0


def new_search_arena(runner, params: SearchParams, machine: StateMachine, legal: list[int],
                     memory_cap: Optional[int], clock_seconds: Optional[float]) -> tuple[Capacity, Arena]:
    """The arena a search gets at START, sized from the memory cap, free
    memory, the clocks and the root's moves (`legal`: each role's count),
    and never grown."""
    capacity = plan_capacity(
        n_roles=runner.n_roles, n_codes=runner.n_codes(), n_words=runner.n_words,
        branching=max(2, sum(legal)), simultaneous=sum(1 for n in legal if n > 1) > 1,
        memory_cap=memory_cap, seconds=clock_seconds, rho=params.rho,
        amaf_alloc=params.amaf_alloc, window=params.window,
        max_depth=params.max_depth, max_rollout=params.max_rollout,
        effects=params.codes in EFFECT_CODINGS, legal_words=runner.legal_words,
        regret=params.sim == "rm",
    )
    arena = new_arena(capacity, n_roles=runner.n_roles, n_words=runner.n_words,
                      code_role=runner.code_role(), goal_values=runner.goal_values(),
                      chance_role=random_role_index(machine.roles))
    return capacity, arena
