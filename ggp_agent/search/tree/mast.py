"""MAST playouts: moves ranked by their average reward, played epsilon-greedily.

Uniformly random playouts make a poor judge of positions where a few moves
matter (breakthrough: the piece that breaks through, the capture that stops
it): most random playouts miss them, and every statistic the tree keeps (Q,
AMAF, the permutation window) averages playouts that played as nobody would.
MAST (Finnsson and Björnsson's move-average sampling, CadiaPlayer's playout
policy) learns from the search's own playouts which moves tend to win for the
role that plays them, in any position, and plays them more often.

- `mast_record` (from `iteration.backup`): every move of an iteration with a
  choice (the tree path and the playout) adds the playout's reward for the
  move's role to that move code's count and sum. The table lives as long as
  the arena (one match): a move's average stays meaningful from one position
  to the next, which is MAST's premise.
- `mast_rank` orders each role's move codes by that average (a code never
  played first: optimism, as CadiaPlayer's; ties broken at random so that
  the code numbering never steers a playout).
- `propnet.kernels.lane_kernels.prefer_moves` plays, in each lane and with
  probability 1 - epsilon (`SearchParams.mast_epsilon`), the first legal code
  of that ranking instead of the uniform draw: an epsilon-greedy policy,
  which Tak, Winands and Björnsson found as strong as CadiaPlayer's Gibbs
  sampling and which keeps the lanes bit-sliced.

Keyed by move codes whatever `codes` the statistics use (a playout chooses
moves, not effects). Only the lane search plays it; one playout at a time
(`batch=1`) and Prolog play uniformly random playouts.
"""

from __future__ import annotations

import numpy as np

from ...propnet.kernels.bits import rand_word
from ...propnet.jit.decorators import kernel

#: 2**-53: turns the top 53 bits of a random word into a float in [0, 1).
_UNIT = 1.0 / 9007199254740992.0


@kernel
def mast_record(A, n_rollout, steps):
    """Count the iteration (A.reward per role, the path's first `steps` edges,
    A.rollout[:n_rollout]) in each chosen move's average."""
    roles = A.node_edges.shape[1] - 1
    size = A.mast_n.shape[0]
    for k in range(steps):
        for r in range(roles):
            if A.path_code[k, r] < 0:
                continue  # no choice there
            c = A.edge_code[A.path_edge[k, r]]
            if 0 <= c < size:
                A.mast_n[c] += 1.0
                A.mast_w[c] += A.reward[r]
    for t in range(n_rollout):
        for r in range(roles):
            c = A.rollout[t, r]
            if 0 <= c < size:
                A.mast_n[c] += 1.0
                A.mast_w[c] += A.reward[r]


@kernel
def mast_rank(A, role_lo, rng):
    """Each role's move codes role_lo[r] .. role_lo[r + 1] - 1, best average
    first, into the same slice of A.mast_order (a Shell sort in place: the
    kernels allocate nothing)."""
    key = A.mast_key
    order = A.mast_order
    for c in range(role_lo[0], role_lo[role_lo.shape[0] - 1]):
        jitter = (rand_word(rng) >> np.uint64(11)) * _UNIT * 1e-9
        mean = A.mast_w[c] / A.mast_n[c] if A.mast_n[c] > 0.0 else 1.0
        key[c] = mean + jitter
        order[c] = c
    for r in range(role_lo.shape[0] - 1):
        lo = role_lo[r]
        hi = role_lo[r + 1]
        gap = (hi - lo) // 2
        while gap > 0:
            for i in range(lo + gap, hi):
                c = order[i]
                j = i
                while j - gap >= lo and key[order[j - gap]] < key[c]:
                    order[j] = order[j - gap]
                    j -= gap
                order[j] = c
            gap //= 2
