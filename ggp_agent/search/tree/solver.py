"""The solver: nodes whose value is proven, and how a proof travels up the tree.

Terminal nodes are proven. A node where one role chooses is proven when a child
is proven to give that role its best goal (the highest goal value it can get,
known from the propnet, else 100), or when every child is proven (its value is
then the child best for that role). Nodes where several roles choose are never
proven: no pure minimax value exists in general. A node where only the chance
role chooses is proven when every child is proven to the same goals (its value
is an expectation, not a choice). Proof lengths make every proven line end
(see `better_proof`).
"""

from __future__ import annotations

import numpy as np

from ...propnet.jit.decorators import kernel
from .arena import C_CHANCE, C_PROVEN, EXPANDED, PROVEN
from .select import role_best_goal
from .table import choosers


@kernel
def _prove(A, node, child):
    A.node_flags[node] |= PROVEN
    A.node_proof[node] = A.node_proof[child] + 1
    A.counters[C_PROVEN] += 1
    for r in range(A.node_goals.shape[1]):
        A.node_goals[node, r] = A.node_goals[child, r]


@kernel
def try_prove(A, node):
    """Mark `node` proven when its children decide it: where one role chooses,
    a child proven to give that role its best goal, or every child proven (the
    value is the child best for that role); where no role chooses, the one
    child. Nodes where several roles choose are never proven (no pure minimax
    value exists in general)."""
    if (A.node_flags[node] & PROVEN) != 0:
        return True
    if (A.node_flags[node] & EXPANDED) == 0:
        return False
    many, role = choosers(A, node)
    if many >= 2:
        return False
    if many == 1 and role == A.counters[C_CHANCE]:
        return _prove_chance(A, node, A.node_edges[node, role], A.node_edges[node, role + 1])
    lo = A.node_edges[node, role]
    hi = A.node_edges[node, role + 1]
    best_goal = role_best_goal(A, role)
    best = -1
    all_proven = True
    for e in range(lo, hi):
        child = A.edge_child[e]
        if child < 0 or (A.node_flags[child] & PROVEN) == 0:
            all_proven = False
            continue
        g = A.node_goals[child, role]
        if g >= best_goal:
            _prove(A, node, child)
            return True
        if best < 0 or better_proof(A, role, child, best):
            best = child
    if all_proven and best >= 0:
        _prove(A, node, best)
        return True
    return False


@kernel
def _prove_chance(A, node, lo, hi):
    """A chance node is proven when every child is proven to the same goals."""
    first = -1
    for e in range(lo, hi):
        child = A.edge_child[e]
        if child < 0 or (A.node_flags[child] & PROVEN) == 0:
            return False
        if first < 0:
            first = child
        for r in range(A.node_goals.shape[1]):
            if A.node_goals[child, r] != A.node_goals[first, r]:
                return False
    if first < 0:
        return False
    _prove(A, node, first)
    return True


#: Proof lengths stay below this (a proof is at most as long as the node pool).
PROOF_SPAN = 1 << 32


def proof_rank(goal: int, proof: int) -> int:
    """A proven result in the solver's order, as one number, higher first: a
    higher goal, then at a goal above 0 the shorter proof (a win comes
    sooner), at 0 the longer (a loss comes later). Proof lengths make every
    proven line end: a node's proof is one longer than the child's it rests
    on, so following shortest wins (and the opponent's longest losses) never
    cycles. Plain Python, for the merge of several trees' votes
    (`votes.merge_votes`), and compiled for the kernels (`_proof_rank`): one
    order for both."""
    return goal * PROOF_SPAN + (PROOF_SPAN - 1 - proof if goal > 0 else proof)


_proof_rank = kernel(proof_rank)


@kernel
def better_proof(A, role, child, other):
    """Whether proven `child` is a better choice than proven `other` for
    `role` (`proof_rank`)."""
    return (_proof_rank(np.int64(A.node_goals[child, role]), np.int64(A.node_proof[child]))
            > _proof_rank(np.int64(A.node_goals[other, role]), np.int64(A.node_proof[other])))
