"""The plan of the sparse pass after the moves (`lane_gates.post_move`): triggers from sampled densities.

`sampled_density` plays random lane playouts with the dense pass and counts
how often each node is true; `plan_sparse` gives each AND after the moves a
trigger, which fires or marks it (`gate_roles`), and keeps the sparse pass
only when it is expected to evaluate a small part of those gates
(`SPARSE_SHARE`); `planned` renumbers the network for it. A game is data:
the plan is arrays in `Net` (`post_sparse`, `trig_*`, `fire_*`, `push_*`,
`post_sources`, `post_dense`), never code.
"""

from __future__ import annotations

import numpy as np

from .arrays import Net, new_lanes, new_rng, pack
from ..kernels.bits import ONE, ZERO
from ..jit.decorators import kernel
from ..kernels.lane_gates import WORDS, lane_forward
from ..kernels.lane_kernels import choose_moves, clear_inputs, load_lane
from .gates import Network, csr_rows
from .order_kernels import gathered_order

#: The sparse pass is kept when the gates it expects to evaluate in a step are
#: at most this share of the gates after the moves: its bookkeeping (the
#: bitmap, the lists) costs a few times a dense gate, and a small network's
#: dense pass runs from cache. Measured with fired ANDs and 64 sampled steps:
#: chineseCheckers3 expects 0.16 and makes 22,000 lane playouts/s sparse
#: against 12,300 dense; hex expects 0.23 and is level (7,700 and 7,660).
SPARSE_SHARE = 0.25
#: Networks with fewer gates after the moves stay dense (they fit in cache).
SPARSE_MIN_GATES = 4096
#: How many times as often a marked AND may be reached as a fired one and
#: still cost no more (`gate_roles`): a marked AND costs a bit set and found
#: and the generic gate's lookups besides its inputs. On AtariGo's group
#: relabelling, an AND of a fluent and a gate after the moves, both seen in
#: every sampled step, marking from the fluent (less dense) made 29,600
#: lane playouts/s and firing from the gate 34,000; 1, 8 and 1,000 measured
#: alike there and on checkers and hex.
MARKED_COST = 8
#: Steps of random lane playouts sampled to estimate how often each node is
#: non-zero: enough that lanes which ended have started again, so that the
#: densities are those of whole playouts, as the pass meets them, and not of
#: openings only. 64 against 24 (lanes, corpus games): kalaha_2009 +30%,
#: checkers +38%, atariGo_7x7 +10%, pancakes88 and hex level (once
#: `SPARSE_SHARE` was raised: hex had fallen back to the dense pass, 7%
#: slower); builds 0.1-0.4 s longer.
SAMPLE_STEPS = 64


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


#: What `gate_roles` makes of a gate after the moves.
DENSE, PUSHED, MARKED, FIRED, INSIDE = 0, 1, 2, 3, 4


@kernel
def gate_roles(split, kind, scc, scc_lo, in_ptr, in_lit, density, seen, marked_cost, role, trigger):
    """Per gate after the moves, how the sparse pass evaluates it (`role`)
    and the node that marks or fires it (`trigger`, else -1):

    - an AND with a plain input has a trigger, its plain input least often
      true (in the fewest steps `seen`, then with the lowest `density`). It
      is FIRED when its other inputs all come before the moves (they are
      known when the pass starts), MARKED otherwise; but when exactly one
      input comes after the moves, and it is plain, it fires the AND unless
      it is more than `marked_cost` times as often seen as the rarest;
    - an OR whose inputs are all plain is PUSHED;
    - a cyclic component's first member is DENSE, the others INSIDE;
    - the rest is DENSE.
    """
    for g in range(split, len(kind)):
        trigger[g] = -1
        s = scc[g]
        if s >= 0:
            role[g] = DENSE if g == scc_lo[s] else INSIDE
            continue
        rarest = -1
        late = -1
        lates = 0
        negated = 0
        for e in range(in_ptr[g], in_ptr[g + 1]):
            x = in_lit[e] >> 1
            if in_lit[e] & 1:
                negated += 1
            elif rarest < 0 or seen[x] < seen[rarest] or (seen[x] == seen[rarest] and density[x] < density[rarest]):
                rarest = x
            if x >= split:
                lates += 1
                late = in_lit[e]
        if kind[g] == 1 and rarest >= 0:
            if lates == 0:
                role[g] = FIRED
                trigger[g] = rarest
            elif lates == 1 and late & 1 == 0 and seen[late >> 1] <= marked_cost * seen[rarest]:
                role[g] = FIRED
                trigger[g] = late >> 1
            else:
                role[g] = MARKED
                trigger[g] = rarest
        elif kind[g] != 1 and negated == 0:
            role[g] = PUSHED
        else:
            role[g] = DENSE


def sampled_density(net, seed: int = 0x5EED) -> tuple[np.ndarray, np.ndarray]:
    """How often each node of `net` is true over `SAMPLE_STEPS` steps of random
    lane playouts (`sample_density`): (lanes summed, steps with some lane)."""
    density = np.zeros(net.n_nodes, dtype=np.int64)
    seen = np.zeros(net.n_nodes, dtype=np.int64)
    sample_density(net, new_lanes(net), new_rng(seed), SAMPLE_STEPS, density, seen)
    return density, seen


def _csr(sources: np.ndarray, targets: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    source = np.asarray(sources, dtype=np.int64)
    target = np.asarray(targets, dtype=np.int64)
    order = np.lexsort((target, source))
    ptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(source, minlength=n), out=ptr[1:])
    return ptr, np.ascontiguousarray(target[order], dtype=np.int32)


def planned(network: Network, seed: int = 0x5EED, min_gates: int = SPARSE_MIN_GATES,
            share: float = SPARSE_SHARE) -> tuple[Network, Net]:
    """`network` packed, with its lanes' pass after the moves planned
    (`plan_sparse`, with `min_gates` and `share`). When the pass is sparse, the network is renumbered
    first so that the gates one node fires or marks sit side by side
    (`order_kernels.gathered_order`): the pass then reads them, their inputs
    and their targets in sequence rather than one cache line each."""
    net = pack(network)
    density, seen = sampled_density(net, seed)
    plan = plan_sparse(net, density, seen, min_gates, share)
    if not plan:
        return network, net
    source = np.full(net.n_nodes, -1, dtype=np.int64)
    for ptr, targets in ((plan["trig_ptr"], plan["trig_node"]), (plan["fire_ptr"], plan["fire_node"])):
        source[targets] = np.repeat(np.arange(net.n_nodes), np.diff(ptr))
    number = gathered_order(network.split, network.in_ptr, network.in_lit, network.scc, source)
    network = network.renumbered(number)
    net = pack(network)
    moved_density, moved_seen = np.empty_like(density), np.empty_like(seen)
    moved_density[number], moved_seen[number] = density, seen
    return network, net._replace(**plan_sparse(net, moved_density, moved_seen, min_gates=0, share=1.0))


def _fired_inputs(net, fire_ptr: np.ndarray, fire_node: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per fire edge (source -> AND), the AND's input literals but the
    source's, in the edge's order (CSR over edges, int32): the pass reads
    them in sequence instead of looking each AND up."""
    source = np.repeat(np.arange(len(fire_ptr) - 1), np.diff(fire_ptr))
    edge, lits = csr_rows(net.in_ptr, net.in_lit, fire_node)
    lits = lits.astype(np.int64)
    keep = lits != 2 * source[edge]
    ptr = np.zeros(len(fire_node) + 1, dtype=np.int32)
    np.cumsum(np.bincount(edge[keep], minlength=len(fire_node)), out=ptr[1:])
    return ptr, np.ascontiguousarray(lits[keep], dtype=np.int32)


def _bitmap(nodes: np.ndarray, words: int) -> np.ndarray:
    bitmap = np.zeros(words, dtype=np.uint64)
    np.bitwise_or.at(bitmap, nodes >> 6, np.uint64(1) << (nodes & 63).astype(np.uint64))
    return bitmap


def plan_sparse(net, density: np.ndarray, seen: np.ndarray, min_gates: int = SPARSE_MIN_GATES,
                share: float = SPARSE_SHARE) -> dict:
    """The sparse pass's arrays for `net` (fields of `Net`; see
    `lane_gates.post_move_sparse`), from how often its nodes were true
    (`sampled_density`); empty (the dense pass) unless the network has
    `min_gates` gates after the moves and the sparse pass is expected to
    evaluate at most `share` of them."""
    n = net.n_nodes
    post = n - net.split
    if post < min_gates:
        return {}
    role = np.zeros(n, dtype=np.int64)
    trigger = np.full(n, -1, dtype=np.int64)
    gate_roles(net.split, net.kind, net.scc, net.scc_lo, net.in_ptr, net.in_lit, density, seen, MARKED_COST, role,
               trigger)
    gates = np.arange(net.split, n)
    role, trigger = role[net.split:], trigger[net.split:]
    triggered = trigger >= 0
    pushed = gates[role == PUSHED]
    expected = (np.count_nonzero(role == DENSE) + np.count_nonzero(role == INSIDE)
                + seen[trigger[triggered]].sum() / SAMPLE_STEPS + seen[pushed].sum() / SAMPLE_STEPS)
    if expected > share * post:
        return {}
    words = (n + 63) >> 6
    marked, fired = role == MARKED, role == FIRED
    trig_ptr, trig_node = _csr(trigger[marked], gates[marked], n)
    fire_ptr, fire_node = _csr(trigger[fired], gates[fired], n)
    owner, lits = csr_rows(net.in_ptr, net.in_lit, pushed)
    push_ptr, push_node = _csr(lits >> 1, pushed[owner], n)
    fire_in_ptr, fire_in_lit = _fired_inputs(net, fire_ptr, fire_node)
    marks = np.diff(trig_ptr) + np.diff(push_ptr) + np.diff(fire_ptr)
    sources = np.flatnonzero(marks > 0)
    return dict(post_sparse=1, trig_ptr=trig_ptr, trig_node=trig_node, push_ptr=push_ptr, push_node=push_node,
                fire_ptr=fire_ptr, fire_node=fire_node, fire_in_ptr=fire_in_ptr, fire_in_lit=fire_in_lit,
                post_pushed=_bitmap(pushed, words), post_sources=np.ascontiguousarray(sources[sources < net.split],
                                                                                     dtype=np.int32),
                post_dense=_bitmap(gates[role == DENSE], words))
