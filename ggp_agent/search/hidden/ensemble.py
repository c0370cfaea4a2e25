"""Ensemble Determinization MCTS's rules: its settings, how the trees' root
statistics become one move, and how the number of trees changes between turns.

Pure functions over small tables, so that the search (`determinized.py`) and
the tests call the same rules. The rules follow Kowalski et al.'s dynamic
ED-MCTS (Section 3 of their paper):

- **final move** (`aggregate`): `visits` (the most visits summed over the
  trees), `score` (the highest sum of the trees' mean values), `voting` (each
  tree votes for its own best move) or `borda` (each tree gives a move one point
  per move it outranks); ties go to the higher summed score. Each tree counts
  with its determinization's weight (`belief.Belief.determinizations`: a share
  of the belief), scaled so that the weights average 1.
- **margin** (in trees): how many trees that support the winner would have to
  be taken out before the runner-up catches up (for voting, the vote lead).
- **dynamic number of determinizations** (`next_tree_count`): after L turns in
  a row with a margin of at most M↑ the next turn uses one more tree; after L
  turns in a row with a margin of at least M↓, one fewer (more first).
- **simulation allocation**: `uniform` (the same iterations per tree) or `ucb`,
  the paper's across-tree UCB: the ensemble is one bandit over our root moves
  (visits and values summed over the trees), and the move it picks is forced at
  the root of every tree for the next few iterations.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Mapping, Sequence

from ..tree.settings import with_options

#: Final-move rules.
AGGREGATIONS = ("visits", "score", "voting", "borda")
#: How iterations are spread over the trees.
ALLOCATIONS = ("uniform", "ucb")


@dataclass(frozen=True)
class EnsembleParams:
    """ED-MCTS's settings (all settable by name, like `SearchParams`'s).

    - `trees`: T, the number of determinizations (the first turn's, when dynamic).
    - `max_trees`: the most the dynamic rule may reach.
    - `aggregate`: the final-move rule (`AGGREGATIONS`); `score` by default:
      the solver settles small determinizations (a card game's last tricks),
      and then the proven values say more than the visits that led to them.
    - `dynamic`: change T between turns by the margin rule; `streak` is L
      (L↑ = L↓), `margin_up` M↑ and `margin_down` M↓.
    - `allocation`: `uniform` or `ucb` (across-tree UCB), with `ucb_c` its
      exploration constant on rewards in [0, 1].
    """

    trees: int = 8
    max_trees: int = 16
    aggregate: str = "score"
    dynamic: bool = False
    streak: int = 1
    margin_up: int = 2
    margin_down: int = 2
    allocation: str = "uniform"
    ucb_c: float = 0.4

    def __post_init__(self) -> None:
        if not 1 <= self.trees <= self.max_trees <= 256:
            raise ValueError(f"trees {self.trees} and max_trees {self.max_trees} must satisfy 1 <= trees <= max_trees <= 256")
        if self.aggregate not in AGGREGATIONS:
            raise ValueError(f"unknown aggregate {self.aggregate!r}; known: {', '.join(AGGREGATIONS)}")
        if self.allocation not in ALLOCATIONS:
            raise ValueError(f"unknown allocation {self.allocation!r}; known: {', '.join(ALLOCATIONS)}")
        if self.streak < 1 or self.margin_up < 0 or self.margin_down < 0 or self.ucb_c < 0:
            raise ValueError(f"ensemble settings out of range: {self}")

    def with_options(self, options: Mapping[str, object]) -> "EnsembleParams":
        """A copy with `options` (names of fields, values as text or numbers) applied."""
        return with_options(self, options, "ensemble")

    def to_json(self) -> dict:
        return asdict(self)


#: The settings a player may give by name.
ENSEMBLE_CONSTANTS = tuple(f.name for f in fields(EnsembleParams))


@dataclass(frozen=True)
class TreeRoot:
    """One tree's root statistics for our moves: visits and mean value per move
    (by move code), its weight, and its own best move (proven results first)."""

    weight: float
    visits: Mapping[int, float]
    values: Mapping[int, float]
    best: int


@dataclass(frozen=True)
class Decision:
    """The ensemble's choice: the move (code), the runner-up, the margin in trees,
    and each move's summed figure under the rule."""

    move: int
    runner_up: int
    margin: int
    totals: Mapping[int, float]


def decide(trees: Sequence[TreeRoot], rule: str) -> Decision:
    """The final move of an ensemble under `rule` (see the module docstring).

    >>> a = TreeRoot(1.0, {1: 90, 2: 10}, {1: 0.7, 2: 0.4}, 1)
    >>> b = TreeRoot(1.0, {1: 30, 2: 70}, {1: 0.5, 2: 0.6}, 2)
    >>> decide([a, a, b], "visits").move, decide([a, a, b], "visits").margin
    (1, 2)
    >>> decide([a, b, b], "voting").move, decide([a, b, b], "voting").margin
    (2, 1)
    """
    if not trees:
        raise ValueError("an ensemble of no trees decides nothing")
    scale = len(trees) / (sum(t.weight for t in trees) or 1.0)
    weights = [t.weight * scale for t in trees]
    moves = sorted({code for t in trees for code in t.visits})
    if not moves:
        raise ValueError("no tree holds a root move")
    contribution = [_points(t, moves, rule) for t in trees]
    totals = {m: sum(w * c[m] for w, c in zip(weights, contribution)) for m in moves}
    scores = {m: sum(w * t.values.get(m, 0.0) for w, t in zip(weights, trees)) for m in moves}
    ranked = sorted(moves, key=lambda m: (-totals[m], -scores[m], m))
    winner = ranked[0]
    if len(ranked) == 1:
        return Decision(winner, winner, len(trees), totals)
    second = ranked[1]
    lead = totals[winner] - totals[second]
    gains = sorted((w * (c[winner] - c[second]) for w, c in zip(weights, contribution)), reverse=True)
    margin = 0
    slack = 1e-9 * max(1.0, abs(lead))
    for gain in gains:  # the gains add up to the lead: this ends with lead <= 0
        if lead <= slack or gain <= 0:
            break
        lead -= gain
        margin += 1
    return Decision(winner, second, margin, totals)


def _points(tree: TreeRoot, moves: Sequence[int], rule: str) -> dict[int, float]:
    """What one tree gives each move under `rule`."""
    if rule == "visits":
        return {m: float(tree.visits.get(m, 0.0)) for m in moves}
    if rule == "score":
        return {m: float(tree.values.get(m, 0.0)) for m in moves}
    if rule == "voting":
        return {m: 1.0 if m == tree.best else 0.0 for m in moves}
    if rule == "borda":
        ranking = sorted(moves, key=lambda m: (tree.visits.get(m, 0.0), tree.values.get(m, 0.0)))
        return {m: float(rank) for rank, m in enumerate(ranking)}
    raise ValueError(f"unknown aggregate {rule!r}; known: {', '.join(AGGREGATIONS)}")


def next_tree_count(current: int, margins: Sequence[int], params: EnsembleParams) -> int:
    """T for the next turn from the margins of the turns since T last changed
    (the dynamic number of determinizations; unchanged when `dynamic` is off).

    >>> p = EnsembleParams(trees=4, dynamic=True, streak=2, margin_up=1, margin_down=3)
    >>> next_tree_count(4, [1, 0], p), next_tree_count(4, [3, 5], p), next_tree_count(4, [1, 3], p)
    (5, 3, 4)
    """
    if not params.dynamic or len(margins) < params.streak:
        return current
    recent = margins[-params.streak:]
    if all(m <= params.margin_up for m in recent):
        return min(current + 1, params.max_trees)
    if all(m >= params.margin_down for m in recent):
        return max(current - 1, 1)
    return current


def ucb_move(visits: Mapping[int, float], values: Mapping[int, float], c: float) -> int:
    """Across-tree UCB: the root move to force in every tree next, from the
    visits and value sums added over the trees (an untried move first).

    >>> ucb_move({1: 10, 2: 0}, {1: 5.0, 2: 0.0}, 0.4)
    2
    """
    total = sum(visits.values())
    log_total = math.log(total) if total > 1 else 0.0
    best, best_value = -1, -math.inf
    for move in sorted(visits):
        n = visits[move]
        if n <= 0:
            return move
        value = values[move] / n + c * math.sqrt(log_total / n)
        if value > best_value:
            best, best_value = move, value
    return best
