"""`PropnetStateMachine`: the `StateMachine` protocol over a compiled propnet.

The protocol's frozensets of terms are converted to state words at the
boundary; everything else runs in the numba kernels (`state_kernels.py`). The
search does not go through this class: it takes `net` (the arrays), makes its
own `Work`/`Lanes` per thread (`arrays.new_work`, `arrays.new_lanes`) and calls
the kernels, using `fluents` and `move_codes` to translate states and codes.

Building grounds the rules (`grounding`, no Prolog), builds and simplifies the network, and
packs the arrays; each step is bounded (`time_limit` seconds in all, caps on
atoms and instances) and a failure raises `PropnetUnavailable`, which says
where and why, so that the caller can fall back to the Prolog engine.

GDL-II games: the network has no outputs for `sees`, and it needs none to
search (a determinization is searched with legal, next, terminal and goal
only), so it is built as for any game, the chance role `random` a role like
the others; the percepts, which only a belief update asks for, come from a
Prolog engine of the same game that this machine owns (`percept_engine`).

A role without a legal move in a state that is not terminal (a broken game,
but matches go on: the manager sends `nil` for it) plays no input in
`next_state`, as the Prolog engine applies a move that matches no `does`.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Optional, Sequence

import numpy as np

from ...gdl.dialect import Dialect
from ...gdl.terms import Term
from ...gdl.validate import ValidatedGame
from ...reasoner.statemachine import (
    DEFAULT_MAX_PLAYOUT_STEPS, IllegalMoveError, Playout, ReasonerError, State, StateMachine, WarnOnce,
    no_legal_move_error, one_goal_value,
)
from ..kernels import state_kernels as kernels
from ..network.arrays import Net, new_rng, new_work
from .bench import bench_net
from .compiled import COMPILED
from .state_words import fluents_of_words
from ..grounding.grounder import DEFAULT_MAX_ATOMS, DEFAULT_MAX_INSTANCES, GroundingError
from ..network.gates import Network

log = logging.getLogger(__name__)

class PropnetUnavailable(ReasonerError):
    """The propnet could not be built for this game within its bounds."""

    def __init__(self, reason: str, seconds: float, profile: tuple = ()) -> None:
        self.reason = reason
        self.seconds = seconds
        #: the grounding's steps until it gave up, the costliest first (`GroundingError.profile`)
        self.profile = profile
        super().__init__(f"no propnet after {seconds:.2f} s: {reason}")


class PropnetStateMachine(StateMachine):
    """The `StateMachine` protocol over a propnet (see `statemachine.py`)."""

    engine_name = "propnet"

    def __init__(
        self,
        game: ValidatedGame,
        time_limit: float = 60.0,
        max_atoms: int = DEFAULT_MAX_ATOMS,
        max_instances: int = DEFAULT_MAX_INSTANCES,
        use_base: bool = True,
        factor: bool = True,
        percept_engine: Optional[StateMachine] = None,
        **_ignored,
    ) -> None:
        started = time.perf_counter()
        try:
            compiled, self.cached = COMPILED.get(game, time_limit, max_atoms=max_atoms, max_instances=max_instances,
                                                 use_base=use_base, factor=factor)
            work = new_work(compiled.net)
        except ReasonerError as error:
            profile = error.profile if isinstance(error, GroundingError) else ()
            raise PropnetUnavailable(str(error), time.perf_counter() - started, profile) from error
        except RecursionError as error:  # pragma: no cover - defensive
            raise PropnetUnavailable(f"recursion: {error}", time.perf_counter() - started) from error
        network, net = compiled.network, compiled.net
        self.game = game
        self.network: Network = network
        self.net: Net = net
        self.move_codes = network.move_codes
        self.fluents: tuple[Term, ...] = network.fluents
        self._fluent_index = {fluent: i for i, fluent in enumerate(network.fluents)}
        self._roles = tuple(game.roles)
        self._work = work
        self._lock = threading.RLock()
        self._warn_goal = WarnOnce(log, "propnet")
        self._legal_buffer = np.zeros(max(1, net.n_codes), dtype=np.int32)
        self._goal_buffer = np.zeros(max(1, net.n_roles), dtype=np.int32)
        self._joint = np.zeros(max(1, net.n_roles), dtype=np.int32)
        self._loaded: Optional[State] = None
        self._initial = self.state_from_words(net.init_words)
        #: who answers `percepts`: nobody in a GDL game (no sees rules), a
        #: Prolog engine of the same game in a GDL-II one
        self.percept_engine: Optional[StateMachine] = percept_engine
        if percept_engine is None and game.dialect is Dialect.GDL_II:
            self.percept_engine = _prolog_engine(game)
        #: this machine's own time: about nothing when the build was `cached`
        self.build_s = time.perf_counter() - started
        self.stats = dict(compiled.stats, cached=self.cached)  # build_s: the build's own, not this machine's
        #: the grounding's steps, the costliest first
        self.profile = compiled.profile
        if self.cached:
            log.info("propnet: the build of these rules made earlier in this process (%.2f s then)",
                     compiled.stats["build_s"])
            return
        for note in compiled.notes:
            log.info("propnet: %s", note)
        for warning in network.warnings:
            log.warning("propnet: %s", warning)

    # -- conversions -------------------------------------------------------------

    def state_words(self, state: State) -> np.ndarray:
        """A state as uint64 words (bit i = fluent i)."""
        words = np.zeros(self.net.n_words, dtype=np.uint64)
        index = self._fluent_index
        for fluent in state:
            i = index.get(fluent)
            if i is None:
                raise ReasonerError(f"{fluent} can never be true in this game (not in the propnet)")
            words[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
        return words

    def state_from_words(self, words: np.ndarray) -> State:
        return fluents_of_words(self.fluents, words)

    def _load(self, state: State) -> None:
        if state is not self._loaded:
            kernels.load_state(self.net, self._work, self.state_words(state))
            self._loaded = state

    # -- the StateMachine protocol ---------------------------------------------------

    @property
    def roles(self) -> tuple[Term, ...]:
        return self._roles

    def initial_state(self) -> State:
        return self._initial

    def legal_moves(self, state: State, role: int) -> tuple[Term, ...]:
        with self._lock:
            self._load(state)
            n = kernels.legal_codes(self.net, self._work, role, self._legal_buffer)
            codes = self._legal_buffer[:n].tolist()
        move_of = self.move_codes.move_of
        return tuple(move_of(c) for c in codes)

    def legal_codes(self, state: State, role: int) -> tuple[int, ...]:
        """The move codes of `legal_moves(state, role)` (same order)."""
        with self._lock:
            self._load(state)
            n = kernels.legal_codes(self.net, self._work, role, self._legal_buffer)
            return tuple(self._legal_buffer[:n].tolist())

    def next_state(self, state: State, joint_move: Sequence[Term]) -> State:
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        with self._lock:
            for role, move in enumerate(joint_move):
                code = self.move_codes.get(role, move)
                if code is None:
                    if self.legal_codes(state, role):
                        raise IllegalMoveError(f"{move} is never a legal move of {self._roles[role]} in this game")
                    # no legal move here (a broken game): the manager sends nil, and the role plays nothing
                    code = kernels.NO_INPUT
                self._joint[role] = code
            self._load(state)
            kernels.advance(self.net, self._work, self._joint)
            result = self.state_from_words(kernels.current_state(self._work))
            self._loaded = result
            return result

    def percepts(self, state: State, joint_move: Sequence[Term], role: int) -> tuple[Term, ...]:
        """The percept engine's answer (GDL-II); none in a GDL game, which has no `sees` rules."""
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        if self.percept_engine is None:
            return ()
        return self.percept_engine.percepts(state, joint_move, role)

    def consistent_successors(self, state: State, joint_moves: Sequence[Sequence[Term]], role: int,
                              percepts: Optional[Sequence[Term]]) -> list[tuple[int, State]]:
        """The percept engine's answer (one Prolog call, its states are ours);
        in a GDL game, every joint move (nobody perceives anything)."""
        if self.percept_engine is not None:
            return self.percept_engine.consistent_successors(state, joint_moves, role, percepts)
        return super().consistent_successors(state, joint_moves, role, percepts)

    def consistent_successors_of_many(self, candidates, role: int,
                                      percepts: Optional[Sequence[Term]]) -> list[list[tuple[int, State]]]:
        """The percept engine's answer (one Prolog call for all the states)."""
        if self.percept_engine is not None:
            return self.percept_engine.consistent_successors_of_many(candidates, role, percepts)
        return super().consistent_successors_of_many(candidates, role, percepts)

    def is_terminal(self, state: State) -> bool:
        with self._lock:
            self._load(state)
            return bool(kernels.is_terminal(self.net, self._work))

    def goal_values(self, state: State) -> tuple[int, ...]:
        with self._lock:
            self._load(state)
            net = self.net
            lits = net.goal_lit
            true = (self._work.value[lits >> 1] ^ (lits & 1)).astype(bool)
        values: list[list[int]] = [[] for _ in self._roles]
        for role, value in zip(net.goal_role[true].tolist(), net.goal_value[true].tolist()):
            values[role].append(value)
        return tuple(one_goal_value(role, found, self._warn_goal) for role, found in zip(self._roles, values))

    def close(self) -> None:
        """Close the percept engine; the arrays are given back when dropped."""
        if self.percept_engine is not None:
            self.percept_engine.close()

    def known_fluents(self) -> Optional[frozenset]:
        """Every fluent of the network: all that can ever be true."""
        return frozenset(self.fluents)

    # -- beyond the protocol ------------------------------------------------------------

    def random_playout(self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS,
                       seed: Optional[int] = None) -> Playout:
        """The base class's random playout, in one kernel call."""
        rng = new_rng(seed if seed is not None else time.perf_counter_ns())
        codes = np.zeros((max(1, max_steps), self.net.n_roles), dtype=np.int32)
        with self._lock:
            self._load(state)
            steps = kernels.random_playout(self.net, self._work, rng, max_steps, codes)
            self._loaded = None
            if steps < 0:  # the kernel stopped in the state where a role has no move
                stuck = self.state_from_words(kernels.current_state(self._work).copy())
                role = next(r for r in range(self.net.n_roles)
                            if kernels.legal_codes(self.net, self._work, r, self._legal_buffer) == 0)
                raise no_legal_move_error(self._roles[role], stuck, -1 - steps)
            kernels.goals(self.net, self._work, self._goal_buffer)
            goals = tuple(self._goal_buffer[: self.net.n_roles].tolist())
            final = bool(kernels.is_terminal(self.net, self._work))
        return Playout(goals, steps, final)

    def bench(self, seconds: float, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS) -> dict:
        """The base class's benchmark for each evaluation strategy (`bench.py`),
        with the network's size."""
        report = bench_net(self.net, seconds, max_steps)
        report.update(
            propositions=self.net.n_fluents + self.net.n_codes,
            gates=self.net.n_nodes - self.net.first_gate,
            build_s=round(self.build_s, 3),
        )
        return report


def _prolog_engine(game: ValidatedGame) -> StateMachine:
    """A Prolog engine of `game`, for its percepts."""
    from ...reasoner.prolog_machine import PrologStateMachine

    return PrologStateMachine(game)
