"""The state machine every game engine implements, and what crosses its boundary.

Players, the GameController, `replay` and the tests see games only through this
class (as ggp-base's gamers see only its `StateMachine`), so the Prolog engine
and the propnet are interchangeable and one test suite runs against both.

A state is a frozenset of ground fluents (the X of each `(true X)`); a move is a
ground term; a joint move is one move per role, in role order. Roles are addressed
by their index in `roles`. Engines keep faster internal forms (Prolog terms,
bitsets) behind this boundary.

An engine implements the abstract methods (the seven of GDL, and `percepts` for
GDL-II). Everything else here (random playouts, a next state with its terminal
test and goals in one call, move codes, a benchmark) is built on them, so every
caller can use it on any engine;
an engine overrides a helper only to do the same job faster (the Prolog engine
plays a whole playout in one Prolog call). Callers never ask an engine what it
can do: if a method is here, every engine has it.

GDL-II games (`ValidatedGame.dialect`) go through the same protocol: the chance
role `random` is a role like the others (its legal moves are asked for the same
way; the game master, or whoever runs the match, picks among them uniformly),
and `percepts` says what each role perceives after a joint move.
"""

from __future__ import annotations

import abc
import enum
import logging
import random
import time
from typing import Callable, Iterable, NamedTuple, Optional, Sequence

from ..gdl import RANDOM_ROLE
from ..gdl.terms import Term
from .movecodes import MoveCodes

log = logging.getLogger(__name__)

State = frozenset  # frozenset[Term]
JointMove = tuple  # tuple[Term, ...], one per role

#: Default cap on the length of a random playout, in joint moves.
DEFAULT_MAX_PLAYOUT_STEPS = 1000


class ReasonerError(Exception):
    """The engine could not answer: the game is broken, too big, or too slow."""


class ReasonerTimeout(ReasonerError):
    """A query ran past its time limit (a runaway recursion, a huge game)."""


class ReasonerResourceError(ReasonerError):
    """A query exhausted a bounded resource (Prolog stacks, table space)."""


class IllegalMoveError(ReasonerError):
    """A joint move holds a move that is not legal for its role in the state."""


class NoLegalMoveError(ReasonerError):
    """A role has no legal move in a state that is not terminal (a broken game)."""


#: Longest state text an error message quotes.
_STATE_TEXT_LIMIT = 600


def no_legal_move_error(role: Term, state: Iterable[Term], steps: Optional[int] = None) -> NoLegalMoveError:
    """The words for a broken game's dead end, the same from every engine: the
    role, how many joint moves the playout had played, and the state.

    >>> from ggp_agent.gdl import parse_term
    >>> print(no_legal_move_error(parse_term("x"), [parse_term("(step 2)")], 2))
    role x has no legal move in a state that is not terminal (a broken game), after 2 joint moves of a random playout; the state: ((step 2))
    """
    text = "(" + " ".join(sorted(str(fluent) for fluent in state)) + ")"
    if len(text) > _STATE_TEXT_LIMIT:
        text = text[:_STATE_TEXT_LIMIT] + " ...)"
    where = "" if steps is None else f", after {steps} joint move{'' if steps == 1 else 's'} of a random playout"
    return NoLegalMoveError(f"role {role} has no legal move in a state that is not terminal (a broken game)"
                            f"{where}; the state: {text}")


class NextInfo(NamedTuple):
    """A step's result: the next state, whether it is terminal, and its goals if so."""

    state: State
    terminal: bool
    goals: Optional[tuple[int, ...]]


class Playout(NamedTuple):
    """A random playout's end: goal values there, joint moves played, and whether
    it ended in a terminal state (else it was cut at the step limit)."""

    goals: tuple[int, ...]
    steps: int
    terminal: bool


class RecordedPlayout(NamedTuple):
    """A `Playout` with its moves: per step, one (move, was it a choice) per role.
    A move that was its role's only legal one carries no choice."""

    goals: tuple[int, ...]
    steps: int
    terminal: bool
    moves: list[tuple[tuple[Term, bool], ...]]


class PlayoutOutcome(enum.Enum):
    """How a bounded playout call ended."""

    TERMINAL = "terminal"  # a terminal state
    STEP_LIMIT = "step_limit"  # the cap on joint moves
    BUDGET = "budget"  # the time budget ran out first: the caller may go on from `reached`


class PlayoutProgress(NamedTuple):
    """What one `bounded_playout` call did.

    `goals` are the goal values in the last state (None when the budget ran
    out first); `reached` is the state the playout got to when the budget ran
    out (else None).
    """

    steps: int
    outcome: PlayoutOutcome
    goals: Optional[tuple[int, ...]]
    reached: Optional[State]

    @property
    def finished(self) -> bool:
        return self.outcome is not PlayoutOutcome.BUDGET


class StateMachine(abc.ABC):
    """Roles, initial state, legal moves, next state, terminal and goals of a game.

    `move_codes` numbers each (role, move) (see `movecodes.py`); an engine sets
    it in its constructor (the propnet: every move, frozen; Prolog: moves as it
    meets them).
    """

    move_codes: MoveCodes
    #: The engine's name as `engines.ENGINES` knows it ("prolog", "propnet"): a
    #: player that asked for "auto" records which one it got, so that a series
    #: of matches can tell a player that searched at the propnet's speed from
    #: one whose propnet did not build within the start clock.
    engine_name: str

    # -- the methods an engine implements ---------------------------------------------

    @property
    @abc.abstractmethod
    def roles(self) -> tuple[Term, ...]:
        """The roles in the order the game declares them (the order of joint moves)."""

    @abc.abstractmethod
    def initial_state(self) -> State:
        """The fluents true in the first state (from `init`)."""

    @abc.abstractmethod
    def legal_moves(self, state: State, role: int) -> tuple[Term, ...]:
        """The moves legal for role index `role` in `state`, sorted by their KIF text."""

    @abc.abstractmethod
    def next_state(self, state: State, joint_move: Sequence[Term]) -> State:
        """The state after every role plays its move of `joint_move` (role order)."""

    @abc.abstractmethod

    def percepts(self, state: State, joint_move: Sequence[Term], role: int) -> tuple[Term, ...]:
        """What role index `role` perceives when `joint_move` is played in `state`.

        Every P of a true `(sees ROLE P)` with `state` as the current state and
        `joint_move` as the moves (the `does`), evaluated as `next` is; sorted as
        legal moves are, without duplicates. A game without `sees` rules (every
        perfect-information game) gives every role no percepts: `()`. The moves
        are not checked for legality, as in `next_state`; a joint move of the
        wrong length raises IllegalMoveError.
        """
        ...

    def is_terminal(self, state: State) -> bool:
        """True when the game is over in `state`."""

    @abc.abstractmethod
    def goal_values(self, state: State) -> tuple[int, ...]:
        """Each role's goal value (0..100) in `state` (`one_goal_value` per role)."""

        """Each role's goal value (0..100) in `state`.

        A role with no goal value gets 0, one with several gets the highest; the
        engine logs such a game once (real games, e.g. chess, have these bugs).
        The chance role `random` plays for no goal: 0 when the game gives it
        none, without a log line.
        """
        ...

    @abc.abstractmethod
    def close(self) -> None:
        """Free what the engine holds (a Prolog module, arrays)."""

    # -- helpers built on them (an engine may override them to go faster) ------------

    def for_search(self) -> "StateMachine":
        """An engine a search may call from its own thread while the player
        calls this one: this one by default, and then the search shares it
        and keeps each call short (`search.runners.serial.MachineRunner`). An
        engine cheap to copy, whose calls run outside the GIL, gives a copy
        with the same `move_codes`, so that the search's long calls (a whole
        playout in one kernel call) never keep the player waiting."""
        return self

    def known_fluents(self) -> Optional[frozenset]:
        """Every fluent that can be true in some state, when the engine knows
        them without playing (a propnet's propositions); None when it does not
        (a caller then looks at the states it has met). For game analysis such
        as finding a board (`gdl.board`)."""
        return None

    def legal_codes(self, state: State, role: int) -> tuple[int, ...]:
        """The move codes of `legal_moves(state, role)` (same order)."""
        code = self.move_codes.code
        return tuple(code(role, move) for move in self.legal_moves(state, role))

    def next_with_percepts(self, state: State, joint_move: Sequence[Term],
                           role: int) -> tuple[State, tuple[Term, ...]]:
        """The next state and what role index `role` perceives on the way.

        A belief update asks both for every candidate joint move, so an engine
        answers them in one call where it can (Prolog does).
        """
        return self.next_state(state, joint_move), self.percepts(state, joint_move, role)

    def consistent_successors(self, state: State, joint_moves: Sequence[Sequence[Term]], role: int,
                              percepts: Optional[Sequence[Term]]) -> list[tuple[int, State]]:
        """Which of `joint_moves` make role index `role` perceive exactly `percepts`
        (as a set) in `state`, and the states they lead to: (index, next state) in
        the order of `joint_moves`. `percepts` None accepts every joint move.

        The one question a belief update asks of every state it holds; an engine
        answers it for all the candidates at once where it can (Prolog: one call).
        """
        wanted = None if percepts is None else frozenset(percepts)
        found = []
        for index, joint in enumerate(joint_moves):
            after, seen = self.next_with_percepts(state, joint, role)
            if wanted is None or frozenset(seen) == wanted:
                found.append((index, after))
        return found

    def consistent_successors_of_many(self, candidates: Sequence[tuple[State, Sequence[Sequence[Term]]]], role: int,
                                      percepts: Optional[Sequence[Term]]) -> list[list[tuple[int, State]]]:
        """`consistent_successors` for many (state, joint moves) at once, in order:
        a belief update asks it for every state it holds, so an engine answers
        them in one call where it can (Prolog: one call for all)."""
        return [self.consistent_successors(state, joints, role, percepts) for state, joints in candidates]

    def next_info(self, state: State, joint_move: Sequence[Term]) -> NextInfo:
        """The next state, whether it is terminal, and its goals when it is."""
        after = self.next_state(state, joint_move)
        if self.is_terminal(after):
            return NextInfo(after, True, self.goal_values(after))
        return NextInfo(after, False, None)

    def random_joint_move(self, state: State, rng: random.Random) -> list[tuple[Term, bool]]:
        """One uniformly random legal move per role, each with whether it was a choice.

        Raises NoLegalMoveError when a role has none (the state must not be terminal).
        """
        joint = []
        for role in range(len(self.roles)):
            moves = self.legal_moves(state, role)
            if not moves:
                raise no_legal_move_error(self.roles[role], state)
            joint.append((rng.choice(moves), len(moves) > 1))
        return joint

    def random_playout_moves(self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS,
                             seed: Optional[int] = None) -> RecordedPlayout:
        """Uniformly random joint moves from `state` until a terminal state or
        `max_steps` joint moves; the end and the moves played."""
        rng = random.Random(seed)
        record = []
        while len(record) < max_steps and not self.is_terminal(state):
            joint = self.random_joint_move(state, rng)
            record.append(tuple(joint))
            state = self.next_state(state, [move for move, _ in joint])
        return RecordedPlayout(self.goal_values(state), len(record), self.is_terminal(state), record)

    def random_playout(self, state: State, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS,
                       seed: Optional[int] = None) -> Playout:
        """As `random_playout_moves`, without the moves."""
        goals, steps, terminal, _ = self.random_playout_moves(state, max_steps, seed)
        return Playout(goals, steps, terminal)

    def bounded_playout(self, state: State, max_steps: int, budget: float,
                        time_limit: Optional[float] = None, seed: Optional[int] = None) -> PlayoutProgress:
        """A random playout that stops after about `budget` seconds (at least one
        step), returning the state it reached so that the caller can go on from
        there in another call, or drop it: a caller that shares the engine keeps
        each call short. `time_limit` bounds the call as a whole where the engine
        can enforce it (a single step that never ends)."""
        rng = random.Random(seed)
        deadline = time.perf_counter() + budget
        steps = 0
        while True:
            if self.is_terminal(state):
                return PlayoutProgress(steps, PlayoutOutcome.TERMINAL, self.goal_values(state), None)
            if steps >= max_steps:
                return PlayoutProgress(steps, PlayoutOutcome.STEP_LIMIT, self.goal_values(state), None)
            if steps > 0 and time.perf_counter() >= deadline:
                return PlayoutProgress(steps, PlayoutOutcome.BUDGET, None, state)
            state = self.next_state(state, [move for move, _ in self.random_joint_move(state, rng)])
            steps += 1

    def bench(self, seconds: float, max_steps: int = DEFAULT_MAX_PLAYOUT_STEPS) -> dict:
        """Random playouts from the initial state for about `seconds` of CPU time:
        playouts and state updates (joint moves) per second."""
        state = self.initial_state()
        self.random_playout(state, max_steps, seed=0)  # first-call costs out of the figure
        playouts = steps = 0
        started = time.process_time()
        elapsed = 0.0
        while elapsed < seconds or playouts == 0:
            steps += self.random_playout(state, max_steps, seed=playouts + 1).steps
            playouts += 1
            elapsed = time.process_time() - started
        return bench_report(playouts, steps, elapsed)

    def __enter__(self) -> "StateMachine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def bench_report(playouts: int, steps: int, seconds: float) -> dict:
    """The figures every engine's `bench` reports, from what it counted."""
    seconds = max(seconds, 1e-9)
    return {
        "playouts": playouts,
        "state_updates": steps,
        "seconds": round(seconds, 3),
        "playouts_per_s": round(playouts / seconds, 2),
        "state_updates_per_s": round(steps / seconds, 2),
    }


def one_goal_value(role: Term, values: Sequence[object], warn: Callable[[str], None]) -> int:
    """A role's one goal value from the values the rules give it in a state.

    Real games are not always well formed (chess and pentago leave terminal
    states with no goal or with two), and play must go on: no value scores 0,
    several score the highest, a value outside 0..100 is clamped and one that
    is not a number is ignored. GDL-II's chance role `random` plays for no goal:
    it scores 0 without a warning. `warn` hears about each such state (the
    engine logs each message once).

    >>> one_goal_value("x", [50], print)
    50
    >>> one_goal_value("x", [0, 100], print)
    role x has several goal values [0, 100] in a state; the highest counts
    100
    """
    numbers = []
    for value in values:
        try:
            number = int(str(value))
        except ValueError:
            warn(f"goal value {value} of role {role} is not a number; ignored")
            continue
        if not 0 <= number <= 100:
            warn(f"goal value {number} of role {role} is outside 0..100; clamped")
            number = min(100, max(0, number))
        numbers.append(number)
    if not numbers:
        if role != RANDOM_ROLE:  # GDL-II's chance role plays for no goal
            warn(f"role {role} has no goal value in a state; scored 0")
        return 0
    if len(numbers) > 1:
        warn(f"role {role} has several goal values {sorted(numbers)} in a state; the highest counts")
    return max(numbers)


class WarnOnce:
    """A `warn` for `one_goal_value` that logs each distinct message once."""

    def __init__(self, logger: logging.Logger, prefix: str) -> None:
        self._logger = logger
        self._prefix = prefix
        self._seen: set[str] = set()

    def __call__(self, message: str) -> None:
        if message not in self._seen:
            self._seen.add(message)
            self._logger.warning("%s: %s", self._prefix, message)


def sorted_moves(moves) -> tuple[Term, ...]:
    """Moves (and percepts) in the order the protocol boundary promises: by KIF
    text, no duplicates."""
    return tuple(sorted(set(moves), key=str))


def state_to_kif(state: State) -> list[str]:
    """A state as the sorted KIF strings the oracle traces use."""
    return sorted(str(fluent) for fluent in state)
