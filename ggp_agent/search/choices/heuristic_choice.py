"""A heuristic found at START: what a position is worth before the game ends.

Random playouts carry no material: in breakthrough the capture that decides
a game moves a random playout's outcome little, and the search sees the
material it lost only when the game is lost. Sancho, the 2014 champion,
looks in the rules for pieces and keeps them where their count goes with
the outcome; so does this module, from the fluents a propnet knows and
random playouts from the start:

- **Piece sets.** Where the fluents hold a board (`gdl.board.find_board`),
  each thing a cell can hold (the arguments that are not coordinates, e.g.
  breakthrough's `white`) is a set: its fluents on every cell. Elsewhere,
  each relation's fluents grouped by the arguments with at most
  `CONTENT_VALUES` values. A set counts from `MIN_SET_SIZE` fluents.
- **Which sets are material.** Over the sampled playouts, a set's count
  must stay the same on at least `MIN_NO_CHANGE` of the steps (pieces are
  not placed or flipped every turn: that is Hex's and Reversi's count, a
  clock more than a material), must go down in at least `MIN_LOSS_SHARE` of
  the playouts (pieces can be lost: Hex's stones and connect four's discs
  never are), and its count at the end must correlate with a role's goal
  by at least `MIN_CORRELATION` (Sancho's threshold); the set then counts
  for the role it goes with. A heuristic with material needs a set for
  every role: one side's count alone says nothing about a lead.
- **Goal values before the end.** Where the goal relation gives states
  before the end values that vary and correlate with the final goals by at
  least `MIN_GOAL_CORRELATION` (a count of discs, boxes closed), the goals
  of a state count too.

The finding says what was looked at, kept and why (the START log and the
match record carry it). The values it gives a state are computed by
`tree/heuristic.py`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from ...gdl.board import find_board
from ...gdl.terms import Compound, Rule, Term
from ...propnet.kernels.bits import rand_below
from ...propnet.jit.decorators import allocating_kernel
from ...propnet.kernels.state_kernels import advance, goals, is_terminal, legal_codes, load_state
from ..tree.arena import C_HEUR_SETS, H_GOALS, H_MATERIAL, HEURISTIC_SETS

#: A piece set has at least this many fluents (Sancho: 6).
MIN_SET_SIZE = 6
#: Arguments with at most this many values say what a cell holds (when no board is found).
CONTENT_VALUES = 4
#: Share of steps a material set's count stays the same, at least.
MIN_NO_CHANGE = 0.5
#: Share of playouts in which a material set's count goes down, at least.
MIN_LOSS_SHARE = 0.2
#: Correlation of a set's final count with a role's goal, at least (Sancho's 0.06).
MIN_CORRELATION = 0.06
#: Correlation of a state's goal values with the final ones, at least.
MIN_GOAL_CORRELATION = 0.3
#: What one unit of material lead is worth, in logits (Sancho's piece heuristic:
#: the lead over the total, scaled by a quarter of the total).
MATERIAL_LOGIT = 0.25
#: The goals' share in a state's value where both material and goals count.
GOAL_WEIGHT = 0.5
#: What the sampling may spend: playouts, steps each, seconds.
PLAYOUTS = 400
MAX_STEPS = 300
SECONDS = 1.0
CHUNK = 25


@allocating_kernel
def sample_playouts(net, work, rng, start_words, first, states, goal_values, lengths, finals):
    """Random playouts from `start_words` into slots `first` .. `first + n - 1`
    (n = as many as `lengths` holds from `first`): `states[p, s]` the state
    words after s joint moves (s = 0 the start), `goal_values[p, s]` its goal
    values, `lengths[p]` the joint moves played (cut at `states.shape[1] - 1`),
    `finals[p]` the goal values of the last state."""
    steps_max = states.shape[1] - 1
    joint = work.joint
    buffer = work.codes
    for p in range(first, lengths.shape[0]):
        load_state(net, work, start_words)
        steps = 0
        while True:
            for w in range(states.shape[2]):
                states[p, steps, w] = work.state[w]
            goals(net, work, goal_values[p, steps])
            if steps >= steps_max or is_terminal(net, work):
                break
            broken = False
            for r in range(net.n_roles):
                n = legal_codes(net, work, r, buffer)
                if n == 0:
                    broken = True
                    break
                joint[r] = buffer[rand_below(rng, n)]
            if broken:
                break
            advance(net, work, joint)
            steps += 1
        lengths[p] = steps
        for r in range(net.n_roles):
            finals[p, r] = goal_values[p, steps, r]


@dataclass(frozen=True)
class PieceSet:
    """Fluents that count as pieces of one kind: a name for the log, the
    fluents' indexes and their mask over state words."""

    name: str
    fluents: tuple[int, ...]
    mask: np.ndarray = field(compare=False, repr=False)


@dataclass(frozen=True)
class Candidate:
    """A piece set as measured: the share of steps its count stayed, the
    share of playouts it went down in, its final count's correlation with
    each role's goal, and the role it counts for (-1: not material)."""

    pieces: PieceSet
    no_change: float
    loss_share: float
    correlations: tuple[float, ...]
    role: int
    why: str

    def describe(self) -> str:
        cors = "/".join(f"{c:+.2f}" for c in self.correlations)
        kept = f"for role {self.role}" if self.role >= 0 else f"not kept ({self.why})"
        return (f"{self.pieces.name} ({len(self.pieces.fluents)} fluents): same {self.no_change:.2f}, "
                f"lost in {self.loss_share:.2f}, correlation {cors}: {kept}")


@dataclass(frozen=True)
class Heuristic:
    """What START found: the material sets kept (each with its role and
    weight), whether the goal values of a state count, and why."""

    sets: tuple[tuple[PieceSet, int, float], ...]
    goals: bool
    reason: str
    candidates: tuple[Candidate, ...] = ()
    goal_correlation: Optional[float] = None
    playouts: int = 0
    #: mean joint moves of the sampled playouts (what a trial game may last)
    mean_length: float = 0.0

    @property
    def found(self) -> bool:
        return bool(self.sets) or self.goals

    def material_logit(self) -> float:
        return MATERIAL_LOGIT if self.sets else 0.0

    def goal_weight(self) -> float:
        if not self.goals:
            return 0.0
        return GOAL_WEIGHT if self.sets else 1.0

    def to_json(self) -> dict:
        return {
            "found": self.found,
            "reason": self.reason,
            "material": [{"set": s.name, "role": role, "weight": weight} for s, role, weight in self.sets],
            "goals": self.goals,
            "goal_correlation": None if self.goal_correlation is None else round(self.goal_correlation, 3),
            "candidates": [c.describe() for c in self.candidates],
            "playouts": self.playouts,
            "mean_length": round(self.mean_length, 1),
        }


NO_HEURISTIC = Heuristic((), False, "not measured")


def resolve_heuristic(runner, state, terminal: bool, seconds: float) -> tuple[str, str]:
    """What heuristic="auto" means for this search, and why: "on" where
    random playouts from `state` support a heuristic (measured within
    `seconds`, at most SECONDS), else "off"."""
    if terminal:
        return "off", "the state is terminal"
    found = runner.find_heuristic(state, min(SECONDS, seconds))
    return ("on" if found.found else "off"), found.reason


def piece_sets(fluents: Sequence[Term], rules: Sequence[Rule], n_words: int) -> list[PieceSet]:
    """The candidate piece sets among `fluents` (fluent i is bit i of a state)."""
    layout = find_board(fluents, rules)
    groups: dict[tuple, list[int]] = defaultdict(list)
    if layout is not None:
        coordinates = {layout.x_arg, layout.y_arg}
        for i, fluent in enumerate(fluents):
            if (isinstance(fluent, Compound) and fluent.functor == layout.relation
                    and len(fluent.args) == layout.arity):
                content = tuple(str(a) for j, a in enumerate(fluent.args) if j not in coordinates)
                if content:
                    groups[(layout.relation, content)].append(i)
    else:
        by_relation: dict[tuple[str, int], list[int]] = defaultdict(list)
        for i, fluent in enumerate(fluents):
            if isinstance(fluent, Compound) and len(fluent.args) >= 2:
                by_relation[(fluent.functor, len(fluent.args))].append(i)
        for (relation, arity), members in by_relation.items():
            values = [{str(fluents[i].args[j]) for i in members} for j in range(arity)]
            content_args = [j for j in range(arity) if 1 < len(values[j]) <= CONTENT_VALUES]
            if not content_args or len(content_args) == arity:
                continue
            for i in members:
                groups[(relation, tuple(str(fluents[i].args[j]) for j in content_args))].append(i)
    sets = []
    for (relation, content), members in sorted(groups.items()):
        if len(members) < MIN_SET_SIZE:
            continue
        mask = np.zeros(n_words, dtype=np.uint64)
        for i in members:
            mask[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
        sets.append(PieceSet(f"({relation} ... {' '.join(content)})", tuple(members), mask))
    return sets


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 3 or x.std() == 0 or y.std() == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1])


def measure_set(pieces: PieceSet, states: np.ndarray, lengths: np.ndarray, finals: np.ndarray) -> Candidate:
    """A piece set measured over sampled playouts (see the module docstring)."""
    counts = np.bitwise_count(states & pieces.mask).sum(axis=2).astype(np.int64)
    same = steps = lost = 0
    final_counts = np.empty(len(lengths), dtype=np.float64)
    for p, length in enumerate(lengths):
        c = counts[p, :length + 1]
        diffs = np.diff(c)
        same += int((diffs == 0).sum())
        steps += len(diffs)
        lost += bool((diffs < 0).any())
        final_counts[p] = c[-1]
    no_change = same / steps if steps else 1.0
    loss_share = lost / len(lengths) if len(lengths) else 0.0
    correlations = tuple(_correlation(final_counts, finals[:, r].astype(np.float64)) for r in range(finals.shape[1]))
    role, why = -1, ""
    if no_change < MIN_NO_CHANGE:
        why = f"changes on {1 - no_change:.2f} of the steps"
    elif loss_share < MIN_LOSS_SHARE:
        why = f"lost in {loss_share:.2f} of the playouts"
    else:
        best = int(np.argmax(correlations))
        if correlations[best] >= MIN_CORRELATION:
            role = best
        else:
            why = f"correlation below {MIN_CORRELATION}"
    return Candidate(pieces, no_change, loss_share, correlations, role, why)


def goal_stability(goal_values: np.ndarray, lengths: np.ndarray, finals: np.ndarray) -> Optional[float]:
    """The correlation of the goal values of states before the end with the
    final goals, over every role (None when they never vary before the end)."""
    xs, ys = [], []
    for p, length in enumerate(lengths):
        if length < 2:
            continue
        xs.append(goal_values[p, :length].astype(np.float64))
        ys.append(np.broadcast_to(finals[p], goal_values[p, :length].shape).astype(np.float64))
    if not xs:
        return None
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    if x.std(axis=0).max() == 0:
        return None
    cors = [_correlation(x[:, r], y[:, r]) for r in range(x.shape[1]) if x[:, r].std() > 0]
    return min(cors) if cors else None


def find_heuristic(fluents: Sequence[Term], rules: Sequence[Rule], n_roles: int, states: np.ndarray,
                   goal_values: np.ndarray, lengths: np.ndarray, finals: np.ndarray) -> Heuristic:
    """The heuristic the sampled playouts support (see the module docstring)."""
    playouts = len(lengths)
    mean_length = float(lengths.mean()) if playouts else 0.0
    if playouts < 10:
        return Heuristic((), False, f"too few playouts sampled ({playouts})", playouts=playouts,
                         mean_length=mean_length)
    candidates = tuple(measure_set(s, states, lengths, finals)
                       for s in piece_sets(fluents, rules, states.shape[2]))
    kept = [c for c in candidates if c.role >= 0]
    roles_with_sets = {c.role for c in kept}
    sets: tuple = ()
    notes = []
    if kept and len(roles_with_sets) == n_roles and n_roles >= 2:
        kept.sort(key=lambda c: -c.correlations[c.role])
        sets = tuple((c.pieces, c.role, 1.0) for c in kept[:HEURISTIC_SETS])
        notes.append("material: " + ", ".join(f"{c.pieces.name} for role {c.role} "
                                              f"({c.correlations[c.role]:+.2f})" for c in kept[:HEURISTIC_SETS]))
    elif kept:
        notes.append(f"no material: piece sets for roles {sorted(roles_with_sets)} only")
    else:
        notes.append(f"no material among {len(candidates)} candidate sets")
    stability = goal_stability(goal_values, lengths, finals)
    use_goals = stability is not None and stability >= MIN_GOAL_CORRELATION
    if stability is None:
        notes.append("goals do not vary before the end")
    else:
        notes.append(f"goals before the end correlate {stability:+.2f} with the final ones"
                     + ("" if use_goals else f" (below {MIN_GOAL_CORRELATION})"))
    return Heuristic(sets, use_goals, f"{'; '.join(notes)} ({playouts} playouts)", candidates, stability, playouts,
                     mean_length)


def sample(net, work, rng, start_words: np.ndarray, seconds: float = SECONDS, playouts: int = PLAYOUTS,
           max_steps: int = MAX_STEPS) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Random playouts from `start_words` within about `seconds` (at least
    one chunk): states, goal values, lengths and final goals, trimmed to the
    playouts played."""
    n_words = max(1, int(net.n_words))
    states = np.zeros((playouts, max_steps + 1, n_words), dtype=np.uint64)
    goal_values = np.zeros((playouts, max_steps + 1, int(net.n_roles)), dtype=np.int32)
    finals = np.zeros((playouts, int(net.n_roles)), dtype=np.int32)
    lengths = np.zeros(playouts, dtype=np.int64)
    deadline = time.perf_counter() + seconds
    done = 0
    while done < playouts:
        upto = min(playouts, done + CHUNK)
        sample_playouts(net, work, rng, start_words, done, states[:upto], goal_values[:upto],
                        lengths[:upto], finals[:upto])
        done = upto
        if time.perf_counter() > deadline:
            break
    return states[:done], goal_values[:done], lengths[:done], finals[:done]


def store_heuristic(A, heuristic: Heuristic) -> None:
    """Put a finding into the arena's heuristic arrays (`tree/heuristic.py`)."""
    A.heur_mask[:] = 0
    for k, (pieces, role, weight) in enumerate(heuristic.sets):
        A.heur_mask[k, :len(pieces.mask)] = pieces.mask
        A.heur_role[k] = role
        A.heur_weight[k] = weight
    A.counters[C_HEUR_SETS] = len(heuristic.sets)
    A.heur_coef[H_MATERIAL] = heuristic.material_logit()
    A.heur_coef[H_GOALS] = heuristic.goal_weight()
