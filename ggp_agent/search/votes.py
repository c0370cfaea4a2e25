"""A tree's root statistics for our role (`RootVote`), and the move several trees agree on.

What root parallelism (`parallel.RootParallelSearch`) merges: a move proven
to win in any tree (proofs are exact, whichever tree found them), else the
move with the most visits summed over the trees among those no tree proved
lost, unless a proven result is worth more than that move's mean reward (the
single tree's rule, `root.best_edge`, over the sums).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from ..gdl.terms import Term


@dataclass(frozen=True)
class RootVote:
    """One root edge of our role in one tree: its move, visits, reward sum (in
    [0, visits]) and proven goal (-1 when not proven)."""

    move: Term
    visits: int
    reward: float
    proven: int


def merge_votes(trees: Sequence[Sequence[RootVote]], best_goal: int) -> Optional[Term]:
    """The move to play from several trees' root votes (see the module docstring).

    >>> a, b = RootVote("a", 10, 6.0, -1), RootVote("b", 8, 6.0, -1)
    >>> merge_votes([[a, b], [RootVote("a", 1, 0.0, -1), RootVote("b", 9, 7.0, -1)]], 100)
    'b'
    >>> merge_votes([[a, b], [RootVote("a", 0, 0.0, 0), RootVote("b", 0, 0.0, 100)]], 100)
    'b'
    """
    visits: dict = {}
    reward: dict = {}
    proven: dict = {}
    for votes in trees:
        for vote in votes:
            visits[vote.move] = visits.get(vote.move, 0) + vote.visits
            reward[vote.move] = reward.get(vote.move, 0.0) + vote.reward
            if vote.proven >= 0:
                proven[vote.move] = vote.proven
    if not visits:
        return None
    wins = [move for move, goal in proven.items() if goal >= best_goal]
    if wins:
        return max(wins, key=lambda move: visits[move])
    open_moves = [move for move in visits if proven.get(move, 1) > 0] or list(visits)
    best = max(open_moves, key=lambda move: visits[move])
    known = [move for move in proven if proven[move] > 0]
    if known and visits[best] > 0:
        surest = max(known, key=lambda move: proven[move])
        if proven[surest] > 100.0 * reward[best] / visits[best]:
            return surest
    return best


