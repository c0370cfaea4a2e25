"""The lanes' gate passes: every gate for 256 lanes, or the gates after the moves sparsely.

    lane_forward(net, lanes, lo, hi)   gates lo..hi-1 for every lane (dense)
    post_move(net, lanes)              the gates after the moves, by the pass
                                       the network's plan chose (`Net.post_sparse`)

The dense pass reads every input of every gate. Some networks are mostly gates
that depend on the moves and are false in almost every playout: the corpus'
AtariGo relabels every cell's group for every possible move (141,463 gates
after the moves, of which 1,475 are true in some of 256 lanes at a step), so
a dense pass reads some 14 MB a step to find a few hundred true gates. The
sparse pass evaluates a gate only when it can be true in some lane:

- an AND with a plain input whose four words are zero is zero: each AND after
  the moves has a trigger, a plain input seldom true when the network was
  sampled (`sparse_plan.gate_roles`), and is evaluated only when its
  trigger is non-zero. When its other inputs all come before the moves (known
  when the pass starts) it is evaluated right there, where the trigger turns
  out non-zero ("fired"); otherwise it is marked a candidate and evaluated
  when the scan reaches it;
- an OR whose inputs are all plain is zero when they all are: each non-zero
  input ORs its words into it, so it is never evaluated;
- the others (an OR with a negated input, an AND without a plain input, a
  cyclic component) are evaluated at every step (`Net.post_dense`).

Gates are visited in evaluation order through a bitmap of candidates (a
non-zero gate marks the gates it triggers, which come later); a gate that was
non-zero is listed and cleared at the next step, so every gate not evaluated
is zero.

Why fire rather than mark: the corpus' AtariGo relabels a group's stones
through ANDs of a fluent and a gate after the moves (49 per gate, a few of
them non-zero). Marked, each cost a bit set, a bit found and the generic
gate's lookups (component, pushed, kind, inputs) besides its inputs; fired,
it is read where its trigger's words are at hand, its other inputs from a
list kept per fire edge (`Net.fire_in_*`), in sequence. With the network
renumbered so that what one node fires or marks sits together
(`sparse_plan.planned`), the pass reads its gates, their inputs and their
targets in sequence: AtariGo's lane playouts went from about 19,000 to
34,000 a second.
"""

from __future__ import annotations

import numpy as np

from .bits import ALL_ONES, ONE, ZERO, lowest_bit_index
from .component_kernels import lane_component, lane_group
from ..jit.decorators import inline_kernel, kernel

#: Words per node in the lane kernels: 4 x 64 = 256 playouts per pass. One
#: input literal read serves four words (which LLVM turns into one AVX2
#: operation): measured 2.6 to 3 times the throughput of one word per node.
WORDS = 4
LANES = 64 * WORDS


@kernel
def lane_forward(net, lanes, lo, hi):
    """Evaluate gates lo..hi-1 for all lanes; a cyclic component by its worklist
    (`component_kernels.lane_component`), parallel components together
    (`lane_group`, evaluated where the group's first component stands).

    One loop with the arrays in locals: a call per gate would pass the whole
    `net` record each time, which costs more than the gate.
    """
    value = lanes.value
    kind = net.kind
    in_ptr = net.in_ptr
    in_node = net.in_node
    pos_end = net.pos_end
    scc = net.scc
    g = lo
    while g < hi:
        s = scc[g]
        if s >= 0:
            group = net.scc_group[s]
            if group < 0:
                lane_component(net, value, lanes.outside, lanes.queue, lanes.queued, s)
            elif net.group_lead[group] == s:
                lane_group(net, value, lanes.outside, lanes.queue, lanes.queued, group)
            # (the group's other components were evaluated with its lead)
            g = net.scc_hi[s]
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
def _nonzero(value, n):
    return (value[n, 0] | value[n, 1] | value[n, 2] | value[n, 3]) != ZERO


@inline_kernel
def _mark(net, value, cand, listed, count, stack, n):
    """Node n is non-zero: mark the ANDs it triggers, push its words into the
    ORs it feeds (and mark them), and evaluate the ANDs it fires, each of
    which, non-zero, is listed and marks and fires in turn (through `stack`,
    not recursion). Returns the count of listed gates."""
    stack[0] = n
    top = 1
    while top > 0:
        top -= 1
        m = stack[top]
        for e in range(net.trig_ptr[m], net.trig_ptr[m + 1]):
            t = net.trig_node[e]
            cand[t >> 6] |= ONE << np.uint64(t & 63)
        for e in range(net.push_ptr[m], net.push_ptr[m + 1]):
            t = net.push_node[e]
            value[t, 0] |= value[m, 0]
            value[t, 1] |= value[m, 1]
            value[t, 2] |= value[m, 2]
            value[t, 3] |= value[m, 3]
            cand[t >> 6] |= ONE << np.uint64(t & 63)
        for e in range(net.fire_ptr[m], net.fire_ptr[m + 1]):
            t = net.fire_node[e]
            a0 = value[m, 0]
            a1 = value[m, 1]
            a2 = value[m, 2]
            a3 = value[m, 3]
            for i in range(net.fire_in_ptr[e], net.fire_in_ptr[e + 1]):
                lit = net.fire_in_lit[i]
                x = lit >> 1
                mask = net.masks[lit & 1]
                a0 &= value[x, 0] ^ mask
                a1 &= value[x, 1] ^ mask
                a2 &= value[x, 2] ^ mask
                a3 &= value[x, 3] ^ mask
            if (a0 | a1 | a2 | a3) != ZERO:
                value[t, 0] = a0
                value[t, 1] = a1
                value[t, 2] = a2
                value[t, 3] = a3
                listed[count] = t
                count += 1
                stack[top] = t
                top += 1
    return count


@kernel
def post_move_sparse(net, lanes):
    """The gates after the moves, sparsely (see the module docstring). An OR
    whose inputs are all plain is not evaluated: each non-zero input ORs its
    words into it (`Net.push_*`), so it is complete when the scan reaches it."""
    value = lanes.value
    cand = lanes.candidates
    listed = lanes.nonzero
    kind = net.kind
    in_ptr = net.in_ptr
    in_node = net.in_node
    pos_end = net.pos_end
    scc = net.scc
    pushed = net.post_pushed
    fired = lanes.fired
    # gates that were non-zero last step become zero
    for i in range(lanes.registers[0]):
        g = listed[i]
        for k in range(WORDS):
            value[g, k] = ZERO
    count = 0
    first_word = net.split >> 6
    for w in range(first_word, len(cand)):
        cand[w] = net.post_dense[w]
    for i in range(len(net.post_sources)):
        n = net.post_sources[i]
        if _nonzero(value, n):
            count = _mark(net, value, cand, listed, count, fired, n)
    for w in range(first_word, len(cand)):
        while cand[w] != ZERO:
            b = lowest_bit_index(cand[w])
            cand[w] &= cand[w] - ONE
            g = (w << 6) + b
            if g < net.split:
                continue
            if scc[g] >= 0:
                # a component is evaluated whole (its members are all rewritten)
                hi = net.scc_hi[scc[g]]
                lane_forward(net, lanes, g, hi)
                for m in range(g, hi):
                    cand[m >> 6] &= ~(ONE << np.uint64(m & 63))
                    if _nonzero(value, m):
                        count = _mark(net, value, cand, listed, count, fired, m)
                continue
            if pushed[g >> 6] & (ONE << np.uint64(g & 63)):
                # complete: its non-zero inputs pushed their words
                listed[count] = g
                count += 1
                count = _mark(net, value, cand, listed, count, fired, g)
                continue
            lo_e = in_ptr[g]
            mid = pos_end[g]
            hi_e = in_ptr[g + 1]
            if kind[g] == 1:
                a0 = ~ZERO
                a1 = ~ZERO
                a2 = ~ZERO
                a3 = ~ZERO
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
            if (a0 | a1 | a2 | a3) == ZERO:
                continue
            value[g, 0] = a0
            value[g, 1] = a1
            value[g, 2] = a2
            value[g, 3] = a3
            listed[count] = g
            count += 1
            count = _mark(net, value, cand, listed, count, fired, g)
    lanes.registers[0] = count


@kernel
def post_move(net, lanes):
    """The gates after the moves, by the pass the network's plan chose."""
    if net.post_sparse != 0:
        post_move_sparse(net, lanes)
    else:
        lane_forward(net, lanes, net.split, net.n_nodes)


