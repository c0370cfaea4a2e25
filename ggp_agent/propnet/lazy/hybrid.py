"""A network for the moves and the lazy engine for the goals: games whose goal alone does not ground.

Why: sudoku's goal joins nine marks of every row, column and square (9^9
ways in the relaxed model) and its network gives up there, although its
moves, next state and terminal ground into a small network; the goal is
asked once a playout, at its end. So the network is built from the rules
without `goal` (`moves_game`) and plays the moves; the lazy engine's goal
program gives the goals of the state a playout ends in, read from the
network's state words (`goal_kernels.playout_goals`).

It is tried only when the full network gave up at a relation that only
`goal` reads (`goal_only`): another grounding of a game whose moves do not
ground (chess) would only waste the start clock.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Optional, Sequence

import numpy as np

from ...gdl import load_game
from ...gdl.analysis import sentence_of
from ...gdl.terms import Term, relation_key
from ...gdl.validate import ValidatedGame
from ...reasoner.statemachine import (
    DEFAULT_MAX_PLAYOUT_STEPS, Playout, RecordedPlayout, State, StateMachine, no_legal_move_error,
)
from ..network.arrays import new_rng, new_work
from ..machine.state_machine import PropnetStateMachine
from . import goal_kernels
from .layout import OK, terms_of
from .machine import LazyStateMachine
from .program import term_id

log = logging.getLogger(__name__)

_NAME = re.compile(r"[^\s()/]+")


def moves_game(game: ValidatedGame) -> ValidatedGame:
    """The game without its goal rules (a valid game: nothing requires goals)."""
    return load_game(tuple(rule for rule in game.rules if relation_key(rule.head) != ("goal", 2)))


def goal_only(game: ValidatedGame, where: str) -> bool:
    """Whether the place a grounding gave up at (`GroundingError.where`)
    names a relation that only `goal` reads."""
    reads: dict = {}
    for rule in game.plain_rules:
        reads.setdefault(relation_key(rule.head)[0], set()).update(
            relation_key(s)[0] for s in map(sentence_of, rule.body) if s is not None)

    def reached(starts) -> set:
        found, stack = set(starts), list(starts)
        while stack:
            for name in reads.get(stack.pop(), ()):
                if name not in found:
                    found.add(name)
                    stack.append(name)
        return found

    only_goal = reached(["goal"]) - reached(["legal", "next", "terminal", "init"])
    return any(name in only_goal for name in _NAME.findall(where))


class HybridStateMachine(StateMachine):
    """Moves, next states and terminal on a network; goals on the lazy engine."""

    engine_name = "hybrid"

    def __init__(self, game: ValidatedGame, time_limit: float = 60.0, **options) -> None:
        started = time.perf_counter()
        self.network = PropnetStateMachine(moves_game(game), time_limit=time_limit, **options)
        left = time_limit - (time.perf_counter() - started)
        self.goals = LazyStateMachine(game, time_limit=left)
        self.game = game
        self.move_codes = self.network.move_codes
        net = self.network.net
        store = self.goals._store
        self._fluent_ids = np.array([term_id(store, fluent) for fluent in self.network.fluents] or [0],
                                    dtype=np.int32)
        self._work = new_work(net)
        self._buffer = np.zeros(max(1, net.n_fluents), dtype=np.int32)
        self._goal_values = np.zeros(max(1, net.n_roles), dtype=np.int64)
        self.cached = self.network.cached and self.goals.cached
        self.build_s = time.perf_counter() - started
        self.stats = {"build_s": round(self.build_s, 3), "gates": self.network.stats["gates"],
                      "propositions": self.network.stats["propositions"], "rules": self.goals.stats["rules"]}

    # -- the protocol: the network's, the goals' --------------------------------------------

    @property
    def roles(self) -> tuple[Term, ...]:
        return self.network.roles

    def initial_state(self) -> State:
        return self.network.initial_state()

    def legal_moves(self, state: State, role: int) -> tuple[Term, ...]:
        return self.network.legal_moves(state, role)

    def legal_codes(self, state: State, role: int) -> tuple[int, ...]:
        return self.network.legal_codes(state, role)

    def next_state(self, state: State, joint_move: Sequence[Term]) -> State:
        return self.network.next_state(state, joint_move)

    def percepts(self, state: State, joint_move: Sequence[Term], role: int) -> tuple[Term, ...]:
        return self.network.percepts(state, joint_move, role)

    def is_terminal(self, state: State) -> bool:
        return self.network.is_terminal(state)

    def goal_values(self, state: State) -> tuple[int, ...]:
        return self.goals.goal_values(state)

    def known_fluents(self) -> Optional[frozenset]:
        return self.network.known_fluents()

    def close(self) -> None:
        self.network.close()
        self.goals.close()

    # -- playouts: the network's kernel, then the goal program ---------------------------------

    def random_playout_moves(self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS,
                             seed: Optional[int] = None) -> RecordedPlayout:
        goals, steps, terminal, codes = self._playout(state, max_steps, seed)
        move_of = self.move_codes.move_of
        record = [tuple((move_of(int(c) if c >= 0 else ~int(c)), bool(c >= 0)) for c in codes[t])
                  for t in range(steps)]
        return RecordedPlayout(goals, steps, terminal, record)

    def random_playout(self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS,
                       seed: Optional[int] = None) -> Playout:
        goals, steps, terminal, _ = self._playout(state, max_steps, seed)
        return Playout(goals, steps, terminal)

    def _playout(self, state: State, max_steps: int, seed: Optional[int]):
        network, lazy = self.network, self.goals
        net = network.net
        rng = new_rng(seed if seed is not None else time.perf_counter_ns())
        codes = np.zeros((max(1, max_steps), net.n_roles), dtype=np.int32)
        info = np.zeros(2, dtype=np.int64)
        evaluator = lazy._evaluators["goal"]
        with network._lock, lazy._lock:
            words = network.state_words(state)
            status = goal_kernels.playout_goals(
                net, self._work, words, rng, max_steps, codes, evaluator.compiled.program, evaluator.tables,
                terms_of(lazy._store), lazy.lazy.role_ids, lazy.lazy.values, self._fluent_ids, self._buffer,
                self._goal_values, info)
            steps, terminal = int(info[0]), bool(info[1])
            if status == goal_kernels.STUCK:
                stuck = network.state_from_words(goal_kernels.current_words(self._work).copy())
                role = next(r for r in range(net.n_roles) if not network.legal_codes(stuck, r))
                raise no_legal_move_error(self.roles[role], stuck, steps)
            if status != OK:  # a goal table was full: the goals of the end state the slow way
                end = network.state_from_words(goal_kernels.current_words(self._work).copy())
                goals = lazy.goal_values(end)
            else:
                goals = tuple(int(v) for v in self._goal_values[: net.n_roles])
        return goals, steps, terminal, codes
