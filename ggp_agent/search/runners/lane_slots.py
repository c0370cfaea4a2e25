"""One thread's lanes of search iterations: what each of the 256 lanes carries.

A lane is one iteration in flight (`lane_search.py`): its phase, its path
down the tree, the joint move it must play first, the state it starts from,
its playout's codes and its outcome; and, for effect codes, the scratch
`lane_effects.py` reads a step's changes into. `slots_bytes` is what
`new_slots` allocates, counted against the search's memory cap.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...propnet.kernels.lane_gates import LANES, WORDS


# counters of a LaneSlots record
S_INFLIGHT = 0   # lanes out
S_DONE = 1       # iterations backed up in this call
S_STEPS = 2      # lane steps, ever
S_COLLISIONS = 3  # descents that chose an edge whose child another lane computes, ever


class LaneSlots(NamedTuple):
    """One thread's lanes of iterations (besides its propnet `Lanes`)."""

    phase: np.ndarray       # int32[256]
    length: np.ndarray      # int32[256]: nodes on the lane's path
    chosen: np.ndarray      # int32[256]: 1 when the path's last node chose a joint move with no child node
    pending: np.ndarray     # int32[256]: the edge marked PENDING for this lane, or -1
    new_leaf: np.ndarray    # int32[256]: depth of the node the lane added, or -1
    owed: np.ndarray        # int32[256]: copies still owed to the leaf in the lane's slot (`lane_copies.py`)
    path_node: np.ndarray   # int32[256, D + 1]
    path_edge: np.ndarray   # int32[256, D, R]
    path_code: np.ndarray   # int32[256, D, R]
    forced: np.ndarray      # int32[256, R]: the joint move of the first step
    start: np.ndarray       # uint64[256, n_words]: the state a loading lane starts from
    rollout: np.ndarray     # int32[256, L, R]: the random playout's codes
    goals: np.ndarray       # int32[256, R]
    words: np.ndarray       # uint64[n_words], scratch: a child's state
    counters: np.ndarray    # int64[4]
    before: np.ndarray      # uint64[64 * n_words, 4]: fluent rows before a step (effect codes)
    change: np.ndarray      # uint64[256, n_words]: the fluents a lane's step changed (effect codes)
    zero: np.ndarray        # uint64[n_words], zeros: `effect_code`'s "before" for a change
    effect_lanes: np.ndarray  # uint64[4]: playing lanes where one role chose this step
    effect_lane: np.ndarray   # int32[256]: the same lanes, listed
    dynamic: np.ndarray       # int32[64 * n_words]: the fluents that depend on moves, listed


def new_slots(n_roles: int, n_words: int, max_depth: int, max_rollout: int) -> LaneSlots:
    r = max(1, n_roles)
    return LaneSlots(
        phase=np.zeros(LANES, dtype=np.int32),
        length=np.zeros(LANES, dtype=np.int32),
        chosen=np.zeros(LANES, dtype=np.int32),
        pending=np.full(LANES, -1, dtype=np.int32),
        new_leaf=np.full(LANES, -1, dtype=np.int32),
        owed=np.zeros(LANES, dtype=np.int32),
        path_node=np.zeros((LANES, max_depth + 1), dtype=np.int32),
        path_edge=np.zeros((LANES, max_depth, r), dtype=np.int32),
        path_code=np.zeros((LANES, max_depth, r), dtype=np.int32),
        forced=np.zeros((LANES, r), dtype=np.int32),
        start=np.zeros((LANES, max(1, n_words)), dtype=np.uint64),
        rollout=np.zeros((LANES, max_rollout, r), dtype=np.int32),
        goals=np.zeros((LANES, r), dtype=np.int32),
        words=np.zeros(max(1, n_words), dtype=np.uint64),
        counters=np.zeros(4, dtype=np.int64),
        before=np.zeros((64 * max(1, n_words), WORDS), dtype=np.uint64),
        change=np.zeros((LANES, max(1, n_words)), dtype=np.uint64),
        zero=np.zeros(max(1, n_words), dtype=np.uint64),
        effect_lanes=np.zeros(WORDS, dtype=np.uint64),
        effect_lane=np.zeros(LANES, dtype=np.int32),
        dynamic=np.zeros(64 * max(1, n_words), dtype=np.int32),
    )


def slots_bytes(n_roles: int, n_words: int, max_depth: int, max_rollout: int) -> int:
    """Bytes `new_slots` allocates (counted against the search's memory)."""
    r = max(1, n_roles)
    words = max(1, n_words)
    return (LANES * (4 * 6 + 4 * (max_depth + 1) + 8 * max_depth * r + 4 * r + 8 * words
                     + 4 * max_rollout * r + 4 * r + 8 * words + 4)
            + (8 * WORDS + 4) * 64 * words)
