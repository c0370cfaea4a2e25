"""A GDL-II player's belief: the states its own moves and percepts leave possible, weighted.

A GDL-II player sees neither the state nor the others' moves, only its own
move (as the game master executed it) and its percepts. The belief holds the
states consistent with all of them, each with its probability under the model
that every other role, `random` and the opponents alike, picks uniformly among
its legal moves: a particle filter whose particles are distinct states.

Each turn (`update`) every state held is expanded by the joint moves that
contain our move (all of them when there are few, a uniform sample otherwise);
a successor survives when our percepts after that joint move are the ones we
received, and inherits its parent's weight times the joint move's probability.
Weights, not a uniform set, are what make the belief right: on Monty Hall the
host opens a given goat door with probability 1/2 when the car is behind our
door and 1 when it is not, so the other door holds the car two times in three.

The update runs under a deadline once some state survived (the states are
taken in random order, so stopping early keeps an unbiased subsample; before
that, no deadline stops it: a belief with no consistent state would play
moves that may be illegal) and the belief is capped at
`capacity` distinct states (resampled by weight). While neither has happened
the belief is exact. When it is not and few states survive (`RESTART_BELOW`),
or none does, whole histories are drawn again from the initial state: at each
step a joint move consistent with that step's percepts is drawn among a batch
of candidates (repair), and a history that meets a step with none starts over
(restart). Such states get the mean weight of the survivors.

`determinizations(k)` hands a search k distinct states (all of them, with
their probabilities, when there are at most k; else k drawn by weight without
replacement), for Ensemble Determinization MCTS (`determinized.py`). Engine-neutral: it uses only the `StateMachine` protocol,
mostly `consistent_successors` (one Prolog call per state held).
"""

from __future__ import annotations

import logging
import math
import random
import time
from dataclasses import dataclass
from itertools import product
from typing import Optional, Sequence

from ...gdl.terms import Term
from ...reasoner.statemachine import State, StateMachine

log = logging.getLogger(__name__)

#: Most distinct states the belief keeps (more are resampled down by weight).
DEFAULT_CAPACITY = 1000
#: A state whose other roles have at most this many joint moves is expanded by
#: all of them; otherwise by SAMPLED_JOINTS drawn uniformly.
ENUMERATION_LIMIT = 64
SAMPLED_JOINTS = 16
#: An approximate belief (capped, sampled or cut short) with fewer states than
#: this after an update is topped up by restarted histories.
RESTART_BELOW = 32
#: Joint moves drawn at one step of a restarted history before it starts over.
RESTART_CANDIDATES = 24
#: States sent to the engine in one call (and restarted histories drawn side by side).
CHUNK = 32


def belief_budget(now: float, clock_deadline: float) -> tuple[float, float]:
    """(soft, hard) deadlines for a belief update. Once enough states survived,
    no new state is examined after the soft one: half the time left before
    `clock_deadline` (the last moment a reply is safe), even when the search's
    own deadline comes sooner, since a belief cut short may lose the true state
    and every later turn pays for it; the search thinks with what is left.
    Restarted histories (a belief that grew sparse) stop at the hard one.

    >>> belief_budget(0.0, 20.0)
    (10.0, 18.0)
    """
    left = max(0.0, clock_deadline - now)
    return now + 0.5 * left, now + 0.9 * left


@dataclass(frozen=True)
class Observation:
    """What one turn told us: our move as executed (None: unknown) and our
    percepts (None: unknown, a turn whose message we missed)."""

    move: Optional[Term]
    percepts: Optional[tuple[Term, ...]]


@dataclass(frozen=True)
class BeliefUpdate:
    """The figures of one update, for the log line and the player's record."""

    turn: int
    states: int
    examined: int
    held: int
    candidates: int
    consistent: int
    restarted: int
    exact: bool
    lost: bool
    seconds: float

    def describe(self) -> str:
        kind = "exact" if self.exact else "sampled"
        text = (f"{self.states} consistent states ({kind}) from {self.examined} of {self.held} held, "
                f"{self.consistent} of {self.candidates} joint moves consistent")
        if self.restarted:
            text += f", {self.restarted} from restarted histories"
        if self.lost:
            text += ", LOST (no state fits the percepts; playing on unchecked successors)"
        return text + f", {self.seconds:.3f} s"

    def to_json(self) -> dict:
        return {"turn": self.turn, "states": self.states, "examined": self.examined, "held": self.held,
                "candidates": self.candidates, "consistent": self.consistent, "restarted": self.restarted,
                "exact": self.exact, "lost": self.lost, "seconds": round(self.seconds, 4)}


class Belief:
    """The weighted states consistent with one role's moves and percepts so far."""

    def __init__(self, machine: StateMachine, role: int, *, seed: Optional[int] = None,
                 capacity: int = DEFAULT_CAPACITY) -> None:
        self.machine = machine
        self.role = role
        self.capacity = max(1, capacity)
        self.rng = random.Random(seed)
        self.initial = machine.initial_state()
        self.weights: dict[State, float] = {self.initial: 1.0}
        self.history: list[Observation] = []
        #: True while no state was dropped by a cap, a sample or a deadline
        self.exact = True
        #: True when no state fits the percepts (the states held are unchecked)
        self.lost = False

    # -- what a player and a search read ---------------------------------------------------

    def __len__(self) -> int:
        return len(self.weights)

    def most_likely(self) -> State:
        return max(self.weights.items(), key=lambda item: item[1])[0]

    def legal_moves(self, probe: int = 5) -> tuple[Term, ...]:
        """Our legal moves: those legal in each of the `probe` likeliest states (a
        well-written game makes them the same in every state we cannot tell
        apart); the likeliest state's when they disagree, with a warning."""
        ranked = sorted(self.weights.items(), key=lambda item: -item[1])[:probe]
        moves = self.machine.legal_moves(ranked[0][0], self.role)
        common = set(moves)
        for state, _ in ranked[1:]:
            common &= set(self.machine.legal_moves(state, self.role))
        if common == set(moves):
            return tuple(moves)
        log.warning("belief: our legal moves differ between states we cannot tell apart; "
                    "keeping %d of %d common to the likeliest states", len(common), len(moves))
        return tuple(move for move in moves if move in common) or tuple(moves)

    def determinizations(self, count: int, rng: Optional[random.Random] = None) -> list[tuple[State, float]]:
        """Up to `count` distinct states for a determinized search, each with its
        share (the shares sum to 1), likeliest first: every state with its
        probability when there are at most `count`, else `count` states drawn by
        weight without replacement, each with an equal share (a state twice as
        likely is about twice as likely to be drawn)."""
        rng = rng or self.rng
        items = list(self.weights.items())
        total = sum(weight for _, weight in items)
        if len(items) <= count:
            chosen = [(state, weight / total) for state, weight in items]
        else:  # weighted sampling without replacement: the largest keys u^(1/w)
            keyed = sorted(items, key=lambda item: -rng.random() ** (1.0 / max(item[1], 1e-300)))
            chosen = [(state, 1.0 / count) for state, _ in keyed[:count]]
        chosen.sort(key=lambda item: -item[1])
        return chosen

    # -- a turn --------------------------------------------------------------------------

    def update(self, move: Optional[Term], percepts: Optional[Sequence[Term]], deadline: float,
               hard_deadline: Optional[float] = None, final: bool = False) -> BeliefUpdate:
        """Take one turn's observation: our executed `move` and our `percepts`
        (either None when unknown). `final`: the game ended with this turn (the
        states kept are terminal ones; otherwise terminal ones are dropped, since
        the game went on). Times are `time.monotonic()` values."""
        began = time.monotonic()
        hard = deadline if hard_deadline is None else max(deadline, hard_deadline)
        seen = None if percepts is None else tuple(percepts)
        self.history.append(Observation(move, seen))
        items = list(self.weights.items())
        self.rng.shuffle(items)
        found: dict[State, float] = {}
        examined = candidates = consistent = 0
        while examined < len(items):
            # Deadlines stop the update only once enough states survived: a belief
            # with no consistent state would yield moves that may be illegal,
            # where a late reply only costs the move the game master picks.
            if len(found) >= RESTART_BELOW and time.monotonic() >= deadline:
                break
            chunk = items[examined: examined + CHUNK]
            examined += len(chunk)
            asked = []
            for state, weight in chunk:
                joints, probability, complete = self._candidates(state, move)
                if not complete:
                    self.exact = False  # a sample of the joint moves, not all of them
                if joints:
                    asked.append((state, joints, weight * probability))
                    candidates += len(joints)
            answers = self.machine.consistent_successors_of_many(
                [(state, joints) for state, joints, _ in asked], self.role, seen)
            for (_, _, share), fits in zip(asked, answers):
                for _, after in fits:
                    consistent += 1
                    found[after] = found.get(after, 0.0) + share
        if examined < len(items):
            self.exact = False
        found = self._keep_live(found, final)
        restarted = 0
        if not found or (not self.exact and len(found) < RESTART_BELOW):
            fresh = self._restart(hard, RESTART_BELOW - len(found), final)
            restarted = sum(fresh.values())
            if fresh:
                self.exact = False
                share = (sum(found.values()) / len(found)) if found else 1.0
                for state, count in fresh.items():
                    found[state] = found.get(state, 0.0) + share * count
        self.lost = not found
        if self.lost:
            found = self._unchecked(items, move)
        if len(found) > self.capacity:
            found = self._resample(found)
            self.exact = False
        total = sum(found.values()) or 1.0
        self.weights = {state: weight / total for state, weight in found.items()} or self.weights
        report = BeliefUpdate(len(self.history), len(self.weights), examined, len(items), candidates,
                              consistent, restarted, self.exact, self.lost, time.monotonic() - began)
        return report

    # -- parts of an update ----------------------------------------------------------------

    def _candidates(self, state: State, move: Optional[Term]) -> tuple[list[list[Term]], float, bool]:
        """The joint moves from `state` that hold our move (all, or a uniform
        sample), the probability each stands for, and whether they are all of
        them; none when our move is not legal there (the state is not the true one)."""
        machine = self.machine
        options = []
        for role in range(len(machine.roles)):
            legal = machine.legal_moves(state, role)
            if role == self.role and move is not None:
                if move not in legal:
                    return [], 0.0, True
                legal = (move,)
            if not legal:
                return [], 0.0, True
            options.append(legal)
        size = math.prod(len(moves) for moves in options)
        if size <= ENUMERATION_LIMIT:
            return [list(joint) for joint in product(*options)], 1.0 / size, True
        rng = self.rng
        return [[rng.choice(moves) for moves in options] for _ in range(SAMPLED_JOINTS)], 1.0 / SAMPLED_JOINTS, False

    def _keep_live(self, found: dict[State, float], final: bool) -> dict[State, float]:
        """The states a message can come from: non-terminal ones after a PLAY
        (the game went on), terminal ones after a STOP; all of them when none
        is of that kind (a game master that stopped early is no reason to lose
        track)."""
        terminal = self.machine.is_terminal
        kept = {state: weight for state, weight in found.items() if terminal(state) == final}
        return kept or found

    def _restart(self, deadline: float, wanted: int, final: bool) -> dict[State, int]:
        """States at the end of histories drawn again from the initial state, each
        step's joint move drawn among those consistent with that step's percepts
        (how many times each state was reached). CHUNK histories go in step, one
        engine call per step for all of them."""
        machine = self.machine
        found: dict[State, int] = {}
        while time.monotonic() < deadline and sum(found.values()) < wanted:
            frontier = [self.initial] * CHUNK
            for step in self.history:
                asked = [(state, joints) for state in frontier if (joints := self._draws(state, step.move))]
                answers = machine.consistent_successors_of_many(asked, self.role, step.percepts)
                frontier = [self.rng.choice(fits)[1] for fits in answers if fits]
                if not frontier or time.monotonic() >= deadline:
                    break
                # histories that met a step with no consistent move give way to
                # copies of those that did (the population stays CHUNK strong)
                frontier += self.rng.choices(frontier, k=CHUNK - len(frontier))
            else:
                for state in frontier:
                    if machine.is_terminal(state) == final:
                        found[state] = found.get(state, 0) + 1
        return found

    def _draws(self, state: State, move: Optional[Term]) -> list[list[Term]]:
        """RESTART_CANDIDATES joint moves from `state` with our move, drawn
        uniformly (all of them when there are fewer)."""
        joints, _, _ = self._candidates(state, move)
        if len(joints) > RESTART_CANDIDATES:
            joints = self.rng.sample(joints, RESTART_CANDIDATES)
        return joints

    def _unchecked(self, items: list[tuple[State, float]], move: Optional[Term]) -> dict[State, float]:
        """When no state fits the percepts (a game whose percepts we model wrongly,
        or a belief that lost the true state): successors by our move, unchecked,
        so that play goes on with moves that were legal for us."""
        found: dict[State, float] = {}
        asked = []
        for state, weight in items[: self.capacity]:
            joints, _, _ = self._candidates(state, move)
            if joints:
                asked.append((state, [self.rng.choice(joints)], weight))
        answers = self.machine.consistent_successors_of_many([(state, joints) for state, joints, _ in asked],
                                                             self.role, None)
        for (_, _, weight), fits in zip(asked, answers):
            for _, after in fits:
                found[after] = found.get(after, 0.0) + weight
        if not found:
            log.error("belief: no successor at all for our move %s; keeping the previous states", move)
        return found

    def _resample(self, found: dict[State, float]) -> dict[State, float]:
        """`capacity` draws by weight (systematic resampling), duplicates merged."""
        states = list(found)
        weights = [found[state] for state in states]
        total = sum(weights)
        step = total / self.capacity
        offset = self.rng.random() * step
        kept: dict[State, float] = {}
        cumulative = 0.0
        index = 0
        for k in range(self.capacity):
            target = offset + k * step
            while cumulative + weights[index] < target and index < len(states) - 1:
                cumulative += weights[index]
                index += 1
            kept[states[index]] = kept.get(states[index], 0.0) + 1.0
        return kept
