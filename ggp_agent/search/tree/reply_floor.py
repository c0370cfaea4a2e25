"""The reply floor: no reply of another role near the root goes unmeasured.

MCPS has no exploration term (`explore=0`, the published rule): at a node
where the opponent chooses, a reply its priors rank low is tried once, as
every untried edge is, and then never again while the replies the priors
favour take every visit. That reply's danger is never measured, and when the
opponent plays it the tree keeps nothing (issue 50 measured dots and boxes
against Sancho: through the opening, the reply had one visit of 50,000).

So at a node within `FLOOR_PLIES` of the root, for a role other than the one
the search plays for (`C_OUR_ROLE`) and other than the chance role, a move
with fewer than `reply_floor` times the node's visits is taken before the
rule chooses: the least visited one. This is not an exploration term: it
does not touch our own choices (exploration there lost strength, see
docs/experiments.md), and away from the root the rules keep their focus. A
move whose child is proven, or is being computed by a lane, is left to the
rule (a proven value is known; a pending child is on its way).
"""

from __future__ import annotations

from ...propnet.jit.decorators import kernel
from .arena import C_CHANCE, C_OUR_ROLE, PENDING, PROVEN
from .params import P_REPLY_FLOOR

#: The floor holds at the root and at the root's children: the replies the
#: opponent may play next, when we move now or when it moves now.
FLOOR_PLIES = 1


@kernel
def floor_edge(A, P, node, role, depth):
    """The edge `role` must try at `node` (path depth `depth`) to keep every
    move above the floor, or -1 when none is below it (see the module docstring)."""
    share = P[P_REPLY_FLOOR]
    if share <= 0.0 or depth > FLOOR_PLIES or role == A.counters[C_OUR_ROLE] or role == A.counters[C_CHANCE]:
        return -1
    lo = A.node_edges[node, role]
    hi = A.node_edges[node, role + 1]
    if hi - lo <= 1:
        return -1
    need = share * A.node_visits[node]
    if need < 1.0:
        return -1
    best = -1
    best_n = 0
    for e in range(lo, hi):
        child = A.edge_child[e]
        if child == PENDING or (child >= 0 and (A.node_flags[child] & PROVEN) != 0):
            continue
        n = A.edge_n[e]
        if n < need and (best < 0 or n < best_n):
            best = e
            best_n = n
    return best
