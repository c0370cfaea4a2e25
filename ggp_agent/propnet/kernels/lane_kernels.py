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

The steps of a lane playout are kernels of their own, so that the search's
lane kernel (`search/runners/lane_search.py`) can drive lanes its own way:

    lane_forward(net, lanes, lo, hi)      gates lo..hi-1 for every lane (`lane_gates`)
    clear_inputs(net, lanes)              no move chosen in any lane
    choose_moves(net, lanes, rng, movers) a uniformly random legal move per role
                                          in each lane of `movers` (uint64[4])
    prefer_moves(net, lanes, rng, movers, order, sixteenths)
                                          after choose_moves: in a random share
                                          of those lanes, each role's first
                                          legal move in `order` instead
    advance_lanes(net, lanes, movers)     the moves' gates, then the next state
                                          in the lanes of `movers`
    load_lane(net, value, lane, words)    a state into one lane
    lane_goals(net, value, lane, out)     one lane's goals into out[role]

Measured on this machine (docs/propnet.md): the lanes play 10 to 30 times more
random playouts per second than change propagation or a full forward pass
one playout at a time.
"""

from __future__ import annotations

import numpy as np

from .bits import ALL_ONES, ONE, ZERO, lowest_bit_index, rand_word
from ..jit.decorators import kernel
from .lane_gates import LANES, WORDS, lane_forward, post_move
#: Planes of a bit-sliced counter (`Lanes.tally` holds three: the counts,
#: the ranks and a draw): a role may have up to 2**31 - 1 codes.
PLANES = 32


@kernel
def lane_bit(lane):
    return ONE << np.uint64(lane & 63)


@kernel
def lane_goals(net, value, lane, out):
    """One lane's goals into out[role] (0 when none is true, else the highest)."""
    k = lane >> 6
    bit = lane_bit(lane)
    masks = net.masks
    for r in range(net.n_roles):
        out[r] = 0
    for i in range(len(net.goal_lit)):
        lit = net.goal_lit[i]
        if ((value[lit >> 1, k] ^ masks[lit & 1]) & bit) != ZERO:
            r = net.goal_role[i]
            if net.goal_value[i] > out[r]:
                out[r] = net.goal_value[i]


@kernel
def load_lane(net, value, lane, state_words):
    """Put a state into one lane's base propositions."""
    k = lane >> 6
    shift = np.uint64(lane & 63)
    keep = ~(ONE << shift)
    for i in range(net.n_fluents):
        on = (state_words[i >> 6] >> np.uint64(i & 63)) & ONE
        value[1 + i, k] = (value[1 + i, k] & keep) | (on << shift)


@kernel
def clear_inputs(net, lanes):
    """No move chosen in any lane (every input proposition false)."""
    value = lanes.value
    base = 1 + net.n_fluents
    for c in range(net.n_codes):
        for k in range(WORDS):
            value[base + c, k] = ZERO


@kernel
def _planes(n):
    """Bits needed to count up to n."""
    p = 0
    while n > 0:
        p += 1
        n >>= 1
    return p


@kernel
def less_plane(below, same, x, y):
    """One bit plane, from the highest down, of a bit-sliced comparison x < y
    for 64 lanes: `below` holds the lanes already found below, `same` those
    equal so far (start with none below and all the same)."""
    return below | (same & ~x & y), same & ~(x ^ y)


@kernel
def choose_moves(net, lanes, rng, movers):
    """For every role and every lane in `movers` (uint64[4]) a uniformly random
    legal move: its input proposition is set in that lane and
    `lanes.role_choice[r, lane]` holds its code; `lanes.role_forced[r]` marks
    the lanes where it was the role's only legal move, `lanes.role_stuck[r]`
    those where the role had none (a broken game: no move is set).

    Everything is bit-sliced (plane p of a tally holds bit p of a number per
    lane, so one word operation serves 64 lanes): the legal moves are counted,
    each lane draws a rank below its count (64 lanes per random word, redrawn
    where the draw is not below the count), and a second pass over the codes
    counts the rank down to the code to play. The work is per code and word,
    not per legal move and lane (docs/propnet.md).
    """
    value = lanes.value
    tally = lanes.tally
    masks = net.masks
    legal_lit = net.legal_lit
    base = 1 + net.n_fluents
    done = lanes.done
    rank = PLANES
    draw = 2 * PLANES
    for r in range(net.n_roles):
        lo = net.role_lo[r]
        hi = net.role_lo[r + 1]
        planes = _planes(hi - lo)
        for p in range(planes):
            for k in range(WORDS):
                tally[p, k] = ZERO
                tally[rank + p, k] = ZERO
        for c in range(lo, hi):
            lit = legal_lit[c]
            node = lit >> 1
            m = masks[lit & 1]
            for k in range(WORDS):
                carry = (value[node, k] ^ m) & movers[k]
                p = 0
                while carry != ZERO:
                    t = tally[p, k] & carry
                    tally[p, k] ^= carry
                    carry = t
                    p += 1
        for k in range(WORDS):
            # none, one, or several legal moves
            above = ZERO
            for p in range(1, planes):
                above |= tally[p, k]
            some = above
            if planes > 0:
                some |= tally[0, k]
                lanes.role_forced[r, k] = movers[k] & tally[0, k] & ~above
            else:
                lanes.role_forced[r, k] = ZERO
            lanes.role_stuck[r, k] = movers[k] & ~some
            done[k] = ~movers[k] | ~some
            # ranks below the counts: draw as many bits as each lane's count has
            pending = movers[k] & above
            while pending != ZERO:
                high = ZERO
                for p in range(planes - 1, -1, -1):
                    high |= tally[p, k]
                    tally[draw + p, k] = rand_word(rng) & high
                below = ZERO
                same = ALL_ONES
                for p in range(planes - 1, -1, -1):
                    x = tally[draw + p, k]
                    y = tally[p, k]
                    below, same = less_plane(below, same, x, y)
                accepted = pending & below
                for p in range(planes):
                    tally[rank + p, k] |= tally[draw + p, k] & accepted
                pending &= ~below
        # the code of that rank: count down over the legal codes
        for c in range(lo, hi):
            if (done[0] & done[1] & done[2] & done[3]) == ALL_ONES:
                break
            lit = legal_lit[c]
            node = lit >> 1
            m = masks[lit & 1]
            for k in range(WORDS):
                x = (value[node, k] ^ m) & ~done[k]
                if x == ZERO:
                    continue
                left = ZERO
                for p in range(planes):
                    left |= tally[rank + p, k]
                chosen = x & ~left
                if chosen != ZERO:
                    done[k] |= chosen
                    value[base + c, k] |= chosen
                    w = chosen
                    while w != ZERO:
                        b = lowest_bit_index(w)
                        w &= w - ONE
                        lanes.role_choice[r, k * 64 + b] = c
                borrow = x & left
                p = 0
                while borrow != ZERO:
                    t = ~tally[rank + p, k] & borrow
                    tally[rank + p, k] ^= borrow
                    borrow = t
                    p += 1


@kernel
def prefer_moves(net, lanes, rng, movers, order, sixteenths):
    """After `choose_moves`: in each lane of `movers` where a role had a choice,
    with probability sixteenths / 16, replace that role's random move by its
    first legal move in `order` (int32, each role's codes role_lo[r] ..
    role_lo[r + 1] - 1 listed in that slice in the order of preference).

    This is an epsilon-greedy playout policy (the search ranks moves by their
    average reward, `search/tree/mast.py`) kept bit-sliced: each lane draws a 4-bit
    number, compared with `sixteenths` for 64 lanes per word operation, and
    one pass down the ranked codes serves every lane that takes its preferred
    move, ending when all have one.
    """
    value = lanes.value
    masks = net.masks
    legal_lit = net.legal_lit
    base = 1 + net.n_fluents
    todo = lanes.done  # choose_moves' scratch, free again after it
    for r in range(net.n_roles):
        lo = net.role_lo[r]
        hi = net.role_lo[r + 1]
        left = 0
        for k in range(WORDS):
            below = ALL_ONES if sixteenths >= 16 else ZERO
            same = ZERO if sixteenths >= 16 else ALL_ONES
            for p in range(3, -1, -1):
                x = rand_word(rng)
                t = ALL_ONES if (sixteenths >> p) & 1 else ZERO
                below, same = less_plane(below, same, x, t)
            todo[k] = movers[k] & below & ~lanes.role_forced[r, k] & ~lanes.role_stuck[r, k]
            if todo[k] != ZERO:
                left += 1
        i = lo
        while left > 0 and i < hi:
            c = order[i]
            i += 1
            lit = legal_lit[c]
            node = lit >> 1
            m = masks[lit & 1]
            for k in range(WORDS):
                if todo[k] == ZERO:
                    continue
                x = (value[node, k] ^ m) & todo[k]
                if x == ZERO:
                    continue
                w = x
                while w != ZERO:
                    b = lowest_bit_index(w)
                    w &= w - ONE
                    lane = k * 64 + b
                    value[base + lanes.role_choice[r, lane], k] &= ~(ONE << np.uint64(b))
                    lanes.role_choice[r, lane] = c
                value[base + c, k] |= x
                todo[k] &= ~x
                if todo[k] == ZERO:
                    left -= 1


@kernel
def advance_lanes(net, lanes, movers):
    """With the moves set, evaluate the gates after the moves and make the next
    state current in the lanes of `movers` (the others keep their state)."""
    post_move(net, lanes)
    value = lanes.value
    nxt = lanes.next_value
    masks = net.masks
    next_lit = net.next_lit
    for i in range(net.n_fluents):
        lit = next_lit[i]
        for k in range(WORDS):
            nxt[i, k] = value[lit >> 1, k] ^ masks[lit & 1]
    for i in range(net.n_fluents):
        for k in range(WORDS):
            value[1 + i, k] = (nxt[i, k] & movers[k]) | (value[1 + i, k] & ~movers[k])


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
    value = lanes.value
    item = lanes.item
    steps = lanes.steps
    active = lanes.active
    movers = lanes.movers
    ended = lanes.fresh
    for n in range(net.n_nodes):
        for k in range(WORDS):
            value[n, k] = ZERO
    waiting = 0
    for k in range(WORDS):
        active[k] = ZERO
    for lane in range(LANES):
        if waiting < n_starts:
            load_lane(net, value, lane, starts[waiting])
            item[lane] = waiting
            steps[lane] = 0
            active[lane >> 6] |= lane_bit(lane)
            waiting += 1
    terminal = net.terminal_lit
    any_active = n_starts > 0
    while any_active:
        lane_forward(net, lanes, net.first_gate, net.split)
        for k in range(WORDS):
            over = (value[terminal >> 1, k] ^ masks[terminal & 1]) & active[k]
            w = active[k] & ~over
            while w != ZERO:
                b = lowest_bit_index(w)
                w &= w - ONE
                if steps[k * 64 + b] >= limit:
                    over |= ONE << np.uint64(b)
            ended[k] = over
            movers[k] = active[k] & ~over
        clear_inputs(net, lanes)
        choose_moves(net, lanes, rng, movers)
        for k in range(WORDS):
            stuck = ZERO
            for r in range(net.n_roles):
                stuck |= lanes.role_stuck[r, k]
            # no legal move in a non-terminal state: a broken game
            w = stuck
            while w != ZERO:
                b = lowest_bit_index(w)
                w &= w - ONE
                lane = k * 64 + b
                lengths_out[item[lane]] = -1 - steps[lane]
            ended[k] |= stuck
            for r in range(net.n_roles):
                forced = lanes.role_forced[r, k]
                w = movers[k] & ~stuck
                while w != ZERO:
                    b = lowest_bit_index(w)
                    w &= w - ONE
                    lane = k * 64 + b
                    c = lanes.role_choice[r, lane]
                    codes_out[item[lane], steps[lane], r] = -1 - c if (forced >> np.uint64(b)) & ONE else c
        for k in range(WORDS):
            w = ended[k]
            while w != ZERO:
                b = lowest_bit_index(w)
                w &= w - ONE
                lane = k * 64 + b
                bit = ONE << np.uint64(b)
                lane_goals(net, value, lane, goals_out[item[lane]])
                if (movers[k] & bit) == ZERO:  # ended (a broken lane has its length already)
                    lengths_out[item[lane]] = steps[lane]
                if waiting < n_starts:
                    item[lane] = waiting
                    steps[lane] = 0
                    waiting += 1
                else:
                    active[k] &= ~bit
            movers[k] &= ~ended[k]
        advance_lanes(net, lanes, movers)
        any_active = False
        for k in range(WORDS):
            w = ended[k] & active[k]
            while w != ZERO:
                b = lowest_bit_index(w)
                w &= w - ONE
                lane = k * 64 + b
                load_lane(net, value, lane, starts[item[lane]])
            w = movers[k]
            while w != ZERO:
                b = lowest_bit_index(w)
                w &= w - ONE
                steps[k * 64 + b] += 1
            if active[k] != ZERO:
                any_active = True
