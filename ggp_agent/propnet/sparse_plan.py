"""The plan of the sparse pass after the moves (`lane_gates.post_move`): triggers from sampled densities.

`plan_sparse` plays a few steps of random lane playouts with the dense pass,
counts how often each node is true, gives each AND after the moves the plain
input least often true as its trigger, and keeps the sparse pass only when it
is expected to evaluate a small part of those gates (`SPARSE_SHARE`). A game
is data: the plan is arrays in `Net` (`post_sparse`, `trig_*`, `post_sources`,
`post_dense`), never code.
"""

from __future__ import annotations

import numpy as np

from .bits import ONE, ZERO
from .jit import kernel
from .lane_gates import WORDS, lane_forward
from .lane_kernels import choose_moves, clear_inputs, load_lane

#: The sparse pass is kept when the gates it expects to evaluate in a step are
#: at most this share of the gates after the moves: its bookkeeping (the
#: bitmap, the lists) costs a few times a dense gate, and a small network's
#: dense pass runs from cache.
SPARSE_SHARE = 0.15
#: Networks with fewer gates after the moves stay dense (they fit in cache).
SPARSE_MIN_GATES = 4096
#: Steps of random lane playouts sampled to estimate how often each node is non-zero.
SAMPLE_STEPS = 24


@kernel
def sample_density(net, lanes, rng, steps, density, seen):
    """Random lane playouts from the initial state for `steps` steps with the
    dense pass (a lane that ends starts again): density[n] += the lanes in
    which node n is true, seen[n] += 1 when it is true in some lane, per step."""
    value = lanes.value
    masks = net.masks
    movers = lanes.movers
    for n in range(net.n_nodes):
        for k in range(WORDS):
            value[n, k] = ZERO
    for lane in range(64 * WORDS):
        load_lane(net, value, lane, net.init_words)
    terminal = net.terminal_lit
    for _ in range(steps):
        lane_forward(net, lanes, net.first_gate, net.split)
        for k in range(WORDS):
            movers[k] = ~(value[terminal >> 1, k] ^ masks[terminal & 1])
        clear_inputs(net, lanes)
        choose_moves(net, lanes, rng, movers)
        for k in range(WORDS):
            stuck = ZERO
            for r in range(net.n_roles):
                stuck |= lanes.role_stuck[r, k]
            movers[k] &= ~stuck
        lane_forward(net, lanes, net.split, net.n_nodes)
        for n in range(net.n_nodes):
            ones = 0
            for k in range(WORDS):
                x = value[n, k]
                while x != ZERO:
                    x &= x - ONE
                    ones += 1
            density[n] += ones
            if ones > 0:
                seen[n] += 1
        nxt = lanes.next_value
        for i in range(net.n_fluents):
            lit = net.next_lit[i]
            for k in range(WORDS):
                nxt[i, k] = value[lit >> 1, k] ^ masks[lit & 1]
        for k in range(WORDS):
            ended = ~movers[k]
            for i in range(net.n_fluents):
                on = (net.init_words[i >> 6] >> np.uint64(i & 63)) & ONE
                start = ZERO - on  # all ones when the fluent is in the initial state
                value[1 + i, k] = (nxt[i, k] & movers[k]) | (start & ended)


def _csr(sources: list, targets: list, n: int) -> tuple[np.ndarray, np.ndarray]:
    source = np.asarray(sources, dtype=np.int64)
    target = np.asarray(targets, dtype=np.int64)
    order = np.lexsort((target, source))
    ptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(source, minlength=n), out=ptr[1:])
    return ptr, np.ascontiguousarray(target[order], dtype=np.int32)


def _bitmap(nodes: list, words: int) -> np.ndarray:
    bitmap = np.zeros(words, dtype=np.uint64)
    for g in nodes:
        bitmap[g >> 6] |= np.uint64(1) << np.uint64(g & 63)
    return bitmap


def plan_sparse(net, lanes, rng, min_gates: int = SPARSE_MIN_GATES, share: float = SPARSE_SHARE) -> dict:
    """The sparse pass's arrays for `net` (fields of `Net`; see
    `lane_gates.post_move_sparse`), from densities sampled with `lanes` and
    `rng`; empty (the dense pass) unless the network has `min_gates` gates
    after the moves and the sparse pass is expected to evaluate at most
    `share` of them."""
    n = net.n_nodes
    density = np.zeros(n, dtype=np.int64)
    seen = np.zeros(n, dtype=np.int64)
    post = n - net.split
    words = (n + 63) >> 6
    # sampled for every network (a few dense steps: cheap where they are), so
    # that the warm-up's tiny game compiles this kernel too
    sample_density(net, lanes, rng, SAMPLE_STEPS, density, seen)
    if post < min_gates:
        return {}
    trig_sources, trig_targets, push_sources, push_targets = [], [], [], []
    dense, pushed = [], []
    expected = 0.0
    in_ptr, in_lit, kind, scc = net.in_ptr, net.in_lit, net.kind, net.scc
    for g in range(net.split, n):
        lits = in_lit[in_ptr[g]: in_ptr[g + 1]]
        plain = lits[(lits & 1) == 0] >> 1
        if scc[g] >= 0:
            if g == net.scc_lo[scc[g]]:
                dense.append(g)
            expected += 1.0
        elif kind[g] == 1 and len(plain) > 0:
            trigger = int(plain[np.lexsort((density[plain], seen[plain]))[0]])
            trig_sources.append(trigger)
            trig_targets.append(g)
            expected += seen[trigger] / SAMPLE_STEPS
        elif kind[g] != 1 and len(plain) == len(lits):
            push_sources.extend(int(x) for x in plain)
            push_targets.extend([g] * len(plain))
            pushed.append(g)
            expected += seen[g] / SAMPLE_STEPS
        else:
            dense.append(g)
            expected += 1.0
    if expected > share * post:
        return {}
    trig_ptr, trig_node = _csr(trig_sources, trig_targets, n)
    push_ptr, push_node = _csr(push_sources, push_targets, n)
    marks = np.diff(trig_ptr) + np.diff(push_ptr)
    sources = np.flatnonzero(marks > 0)
    return dict(post_sparse=1, trig_ptr=trig_ptr, trig_node=trig_node, push_ptr=push_ptr, push_node=push_node,
                post_pushed=_bitmap(pushed, words), post_sources=np.ascontiguousarray(sources[sources < net.split],
                                                                                     dtype=np.int32),
                post_dense=_bitmap(dense, words))
