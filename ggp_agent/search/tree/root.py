"""The root: the child a played joint move leads to, and the move to play.

`best_edge` is what the player's reply comes from: a proven win first, never
a proven loss while something else remains, else the most visited edge;
`played_edge` adds regret matching's mixed strategy at a simultaneous root.
`move_decided` says when searching longer cannot change that move, so the
player may answer at once.
"""

from __future__ import annotations

from ...propnet.jit.decorators import kernel
from .arena import C_ROOT, EXPANDED, PROVEN, TERMINAL
from .params import P_SIM, SIM_RM
from .regret import root_sample, simultaneous
from .select import role_best_goal
from .solver import better_proof
from .table import choosers, find_child


@kernel
def root_child(A, joint_codes):
    """The root's child by a joint move (one code per role), or -1 when the tree
    does not hold it."""
    root = A.counters[C_ROOT]
    if (A.node_flags[root] & EXPANDED) == 0:
        return -1
    for r in range(A.node_edges.shape[1] - 1):
        found = -1
        for e in range(A.node_edges[root, r], A.node_edges[root, r + 1]):
            if A.edge_code[e] == joint_codes[r]:
                found = e
                break
        if found < 0:
            return -1
        A.path_edge[0, r] = found
    return find_child(A, root, 0)


@kernel
def root_choice_codes(A, joint_codes, out):
    """The statistics codes of a joint move (move codes, one per role) that were
    a choice at the root (into out); returns how many, or -1 when the root has
    no edges (unknown)."""
    root = A.counters[C_ROOT]
    if (A.node_flags[root] & EXPANDED) == 0:
        return -1
    n = 0
    for r in range(A.node_edges.shape[1] - 1):
        lo = A.node_edges[root, r]
        hi = A.node_edges[root, r + 1]
        if hi - lo > 1:
            for e in range(lo, hi):
                if A.edge_code[e] == joint_codes[r]:
                    out[n] = A.edge_feat[e]
                    n += 1
                    break
    return n


@kernel
def best_edge(A, role):
    """The edge `role` should play at the root: a proven win if there is one
    (the shortest), or at a proven root the child its proof rests on; else
    the most visited edge that is not a proven loss (a proven result worth
    more than that edge's mean goes first); -1 when the root has no edges.
    A proven root's moves are all known: the most visited one may be a
    proven draw that loops back (a game that does not end, which GDL
    forbids and hostile rules do not), while the proof's child ends."""
    root = A.counters[C_ROOT]
    if (A.node_flags[root] & EXPANDED) == 0:
        return -1
    lo = A.node_edges[root, role]
    hi = A.node_edges[root, role + 1]
    many, key_role = choosers(A, root)
    solver = many == 1 and key_role == role
    best_goal = role_best_goal(A, role)
    best = -1
    best_n = -1
    proven_best = -1
    proven_goal = -1
    for e in range(lo, hi):
        if solver:
            child = A.edge_child[e]
            if child >= 0 and (A.node_flags[child] & PROVEN) != 0:
                g = A.node_goals[child, role]
                if proven_best < 0 or better_proof(A, role, child, A.edge_child[proven_best]):
                    proven_goal = g
                    proven_best = e
                if g >= best_goal or g <= 0:
                    continue
        if A.edge_n[e] > best_n:
            best_n = A.edge_n[e]
            best = e
    if proven_best >= 0 and (proven_goal >= best_goal or (A.node_flags[root] & PROVEN) != 0):
        return proven_best  # the shortest proven win, or the proof of a proven root
    if best < 0:
        return proven_best if proven_best >= 0 else lo
    if proven_best >= 0 and best_n > 0:
        mean = 100.0 * A.edge_w[best] / best_n
        if proven_goal > mean:
            return proven_best
    return best


@kernel
def played_edge(A, P, role, rng):
    """The edge `role` plays at the root: `best_edge`, except at a simultaneous
    root under regret matching (`sim=rm`), where the move is drawn from the
    average strategy (a deterministic reply to a mixed equilibrium is exploitable)."""
    root = A.counters[C_ROOT]
    if P[P_SIM] == SIM_RM and (A.node_flags[root] & EXPANDED) != 0 and simultaneous(A, root):
        e = root_sample(A, P, root, role, rng)
        if e >= 0:
            return e
    return best_edge(A, role)


@kernel
def depth_of_tree(A, limit):
    """Nodes the tree reaches below the root along its most visited line (a cheap
    'depth reached' figure for the logs), at most `limit`."""
    node = A.counters[C_ROOT]
    depth = 0
    while depth < limit and (A.node_flags[node] & EXPANDED) != 0:
        many, role = choosers(A, node)
        if many >= 2:
            break
        best = -1
        best_n = 0
        for e in range(A.node_edges[node, role], A.node_edges[node, role + 1]):
            if A.edge_n[e] > best_n and A.edge_child[e] >= 0:
                best_n = A.edge_n[e]
                best = e
        if best < 0:
            break
        node = A.edge_child[best]
        depth += 1
    return depth


@kernel
def move_decided(A, role, solver):
    """Whether more search cannot change the move `role` plays at the root
    (`best_edge`): the root is terminal, or, with the solver on, proven (a
    proven win, or every move proven), or `role` chooses alone there and every
    move but one is a proven loss (the one left is forced). Where several
    roles choose nothing is ever proven, so the answer is never decided early."""
    root = A.counters[C_ROOT]
    flags = A.node_flags[root]
    if (flags & TERMINAL) != 0:
        return True
    if not solver or (flags & EXPANDED) == 0:
        return False
    if (flags & PROVEN) != 0:
        return True
    many, key_role = choosers(A, root)
    if many != 1 or key_role != role:
        return False
    open_moves = 0
    for e in range(A.node_edges[root, role], A.node_edges[root, role + 1]):
        child = A.edge_child[e]
        if child < 0 or (A.node_flags[child] & PROVEN) == 0 or A.node_goals[child, role] > 0:
            open_moves += 1
            if open_moves > 1:
                return False
    return True

