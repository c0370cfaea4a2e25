"""`PrologStateMachine`: a game answered by SWI-Prolog.

Each game lives in a Prolog module of its own (`ggp_game_<n>`), filled with
clauses built as terms from the validated rules (`compile.py`); nothing is ever
consulted as text. Every call runs on the one Prolog thread under a time limit,
so a runaway game raises `ReasonerTimeout` instead of hanging its caller.

The state is passed with every call (Prolog keeps none between calls that
matters), which keeps the engine stateless from the caller's side: any number
of searches and controllers may share one machine.
"""

from __future__ import annotations

import itertools
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Optional, Sequence, Union

from ..gdl import load_game
from ..gdl.terms import Term, parenthesized_names
from ..gdl.validate import ValidatedGame
from . import prolog_terms as pt
from . import swipl
from .compile import CompiledGame, compile_game
from .movecodes import MoveCodes
from .prolog_query import call_predicate
from .prolog_thread import PrologThread, caller_time_limit
from .statemachine import (
    DEFAULT_MAX_PLAYOUT_STEPS, IllegalMoveError, NextInfo, Playout, PlayoutOutcome, PlayoutProgress,
    ReasonerError, RecordedPlayout, State, StateMachine, WarnOnce, bench_report, one_goal_value, sorted_moves,
)

log = logging.getLogger(__name__)

#: Default per-query time limit, seconds. A legal-move query of a real game
#: takes milliseconds; this only stops runaway recursion.
DEFAULT_QUERY_TIME_LIMIT = 10.0

_module_counter = itertools.count(1)
_module_counter_lock = threading.Lock()

_RUNTIME = "ggp_runtime"


class PrologStateMachine(StateMachine):
    """The `StateMachine` protocol over SWI-Prolog (see `statemachine.py`)."""

    engine_name = "prolog"

    def __init__(
        self,
        game: ValidatedGame,
        query_time_limit: float = DEFAULT_QUERY_TIME_LIMIT,
        load_time_limit: float = 60.0,
    ) -> None:
        self.game = game
        self.query_time_limit = query_time_limit
        self._roles: tuple[Term, ...] = tuple(game.roles)
        #: codes for the moves met so far (interned as legal moves are asked for)
        self.move_codes = MoveCodes(len(self._roles))
        self._thread = PrologThread.instance()
        with _module_counter_lock:
            self.module = f"ggp_game_{next(_module_counter)}"
        self._warn_goal = WarnOnce(log, self.module)
        self._compiled = compile_game(game)
        self._spelling = parenthesized_names(game.rules)
        self._closed = False
        self._thread.call(self._load, self._compiled, load_time_limit)
        self._initial: Optional[State] = None

    # -- construction -----------------------------------------------------

    @classmethod
    def from_text(cls, text: str, **options) -> "PrologStateMachine":
        """Parse, validate and load KIF text (raises GdlError on a broken game)."""
        return cls(load_game(text), **options)

    @classmethod
    def from_file(cls, path: Union[str, Path], **options) -> "PrologStateMachine":
        return cls(load_game(Path(path)), **options)

    def _load(self, compiled: CompiledGame, time_limit: float) -> None:
        api = swipl.api
        module_atom = swipl.atoms.atom(self.module)

        def put_module(ref: int) -> None:
            api.put_atom(ref, module_atom)

        indicators = pt.fill_list(pt.indicator(name, arity) for name, arity in compiled.relations)
        tabled = pt.fill_list(
            pt.compound("-", pt.indicator(name, arity), pt.atom("true" if dependent else "false"))
            for name, arity, dependent in compiled.tabled
        )
        call_predicate(_RUNTIME, "game_create", [put_module, pt.term_list(compiled.roles), indicators, tabled],
                       time_limit)
        for head, body, pruned in compiled.clauses:
            frame = api.open_foreign_frame()
            try:
                clause = api.new_term_ref()
                plan = [
                    pt.Once([(literal, None)]) if ground else (literal, None)
                    for literal, ground in zip(body, pruned)
                ]
                pt.put_clause(clause, pt.sentence_head(head), plan)
                call_predicate(_RUNTIME, "game_add_clause", [put_module, lambda ref, c=clause: api.put_term(ref, c)])
            finally:
                api.discard_foreign_frame(frame)

    # -- the StateMachine protocol ----------------------------------------

    @property
    def roles(self) -> tuple[Term, ...]:
        return self._roles

    def initial_state(self) -> State:
        if self._closed:
            raise ReasonerError("this state machine is closed")
        if self._initial is None:
            result = self._query("initial_state", [pt.var], lambda refs: pt.read_term_list(refs + 1))
            self._initial = frozenset(result)
        return self._initial

    def legal_moves(self, state: State, role: int) -> tuple[Term, ...]:
        role_term = self._roles[role]
        moves = self._query(
            "legal_moves", [pt.term_list(state), pt.term(role_term), pt.var], lambda refs: pt.read_term_list(refs + 3)
        )
        return self._interned(role, sorted_moves(moves))

    def next_state(self, state: State, joint_move: Sequence[Term]) -> State:
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        fluents = self._query(
            "next_state",
            [pt.term_list(state), pt.term_list(joint_move), pt.var],
            lambda refs: pt.read_term_list(refs + 3),
        )
        return frozenset(fluents)

    def percepts(self, state: State, joint_move: Sequence[Term], role: int) -> tuple[Term, ...]:
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        seen = self._query(
            "percepts",
            [pt.term_list(state), pt.term_list(joint_move), pt.term(self._roles[role]), pt.var],
            lambda refs: pt.read_term_list(refs + 4),
        )
        return sorted_moves(seen)

    def next_with_percepts(self, state: State, joint_move: Sequence[Term],
                           role: int) -> tuple[State, tuple[Term, ...]]:
        """The base class's `next_with_percepts` in one Prolog call."""
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")

        def read(refs: int):
            return frozenset(pt.read_term_list(refs + 4)), sorted_moves(pt.read_term_list(refs + 5))

        return self._query(
            "next_with_percepts",
            [pt.term_list(state), pt.term_list(joint_move), pt.term(self._roles[role]), pt.var, pt.var],
            read,
        )

    def consistent_successors(self, state: State, joint_moves: Sequence[Sequence[Term]], role: int,
                              percepts: Optional[Sequence[Term]]) -> list[tuple[int, State]]:
        """The base class's `consistent_successors` in one Prolog call (the many-state one's)."""
        if not joint_moves:
            return []
        return self.consistent_successors_of_many([(state, joint_moves)], role, percepts)[0]

    def consistent_successors_of_many(self, candidates: Sequence[tuple[State, Sequence[Sequence[Term]]]], role: int,
                                      percepts: Optional[Sequence[Term]]) -> list[list[tuple[int, State]]]:
        """The base class's `consistent_successors_of_many` in one Prolog call."""
        for _, joint_moves in candidates:
            for joint in joint_moves:
                if len(joint) != len(self._roles):
                    raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint)}")
        if not candidates:
            return []

        def read(refs: int):
            founds = []
            for found_ref in swipl.get_list(refs + 5):
                found = []
                for item in swipl.get_list(found_ref):
                    index, after = swipl.get_args(item, 2)
                    found.append((swipl.get_int(index), frozenset(pt.read_term_list(after))))
                founds.append(found)
            return founds

        items = [pt.compound("s", pt.term_list(state), pt.fill_list([pt.term_list(joint) for joint in joints]))
                 for state, joints in candidates]
        return self._query(
            "consistent_successors_of_many",
            [pt.fill_list(items), pt.term(self._roles[role]), pt.atom("false" if percepts is None else "true"),
             pt.term_list(percepts or ()), pt.var],
            read,
        )

    def is_terminal(self, state: State) -> bool:
        return bool(self._query("is_terminal", [pt.term_list(state)], None))

    def goal_values(self, state: State) -> tuple[int, ...]:
        per_role = self._query(
            "goal_lists",
            [pt.term_list(state), pt.var],
            lambda refs: [pt.read_term_list(item) for item in swipl.get_list(refs + 2)],
        )
        return tuple(one_goal_value(role, values, self._warn_goal) for role, values in zip(self._roles, per_role))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        module_atom = swipl.atoms.atom

        def destroy() -> None:
            call_predicate(_RUNTIME, "game_destroy", [lambda ref: swipl.api.put_atom(ref, module_atom(self.module))])

        try:
            self._thread.call(destroy)
        except ReasonerError as error:  # pragma: no cover - best effort
            log.warning("could not free Prolog module %s: %s", self.module, error)

    # -- beyond the protocol ------------------------------------------------

    def bounded_playout(self, state: State, max_steps: int, budget: float, time_limit: Optional[float] = None,
                        seed: Optional[int] = None) -> PlayoutProgress:
        """The base class's bounded playout in one Prolog call.

        The one Prolog thread serves every caller in the process, so a long
        playout would make the player's own calls (its legal-move fallback)
        wait: this one stops after `budget` seconds of wall-clock time (checked
        between steps inside Prolog). `time_limit` defaults to the machine's
        query time limit.
        """
        if seed is not None:
            self._thread.call(_set_seed, seed)
        def read(refs: int) -> PlayoutProgress:
            steps = swipl.get_int(refs + 4)
            outcome = PlayoutOutcome(str(swipl.get_term(refs + 5)))
            if outcome is PlayoutOutcome.BUDGET:
                return PlayoutProgress(steps, outcome, None, frozenset(pt.read_term_list(refs + 7)))
            goals = tuple(swipl.get_int(item) for item in swipl.get_list(refs + 6))
            return PlayoutProgress(steps, outcome, goals, None)

        return self._query(
            "bounded_playout",
            [pt.term_list(state), pt.integer(max_steps), pt.floating(budget),
             pt.var, pt.var, pt.var, pt.var],
            read,
            time_limit=time_limit,
        )

    def random_playout(self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS,
                       seed: Optional[int] = None) -> Playout:
        """One random playout in a single Prolog call."""
        if seed is not None:
            self._thread.call(_set_seed, seed)
        return self._query(
            "random_playout",
            [pt.term_list(state), pt.integer(max_steps), pt.var, pt.var, pt.var],
            _read_playout_end,
        )

    def random_playout_moves(self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS,
                             seed: Optional[int] = None) -> RecordedPlayout:
        """A random playout that also reports its moves, in one Prolog call."""
        def read(refs: int) -> RecordedPlayout:
            end = _read_playout_end(refs)
            record = []
            for step in swipl.get_list(refs + 6):
                joint = []
                for item in swipl.get_list(step):
                    term = swipl.get_term(item)
                    joint.append((term.args[0], term.functor == "c"))
                record.append(tuple(joint))
            return RecordedPlayout(end.goals, end.steps, end.terminal, record)

        if seed is not None:
            self._thread.call(_set_seed, seed)
        return self._query(
            "random_playout_moves",
            [pt.term_list(state), pt.integer(max_steps), pt.var, pt.var, pt.var, pt.var],
            read,
        )

    def next_info(self, state: State, joint_move: Sequence[Term]) -> NextInfo:
        """The base class's `next_info` in one Prolog call."""
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")

        def read(refs: int):
            fluents = pt.read_term_list(refs + 3)
            terminal = str(swipl.get_term(refs + 4)) == "true"
            goals = tuple(swipl.get_int(item) for item in swipl.get_list(refs + 5))
            return NextInfo(frozenset(fluents), terminal, goals if terminal else None)

        return self._query(
            "next_info",
            [pt.term_list(state), pt.term_list(joint_move), pt.var, pt.var, pt.var],
            read,
        )

    def bench(self, seconds: float, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS) -> dict:
        """The base class's benchmark, with the playout loop inside Prolog."""
        self._bench_playouts(min(0.2, seconds), max_steps)  # first-call indexing out of the figure
        started = time.process_time()
        playouts, steps = self._bench_playouts(seconds, max_steps)
        return bench_report(playouts, steps, time.process_time() - started)

    def _bench_playouts(self, seconds: float, max_steps: int) -> tuple[int, int]:
        """(playouts, joint moves) played from the initial state in `seconds` of CPU time."""
        def read(refs: int):
            return swipl.get_int(refs + 3), swipl.get_int(refs + 4)

        return self._query(
            "bench_playouts",
            [pt.floating(seconds), pt.integer(max_steps), pt.var, pt.var],
            read,
            time_limit=seconds * 3 + self.query_time_limit,
        )

    # -- plumbing -----------------------------------------------------------

    def _interned(self, role: int, moves: tuple[Term, ...]) -> tuple[Term, ...]:
        for move in moves:
            self.move_codes.intern(role, move)
        return moves

    def _query(self, name, args, read, time_limit: Optional[float] = None):
        if self._closed:
            raise ReasonerError("this state machine is closed")
        module_atom = swipl.atoms.atom
        if time_limit is None:
            time_limit = caller_time_limit(self.query_time_limit)

        def run():
            fillers = [lambda ref: swipl.api.put_atom(ref, module_atom(self.module))] + args
            with swipl.spelled(self._spelling):  # terms read back as the rules write them
                return call_predicate(_RUNTIME, name, fillers, time_limit, read)

        return self._thread.call(run)

    def __del__(self) -> None:  # pragma: no cover - best effort
        # Not while the interpreter shuts down: the Prolog thread (a daemon) no
        # longer runs then, and waiting for it would hang the exit.
        try:
            if not self._closed and PrologThread._instance is not None and not sys.is_finalizing():
                self.close()
        except Exception:  # noqa: BLE001
            pass


def _read_playout_end(refs: int) -> Playout:
    """Goals, steps and terminal flag: arguments 4 to 6 of a playout query."""
    goals = tuple(swipl.get_int(item) for item in swipl.get_list(refs + 3))
    return Playout(goals, swipl.get_int(refs + 4), str(swipl.get_term(refs + 5)) == "true")


def _set_seed(seed: int) -> None:
    call_predicate("ggp_runtime", "set_random", [lambda ref: swipl.put_compound(ref, "seed", [pt.integer(seed)])])
