"""Numba kernels over a compiled game: the API the search is built on.

Every function here is a plain `@njit(cache=True, nogil=True)` function over the
arrays of `arrays.py` and scalars, so a search kernel can call them from inside
its own njit code, and any game runs on the same compiled code (nothing is
compiled at START; call `warm_up()` once when the process starts to load the
compiled kernels from numba's disk cache).

Types: `net` is an `arrays.Net` (shared, read-only), `work` an `arrays.Work`
(one per thread), `lanes` an `arrays.Lanes` (one per thread), `rng` a uint64[1]
array (`arrays.new_rng(seed)`). A state is `net.n_words` uint64 words, bit i of
the state is fluent i (`PropnetStateMachine.fluents`). A move code is a dense
int per (role, move): role r's codes are `net.role_lo[r]..net.role_lo[r+1]-1`,
`net.code_role[c]` is a code's role (mapping to GDL terms:
`PropnetStateMachine.move_codes`).

One-at-a-time (change propagation; the search's tree descent):

    load_state(net, work, state_words)           -> None   make `state_words` current
    legal_codes(net, work, role, out)            -> int    role's legal codes into out[:n]
    advance(net, work, joint_codes)              -> None   current state -> next state
    is_terminal(net, work)                       -> bool
    goals(net, work, out)                        -> None   out[r] = goal of role r (0..100;
                                                            none 0, several: the highest)
    current_state(work)                          -> uint64[:] (a view: copy to keep)
    state_hash(work)                             -> uint64  (Zobrist, kept incrementally)
    random_playout(net, work, rng, max_steps, codes_out) -> int

`random_playout` plays uniformly random joint moves from the current state
until a terminal state or `max_steps` joint moves, leaves the final state
current (read `goals`), and returns the number of joint moves played, or
`-1 - step` when a role had no legal move in a non-terminal state (a broken
game). `codes_out[step, role]` (int32, at least max_steps x n_roles) records
each role's code; a role whose only legal move it was gets `~code` (negative):
a move that carried no choice.

Lanes (bit-parallel random playouts, 256 at a time; the search's playout batches):

    lane_playouts(net, lanes, starts, n_starts, rng, max_steps,
                  codes_out, lengths_out, goals_out) -> None

plays one random playout from each of `starts[k]` (k < n_starts; uint64
words), 256 at a time, one bit per playout in each node's four words; a lane
that finishes takes the next waiting start, so a batch much larger than 256
keeps all lanes busy. `codes_out[k, step, role]` (int32, n_starts x max_steps x
n_roles) as above, `lengths_out[k]` (int32) the joint moves played (negative
as above for a broken game), `goals_out[k, role]` (int32) the goals in the
final state (a playout cut at `max_steps` gets that state's goals).

Scalars are Python ints (int64 to numba): an np.int32 role or step count is a
new signature, hence a compilation. Measured on this machine (docs/propnet.md):
the lanes play 10 to 30 times more random playouts per second than change
propagation or a full forward pass one playout at a time, so playouts belong
in `lane_playouts`; the one-at-a-time kernels are for walking a tree.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ONE = np.uint64(1)
ZERO = np.uint64(0)
ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_MIX = np.uint64(0x2545F4914F6CDD1D)
_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S27 = np.uint64(27)
_S32 = np.uint64(32)
_S58 = np.uint64(58)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.array(
    [0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
     62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
     63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
     46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6],
    dtype=np.int64,
)


# -- small helpers ---------------------------------------------------------------


@njit(cache=True, nogil=True, _nrt=False)
def rand_below(rng, n):
    """A uniform integer in [0, n) from the xorshift64* state in rng[0]."""
    x = rng[0]
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    rng[0] = x
    r = (x * _MIX) >> _S32
    return np.int64((r * np.uint64(n)) >> _S32)


@njit(cache=True, nogil=True, _nrt=False)
def lowest_bit_index(word):
    """Index of the lowest set bit of a non-zero uint64."""
    low = word & (~word + ONE)
    return _DEBRUIJN_INDEX[np.int64((low * _DEBRUIJN) >> _S58)]


@njit(cache=True, nogil=True, _nrt=False)
def _lit(value, lit):
    return value[lit >> 1] ^ (lit & 1)


@njit(cache=True, nogil=True, _nrt=False)
def forward(net, value, lo, hi):
    """Evaluate gates lo..hi-1 in order (uint8 values); a cyclic component to its
    least fixpoint (its members start false and only ever turn true)."""
    kind = net.kind
    in_ptr = net.in_ptr
    in_lit = net.in_lit
    scc = net.scc
    g = lo
    while g < hi:
        s = scc[g]
        if s >= 0:
            a = net.scc_lo[s]
            b = net.scc_hi[s]
            for m in range(a, b):
                value[m] = 0
            changed = True
            while changed:
                changed = False
                for m in range(a, b):
                    if value[m] == 0:
                        v = 1 if kind[m] == 1 else 0
                        for e in range(in_ptr[m], in_ptr[m + 1]):
                            lit = in_lit[e]
                            if ((value[lit >> 1] ^ (lit & 1)) != 0) != (kind[m] == 1):
                                v = 1 - v
                                break
                        if v == 1:
                            value[m] = 1
                            changed = True
            g = b
            continue
        v = 1 if kind[g] == 1 else 0
        for e in range(in_ptr[g], in_ptr[g + 1]):
            lit = in_lit[e]
            if ((value[lit >> 1] ^ (lit & 1)) != 0) != (kind[g] == 1):
                v = 1 - v
                break
        value[g] = v
        g += 1


# -- change propagation ------------------------------------------------------------


@njit(cache=True, nogil=True, _nrt=False)
def _push(queued, stack, registers, node):
    if queued[node] == 0:
        queued[node] = 1
        sp = registers[0]
        stack[sp] = node
        registers[0] = sp + 1


@njit(cache=True, nogil=True, _nrt=False)
def _reevaluate_component(net, work, s):
    """Least fixpoint of cyclic component s from its current outside inputs.

    Called with an empty stack; returns the new stack size, with the members
    whose value changed pushed (their fan-out outside the component is then
    updated like any other node's). Inside the component, counts follow
    `value`; the wires are positive (the builder refuses negation in a cycle).
    """
    a = net.scc_lo[s]
    b = net.scc_hi[s]
    value = work.value
    count = work.count
    stack = work.stack
    old = work.old
    for m in range(a, b):
        old[m] = value[m]
        if value[m] != 0:
            for e in range(net.out_ptr[m], net.out_ptr[m + 1]):
                t = net.out_lit[e] >> 1
                if net.scc[t] == s:
                    count[t] -= 1
            value[m] = 0
    top = 0
    for m in range(a, b):
        if count[m] >= net.need[m]:
            value[m] = 1
            stack[top] = m
            top += 1
    while top > 0:
        top -= 1
        m = stack[top]
        for e in range(net.out_ptr[m], net.out_ptr[m + 1]):
            t = net.out_lit[e] >> 1
            if net.scc[t] == s:
                count[t] += 1
                if value[t] == 0 and count[t] >= net.need[t]:
                    value[t] = 1
                    stack[top] = t
                    top += 1
    sp = 0
    for m in range(a, b):
        if value[m] != old[m]:
            work.queued[m] = 1
            stack[sp] = m
            sp += 1
    return sp


@njit(cache=True, nogil=True, _nrt=False)
def propagate(net, work):
    """Bring every gate up to date with the leaves changed (and pushed) since the last call."""
    value = work.value
    propagated = work.propagated
    queued = work.queued
    count = work.count
    stack = work.stack
    need = net.need
    out_ptr = net.out_ptr
    out_lit = net.out_lit
    scc = net.scc
    sp = work.registers[0]
    n_dirty = work.registers[1]
    while True:
        while sp > 0:
            sp -= 1
            n = stack[sp]
            queued[n] = 0
            v = value[n]
            if v == propagated[n]:
                continue
            propagated[n] = v
            sn = scc[n]
            for e in range(out_ptr[n], out_ptr[n + 1]):
                ol = out_lit[e]
                t = ol >> 1
                st = scc[t]
                if (v ^ (ol & 1)) != 0:
                    c = count[t] + 1
                else:
                    c = count[t] - 1
                if st >= 0:
                    if st == sn:
                        continue  # inside a component: its re-evaluation counts these
                    count[t] = c
                    if work.scc_dirty[st] == 0:
                        work.scc_dirty[st] = 1
                        work.dirty[n_dirty] = st
                        n_dirty += 1
                    continue
                count[t] = c
                nv = 1 if c >= need[t] else 0
                if nv != value[t]:
                    value[t] = nv
                    if queued[t] == 0:
                        queued[t] = 1
                        stack[sp] = t
                        sp += 1
        if n_dirty == 0:
            break
        best = 0
        for i in range(1, n_dirty):
            if net.scc_lo[work.dirty[i]] < net.scc_lo[work.dirty[best]]:
                best = i
        s = work.dirty[best]
        n_dirty -= 1
        work.dirty[best] = work.dirty[n_dirty]
        work.scc_dirty[s] = 0
        sp = _reevaluate_component(net, work, s)
    work.registers[0] = 0
    work.registers[1] = 0


@njit(cache=True, nogil=True, _nrt=False)
def init_work(net, work):
    """Evaluate everything from scratch (all false, no moves), then load the initial state."""
    for n in range(net.n_nodes):
        work.value[n] = 0
        work.queued[n] = 0
        work.count[n] = 0
    for i in range(len(work.scc_dirty)):
        work.scc_dirty[i] = 0
    for i in range(len(work.registers)):
        work.registers[i] = 0
    for w in range(net.n_words):
        work.state[w] = ZERO
    work.hash[0] = ZERO
    for r in range(len(work.input_code)):
        work.input_code[r] = -1
    forward(net, work.value, net.first_gate, net.n_nodes)
    for g in range(net.first_gate, net.n_nodes):
        c = 0
        for e in range(net.in_ptr[g], net.in_ptr[g + 1]):
            c += _lit(work.value, net.in_lit[e])
        work.count[g] = c
    for n in range(net.n_nodes):
        work.propagated[n] = work.value[n]
    load_state(net, work, net.init_words)


@njit(cache=True, nogil=True, _nrt=False)
def load_state(net, work, state_words):
    """Make `state_words` the current state (only the fluents that differ cost work)."""
    state = work.state
    for w in range(net.n_words):
        diff = state_words[w] ^ state[w]
        while diff != ZERO:
            bit = lowest_bit_index(diff)
            diff &= diff - ONE
            i = w * 64 + bit
            node = 1 + i
            work.value[node] ^= 1
            _push(work.queued, work.stack, work.registers, node)
            work.hash[0] ^= net.zobrist[i]
        state[w] = state_words[w]
    propagate(net, work)


@njit(cache=True, nogil=True, _nrt=False)
def legal_codes(net, work, role, out):
    """Role's legal move codes in the current state into out; returns how many."""
    n = 0
    value = work.value
    for c in range(net.role_lo[role], net.role_lo[role + 1]):
        lit = net.legal_lit[c]
        if (value[lit >> 1] ^ (lit & 1)) != 0:
            out[n] = c
            n += 1
    return n


@njit(cache=True, nogil=True, _nrt=False)
def advance(net, work, joint_codes):
    """Play one code per role (role order) from the current state; the next state becomes current."""
    base = 1 + net.n_fluents
    for r in range(net.n_roles):
        c = joint_codes[r]
        old = work.input_code[r]
        if c != old:
            if old >= 0:
                work.value[base + old] = 0
                _push(work.queued, work.stack, work.registers, base + old)
            work.value[base + c] = 1
            _push(work.queued, work.stack, work.registers, base + c)
            work.input_code[r] = c
    propagate(net, work)
    next_state = work.next_state
    for w in range(net.n_words):
        next_state[w] = ZERO
    value = work.value
    for i in range(net.n_fluents):
        lit = net.next_lit[i]
        if (value[lit >> 1] ^ (lit & 1)) != 0:
            next_state[i >> 6] |= ONE << np.uint64(i & 63)
    for r in range(net.n_roles):
        c = work.input_code[r]
        if c >= 0:
            work.value[base + c] = 0
            _push(work.queued, work.stack, work.registers, base + c)
            work.input_code[r] = -1
    load_state(net, work, next_state)


@njit(cache=True, nogil=True, _nrt=False)
def is_terminal(net, work):
    return _lit(work.value, net.terminal_lit) != 0


@njit(cache=True, nogil=True, _nrt=False)
def goals(net, work, out):
    """out[r] = role r's goal in the current state: the highest true value, 0 when none."""
    for r in range(net.n_roles):
        out[r] = 0
    for i in range(len(net.goal_lit)):
        if _lit(work.value, net.goal_lit[i]) != 0:
            r = net.goal_role[i]
            if net.goal_value[i] > out[r]:
                out[r] = net.goal_value[i]


@njit(cache=True, nogil=True)
def current_state(work):
    return work.state


@njit(cache=True, nogil=True, _nrt=False)
def state_hash(work):
    return work.hash[0]


@njit(cache=True, nogil=True, _nrt=False)
def random_playout(net, work, rng, max_steps, codes_out):
    """Random joint moves from the current state (see the module docstring)."""
    limit = min(max_steps, codes_out.shape[0])
    joint = work.joint
    buffer = work.codes
    steps = 0
    while steps < limit:
        if is_terminal(net, work):
            break
        for r in range(net.n_roles):
            n = legal_codes(net, work, r, buffer)
            if n == 0:
                return -1 - steps
            if n == 1:
                c = buffer[0]
                codes_out[steps, r] = -1 - c
            else:
                c = buffer[rand_below(rng, n)]
                codes_out[steps, r] = c
            joint[r] = c
        advance(net, work, joint)
        steps += 1
    return steps


# -- full forward pass, one playout at a time (kept for measurement) ---------------


@njit(cache=True, nogil=True, _nrt=False)
def forward_playout(net, value, scratch, rng, start_words, max_steps, codes_out, goals_out):
    """A random playout that evaluates every gate at every step (uint8 values, one
    per node; `scratch` int32, at least n_fluents + n_codes + n_roles long).
    Slower than the lanes; kept to measure the difference."""
    limit = min(max_steps, codes_out.shape[0])
    for n in range(net.n_nodes):
        value[n] = 0
    for i in range(net.n_fluents):
        value[1 + i] = (start_words[i >> 6] >> np.uint64(i & 63)) & ONE
    base = 1 + net.n_fluents
    nxt = scratch[: net.n_fluents]
    legal = scratch[net.n_fluents: net.n_fluents + net.n_codes]
    chosen = scratch[net.n_fluents + net.n_codes:]
    steps = 0
    while True:
        forward(net, value, net.first_gate, net.split)
        if _lit(value, net.terminal_lit) != 0 or steps >= limit:
            break
        for r in range(net.n_roles):
            n = 0
            for c in range(net.role_lo[r], net.role_lo[r + 1]):
                if _lit(value, net.legal_lit[c]) != 0:
                    legal[n] = c
                    n += 1
            if n == 0:
                return -1 - steps
            c = legal[rand_below(rng, n)]
            codes_out[steps, r] = c if n > 1 else -1 - c
            chosen[r] = c
            value[base + c] = 1
        forward(net, value, net.split, net.n_nodes)
        for i in range(net.n_fluents):
            nxt[i] = _lit(value, net.next_lit[i])
        for i in range(net.n_fluents):
            value[1 + i] = nxt[i]
        for r in range(net.n_roles):
            value[base + chosen[r]] = 0
        steps += 1
    for r in range(net.n_roles):
        goals_out[r] = 0
    for i in range(len(net.goal_lit)):
        if _lit(value, net.goal_lit[i]) != 0:
            r = net.goal_role[i]
            goals_out[r] = max(goals_out[r], net.goal_value[i])
    return steps


# -- lanes: 256 playouts at once, four uint64 words per node ----------------------------

#: Words per node in the lane kernels: 4 x 64 = 256 playouts per pass. One
#: input literal read serves four words (which LLVM turns into one AVX2
#: operation): measured 2.6 to 3 times the throughput of one word per node.
WORDS = 4
LANES = 64 * WORDS


@njit(cache=True, nogil=True, _nrt=False)
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


@njit(cache=True, nogil=True, _nrt=False)
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


@njit(cache=True, nogil=True, _nrt=False)
def _lane_bit(lane):
    return ONE << np.uint64(lane & 63)


@njit(cache=True, nogil=True, _nrt=False)
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


@njit(cache=True, nogil=True, _nrt=False)
def _lane_load(net, value, lane, state_words):
    """Put a state into one lane's base propositions."""
    k = lane >> 6
    shift = np.uint64(lane & 63)
    keep = ~(ONE << shift)
    for i in range(net.n_fluents):
        on = (state_words[i >> 6] >> np.uint64(i & 63)) & ONE
        value[1 + i, k] = (value[1 + i, k] & keep) | (on << shift)


@njit(cache=True, nogil=True, _nrt=False)
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


# -- timed loops for `bench` (no Python between playouts) -------------------------------


@njit(cache=True, nogil=True, _nrt=False)
def bench_propagate(net, work, rng, n_playouts, max_steps, codes_out):
    """n_playouts random playouts from the initial state by change propagation;
    returns the joint moves played in all."""
    total = 0
    for _ in range(n_playouts):
        load_state(net, work, net.init_words)
        steps = random_playout(net, work, rng, max_steps, codes_out)
        total += steps if steps >= 0 else -1 - steps
    return total


@njit(cache=True, nogil=True, _nrt=False)
def bench_forward(net, value, scratch, rng, n_playouts, max_steps, codes_out, goals_out):
    """As `bench_propagate`, by full forward passes."""
    total = 0
    for _ in range(n_playouts):
        steps = forward_playout(net, value, scratch, rng, net.init_words, max_steps, codes_out, goals_out)
        total += steps if steps >= 0 else -1 - steps
    return total


def dispatchers() -> list:
    """Every numba dispatcher of this module (for warm-up checks and compile counters)."""
    from numba.core.registry import CPUDispatcher

    return [value for value in globals().values() if isinstance(value, CPUDispatcher)]


def warm_up() -> None:
    """Load every kernel of the propnet (builder and playouts) by running a tiny
    game through them: `machine.warm_up`, here where `ggp_agent.warmup` looks."""
    from .machine import warm_up as run

    run()
