"""A tree's root statistics for our role (`RootVote`), and the move several trees agree on.

What root parallelism (`parallel/root_parallel.RootParallelSearch`) merges: a move proven
to win in any tree (proofs are exact, whichever tree found them), the one
with the shortest proof, or where every move is proven the best proof
(`solver.proof_rank`, the order one tree's solver uses), else the move with
the most visits summed over the trees among those no tree proved lost,
unless a proven result is worth more than that move's mean reward (the
single tree's rule, `root.best_edge`, over the sums). The shortest win
matters as much as in one tree: where every move is a proven win (a loop
beside the winning line), taking the most visited one can walk the loop for
ever (`solver.proof_rank`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from ...gdl.terms import Term
from ..tree.arena import C_ROOT, EXPANDED, PROVEN, Arena
from ..tree.solver import proof_rank
from ..tree.table import choosers


@dataclass(frozen=True)
class RootVote:
    """One root edge of our role in one tree: its move, visits, reward sum (in
    [0, visits]), proven goal (-1 when not proven) and the proof's length in
    moves (the child's proof plus one; -1 when not proven)."""

    move: Term
    visits: int
    reward: float
    proven: int
    proof: int = -1


def merge_votes(trees: Sequence[Sequence[RootVote]], best_goal: int) -> Optional[Term]:
    """The move to play from several trees' root votes (see the module docstring).

    >>> a, b = RootVote("a", 10, 6.0, -1), RootVote("b", 8, 6.0, -1)
    >>> merge_votes([[a, b], [RootVote("a", 1, 0.0, -1), RootVote("b", 9, 7.0, -1)]], 100)
    'b'
    >>> merge_votes([[a, b], [RootVote("a", 0, 0.0, 0), RootVote("b", 0, 0.0, 100)]], 100)
    'b'
    >>> loop, line = RootVote("loop", 90, 90.0, 100, 3), RootVote("line", 10, 10.0, 100, 2)
    >>> merge_votes([[loop, line]], 100)
    'line'
    >>> draw_loop, draw_line = RootVote("loop", 90, 60.0, 50, 3), RootVote("line", 10, 5.0, 50, 2)
    >>> merge_votes([[draw_loop, draw_line]], 100)
    'line'
    """
    visits: dict = {}
    reward: dict = {}
    proven: dict = {}
    proof: dict = {}
    for votes in trees:
        for vote in votes:
            visits[vote.move] = visits.get(vote.move, 0) + vote.visits
            reward[vote.move] = reward.get(vote.move, 0.0) + vote.reward
            if vote.proven >= 0:
                proven[vote.move] = vote.proven
                proof[vote.move] = min(proof.get(vote.move, vote.proof), vote.proof)
    if not visits:
        return None
    wins = [move for move, goal in proven.items() if goal >= best_goal]
    if wins or len(proven) == len(visits):  # a proven win, or every move proven
        return max(wins or proven, key=lambda move: (proof_rank(proven[move], proof[move]), visits[move]))
    open_moves = [move for move in visits if proven.get(move, 1) > 0] or list(visits)
    best = max(open_moves, key=lambda move: visits[move])
    known = [move for move in proven if proven[move] > 0]
    if known and visits[best] > 0:
        surest = max(known, key=lambda move: proof_rank(proven[move], proof[move]))
        if proven[surest] > 100.0 * reward[best] / visits[best]:
            return surest
    return best


def tree_votes(A: Arena, role: int, move_of: Callable[[int], Term]) -> list:
    """Our role's root edges in one tree as `RootVote`s (a proof counts only
    where our role alone chooses: the edges then lead to children)."""
    root = int(A.counters[C_ROOT])
    if not A.node_flags[root] & EXPANDED:
        return []
    lo, hi = int(A.node_edges[root, role]), int(A.node_edges[root, role + 1])
    many, key_role = choosers(A, root)
    solver = int(many) == 1 and int(key_role) == role
    votes = []
    for e in range(lo, hi):
        child = int(A.edge_child[e])
        proven = proof = -1
        if solver and child >= 0 and A.node_flags[child] & PROVEN:
            proven = int(A.node_goals[child, role])
            proof = int(A.node_proof[child]) + 1
        votes.append(RootVote(move_of(int(A.edge_code[e])), int(A.edge_n[e]), float(A.edge_w[e]), proven, proof))
    return votes


def offered_moves(A: Arena, role: int, move_of: Callable[[int], Term]) -> Optional[list]:
    """Our role's moves at the root, from the edges `tree_votes` reads (None
    while the root is unexpanded): a root change checks them against our legal moves."""
    if not A.node_flags[int(A.counters[C_ROOT])] & EXPANDED:
        return None
    return [vote.move for vote in tree_votes(A, role, move_of)]
