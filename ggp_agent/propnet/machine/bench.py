"""`ggp-agent bench` for a propnet: random playouts per second by each evaluation strategy.

Three ways to play random playouts over the same network, measured side by
side so that a claim about one is always made against the others: `lanes`
(256 playouts per pass, `lane_kernels`), `propagate` (one playout at a time by
change propagation, `state_kernels`) and `forward` (every gate at every step,
kept here only to measure what the other two gain). The timed loops run inside
numba, so no Python runs between playouts.
"""

from __future__ import annotations

import time

import numpy as np

from ...reasoner.statemachine import bench_report
from ..network.arrays import Net, new_lanes, new_rng, new_work
from ..kernels.bits import ONE, rand_below
from ..jit.decorators import kernel
from ..kernels.lane_kernels import lane_playouts
from ..kernels.state_kernels import forward, literal_value, load_state, random_playout

#: The strategies `bench_net` knows, in the order it reports them.
STRATEGIES = ("lanes", "propagate", "forward")


def bench_net(net: Net, seconds: float, max_steps: int, strategies=STRATEGIES) -> dict:
    """Random playouts per second from the initial state, for each strategy.

    The headline figures are those of the fastest strategy; `strategies`
    holds each one's playouts per second. CPU time of this process.
    """
    results = {}
    share = seconds / max(1, len(strategies))
    for strategy in strategies:
        results[strategy] = _bench_strategy(net, strategy, share, max_steps)
    best = max(results, key=lambda s: results[s]["playouts_per_s"])
    report = dict(results[best])
    report.update(strategy=best, strategies={s: r["playouts_per_s"] for s, r in results.items()})
    return report


# -- full forward pass, one playout at a time (kept for measurement) ---------------


@kernel
def forward_playout(net, value, scratch, rng, start_words, max_steps, codes_out, goals_out):
    """A random playout that evaluates every gate at every step (uint8 values, one
    per node; `scratch` int32, at least n_fluents + n_codes + n_roles + 2 n_nodes
    long).
    Slower than the lanes; kept to measure the difference."""
    limit = min(max_steps, codes_out.shape[0])
    for n in range(net.n_nodes):
        value[n] = 0
    for i in range(net.n_fluents):
        value[1 + i] = (start_words[i >> 6] >> np.uint64(i & 63)) & ONE
    base = 1 + net.n_fluents
    nxt = scratch[: net.n_fluents]
    legal = scratch[net.n_fluents: net.n_fluents + net.n_codes]
    chosen = scratch[net.n_fluents + net.n_codes: net.n_fluents + net.n_codes + net.n_roles]
    count = scratch[net.n_fluents + net.n_codes + net.n_roles: net.n_fluents + net.n_codes + net.n_roles + net.n_nodes]
    stack = scratch[net.n_fluents + net.n_codes + net.n_roles + net.n_nodes:]
    steps = 0
    while True:
        forward(net, value, count, stack, net.first_gate, net.split)
        if literal_value(value, net.terminal_lit) != 0 or steps >= limit:
            break
        for r in range(net.n_roles):
            n = 0
            for c in range(net.role_lo[r], net.role_lo[r + 1]):
                if literal_value(value, net.legal_lit[c]) != 0:
                    legal[n] = c
                    n += 1
            if n == 0:
                return -1 - steps
            c = legal[rand_below(rng, n)]
            codes_out[steps, r] = c if n > 1 else -1 - c
            chosen[r] = c
            value[base + c] = 1
        forward(net, value, count, stack, net.split, net.n_nodes)
        for i in range(net.n_fluents):
            nxt[i] = literal_value(value, net.next_lit[i])
        for i in range(net.n_fluents):
            value[1 + i] = nxt[i]
        for r in range(net.n_roles):
            value[base + chosen[r]] = 0
        steps += 1
    for r in range(net.n_roles):
        goals_out[r] = 0
    for i in range(len(net.goal_lit)):
        if literal_value(value, net.goal_lit[i]) != 0:
            r = net.goal_role[i]
            goals_out[r] = max(goals_out[r], net.goal_value[i])
    return steps


# -- timed loops for `bench` (no Python between playouts) -------------------------------


@kernel
def bench_propagate(net, work, rng, n_playouts, max_steps, codes_out):
    """n_playouts random playouts from the initial state by change propagation;
    returns the joint moves played in all."""
    total = 0
    for _ in range(n_playouts):
        load_state(net, work, net.init_words)
        steps = random_playout(net, work, rng, max_steps, codes_out)
        total += steps if steps >= 0 else -1 - steps
    return total


@kernel
def bench_forward(net, value, scratch, rng, n_playouts, max_steps, codes_out, goals_out):
    """As `bench_propagate`, by full forward passes."""
    total = 0
    for _ in range(n_playouts):
        steps = forward_playout(net, value, scratch, rng, net.init_words, max_steps, codes_out, goals_out)
        total += steps if steps >= 0 else -1 - steps
    return total


def _bench_strategy(net: Net, strategy: str, seconds: float, max_steps: int) -> dict:
    rng = new_rng(12345)
    codes = np.zeros((max_steps, max(1, net.n_roles)), dtype=np.int32)
    if strategy == "propagate":
        work = new_work(net)

        def run(n):
            return bench_propagate(net, work, rng, n, max_steps, codes)
    elif strategy == "forward":
        value = np.zeros(net.n_nodes, dtype=np.uint8)
        scratch = np.zeros(net.n_fluents + net.n_codes + net.n_roles + 2 * net.n_nodes + 1, dtype=np.int32)
        goals = np.zeros(max(1, net.n_roles), dtype=np.int32)

        def run(n):
            return bench_forward(net, value, scratch, rng, n, max_steps, codes, goals)
    elif strategy == "lanes":
        lanes = new_lanes(net)
        batch = 1024
        starts = np.tile(net.init_words, (batch, 1))
        lane_codes = np.zeros((batch, max_steps, max(1, net.n_roles)), dtype=np.int32)
        lengths = np.zeros(batch, dtype=np.int32)
        lane_goals = np.zeros((batch, max(1, net.n_roles)), dtype=np.int32)

        def run(n):
            total = 0
            for _ in range(max(1, n // batch)):
                lane_playouts(net, lanes, starts, batch, rng, max_steps, lane_codes, lengths, lane_goals)
                total += int(np.abs(lengths).sum())
            return total
    else:
        raise ValueError(f"unknown strategy {strategy!r}")
    run(1 if strategy != "lanes" else 1024)  # warm caches (the kernels are compiled already)
    playouts = steps = 0
    n = 1 if strategy != "lanes" else 1024
    started = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        steps += run(n)
        playouts += n if strategy != "lanes" else max(1, n // 1024) * 1024
        elapsed = time.process_time() - started
        if elapsed < seconds / 8:
            n *= 2
    return bench_report(playouts, int(steps), elapsed)
