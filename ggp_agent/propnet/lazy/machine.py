"""`LazyStateMachine`: the `StateMachine` protocol over the lazy engine.

The engine for games whose ground network does not build (`build.py` says
why): each state's relations are computed from its fluents when the state
is asked about, by the compiled programs (`vm.py`, `game_kernels.py`). A
random playout is one kernel call. The protocol's frozensets of terms are
converted at the boundary (terms to ids through the machine's own term
store: ids made while evaluating, compound terms the rules build, go into
it, so no two machines share one).

Tables grow as they are found too small: a kernel that runs out of room
says which table, the machine doubles it and evaluates again. GDL-II: the
percepts come from a Prolog engine of the same game that this machine owns,
as for the propnet.
"""

from __future__ import annotations

import copy
import logging
import random
import threading
import time
from typing import Optional, Sequence

import numpy as np

from ...gdl.dialect import Dialect
from ...gdl.terms import Term
from ...gdl.validate import ValidatedGame
from ...reasoner.movecodes import MoveCodes
from ...reasoner.statemachine import (
    DEFAULT_MAX_PLAYOUT_STEPS, IllegalMoveError, Playout, ReasonerError, RecordedPlayout, State, StateMachine,
    WarnOnce, no_legal_move_error, one_goal_value,
)
from ..network.arrays import new_rng
from . import game_kernels as gk
from .build import LazyGame, LazyUnavailable
from .games import LAZY_GAMES
from .evaluator import Evaluator
from .layout import DEFAULT_WORK_BUDGET, OK, terms_of
from .program import term_id

log = logging.getLogger(__name__)

#: Fluents a state may hold before the state buffer grows.
FIRST_STATE = 1024


class LazyStateMachine(StateMachine):
    """The `StateMachine` protocol over the lazy engine (module docstring)."""

    engine_name = "lazy"

    def __init__(self, game: ValidatedGame, time_limit: float = 60.0, lazy: Optional[LazyGame] = None,
                 percept_engine: Optional[StateMachine] = None, work_budget: int = DEFAULT_WORK_BUDGET,
                 **_ignored) -> None:
        started = time.perf_counter()
        if lazy is not None:
            built, self.cached = lazy, False
        else:
            try:
                built, self.cached = LAZY_GAMES.get(
                    game, time_limit, check=lambda new, left: _checked(game, new, left, work_budget))
            except ReasonerError as error:
                raise LazyUnavailable(str(error)) from error
        self.lazy = built
        self.game = game
        self._roles = tuple(game.roles)
        self.move_codes = MoveCodes(len(self._roles))
        self._warn_goal = WarnOnce(log, "lazy")
        self._work_budget = work_budget
        self._own_tables()
        self._initial = frozenset(self._store.term(int(i)) for i in built.init_ids)
        self.percept_engine = percept_engine
        self._owns_percepts = True
        if percept_engine is None and game.dialect is Dialect.GDL_II:
            from ...reasoner.prolog_machine import PrologStateMachine
            self.percept_engine = PrologStateMachine(game)
        self.build_s = time.perf_counter() - started
        self.stats = {"build_s": round(built.seconds, 3), "cached": self.cached,
                      "rules": sum(int(c.program.n_rule) for c in built.programs.values()), **built.checked}
        if not self.cached:
            for note in built.notes:
                log.info("lazy: %s", note)

    def _own_tables(self) -> None:
        """What evaluating writes to, this machine's alone: a term store (the
        ids evaluation makes go into it), the programs' tables, the buffers."""
        built = self.lazy
        self._store = copy.deepcopy(built.store)
        self._lock = threading.RLock()
        self._ids: dict[Term, int] = {}
        self._evaluators = {name: Evaluator(compiled, self._store, built.rows, self._work_budget)
                            for name, compiled in built.programs.items()}
        self._state = np.zeros(FIRST_STATE, dtype=np.int32)
        self._moves = np.full(max(1, len(self._roles)), -1, dtype=np.int32)
        self._legal = np.zeros(64, dtype=np.int32)
        self._goals = np.zeros(max(1, len(self._roles)), dtype=np.int64)
        self._loaded: Optional[State] = None

    def for_search(self) -> "LazyStateMachine":
        """A twin with tables of its own and the same move codes: the
        search's playouts (one kernel call each, outside the GIL) then never
        hold the lock the player's calls wait on. GDL-II percepts stay this
        machine's to answer (and to close)."""
        twin = copy.copy(self)
        twin._own_tables()
        twin._owns_percepts = False
        return twin

    # -- conversions ----------------------------------------------------------------------

    def _id(self, term: Term) -> int:
        found = self._ids.get(term)
        if found is None:
            found = self._ids[term] = term_id(self._store, term)
        return found

    def _put_state(self, state: State) -> int:
        if len(state) > len(self._state):
            self._state = np.zeros(2 * len(state), dtype=np.int32)
        for i, fluent in enumerate(state):
            self._state[i] = self._id(fluent)
        return len(state)

    def _term(self, term_id: int) -> Term:
        return self._store.term(int(term_id))

    def _run(self, name: str, state: State, moves=None) -> Evaluator:
        """Evaluate a program on a state (and a joint move's ids): its evaluator."""
        evaluator = self._evaluators[name]
        n = self._put_state(state)
        evaluator.evaluate(self._store, self._state, n, self.lazy.role_ids, self._moves if moves is None else moves)
        return evaluator

    def _legal_run(self, state: State) -> Evaluator:
        if state is not self._loaded:
            self._run("legal", state)
            self._loaded = state
        return self._evaluators["legal"]

    # -- the StateMachine protocol ------------------------------------------------------------

    @property
    def roles(self) -> tuple[Term, ...]:
        return self._roles

    def initial_state(self) -> State:
        return self._initial

    def legal_moves(self, state: State, role: int) -> tuple[Term, ...]:
        with self._lock:
            evaluator = self._legal_run(state)
            program, tables = evaluator.compiled.program, evaluator.tables
            count = int(gk.output_count(program, tables, 0))
            if count > len(self._legal):
                self._legal = np.zeros(2 * count, dtype=np.int32)
            n = gk.legal_of(program, tables, self.lazy.role_ids, role, self._legal)
            moves = [self._term(i) for i in self._legal[:n].tolist()]
        return tuple(sorted(set(moves), key=str))

    def next_state(self, state: State, joint_move: Sequence[Term]) -> State:
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        with self._lock:
            moves = np.array([self._id(move) for move in joint_move], dtype=np.int32)
            evaluator = self._run("next", state, moves)
            self._loaded = None
            program, tables = evaluator.compiled.program, evaluator.tables
            count = int(gk.output_count(program, tables, 0))
            return frozenset(self._term(gk.output_cell(program, tables, 0, row, 0)) for row in range(count))

    def percepts(self, state: State, joint_move: Sequence[Term], role: int) -> tuple[Term, ...]:
        """The percept engine's answer (GDL-II); none in a GDL game."""
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        if self.percept_engine is None:
            return ()
        return self.percept_engine.percepts(state, joint_move, role)

    def is_terminal(self, state: State) -> bool:
        with self._lock:
            evaluator = self._legal_run(state)
            return bool(gk.output_count(evaluator.compiled.program, evaluator.tables, 1) > 0)

    def goal_values(self, state: State) -> tuple[int, ...]:
        with self._lock:
            evaluator = self._run("goal", state)
            self._loaded = None
            program, tables = evaluator.compiled.program, evaluator.tables
            found: list[list] = [[] for _ in self._roles]
            index = {role: i for i, role in enumerate(self._roles)}
            for row in range(int(gk.output_count(program, tables, 0))):
                role = index.get(self._term(gk.output_cell(program, tables, 0, row, 0)))
                if role is not None:
                    found[role].append(self._term(gk.output_cell(program, tables, 0, row, 1)))
        return tuple(one_goal_value(role, values, self._warn_goal) for role, values in zip(self._roles, found))

    def close(self) -> None:
        if self.percept_engine is not None and self._owns_percepts:
            self.percept_engine.close()

    # -- beyond the protocol ------------------------------------------------------------------

    def random_playout_moves(self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS,
                             seed: Optional[int] = None) -> RecordedPlayout:
        """A random playout in one kernel call, its moves as terms."""
        goals, steps, terminal, moves, choices = self._playout(state, max_steps, seed)
        record = [tuple((self._term(moves[t, r]), bool(choices[t, r])) for r in range(len(self._roles)))
                  for t in range(steps)]
        return RecordedPlayout(goals, steps, terminal, record)

    def random_joint_move(self, state: State, rng: random.Random) -> list[tuple[Term, bool]]:
        """One uniformly random legal move per role from one evaluation of the
        state, only the chosen moves made terms (a search that plays one step
        per call asks this at every step)."""
        with self._lock:
            evaluator = self._legal_run(state)
            program, tables = evaluator.compiled.program, evaluator.tables
            count = int(gk.output_count(program, tables, 0))
            if count > len(self._legal):
                self._legal = np.zeros(2 * count, dtype=np.int32)
            joint = []
            for role in range(len(self._roles)):
                n = gk.legal_of(program, tables, self.lazy.role_ids, role, self._legal)
                if n == 0:
                    raise no_legal_move_error(self._roles[role], state)
                joint.append((self._term(self._legal[rng.randrange(n)]), n > 1))
        return joint

    def bench(self, seconds: float, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS) -> dict:
        """The base class's benchmark, with the build's figures."""
        report = super().bench(seconds, max_steps)
        report.update(lazy_build_s=self.stats["build_s"], rules=self.stats["rules"])
        return report

    def random_playout(self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS,
                       seed: Optional[int] = None) -> Playout:
        goals, steps, terminal, _, _ = self._playout(state, max_steps, seed)
        return Playout(goals, steps, terminal)

    def _playout(self, state: State, max_steps: int, seed: Optional[int]):
        rng = new_rng(seed if seed is not None else time.perf_counter_ns())
        n_roles = len(self._roles)
        moves = np.full((max(1, max_steps), max(1, n_roles)), -1, dtype=np.int32)
        choices = np.zeros((max(1, max_steps), max(1, n_roles)), dtype=np.int8)
        info = np.zeros(6, dtype=np.int64)
        names = ("legal", "next", "goal")
        with self._lock:
            self._loaded = None
            n = self._put_state(state)
            while True:
                evaluators = [self._evaluators[name] for name in names]
                status = gk.playout(*(part for e in evaluators for part in (e.compiled.program, e.tables)),
                                    terms_of(self._store), self.lazy.role_ids, self.lazy.values, self._state, n,
                                    rng, max_steps, moves, choices, self._goals, self._legal, info)
                if status == OK:
                    break
                if status == gk.NO_MOVE:
                    stuck = frozenset(self._term(i) for i in self._state[: info[4]].tolist())
                    raise no_legal_move_error(self._roles[int(info[3])], stuck, int(info[1]))
                n = int(info[4])  # the playout goes on from the state it stopped in
                if status == gk.STATE_FULL:
                    grown = np.zeros(2 * int(info[3]), dtype=np.int32)
                    grown[:n] = self._state[:n]
                    self._state = grown
                elif status == gk.LEGAL_FULL:
                    self._legal = np.zeros(2 * int(info[3]), dtype=np.int32)
                else:
                    failed = next(e for e in evaluators if e.tables.status[0] != OK)
                    failed.grow(int(status), self._store)
            goals = tuple(int(v) for v in self._goals[:n_roles])
        return goals, int(info[1]), bool(info[2]), moves, choices


def _checked(game: ValidatedGame, built: LazyGame, time_limit: float, work_budget: int) -> dict:
    """A new build's initial state and first moves compared with the rules'
    (BrokenBuild when they differ), as every network's are: the static
    relations it computed once (`init` among them) could come out incomplete
    the same way. Its figures for the machine's stats. The initial state is
    evaluated within the machine's `work_budget` (a runaway derivation says so
    here, at the build, rather than at the first move)."""
    from ..machine.opening import check_against_rules, opening_of

    machine = LazyStateMachine(game, lazy=built, work_budget=work_budget)
    try:
        return check_against_rules(game, opening_of(machine), time_limit, "the lazy engine")
    finally:
        machine.close()
