"""More than one playout from a leaf (`SearchParams.leaf_playouts`).

A lane that takes a leaf owes its copies: other lanes start from the same
leaf's state with the same path, each backed up as an iteration of its own,
so the descent, the child's attach and the freeze are paid once for all of
them. The copies are owed, not taken at once: a leaf is reached while most
lanes are still playing, and copies that took only the lanes idle at that
moment gave about 2.5 playouts per leaf when 8 were asked. So the leaf
stays in its lane's slot (its path, and its state in `S.start`) until every
copy has a lane: free lanes serve owed copies before they descend for a new
leaf, and the owing lane, once its own playout is backed up, serves its own
next (its slot is the leaf's, so nothing else may overwrite it before).
"""

from __future__ import annotations

from ...propnet.jit.decorators import kernel
from ..tree.arena import C_ROOT
from ..tree.params import P_LEAF_PLAYOUTS


#: A leaf gets more than one playout (`leaf_playouts`) only once the root has
#: this many visits: four times the visits at which all 256 lanes may be out
#: (`lane_runner.ROOT_VISITS_PER_LANE`). Before, every iteration adds a leaf:
#: a young tree's statistics change most with each new leaf, and a small
#: search (tic-tac-toe's forced wins at a few thousand iterations) needs its
#: leaves more than a second look at each.
COPIES_FROM_ROOT_VISITS = 4096


@kernel
def leaf_copies(A, P):
    """The copies a leaf is owed: `leaf_playouts` - 1, none before the root
    has COPIES_FROM_ROOT_VISITS visits."""
    if A.node_visits[A.counters[C_ROOT]] < COPIES_FROM_ROOT_VISITS:
        return 0
    return int(P[P_LEAF_PLAYOUTS]) - 1


@kernel
def owe_copies(A, P, S, lane, words):
    """The leaf `lane` just took (its path is in the lane's slot, its state in
    `words`) is owed its copies."""
    copies = leaf_copies(A, P)
    S.owed[lane] = copies
    if copies > 0:
        for w in range(words.shape[0]):
            S.start[lane, w] = words[w]


@kernel
def copy_source(S, lane, cursor):
    """The lane whose leaf the idle `lane` should copy: itself when it owes
    copies (its slot still holds its leaf), else the first owing lane from
    `cursor` on, or -1 when none owes."""
    if S.owed[lane] > 0:
        return lane
    for other in range(cursor, S.owed.shape[0]):
        if S.owed[other] > 0:
            return other
    return -1


@kernel
def take_copy(S, source, lane):
    """The idle `lane` (owing nothing, or `source` itself) takes a copy of
    `source`'s leaf: its path and start state; the copy adds no leaf and
    marks no edge."""
    if lane != source:
        length = S.length[source]
        chosen = S.chosen[source]
        for k in range(length):
            S.path_node[lane, k] = S.path_node[source, k]
        for k in range(length - 1 + chosen):
            for r in range(S.path_edge.shape[2]):
                S.path_edge[lane, k, r] = S.path_edge[source, k, r]
                S.path_code[lane, k, r] = S.path_code[source, k, r]
        for w in range(S.start.shape[1]):
            S.start[lane, w] = S.start[source, w]
        S.length[lane] = length
        S.chosen[lane] = chosen
    S.new_leaf[lane] = -1
    S.pending[lane] = -1
    S.owed[source] -= 1
