"""`PropnetStateMachine`: the `StateMachine` protocol over a compiled propnet.

The protocol's frozensets of terms are converted to state words at the
boundary; everything else runs in the numba kernels (`kernels.py`). The
search does not go through this class: it takes `net` (the arrays), makes its
own `Work`/`Lanes` per thread (`arrays.new_work`, `arrays.new_lanes`) and calls
the kernels, using `fluents` and `move_codes` to translate states and codes.

Building grounds the rules (Prolog), builds and simplifies the network, and
packs the arrays; each step is bounded (`time_limit` seconds in all, caps on
atoms and instances) and a failure raises `PropnetUnavailable`, which says
where and why, so that the caller can fall back to the Prolog engine.

GDL-II games (chance, percepts) are refused at once, before grounding: the
network has no outputs for `sees` yet, so the engine choice gives them to Prolog.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Optional, Sequence

import numpy as np

from ..gdl.dialect import Dialect
from ..gdl.terms import Term
from ..gdl.validate import ValidatedGame
from ..reasoner.statemachine import IllegalMoveError, ReasonerError, State
from . import kernels
from .arrays import Net, new_lanes, new_rng, new_work, pack
from .grounder import DEFAULT_MAX_ATOMS, DEFAULT_MAX_INSTANCES, ground
from .network import Network, build_network
from .rules import prepare_rules

log = logging.getLogger(__name__)

DEFAULT_MAX_PLAYOUT_STEPS = 1000


class PropnetUnavailable(ReasonerError):
    """The propnet could not be built for this game within its bounds."""

    def __init__(self, reason: str, seconds: float) -> None:
        self.reason = reason
        self.seconds = seconds
        super().__init__(f"no propnet after {seconds:.2f} s: {reason}")


class PropnetStateMachine:
    """The `StateMachine` protocol over a propnet (see `statemachine.py`)."""

    def __init__(
        self,
        game: ValidatedGame,
        time_limit: float = 60.0,
        max_atoms: int = DEFAULT_MAX_ATOMS,
        max_instances: int = DEFAULT_MAX_INSTANCES,
        use_base: bool = True,
        factor: bool = True,
        **_ignored,
    ) -> None:
        started = time.perf_counter()
        deadline = started + time_limit
        if game.dialect is not Dialect.GDL:
            raise PropnetUnavailable(
                f"a {game.dialect.value} game: the propnet does not evaluate percepts (sees) yet", 0.0
            )
        try:
            grounding = ground(game, prepare_rules(game), time_limit=time_limit, max_atoms=max_atoms,
                               max_instances=max_instances, use_base=use_base, factor=factor)
            network = build_network(grounding, deadline=deadline)
            net = pack(network)
            work = new_work(net)
        except ReasonerError as error:
            raise PropnetUnavailable(str(error), time.perf_counter() - started) from error
        except RecursionError as error:  # pragma: no cover - defensive
            raise PropnetUnavailable(f"recursion: {error}", time.perf_counter() - started) from error
        self.game = game
        self.network: Network = network
        self.net: Net = net
        self.move_codes = network.move_codes
        self.fluents: tuple[Term, ...] = network.fluents
        self._fluent_index = {fluent: i for i, fluent in enumerate(network.fluents)}
        self._roles = tuple(game.roles)
        self._work = work
        self._lock = threading.RLock()
        self._goal_warnings: set[str] = set()
        self._legal_buffer = np.zeros(max(1, net.n_codes), dtype=np.int32)
        self._goal_buffer = np.zeros(max(1, net.n_roles), dtype=np.int32)
        self._joint = np.zeros(max(1, net.n_roles), dtype=np.int32)
        self._loaded: Optional[State] = None
        self._initial = self.state_from_words(net.init_words)
        self.build_s = time.perf_counter() - started
        self.grounding_notes = list(grounding.notes)
        self.stats = dict(network.stats, grounding_s=round(grounding.seconds, 3), mode=grounding.mode,
                          build_s=round(self.build_s, 3))
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
        fluents = self.fluents
        found = []
        for w, word in enumerate(words.tolist()):
            while word:
                low = word & -word
                found.append(fluents[w * 64 + low.bit_length() - 1])
                word ^= low
        return frozenset(found)

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
                    raise IllegalMoveError(f"{move} is never a legal move of {self._roles[role]} in this game")
                self._joint[role] = code
            self._load(state)
            kernels.advance(self.net, self._work, self._joint)
            result = self.state_from_words(kernels.current_state(self._work))
            self._loaded = result
            return result

    def percepts(self, state: State, joint_move: Sequence[Term], role: int) -> tuple[Term, ...]:
        """None, ever: the propnet only takes GDL games, which have no `sees` rules."""
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        return ()

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
        result = []
        for role, found in zip(self._roles, values):
            if not found:
                self._warn_goal(f"role {role} has no goal value in a state; scored 0")
                result.append(0)
                continue
            if len(found) > 1:
                self._warn_goal(f"role {role} has several goal values {sorted(found)} in a state; the highest counts")
            result.append(max(found))
        return tuple(result)

    def close(self) -> None:
        """Nothing to free but memory, which the arrays give back when dropped."""

    # -- beyond the protocol ------------------------------------------------------------

    def random_playout(
        self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS, seed: Optional[int] = None
    ) -> tuple[tuple[int, ...], int, bool]:
        """(goal values at the end, joint moves played, whether the end is terminal)."""
        rng = new_rng(seed if seed is not None else time.perf_counter_ns())
        codes = np.zeros((max(1, max_steps), self.net.n_roles), dtype=np.int32)
        with self._lock:
            self._load(state)
            steps = kernels.random_playout(self.net, self._work, rng, max_steps, codes)
            self._loaded = None
            if steps < 0:
                raise ReasonerError(f"a role has no legal move in a non-terminal state after {-1 - steps} joint moves")
            kernels.goals(self.net, self._work, self._goal_buffer)
            goals = tuple(self._goal_buffer[: self.net.n_roles].tolist())
            final = bool(kernels.is_terminal(self.net, self._work))
        return goals, steps, final

    def bench(self, seconds: float, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS, strategies=("lanes", "propagate", "forward")) -> dict:
        """Random playouts per second from the initial state, for each evaluation strategy.

        The headline figures are those of the fastest strategy; `strategies`
        holds each one's playouts per second. CPU time of this process.
        """
        results = {}
        share = seconds / max(1, len(strategies))
        for strategy in strategies:
            results[strategy] = _bench_strategy(self.net, strategy, share, max_steps)
        best = max(results, key=lambda s: results[s]["playouts_per_s"])
        report = dict(results[best])
        report.update(
            strategy=best,
            strategies={s: r["playouts_per_s"] for s, r in results.items()},
            propositions=self.net.n_fluents + self.net.n_codes,
            gates=self.net.n_nodes - self.net.first_gate,
            build_s=round(self.build_s, 3),
        )
        return report

    def _warn_goal(self, message: str) -> None:
        if message not in self._goal_warnings:
            self._goal_warnings.add(message)
            log.warning("propnet: %s", message)

    def __enter__(self) -> "PropnetStateMachine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


#: A tiny game that reaches every kernel: two roles, a forced move, a cycle
#: (`link` is recursive over the state), a terminal state with goals.
_WARM_UP_GAME = """
(role a) (role b)
(init (on 1)) (init (turn a))
(succ 1 2) (succ 2 3)
(<= (legal a (set ?x)) (true (turn a)) (succ ?x ?y))
(<= (legal a wait) (true (turn b)))
(<= (legal b wait) (role b))
(<= (next (on ?y)) (does a (set ?y)))
(<= (next (on ?x)) (true (on ?x)))
(<= (next (turn b)) (true (turn a)))
(<= (next (turn a)) (true (turn b)))
(<= (link ?x) (true (on ?x)))
(<= (link ?y) (link ?x) (succ ?x ?y) (true (on ?y)))
(<= (link ?x) (link ?y) (succ ?x ?y) (true (on ?x)))
(<= terminal (link 3))
(<= (goal a 100) (link 3))
(<= (goal a 0) (not (link 3)))
(goal b 50)
"""


def warm_up() -> None:
    """Load every kernel (from numba's disk cache; compiling it the first time
    ever) by running a tiny game through all of them.

    Call once when the process starts: after it, a START for any game runs on
    compiled code (`tests/test_propnet_kernels.py` checks that).
    """
    from ..gdl import load_game

    machine = PropnetStateMachine(load_game(_WARM_UP_GAME))
    state = machine.initial_state()
    for role in range(len(machine.roles)):
        machine.legal_moves(state, role)
    after = machine.next_state(state, [machine.legal_moves(state, 0)[0], machine.legal_moves(state, 1)[0]])
    machine.is_terminal(after)
    machine.goal_values(after)
    machine.random_playout(state, max_steps=20, seed=1)
    kernels.state_hash(machine._work)
    goals = np.zeros(machine.net.n_roles, dtype=np.int32)
    kernels.goals(machine.net, machine._work, goals)
    machine.bench(0.0, max_steps=20)


def _bench_strategy(net: Net, strategy: str, seconds: float, max_steps: int) -> dict:
    rng = new_rng(12345)
    codes = np.zeros((max_steps, max(1, net.n_roles)), dtype=np.int32)
    if strategy == "propagate":
        work = new_work(net)

        def run(n):
            return kernels.bench_propagate(net, work, rng, n, max_steps, codes)
    elif strategy == "forward":
        value = np.zeros(net.n_nodes, dtype=np.uint8)
        scratch = np.zeros(net.n_fluents + net.n_codes + net.n_roles + 1, dtype=np.int32)
        goals = np.zeros(max(1, net.n_roles), dtype=np.int32)

        def run(n):
            return kernels.bench_forward(net, value, scratch, rng, n, max_steps, codes, goals)
    elif strategy == "lanes":
        lanes = new_lanes(net)
        batch = 1024
        starts = np.tile(net.init_words, (batch, 1))
        lane_codes = np.zeros((batch, max_steps, max(1, net.n_roles)), dtype=np.int32)
        lengths = np.zeros(batch, dtype=np.int32)
        lane_goals = np.zeros((batch, max(1, net.n_roles)), dtype=np.int32)

        def run(n):
            total = 0
            for _ in range(max(1, n // batch)):
                kernels.lane_playouts(net, lanes, starts, batch, rng, max_steps, lane_codes, lengths, lane_goals)
                total += int(np.abs(lengths).sum())
            return total
    else:
        raise ValueError(f"unknown strategy {strategy!r}")
    run(1 if strategy != "lanes" else 1024)  # warm caches (the kernels are compiled already)
    playouts = steps = 0
    n = 1 if strategy != "lanes" else 1024
    started = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        steps += run(n)
        playouts += n if strategy != "lanes" else max(1, n // 1024) * 1024
        elapsed = time.process_time() - started
        if elapsed < seconds / 8:
            n *= 2
    elapsed = max(elapsed, 1e-9)
    return {
        "playouts": playouts,
        "state_updates": int(steps),
        "seconds": round(elapsed, 3),
        "playouts_per_s": round(playouts / elapsed, 2),
        "state_updates_per_s": round(steps / elapsed, 2),
    }
