"""One-state kernels: a game's state, its legal moves, a step, by change propagation.

Every function here is a `kernel` (`jit.decorators`) over the arrays of `arrays.py` and
scalars, so a search kernel can call them from inside its own numba code, and
any game runs on the same compiled code (nothing is compiled at START).

Types: `net` is an `arrays.Net` (shared, read-only), `work` an `arrays.Work`
(one per thread), `rng` a uint64[1] array (`arrays.new_rng(seed)`). A state is
`net.n_words` uint64 words, bit i of the state is fluent i
(`PropnetStateMachine.fluents`). A move code is a dense int per (role, move):
role r's codes are `net.role_lo[r]..net.role_lo[r+1]-1`, `net.code_role[c]` is
a code's role (mapping to GDL terms: `PropnetStateMachine.move_codes`).

    load_state(net, work, state_words)           -> None   make `state_words` current
    legal_codes(net, work, role, out)            -> int    role's legal codes into out[:n]
    advance(net, work, joint_codes)              -> None   current state -> next state
                                                            (NO_INPUT: that role plays no move)
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

Scalars are Python ints (int64 to numba): an np.int32 role or step count is a
new signature, hence a compilation. These kernels walk one state at a time
(a search tree's descent); random playouts in bulk belong in
`lane_kernels.lane_playouts`, 10 to 30 times faster per playout.
"""

from __future__ import annotations

import numpy as np

from .bits import ONE, ZERO, lowest_bit_index, rand_below
from .component_kernels import state_component, update_component
from ..jit.decorators import allocating_kernel, kernel

#: The code of no move: a role without a legal move in a state that is not
#: terminal (a broken game) plays it, as the manager's `nil` for that role.
NO_INPUT = -1


@kernel
def literal_value(value, lit):
    """The value (0 or 1) of literal `lit` (2 * node + negated) in `value`."""
    return value[lit >> 1] ^ (lit & 1)


@kernel
def forward(net, value, count, stack, lo, hi):
    """Evaluate gates lo..hi-1 in order (uint8 values); a cyclic component to its
    least fixpoint by a worklist (`component_kernels.state_component`; `count`
    and `stack` are int32 scratch, one slot per node)."""
    kind = net.kind
    in_ptr = net.in_ptr
    in_lit = net.in_lit
    scc = net.scc
    g = lo
    while g < hi:
        s = scc[g]
        if s >= 0:
            state_component(net, value, count, stack, s)
            g = net.scc_hi[s]
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


@kernel
def _push(queued, stack, registers, node):
    if queued[node] == 0:
        queued[node] = 1
        sp = registers[0]
        stack[sp] = node
        registers[0] = sp + 1


@kernel
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
    pending = work.pending
    pending_flags = work.pending_flags
    sp = work.registers[0]
    n_dirty = work.registers[1]
    n_pending = work.registers[2]
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
                        continue  # inside a component: its update counts these
                    count[t] = c
                    # listed for the component's update; flag 2: an input turned false
                    flag = pending_flags[t]
                    if flag == 0:
                        pending[n_pending] = t
                        n_pending += 1
                        flag = 1
                    if (v ^ (ol & 1)) == 0:
                        flag |= 2
                    pending_flags[t] = flag
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
        work.registers[2] = n_pending
        sp = update_component(net, work, s)
        n_pending = work.registers[2]
    work.registers[0] = 0
    work.registers[1] = 0


@kernel
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
    for n in range(net.n_nodes):
        work.old[n] = 2
        work.pending_flags[n] = 0
    forward(net, work.value, work.count, work.stack, net.first_gate, net.n_nodes)
    for g in range(net.first_gate, net.n_nodes):
        c = 0
        for e in range(net.in_ptr[g], net.in_ptr[g + 1]):
            c += literal_value(work.value, net.in_lit[e])
        work.count[g] = c
    for n in range(net.n_nodes):
        work.propagated[n] = work.value[n]
    load_state(net, work, net.init_words)


@kernel
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


@kernel
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


@kernel
def _switch_inputs(net, work, joint_codes):
    """Turn on one input per role (role order; a negative code turns none on)."""
    base = 1 + net.n_fluents
    for r in range(net.n_roles):
        c = joint_codes[r]
        old = work.input_code[r]
        if c != old:
            if old >= 0:
                work.value[base + old] = 0
                _push(work.queued, work.stack, work.registers, base + old)
            if c >= 0:  # else NO_INPUT: no input proposition turns on
                work.value[base + c] = 1
                _push(work.queued, work.stack, work.registers, base + c)
            work.input_code[r] = c


@kernel
def _read_next(net, work, out):
    """The next state the propagated inputs give, into `out`; then the inputs off
    again (queued: the caller's next propagation undoes them)."""
    for w in range(net.n_words):
        out[w] = ZERO
    value = work.value
    for i in range(net.n_fluents):
        lit = net.next_lit[i]
        if (value[lit >> 1] ^ (lit & 1)) != 0:
            out[i >> 6] |= ONE << np.uint64(i & 63)
    base = 1 + net.n_fluents
    for r in range(net.n_roles):
        c = work.input_code[r]
        if c >= 0:
            work.value[base + c] = 0
            _push(work.queued, work.stack, work.registers, base + c)
            work.input_code[r] = -1


@kernel
def advance(net, work, joint_codes):
    """Play one code per role (role order) from the current state; the next state becomes current."""
    _switch_inputs(net, work, joint_codes)
    propagate(net, work)
    _read_next(net, work, work.next_state)
    load_state(net, work, work.next_state)


@kernel
def peek_next(net, work, joint_codes, out):
    """The next state of one joint move into `out` (uint64 words), the current
    state left as it was: the inputs are switched on and off again, so only
    the gates the move reaches are recomputed (a look-ahead, without
    `advance`'s two state loads)."""
    _switch_inputs(net, work, joint_codes)
    propagate(net, work)
    _read_next(net, work, out)
    propagate(net, work)


@kernel
def is_terminal(net, work):
    return literal_value(work.value, net.terminal_lit) != 0


@kernel
def goals(net, work, out):
    """out[r] = role r's goal in the current state: the highest true value, 0 when none."""
    for r in range(net.n_roles):
        out[r] = 0
    for i in range(len(net.goal_lit)):
        if literal_value(work.value, net.goal_lit[i]) != 0:
            r = net.goal_role[i]
            if net.goal_value[i] > out[r]:
                out[r] = net.goal_value[i]


@allocating_kernel
def current_state(work):
    return work.state


@kernel
def state_hash(work):
    return work.hash[0]


@kernel
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
