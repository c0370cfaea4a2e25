"""Effect codes on the lanes: each playout step's effect, read from the bit-sliced rows.

A lane's playout records, where one role chooses, the code of what its move
changed rather than the move's code (`params.SearchParams.codes`). The lanes
hold the state bit-sliced (a fluent's row carries 256 lanes), so the change
is read row by row: `keep_before` keeps the rows of the fluents that depend
on moves before the step, `record_effects` compares them after it, gathers
each listed lane's changed fluents into state words and hashes them with the
one `table.effect_code` the one-state playouts use, so that both intern the
same effect under the same code (tests/search/test_lanes.py). The cost is a
pass over those rows per step and a hash per choosing lane: 13-15% of the
iterations per second (docs/search.md).
"""

from __future__ import annotations

import numpy as np

from ...propnet.kernels.bits import ONE, ZERO, lowest_bit_index, set_bit_indices
from ...propnet.jit.decorators import kernel
from ...propnet.kernels.lane_gates import WORDS
from ..tree.table import effect_code


@kernel
def keep_before(net, lanes, S, movers, n_dynamic):
    """Effect codes, before a step: list the playing lanes (`movers`) where
    exactly one role has a choice (`S.effect_lane`), and keep the rows of the
    fluents that depend on moves (`S.dynamic[:n_dynamic]`). Returns how many
    lanes were listed."""
    for k in range(WORDS):
        one = ZERO
        two = ZERO
        for r in range(net.n_roles):
            free = ~lanes.role_forced[r, k]
            two |= one & free
            one |= free
        S.effect_lanes[k] = one & ~two & movers[k]
    value = lanes.value
    for j in range(n_dynamic):
        i = S.dynamic[j]
        for k in range(WORDS):
            S.before[i, k] = value[1 + i, k]
    return set_bit_indices(S.effect_lanes, S.effect_lane)


@kernel
def record_effects(A, net, lanes, S, n_dynamic, n_lanes):
    """Effect codes, after a step: each lane listed by `keep_before` records
    the effect code of its chooser's move (`table.effect_code` of the fluents
    the step changed) in place of the move code, as one-state playouts do
    (`kernels._effect_playout`)."""
    value = lanes.value
    steps = lanes.steps
    for j in range(n_lanes):
        for w in range(S.change.shape[1]):
            S.change[S.effect_lane[j], w] = ZERO
    for j in range(n_dynamic):
        i = S.dynamic[j]
        bit = ONE << np.uint64(i & 63)
        for k in range(WORDS):
            d = (S.before[i, k] ^ value[1 + i, k]) & S.effect_lanes[k]
            while d != ZERO:
                S.change[k * 64 + lowest_bit_index(d), i >> 6] |= bit
                d &= d - ONE
    for j in range(n_lanes):
        lane = S.effect_lane[j]
        t = steps[lane]
        for r in range(net.n_roles):
            if S.rollout[lane, t, r] >= 0:
                code = effect_code(A, r, S.rollout[lane, t, r], S.zero, S.change[lane])
                if code >= 0:
                    S.rollout[lane, t, r] = code
                break
