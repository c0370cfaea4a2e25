"""A lane's path between the tree and its slot, its virtual losses, and the shared tree's lock.

A lane carries its iteration's path down the tree (`LaneSlots.path_*`) while
it plays out; the tree's functions (`iteration.attach_child`, `backup`) read
the arena's path, so a lane's is copied in and out (`to_arena`,
`from_arena`). While a lane is out, every edge on its path carries a virtual
loss (`virtual_loss`), so that the next descents choose other leaves. Threads
that search one tree (`parallel/shared_tree.py`) take its spin lock for each
step's tree work (`take_tree`, `free_tree`).
"""

from __future__ import annotations

from ...propnet.jit.decorators import atomic_swap_if, atomic_write, kernel
from ..tree.arena import C_LOCK, C_PATH


@kernel
def take_tree(A):
    """Wait for the tree and take it (threads sharing one tree: a spin lock on
    A.counters[C_LOCK]; the holders keep it for one step's tree work)."""
    while atomic_swap_if(A.counters, C_LOCK, 0, 1) != 0:
        pass


@kernel
def free_tree(A):
    atomic_write(A.counters, C_LOCK, 0)


@kernel
def virtual_loss(A, S, lane, sign):
    """Add (sign 1) or take off (-1) a visit with no reward on every edge the
    lane's iteration will back up."""
    steps = S.length[lane] - 1 + S.chosen[lane]
    roles = A.node_edges.shape[1] - 1
    for k in range(steps):
        for r in range(roles):
            A.edge_n[S.path_edge[lane, k, r]] += sign


@kernel
def to_arena(A, S, lane):
    """The lane's path into the arena's path (what attach_child and backup read)."""
    length = S.length[lane]
    roles = A.node_edges.shape[1] - 1
    for k in range(length):
        A.path_node[k] = S.path_node[lane, k]
    for k in range(length - 1 + S.chosen[lane]):
        for r in range(roles):
            A.path_edge[k, r] = S.path_edge[lane, k, r]
            A.path_code[k, r] = S.path_code[lane, k, r]
    A.counters[C_PATH] = length


@kernel
def from_arena(A, S, lane, chosen):
    """The arena's path (a descent just made) into the lane's."""
    length = A.counters[C_PATH]
    roles = A.node_edges.shape[1] - 1
    for k in range(length):
        S.path_node[lane, k] = A.path_node[k]
    for k in range(length - 1 + chosen):
        for r in range(roles):
            S.path_edge[lane, k, r] = A.path_edge[k, r]
            S.path_code[lane, k, r] = A.path_code[k, r]
    S.length[lane] = length
    S.chosen[lane] = chosen
    S.new_leaf[lane] = -1
    S.pending[lane] = -1
