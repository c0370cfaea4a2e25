"""Lane kernels: 256 random playouts at once, one bit per playout.

    lane_playouts(net, lanes, starts, n_starts, rng, max_steps,
                  codes_out, lengths_out, goals_out) -> None

plays one random playout from each of `starts[k]` (k < n_starts; uint64
words), 256 at a time, one bit per playout in each node's four words; a lane
that finishes takes the next waiting start, so a batch much larger than 256
keeps all lanes busy. `codes_out[k, step, role]` (int32, n_starts x max_steps x
n_roles) records each role's code (`~code` where the move was forced),
`lengths_out[k]` (int32) the joint moves played (`-1 - step` for a broken
game), `goals_out[k, role]` (int32) the goals in the final state (a playout cut
at `max_steps` gets that state's goals). `lanes` is an `arrays.Lanes` (one per
thread); the other types are those of `state_kernels.py`.

Measured on this machine (docs/propnet.md): the lanes play 10 to 30 times more
random playouts per second than change propagation or a full forward pass
one playout at a time.
"""

from __future__ import annotations

import numpy as np

from .bits import ALL_ONES, ONE, ZERO, lowest_bit_index, rand_below
from .jit import kernel

# -- lanes: 256 playouts at once, four uint64 words per node ----------------------------

#: Words per node in the lane kernels: 4 x 64 = 256 playouts per pass. One
#: input literal read serves four words (which LLVM turns into one AVX2
#: operation): measured 2.6 to 3 times the throughput of one word per node.
WORDS = 4
LANES = 64 * WORDS


@kernel
def lane_forward(net, value, lo, hi):
    """Evaluate gates lo..hi-1 for all lanes (value: uint64[n_nodes, 4]).

    One loop with the arrays in locals: a call per gate would pass the whole
    `net` record each time, which costs more than the gate.
    """
    kind = net.kind
    in_ptr = net.in_ptr
    in_lit = net.in_lit
    in_node = net.in_node
    pos_end = net.pos_end
    masks = net.masks
    scc = net.scc
    g = lo
    while g < hi:
        s = scc[g]
        if s >= 0:
            a = net.scc_lo[s]
            b = net.scc_hi[s]
            for m in range(a, b):
                for k in range(WORDS):
                    value[m, k] = ZERO
            changed = True
            while changed:
                changed = False
                for m in range(a, b):
                    if _lane_gate(kind, in_ptr, in_lit, masks, value, m):
                        changed = True
            g = b
            continue
        lo_e = in_ptr[g]
        mid = pos_end[g]
        hi_e = in_ptr[g + 1]
        if kind[g] == 1:
            a0 = ALL_ONES
            a1 = ALL_ONES
            a2 = ALL_ONES
            a3 = ALL_ONES
            for e in range(lo_e, mid):
                n = in_node[e]
                a0 &= value[n, 0]
                a1 &= value[n, 1]
                a2 &= value[n, 2]
                a3 &= value[n, 3]
            for e in range(mid, hi_e):
                n = in_node[e]
                a0 &= ~value[n, 0]
                a1 &= ~value[n, 1]
                a2 &= ~value[n, 2]
                a3 &= ~value[n, 3]
        else:
            a0 = ZERO
            a1 = ZERO
            a2 = ZERO
            a3 = ZERO
            for e in range(lo_e, mid):
                n = in_node[e]
                a0 |= value[n, 0]
                a1 |= value[n, 1]
                a2 |= value[n, 2]
                a3 |= value[n, 3]
            for e in range(mid, hi_e):
                n = in_node[e]
                a0 |= ~value[n, 0]
                a1 |= ~value[n, 1]
                a2 |= ~value[n, 2]
                a3 |= ~value[n, 3]
        value[g, 0] = a0
        value[g, 1] = a1
        value[g, 2] = a2
        value[g, 3] = a3
        g += 1


@kernel
def _lane_gate(kind, in_ptr, in_lit, masks, value, g):
    """Evaluate one gate's four words; True when they changed. Arrays only (no
    records), so LLVM inlines it."""
    if kind[g] == 1:
        a0 = ALL_ONES
        a1 = ALL_ONES
        a2 = ALL_ONES
        a3 = ALL_ONES
        for e in range(in_ptr[g], in_ptr[g + 1]):
            lit = in_lit[e]
            n = lit >> 1
            m = masks[lit & 1]
            a0 &= value[n, 0] ^ m
            a1 &= value[n, 1] ^ m
            a2 &= value[n, 2] ^ m
            a3 &= value[n, 3] ^ m
    else:
        a0 = ZERO
        a1 = ZERO
        a2 = ZERO
        a3 = ZERO
        for e in range(in_ptr[g], in_ptr[g + 1]):
            lit = in_lit[e]
            n = lit >> 1
            m = masks[lit & 1]
            a0 |= value[n, 0] ^ m
            a1 |= value[n, 1] ^ m
            a2 |= value[n, 2] ^ m
            a3 |= value[n, 3] ^ m
    changed = a0 != value[g, 0] or a1 != value[g, 1] or a2 != value[g, 2] or a3 != value[g, 3]
    value[g, 0] = a0
    value[g, 1] = a1
    value[g, 2] = a2
    value[g, 3] = a3
    return changed


@kernel
def _lane_bit(lane):
    return ONE << np.uint64(lane & 63)


@kernel
def _lane_goals(net, value, lane, item, goals_out):
    """One lane's goals into goals_out[item[lane]]."""
    k = lane >> 6
    bit = _lane_bit(lane)
    masks = net.masks
    for r in range(net.n_roles):
        goals_out[item[lane], r] = 0
    for i in range(len(net.goal_lit)):
        lit = net.goal_lit[i]
        if ((value[lit >> 1, k] ^ masks[lit & 1]) & bit) != ZERO:
            r = net.goal_role[i]
            if net.goal_value[i] > goals_out[item[lane], r]:
                goals_out[item[lane], r] = net.goal_value[i]


@kernel
def _lane_load(net, value, lane, state_words):
    """Put a state into one lane's base propositions."""
    k = lane >> 6
    shift = np.uint64(lane & 63)
    keep = ~(ONE << shift)
    for i in range(net.n_fluents):
        on = (state_words[i >> 6] >> np.uint64(i & 63)) & ONE
        value[1 + i, k] = (value[1 + i, k] & keep) | (on << shift)


@kernel
def lane_playouts(net, lanes, starts, n_starts, rng, max_steps, codes_out, lengths_out, goals_out):
    """Random playouts from starts[0..n_starts-1], 256 lanes at a time (see the
    module docstring).

    A lane that finishes takes the next waiting start at once (it sits out the
    move of that step while its new state is evaluated), so lanes stay busy
    however much playout lengths vary.
    """
    limit = min(max_steps, codes_out.shape[1])
    masks = net.masks
    legal_lit = net.legal_lit
    next_lit = net.next_lit
    role_lo = net.role_lo
    value = lanes.value
    count = lanes.count
    choice = lanes.choice
    item = lanes.item
    steps = lanes.steps
    nxt = lanes.next_value
    active = lanes.active
    movers = lanes.movers
    done = lanes.done
    fresh = lanes.fresh
    base = 1 + net.n_fluents
    for n in range(net.n_nodes):
        for k in range(WORDS):
            value[n, k] = ZERO
    waiting = 0
    for k in range(WORDS):
        active[k] = ZERO
    for lane in range(LANES):
        if waiting < n_starts:
            _lane_load(net, value, lane, starts[waiting])
            item[lane] = waiting
            steps[lane] = 0
            active[lane >> 6] |= _lane_bit(lane)
            waiting += 1
    any_active = n_starts > 0
    while any_active:
        lane_forward(net, value, net.first_gate, net.split)
        terminal = net.terminal_lit
        any_done = False
        for k in range(WORDS):
            ended = (value[terminal >> 1, k] ^ masks[terminal & 1]) & active[k]
            w = active[k] & ~ended
            while w != ZERO:
                b = lowest_bit_index(w)
                w &= w - ONE
                if steps[k * 64 + b] >= limit:
                    ended |= ONE << np.uint64(b)
            done[k] = ended
            movers[k] = active[k] & ~ended
            fresh[k] = ZERO
            if ended != ZERO:
                any_done = True
        for c in range(net.n_codes):
            for k in range(WORDS):
                value[base + c, k] = ZERO
        for r in range(net.n_roles):
            for k in range(WORDS):
                w = movers[k]
                while w != ZERO:
                    b = lowest_bit_index(w)
                    w &= w - ONE
                    count[k * 64 + b] = 0
            for c in range(role_lo[r], role_lo[r + 1]):
                lit = legal_lit[c]
                for k in range(WORDS):
                    w = (value[lit >> 1, k] ^ masks[lit & 1]) & movers[k]
                    while w != ZERO:
                        b = lowest_bit_index(w)
                        w &= w - ONE
                        lane = k * 64 + b
                        count[lane] += 1
                        if count[lane] == 1 or rand_below(rng, count[lane]) == 0:
                            choice[lane] = c
            for k in range(WORDS):
                w = movers[k]
                while w != ZERO:
                    b = lowest_bit_index(w)
                    w &= w - ONE
                    lane = k * 64 + b
                    if count[lane] == 0:
                        # no legal move in a non-terminal state: a broken game
                        done[k] |= ONE << np.uint64(b)
                        lengths_out[item[lane]] = -1 - steps[lane]
                        any_done = True
                        continue
                    c = choice[lane]
                    codes_out[item[lane], steps[lane], r] = c if count[lane] > 1 else -1 - c
                    value[base + c, k] |= ONE << np.uint64(b)
        if any_done:
            for k in range(WORDS):
                w = done[k]
                while w != ZERO:
                    b = lowest_bit_index(w)
                    w &= w - ONE
                    lane = k * 64 + b
                    bit = ONE << np.uint64(b)
                    _lane_goals(net, value, lane, item, goals_out)
                    if (movers[k] & bit) == ZERO:  # ended (a broken lane has its length already)
                        lengths_out[item[lane]] = steps[lane]
                    if waiting < n_starts:
                        item[lane] = waiting
                        steps[lane] = 0
                        waiting += 1
                        fresh[k] |= bit
                    else:
                        active[k] &= ~bit
                movers[k] &= ~done[k]
        lane_forward(net, value, net.split, net.n_nodes)
        for i in range(net.n_fluents):
            lit = next_lit[i]
            for k in range(WORDS):
                nxt[i, k] = value[lit >> 1, k] ^ masks[lit & 1]
        for i in range(net.n_fluents):
            for k in range(WORDS):
                value[1 + i, k] = (nxt[i, k] & movers[k]) | (value[1 + i, k] & ~movers[k])
        any_active = False
        for k in range(WORDS):
            w = fresh[k]
            while w != ZERO:
                b = lowest_bit_index(w)
                w &= w - ONE
                lane = k * 64 + b
                _lane_load(net, value, lane, starts[item[lane]])
            w = movers[k]
            while w != ZERO:
                b = lowest_bit_index(w)
                w &= w - ONE
                steps[k * 64 + b] += 1
            if active[k] != ZERO:
                any_active = True
