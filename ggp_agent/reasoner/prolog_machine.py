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
import random
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence, Union

from ..gdl import RANDOM_ROLE, GdlError, load_game
from ..gdl.terms import Term
from ..gdl.validate import ValidatedGame
from ..movecodes import MoveCodes
from . import swipl
from .compile import CompiledGame, compile_game, goal_shape, relation_of, sentence_args
from .prolog_query import call_predicate
from .prolog_thread import PrologThread
from .statemachine import IllegalMoveError, ReasonerError, State, sorted_moves

log = logging.getLogger(__name__)

#: Default per-query time limit, seconds. A legal-move query of a real game
#: takes milliseconds; this only stops runaway recursion.
DEFAULT_QUERY_TIME_LIMIT = 10.0

#: Default cap on the length of a random playout, in joint moves.
DEFAULT_MAX_PLAYOUT_STEPS = 1000

_module_counter = itertools.count(1)
_module_counter_lock = threading.Lock()

_RUNTIME = "ggp_runtime"


@dataclass(frozen=True)
class PlayoutProgress:
    """What one `bounded_playout` call did.

    `outcome` is "terminal", "step_limit" or "budget". `goals` are the goal
    values in the last state (None when the budget ran out first); `reached`
    is the state the playout got to when the budget ran out (else None).
    """

    steps: int
    outcome: str
    goals: Optional[tuple[int, ...]]
    reached: Optional[State]

    @property
    def finished(self) -> bool:
        return self.outcome != "budget"


class PrologStateMachine:
    """The `StateMachine` protocol over SWI-Prolog (see `statemachine.py`)."""

    def __init__(
        self,
        game: ValidatedGame,
        query_time_limit: float = DEFAULT_QUERY_TIME_LIMIT,
        load_time_limit: float = 60.0,
    ) -> None:
        self.game = game
        self.query_time_limit = query_time_limit
        self._roles: tuple[Term, ...] = tuple(game.roles)
        self._goal_warnings: set[str] = set()
        #: codes for the moves met so far (interned as legal moves are asked for)
        self.move_codes = MoveCodes(len(self._roles))
        self._thread = PrologThread.instance()
        with _module_counter_lock:
            self.module = f"ggp_game_{next(_module_counter)}"
        self._compiled = compile_game(game)
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

        def put_indicators(items):
            def fill(ref: int) -> None:
                swipl.put_list(ref, [_indicator_filler(name, arity) for name, arity in items])

            return fill

        def put_tabled(ref: int) -> None:
            swipl.put_list(
                ref,
                [
                    _pair_filler(_indicator_filler(name, arity), _atom_filler("true" if dependent else "false"))
                    for name, arity, dependent in compiled.tabled
                ],
            )

        def put_roles(ref: int) -> None:
            swipl.put_list(ref, [_term_filler(role) for role in compiled.roles])

        call_predicate(
            _RUNTIME, "game_create",
            [put_module, put_roles, put_indicators(compiled.relations), put_tabled],
            time_limit,
        )
        for head, body in compiled.clauses:
            frame = api.open_foreign_frame()
            try:
                clause = api.new_term_ref()
                _put_clause(clause, head, body)
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
            result = self._query("initial_state", [_var_filler], lambda refs: _read_term_list(refs + 1))
            self._initial = frozenset(result)
        return self._initial

    def legal_moves(self, state: State, role: int) -> tuple[Term, ...]:
        role_term = self._roles[role]
        moves = self._query(
            "legal_moves", [_state_filler(state), _term_filler(role_term), _var_filler], lambda refs: _read_term_list(refs + 3)
        )
        return self._interned(role, sorted_moves(moves))

    def all_legal_moves(self, state: State) -> tuple[tuple[Term, ...], ...]:
        """Every role's legal moves in one call (role order)."""
        per_role = self._query(
            "all_legal_moves",
            [_state_filler(state), _var_filler],
            lambda refs: [_read_term_list(item) for item in swipl.get_list(refs + 2)],
        )
        return tuple(self._interned(role, sorted_moves(moves)) for role, moves in enumerate(per_role))

    def next_state(self, state: State, joint_move: Sequence[Term]) -> State:
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        fluents = self._query(
            "next_state",
            [_state_filler(state), _list_filler(list(joint_move)), _var_filler],
            lambda refs: _read_term_list(refs + 3),
        )
        return frozenset(fluents)

    def percepts(self, state: State, joint_move: Sequence[Term], role: int) -> tuple[Term, ...]:
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")
        seen = self._query(
            "percepts",
            [_state_filler(state), _list_filler(list(joint_move)), _term_filler(self._roles[role]), _var_filler],
            lambda refs: _read_term_list(refs + 4),
        )
        return sorted_moves(seen)

    def is_terminal(self, state: State) -> bool:
        return bool(self._query("is_terminal", [_state_filler(state)], None))

    def goal_values(self, state: State) -> tuple[int, ...]:
        per_role = self._query(
            "goal_lists",
            [_state_filler(state), _var_filler],
            lambda refs: [_read_term_list(item) for item in swipl.get_list(refs + 2)],
        )
        return tuple(self._one_goal(role, values) for role, values in zip(self._roles, per_role))

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

    def is_legal(self, state: State, role: int, move: Term) -> bool:
        return move in self.legal_moves(state, role)

    def bounded_playout(
        self, state: State, max_steps: int, budget: float, time_limit: Optional[float] = None
    ) -> "PlayoutProgress":
        """A random playout that holds the Prolog thread for about `budget` seconds at most.

        The one Prolog thread serves every caller in the process, so a long
        playout would make the player's own calls (its legal-move fallback)
        wait. This one stops after `budget` seconds of wall-clock time (checked
        between steps; at least one step is played) and returns the state it
        reached, so the caller can go on from there in another call, or drop
        it. `time_limit` bounds the call as a whole (default: the machine's
        query time limit), for a single step that never ends.
        """
        def read(refs: int) -> PlayoutProgress:
            steps = swipl.get_int(refs + 4)
            outcome = str(swipl.get_term(refs + 5))
            goals = tuple(swipl.get_int(item) for item in swipl.get_list(refs + 6))
            reached = frozenset(_read_term_list(refs + 7)) if outcome == "budget" else None
            return PlayoutProgress(steps, outcome, goals if outcome != "budget" else None, reached)

        return self._query(
            "bounded_playout",
            [_state_filler(state), _int_filler(max_steps), _float_filler(budget),
             _var_filler, _var_filler, _var_filler, _var_filler],
            read,
            time_limit=time_limit,
        )

    def random_playout(
        self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS, seed: Optional[int] = None
    ) -> tuple[tuple[int, ...], int, bool]:
        """One random playout in a single Prolog call.

        Returns (goal values in the last state, joint moves played, whether the
        last state is terminal rather than cut by `max_steps`).
        """
        def read(refs: int):
            goals = [swipl.get_int(item) for item in swipl.get_list(refs + 3)]
            steps = swipl.get_int(refs + 4)
            final = swipl.get_term(refs + 5)
            return tuple(goals), steps, str(final) == "true"

        if seed is not None:
            self._thread.call(_set_seed, seed)
        return self._query(
            "random_playout",
            [_state_filler(state), _int_filler(max_steps), _var_filler, _var_filler, _var_filler],
            read,
        )

    def random_playout_moves(
        self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS
    ) -> tuple[tuple[int, ...], int, bool, list[tuple[tuple[Term, bool], ...]]]:
        """A random playout that also reports its moves, in one Prolog call.

        Returns (goal values, joint moves played, whether the end is terminal,
        the joint moves: per step one (move, was_a_choice) per role). A move that
        was its role's only legal one is not a choice.
        """
        def read(refs: int):
            goals = [swipl.get_int(item) for item in swipl.get_list(refs + 3)]
            steps = swipl.get_int(refs + 4)
            final = swipl.get_term(refs + 5)
            record = []
            for step in swipl.get_list(refs + 6):
                joint = []
                for item in swipl.get_list(step):
                    term = swipl.get_term(item)
                    joint.append((term.args[0], term.functor == "c"))
                record.append(tuple(joint))
            return tuple(goals), steps, str(final) == "true", record

        return self._query(
            "random_playout_moves",
            [_state_filler(state), _int_filler(max_steps), _var_filler, _var_filler, _var_filler, _var_filler],
            read,
        )

    def next_info(self, state: State, joint_move: Sequence[Term]) -> tuple[State, bool, Optional[tuple[int, ...]]]:
        """(next state, is it terminal, goal values there when it is) in one call."""
        if len(joint_move) != len(self._roles):
            raise IllegalMoveError(f"a joint move needs {len(self._roles)} moves, got {len(joint_move)}")

        def read(refs: int):
            fluents = _read_term_list(refs + 3)
            terminal = str(swipl.get_term(refs + 4)) == "true"
            goals = tuple(swipl.get_int(item) for item in swipl.get_list(refs + 5))
            return frozenset(fluents), terminal, goals if terminal else None

        return self._query(
            "next_info",
            [_state_filler(state), _list_filler(list(joint_move)), _var_filler, _var_filler, _var_filler],
            read,
        )

    def bench_playouts(self, seconds: float, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS) -> tuple[int, int]:
        """(playouts, joint moves) played from the initial state in `seconds` of CPU time."""
        def read(refs: int):
            return swipl.get_int(refs + 3), swipl.get_int(refs + 4)

        return self._query(
            "bench_playouts",
            [_float_filler(seconds), _int_filler(max_steps), _var_filler, _var_filler],
            read,
            time_limit=seconds * 3 + self.query_time_limit,
            with_state=False,
        )

    def legal_codes(self, state: State, role: int) -> tuple[int, ...]:
        """The move codes of `legal_moves(state, role)` (same order)."""
        return tuple(self.move_codes.code(role, move) for move in self.legal_moves(state, role))

    # -- plumbing -----------------------------------------------------------

    def _interned(self, role: int, moves: tuple[Term, ...]) -> tuple[Term, ...]:
        for move in moves:
            self.move_codes.intern(role, move)
        return moves

    def _query(self, name, args, read, time_limit: Optional[float] = None, with_state: bool = True):
        if self._closed:
            raise ReasonerError("this state machine is closed")
        module_atom = swipl.atoms.atom

        def run():
            fillers = [lambda ref: swipl.api.put_atom(ref, module_atom(self.module))] + args
            return call_predicate(
                _RUNTIME, name, fillers,
                self.query_time_limit if time_limit is None else time_limit,
                read,
            )

        return self._thread.call(run)

    def _one_goal(self, role: Term, values: list[Term]) -> int:
        numbers = []
        for value in values:
            try:
                number = int(str(value))
            except ValueError:
                self._warn_goal(f"goal value {value} of role {role} is not a number; ignored")
                continue
            if not 0 <= number <= 100:
                self._warn_goal(f"goal value {number} of role {role} is outside 0..100; clamped")
                number = min(100, max(0, number))
            numbers.append(number)
        if not numbers and role == RANDOM_ROLE:
            return 0
        if not numbers:
            self._warn_goal(f"role {role} has no goal value in a state; scored 0")
            return 0
        if len(numbers) > 1:
            self._warn_goal(f"role {role} has several goal values {sorted(numbers)} in a state; the highest counts")
        return max(numbers)

    def _warn_goal(self, message: str) -> None:
        if message not in self._goal_warnings:
            self._goal_warnings.add(message)
            log.warning("%s: %s", self.module, message)

    def __enter__(self) -> "PrologStateMachine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        # Not while the interpreter shuts down: the Prolog thread (a daemon) no
        # longer runs then, and waiting for it would hang the exit.
        try:
            if not self._closed and PrologThread._instance is not None and not sys.is_finalizing():
                self.close()
        except Exception:  # noqa: BLE001
            pass


# -- term building helpers (run on the Prolog thread) -------------------------


def _set_seed(seed: int) -> None:
    call_predicate("ggp_runtime", "set_random", [lambda ref: swipl.put_compound(ref, "seed", [_int_filler(seed)])])


def _var_filler(ref: int) -> None:
    swipl.api.put_variable(ref)


def _atom_filler(name: str):
    return lambda ref: swipl.api.put_atom(ref, swipl.atoms.atom(name))


def _int_filler(value: int):
    return lambda ref: swipl.api.put_int64(ref, int(value))


def _float_filler(value: float):
    return lambda ref: swipl.api.put_float(ref, float(value))


def _term_filler(term: Term):
    return lambda ref: swipl.put_term(ref, term, {})


def _list_filler(terms: list[Term]):
    return lambda ref: swipl.put_list(ref, [_term_filler(t) for t in terms])


def _state_filler(state: State):
    return _list_filler(list(state))


def _indicator_filler(name: str, arity: int):
    return lambda ref: swipl.put_compound(ref, "/", [_atom_filler(name), _int_filler(arity)])


def _pair_filler(left, right):
    return lambda ref: swipl.put_compound(ref, "-", [left, right])


def _read_term_list(ref: int) -> list[Term]:
    return [swipl.get_term(item) for item in swipl.get_list(ref)]


def _put_clause(ref: int, head, body) -> None:
    """Build `Head :- Body` (or the fact `Head`) into `ref`."""
    api = swipl.api
    bindings: dict = {}
    head_ref = api.new_term_ref()
    _put_sentence(head_ref, head, bindings)
    if not body:
        api.put_term(ref, head_ref)
        return
    body_ref = api.new_term_ref()
    _put_body(body_ref, list(body), bindings)
    swipl.put_rule(ref, head_ref, body_ref)


def _put_sentence(ref: int, sentence, bindings: dict) -> None:
    name, arity = relation_of(sentence)
    api = swipl.api
    if arity == 0:
        api.put_atom(ref, swipl.atoms.atom(name))
        return
    args = api.new_term_refs(arity)
    for offset, arg in enumerate(sentence_args(sentence)):
        swipl.put_term(args + offset, arg, bindings)
    api.cons_functor_v(ref, swipl.atoms.functor(name, arity), args)


def _put_body(ref: int, literals: list, bindings: dict) -> None:
    """A right-nested conjunction of the literals' goals."""
    api = swipl.api
    goal_refs = []
    for literal in literals:
        goal = api.new_term_ref()
        _put_goal(goal, literal, bindings)
        goal_refs.append(goal)
    swipl.put_conjunction(ref, goal_refs)


def _put_goal(ref: int, literal, bindings: dict) -> None:
    api = swipl.api
    shape = goal_shape(literal)
    kind = shape[0]
    if kind == "call":
        _put_sentence(ref, shape[1], bindings)
    elif kind == "not":
        inner = api.new_term_ref()
        _put_sentence(inner, shape[1], bindings)
        api.cons_functor_v(ref, swipl.atoms.functor("\\+", 1), inner)
    else:
        operator = "\\==" if kind == "distinct" else "=="
        pair = api.new_term_refs(2)
        swipl.put_term(pair, shape[1], bindings)
        swipl.put_term(pair + 1, shape[2], bindings)
        api.cons_functor_v(ref, swipl.atoms.functor(operator, 2), pair)
