"""Two ways to run search iterations over the same arena and the same tree logic.

- `PropnetRunner`: the game has a propnet; a batch of iterations is one call
  of the fused numba kernel (`kernels.propnet_batch`), GIL released.
- `MachineRunner`: any other `StateMachine` (the Prolog engine when the game
  was too big to ground): a Python loop drives the same numba tree functions
  (`iteration.descend`, `expand`, `attach_child`, `backup`) and asks the engine for
  legal moves, next states and playouts in between. Slower (a Prolog query per
  step of the tree), still the same rules, the same statistics, the same
  solver.

Both give `root_node(A, P, state)` (the node of a state, found or added) and
`run(A, P, n)` (up to n iterations; returns how many ran). They own the
engine-side scratch (a propnet `Work` per search thread, Python states of the
Prolog nodes). The rules live in `tree/iteration.py`/`tree/select.py`; nothing here chooses.
"""

from __future__ import annotations

import random
import time
from typing import Optional

import numpy as np

from ...gdl.terms import Term
from ...propnet.network.arrays import new_rng, new_work
from ...propnet.machine.state_machine import PropnetStateMachine
from ...reasoner.statemachine import State, StateMachine
from ..choices.codes_choice import effect_multiplicity, measure_effects
from ..choices.destinations import destination_positions, group_codes
from ..choices.heuristic_choice import Heuristic, find_heuristic, sample
from ..tree import iteration
from ..tree.arena import C_PATH, Arena
from ..tree.table import new_node, register_code, set_terminal, tt_find
from . import kernels

_NO_WORDS = np.zeros(0, dtype=np.uint64)


def _as_uint64(value: int) -> np.uint64:
    return np.uint64(value & 0xFFFFFFFFFFFFFFFF)


class PropnetRunner:
    """Iterations by the fused propnet kernel (one numba call per batch)."""

    #: The search has its own `Work`: the player's engine calls never wait on it.
    shares_engine = False

    def __init__(self, machine: PropnetStateMachine, seed: int) -> None:
        self.machine = machine
        self.net = machine.net
        self.work = new_work(self.net)
        self.saved = new_work(self.net)
        self.rng = new_rng(seed)
        self.seed = seed
        self.move_codes = machine.move_codes
        self.n_words = int(self.net.n_words)
        self.held = False
        self._groups: Optional[tuple[State, np.ndarray]] = None
        self._heuristic: Optional[tuple[State, Heuristic]] = None

    @property
    def n_roles(self) -> int:
        return int(self.net.n_roles)

    def code_role(self) -> Optional[np.ndarray]:
        return np.asarray(self.net.code_role, dtype=np.int32)

    def n_codes(self) -> int:
        return int(self.net.n_codes)

    def goal_values(self) -> Optional[list[list[int]]]:
        values: list[list[int]] = [[] for _ in range(self.n_roles)]
        for role, value in zip(self.net.goal_role.tolist(), self.net.goal_value.tolist()):
            values[role].append(int(value))
        return values

    supports_effects = True
    #: START's trials (`driver/trials.py`) play quick games on this engine
    supports_trials = True

    def prepare_arena(self, A: Arena) -> None:
        """Mark the fluents effect codes look at (`kernels.move_dependent_fluents`)."""
        kernels.move_dependent_fluents(self.net, A.dynamic)

    def effect_multiplicity(self, state: State, seconds: float) -> Optional[float]:
        """Mean distinct effects per move code over a few random playouts from
        `state`, within about `seconds` (`codes_choice.py`)."""
        dynamic = np.zeros(self.n_words, dtype=np.uint64)
        kernels.move_dependent_fluents(self.net, dynamic)
        # a stream of its own: the measure stops on the clock, and the search's
        # stream must not depend on how far it got
        seen = measure_effects(self.net, new_rng(self.seed + 1), self.machine.state_words(state), dynamic, seconds)
        return effect_multiplicity(seen)

    def destination_groups(self, state: State, seconds: float) -> Optional[np.ndarray]:
        """Each move code's destination group (`destinations.py`), measured
        from `state` within about `seconds`, once per state: the codes choice
        and the arena's preparation ask for the same."""
        if self._groups is None or self._groups[0] is not state:
            positions = destination_positions(self.machine, state, seconds, random.Random(self.seed))
            self._groups = (state, group_codes(self.n_codes(), self.code_role(), self.move_of, positions))
        return self._groups[1]

    def find_heuristic(self, state: State, seconds: float) -> Heuristic:
        """The heuristic random playouts from `state` support
        (`heuristic_choice.py`), measured within about `seconds`, once per
        state: the START choice and the arena's preparation ask for the same."""
        if self._heuristic is None or self._heuristic[0] is not state:
            samples = sample(self.net, new_work(self.net), new_rng(self.seed + 2), self.machine.state_words(state),
                             seconds=seconds)
            found = find_heuristic(self.machine.network.fluents, self.machine.game.rules, self.n_roles, *samples)
            self._heuristic = (state, found)
        return self._heuristic[1]

    def root_node(self, A: Arena, P: np.ndarray, state: State) -> int:
        return int(kernels.propnet_root(A, self.net, self.work, self.machine.state_words(state)))

    def legal_codes(self, state: State, role: int) -> tuple[int, ...]:
        return self.machine.legal_codes(state, role)

    def code_of(self, role: int, move: Term) -> Optional[int]:
        return self.move_codes.get(role, move)

    def move_of(self, code: int) -> Term:
        return self.move_codes.move_of(code)

    def run(self, A: Arena, P: np.ndarray, n: int) -> int:
        return int(kernels.propnet_batch(A, P, self.net, self.work, self.saved, self.rng, n))

    def after_collection(self, A: Arena, kept: int) -> None:
        """Nothing to renumber: the propnet's states live in the arena."""

    #: Words of a node's kept legal moves (`Arena.node_legal`): none here.
    legal_words = 0

    def forget_inflight(self, A: Arena) -> None:
        """Nothing is in flight between calls here (the lanes' runner drops its lanes)."""

    def think_until(self, deadline: Optional[float]) -> None:
        """When the move will be asked for: this runner has no use for it."""

    def collisions(self) -> int:
        """Descents that met an edge whose child another lane computes: none one leaf at a time."""
        return 0


class _Held(Exception):
    """The player asked for the engine: drop the iteration in progress."""


class MachineRunner:
    """Iterations driven from Python over any `StateMachine` (the Prolog
    engine, the lazy engine).

    The search runs on `machine.for_search()`. When that is the player's own
    engine (one Prolog thread serves the process), no call of the search may
    keep the player waiting: `held` (set by `TreeSearch.hold`) drops the
    iteration in progress at its next engine call, and a one-call playout
    that took longer than `SINGLE_CALL_LIMIT` switches playouts to one step
    per call. On an engine of its own (the lazy engine's twin) a playout is
    always one call: nobody waits on it.
    """

    #: Longest one engine call of the search may take on a shared engine, seconds.
    SINGLE_CALL_LIMIT = 0.05

    def __init__(self, machine: StateMachine, seed: int, max_rollout: int) -> None:
        engine = machine.for_search()
        #: Whether the player calls the engine the search calls.
        self.shares_engine = engine is machine
        self.machine = engine
        self.roles = len(machine.roles)
        self.rng = np.array([(seed * 0x9E3779B97F4A7C15 + 1) & 0xFFFFFFFFFFFFFFFF or 1], dtype=np.uint64)
        self.move_codes = machine.move_codes
        self.states: list[Optional[State]] = []
        self.max_rollout = max_rollout
        self._py_rng = random.Random(seed)
        self.held = False
        self._steps = False

    #: Effect codes need state words; over Prolog the statistics use move codes.
    supports_effects = False
    #: Quick trial games at START are too slow over Prolog.
    supports_trials = False

    def effect_multiplicity(self, state: State, seconds: float) -> Optional[float]:
        """Unknown over a Prolog engine (no state words to compare)."""
        return None

    def destination_groups(self, state: State, seconds: float) -> Optional[np.ndarray]:
        """None: destination codes are effect codes, which need state words."""
        return None

    def find_heuristic(self, state: State, seconds: float) -> Heuristic:
        """None found: pieces are counted on state words, which Prolog has not."""
        return Heuristic((), False, "the engine cannot count pieces (Prolog)")

    @property
    def n_roles(self) -> int:
        return self.roles

    def prepare_arena(self, A: Arena) -> None:
        """Nothing to prepare."""

    @property
    def n_words(self) -> int:
        return 0

    def code_role(self) -> Optional[np.ndarray]:
        return None

    def n_codes(self) -> int:
        return 4096

    def goal_values(self) -> Optional[list[list[int]]]:
        return None

    # -- codes ---------------------------------------------------------------------

    def code_of(self, role: int, move: Term) -> Optional[int]:
        return self.move_codes.get(role, move)

    def move_of(self, code: int) -> Term:
        return self.move_codes.move_of(code)

    def _code(self, A: Arena, role: int, move: Term) -> int:
        code = self.move_codes.get(role, move)
        if code is None:
            code = self.move_codes.intern(role, move)
        if code < A.code_role.shape[0] and A.code_role[code] < 0:
            register_code(A, code, role)
        return code

    def legal_codes(self, state: State, role: int) -> tuple[int, ...]:
        return tuple(self.move_codes.code(role, m) for m in self.machine.legal_moves(state, role))

    # -- states ---------------------------------------------------------------------

    @staticmethod
    def _hashes(state: State) -> tuple[np.uint64, np.uint64]:
        first = hash(state)
        second = hash(frozenset((fluent, 7) for fluent in state))
        return _as_uint64(first), _as_uint64(second * 0x9E3779B97F4A7C15 + 0x632BE59B)

    def _remember(self, node: int, state: State) -> None:
        while len(self.states) <= node:
            self.states.append(None)
        self.states[node] = state

    def root_node(self, A: Arena, P: np.ndarray, state: State) -> int:
        first, second = self._hashes(state)
        node = int(tt_find(A, first, second, _NO_WORDS))
        if node >= 0:
            return node
        node = int(new_node(A, first, second, _NO_WORDS))
        if node < 0:
            return -1
        self._remember(node, state)
        if self.machine.is_terminal(state):
            A.goals[: self.roles] = self.machine.goal_values(state)
            set_terminal(A, node, A.goals)
        return node

    legal_words = 0

    def forget_inflight(self, A: Arena) -> None:
        """Nothing is in flight between calls."""

    def think_until(self, deadline: Optional[float]) -> None:
        """When the move will be asked for: no use for it over Prolog."""

    def collisions(self) -> int:
        """No lanes over Prolog: no colliding descents."""
        return 0

    def after_collection(self, A: Arena, kept: int) -> None:
        """Renumber the Python-side states as the collection renumbered the nodes."""
        remap = A.gc_remap[: len(self.states)]
        states: list[Optional[State]] = [None] * kept
        for old, new in enumerate(remap.tolist()):
            if new >= 0 and old < len(self.states):
                states[new] = self.states[old]
        self.states = states

    @property
    def stepping(self) -> bool:
        """Whether playouts go one engine call per step (a shared engine whose
        one-call playout took longer than `SINGLE_CALL_LIMIT`)."""
        return self._steps

    # -- iterations -------------------------------------------------------------------

    def _check(self) -> None:
        if self.held:
            raise _Held()

    def _rollout(self, A: Arena, state: State) -> int:
        """A random playout from `state` into A.rollout / A.goals; its length.

        One engine call for the whole playout while that stays shorter than
        SINGLE_CALL_LIMIT, else one call per step (checking `held` between them)."""
        self._check()
        machine = self.machine
        limit = min(self.max_rollout, A.rollout.shape[0])
        if not self._steps:
            began = time.perf_counter()
            goals, _steps, _terminal, record = machine.random_playout_moves(state, limit,
                                                                           seed=self._py_rng.randrange(2**31))
            if self.shares_engine and time.perf_counter() - began > self.SINGLE_CALL_LIMIT:
                self._steps = True
        else:
            record = []
            while len(record) < limit and not machine.is_terminal(state):
                self._check()
                joint = machine.random_joint_move(state, self._py_rng)
                record.append(joint)
                state = machine.next_state(state, [move for move, _ in joint])
            goals = machine.goal_values(state)
        for t, joint in enumerate(record):
            for role, (move, choice) in enumerate(joint):
                code = self._code(A, role, move)
                A.rollout[t, role] = code if choice else ~code
        A.goals[: self.roles] = goals
        return len(record)

    def run(self, A: Arena, P: np.ndarray, n: int) -> int:
        done = 0
        try:
            for _ in range(n):
                self._iterate(A, P)
                done += 1
                if iteration.root_done(A, P):
                    break
        except _Held:
            pass
        return done

    def _iterate(self, A: Arena, P: np.ndarray) -> None:
        """One iteration: descend, let the engine expand and play out, back up."""
        if iteration.root_done(A, P):
            return
        iteration.begin_iteration(A)
        chosen_last = 0
        n_rollout = 0
        leaf_depth = -1
        while True:
            status = iteration.descend(A, P, self.rng)
            depth = int(A.counters[C_PATH]) - 1
            node = int(A.path_node[depth])
            if status == iteration.AT_END:
                A.goals[:] = A.node_goals[node]
                break
            state = self.states[node]
            self._check()
            if status == iteration.NEED_EXPAND:
                total = 0
                for role in range(self.roles):
                    moves = self.machine.legal_moves(state, role)
                    codes = [self._code(A, role, move) for move in moves]
                    A.legal[total: total + len(codes)] = codes
                    A.legal_count[role] = len(codes)
                    total += len(codes)
                if iteration.expand(A, node) == 1:
                    continue
                n_rollout = self._rollout(A, state)
                break
            if status == iteration.AT_CAP:
                n_rollout = self._rollout(A, state)
                break
            joint = []
            for role in range(self.roles):
                joint.append(self.move_codes.move_of(int(A.path_move[depth, role])))
            nxt, terminal, goals = self.machine.next_info(state, joint)
            first, second = self._hashes(nxt)
            child, is_new = iteration.attach_child(A, first, second, _NO_WORDS)
            if child >= 0 and not is_new:
                continue
            if child < 0:
                chosen_last = 1
            else:
                leaf_depth = depth + 1
                self._remember(int(child), nxt)
            if terminal:
                A.goals[: self.roles] = goals
                if child >= 0:
                    set_terminal(A, child, A.goals)
            else:
                n_rollout = self._rollout(A, nxt)
            break
        iteration.backup(A, P, n_rollout, chosen_last, leaf_depth)


def make_runner(machine: StateMachine, seed: int, max_rollout: int):
    """The fused propnet runner when the machine is a propnet, else the Python loop."""
    if isinstance(machine, PropnetStateMachine):
        return PropnetRunner(machine, seed)
    return MachineRunner(machine, seed, max_rollout)
