"""Cyclic components (recursive relations over the state) evaluated by worklists.

A recursive GDL relation (group connectivity and liberties in Go-like games,
paths in Hex, reachability anywhere) grounds to a strongly connected
component of gates. Its value is the least fixpoint of the component's gates
given their inputs from outside; every wire inside a component is plain (the
builder refuses negation in a cycle), so the gates are monotone and a
worklist reaches that fixpoint exactly: a member is evaluated again only when
one of its inputs inside the component has just changed. Nothing here knows a
game: the components, and each member's inside and outside wires
(`Net.scc_int_*`, `scc_ext_*`, `scc_out_*`), come from the rules.

- `lane_component`: 256 lanes at once, from all-false. Each member's outside
  inputs are read once (an AND keeps their conjunction in `Lanes.outside`);
  then a FIFO of the members whose words grew: an OR takes the new words of
  the member that grew, an AND is evaluated again over its inside inputs (an
  AND whose outside inputs are false in every lane never is). The sweeps it
  replaced evaluated every member until nothing changed, 9 to 10 times per
  component on NoGo 7x7.
- `state_component`: the same for one state (uint8 values), for the full
  evaluation of a `Work` (`state_kernels.forward`).
- `update_component`: change propagation's incremental update
  (delete and re-derive). The members whose outside inputs changed since
  the last step start it: one that lost an input, and is not kept true by
  another outside input, is provisionally deleted with every true member its
  value reached inside the component; then every deleted or newly supported
  member whose count of true inputs suffices is derived again, and what it
  supports with it. Only the members reached are touched, not the component.

Why not incremental in the lanes too: 256 different playouts change 256
different parts of a component at every step, so a step touches nearly every
member in some lane anyway (docs/propnet.md measures this for event-driven
lanes); from scratch, each member is visited about once.
"""

from __future__ import annotations

from .bits import ALL_ONES, ZERO
from ..jit.decorators import kernel

AND = 1


@kernel
def _outside_and(value, ext_ptr, ext_node, ext_end, outside, g):
    """outside[g] = the AND of member g's outside inputs (4 words)."""
    w0 = ALL_ONES
    w1 = ALL_ONES
    w2 = ALL_ONES
    w3 = ALL_ONES
    for e in range(ext_ptr[g], ext_end[g]):
        n = ext_node[e]
        w0 &= value[n, 0]
        w1 &= value[n, 1]
        w2 &= value[n, 2]
        w3 &= value[n, 3]
    for e in range(ext_end[g], ext_ptr[g + 1]):
        n = ext_node[e]
        w0 &= ~value[n, 0]
        w1 &= ~value[n, 1]
        w2 &= ~value[n, 2]
        w3 &= ~value[n, 3]
    outside[g, 0] = w0
    outside[g, 1] = w1
    outside[g, 2] = w2
    outside[g, 3] = w3


@kernel
def _outside_or(value, ext_ptr, ext_node, ext_end, g, m):
    """value[m] = the OR of member g's outside inputs (4 words); True when not zero."""
    w0 = ZERO
    w1 = ZERO
    w2 = ZERO
    w3 = ZERO
    for e in range(ext_ptr[g], ext_end[g]):
        n = ext_node[e]
        w0 |= value[n, 0]
        w1 |= value[n, 1]
        w2 |= value[n, 2]
        w3 |= value[n, 3]
    for e in range(ext_end[g], ext_ptr[g + 1]):
        n = ext_node[e]
        w0 |= ~value[n, 0]
        w1 |= ~value[n, 1]
        w2 |= ~value[n, 2]
        w3 |= ~value[n, 3]
    value[m, 0] = w0
    value[m, 1] = w1
    value[m, 2] = w2
    value[m, 3] = w3
    return (w0 | w1 | w2 | w3) != ZERO


@kernel
def lane_component(net, value, outside, queue, queued, s):
    """Least fixpoint of cyclic component s for 256 lanes (value: uint64[n_nodes, 4]).

    `outside[g]` holds what member g's inside inputs are ANDed with: the
    conjunction of an AND's outside inputs, all ones for an OR. A hop from a
    member y that grew to a member t (`Net.scc_hop_*`) is then one update,
    `t |= outside[via] & y`, exact for an OR (through a relay AND or not) and
    for an AND with one inside input; an AND with several inside inputs is
    evaluated again. Relays get their value once, at the end.
    """
    kind = net.kind
    relay = net.scc_relay
    ext_ptr = net.scc_ext_ptr
    ext_node = net.scc_ext_node
    ext_end = net.scc_ext_end
    int_ptr = net.scc_int_ptr
    int_node = net.scc_int_node
    hop_ptr = net.scc_hop_ptr
    hop_node = net.scc_hop_node
    hop_via = net.scc_hop_via
    a = net.scc_lo[s]
    b = net.scc_hi[s]
    end = b  # the queue is a ring over queue[a:b]: a member waits at most once
    head = a
    tail = a
    waiting = 0
    for g in range(a, b):
        if kind[g] == AND:
            _outside_and(value, ext_ptr, ext_node, ext_end, outside, g)
            # every member has an input inside the component, false so far
            value[g, 0] = ZERO
            value[g, 1] = ZERO
            value[g, 2] = ZERO
            value[g, 3] = ZERO
            continue
        outside[g, 0] = ALL_ONES
        outside[g, 1] = ALL_ONES
        outside[g, 2] = ALL_ONES
        outside[g, 3] = ALL_ONES
        if _outside_or(value, ext_ptr, ext_node, ext_end, g, g):
            queue[tail] = g
            tail += 1
            if tail == end:
                tail = a
            waiting += 1
            queued[g] = 1
    while waiting > 0:
        y = queue[head]
        head += 1
        if head == end:
            head = a
        waiting -= 1
        queued[y] = 0
        y0 = value[y, 0]
        y1 = value[y, 1]
        y2 = value[y, 2]
        y3 = value[y, 3]
        for e in range(hop_ptr[y], hop_ptr[y + 1]):
            t = hop_node[e]
            if kind[t] == AND and int_ptr[t + 1] - int_ptr[t] > 1:
                d0 = outside[t, 0] & ~value[t, 0]
                d1 = outside[t, 1] & ~value[t, 1]
                d2 = outside[t, 2] & ~value[t, 2]
                d3 = outside[t, 3] & ~value[t, 3]
                for i in range(int_ptr[t], int_ptr[t + 1]):
                    n = int_node[i]
                    d0 &= value[n, 0]
                    d1 &= value[n, 1]
                    d2 &= value[n, 2]
                    d3 &= value[n, 3]
            else:
                v = hop_via[e]
                d0 = outside[v, 0] & y0 & ~value[t, 0]
                d1 = outside[v, 1] & y1 & ~value[t, 1]
                d2 = outside[v, 2] & y2 & ~value[t, 2]
                d3 = outside[v, 3] & y3 & ~value[t, 3]
            if (d0 | d1 | d2 | d3) != ZERO:
                value[t, 0] |= d0
                value[t, 1] |= d1
                value[t, 2] |= d2
                value[t, 3] |= d3
                if queued[t] == 0:
                    queued[t] = 1
                    queue[tail] = t
                    tail += 1
                    if tail == end:
                        tail = a
                    waiting += 1
    for g in range(a, b):
        if relay[g]:
            n = int_node[int_ptr[g]]
            value[g, 0] = outside[g, 0] & value[n, 0]
            value[g, 1] = outside[g, 1] & value[n, 1]
            value[g, 2] = outside[g, 2] & value[n, 2]
            value[g, 3] = outside[g, 3] & value[n, 3]


@kernel
def lane_group(net, value, outside, queue, queued, k):
    """Least fixpoints of the parallel components of group k (`component_groups`)
    for 256 lanes, as one worklist over the lead's members: member j stands
    for its twin in every component of the group (`Net.group_nodes`), which
    share the AND of an AND's outside inputs; a hop from a member that grew
    updates every component's row of its target, as in `lane_component`.
    (Updating only the rows that grew, found by a bit scan, measured slower:
    the straight loop over the rows is what the processor runs best.)"""
    kind = net.kind
    relay = net.scc_relay
    ext_ptr = net.scc_ext_ptr
    ext_node = net.scc_ext_node
    ext_end = net.scc_ext_end
    int_ptr = net.scc_int_ptr
    int_node = net.scc_int_node
    hop_ptr = net.scc_hop_ptr
    hop_node = net.scc_hop_node
    hop_via = net.scc_hop_via
    rows = net.group_size[k]
    nodes = net.group_nodes[net.group_ptr[k]:]
    lead = net.group_lead[k]
    a = net.scc_lo[lead]
    b = net.scc_hi[lead]
    end = b
    head = a
    tail = a
    waiting = 0
    for g in range(a, b):
        j = (g - a) * rows
        if kind[g] == AND:
            _outside_and(value, ext_ptr, ext_node, ext_end, outside, g)
            if relay[g] == 0:
                for c in range(rows):
                    m = nodes[j + c]
                    value[m, 0] = ZERO
                    value[m, 1] = ZERO
                    value[m, 2] = ZERO
                    value[m, 3] = ZERO
            continue
        outside[g, 0] = ALL_ONES
        outside[g, 1] = ALL_ONES
        outside[g, 2] = ALL_ONES
        outside[g, 3] = ALL_ONES
        grew = False
        for c in range(rows):
            m = nodes[j + c]
            if _outside_or(value, ext_ptr, ext_node, ext_end, m, m):
                grew = True
        if grew:
            queue[tail] = g
            tail += 1
            if tail == end:
                tail = a
            waiting += 1
            queued[g] = 1
    while waiting > 0:
        y = queue[head]
        head += 1
        if head == end:
            head = a
        waiting -= 1
        queued[y] = 0
        jy = (y - a) * rows
        for e in range(hop_ptr[y], hop_ptr[y + 1]):
            t = hop_node[e]
            jt = (t - a) * rows
            several = kind[t] == AND and int_ptr[t + 1] - int_ptr[t] > 1
            v = t if several else hop_via[e]
            o0 = outside[v, 0]
            o1 = outside[v, 1]
            o2 = outside[v, 2]
            o3 = outside[v, 3]
            if (o0 | o1 | o2 | o3) == ZERO:
                continue
            grew = ZERO
            for c in range(rows):
                mt = nodes[jt + c]
                if several:
                    d0 = o0 & ~value[mt, 0]
                    d1 = o1 & ~value[mt, 1]
                    d2 = o2 & ~value[mt, 2]
                    d3 = o3 & ~value[mt, 3]
                    for i in range(int_ptr[t], int_ptr[t + 1]):
                        n = nodes[(int_node[i] - a) * rows + c]
                        d0 &= value[n, 0]
                        d1 &= value[n, 1]
                        d2 &= value[n, 2]
                        d3 &= value[n, 3]
                else:
                    my = nodes[jy + c]
                    d0 = o0 & value[my, 0] & ~value[mt, 0]
                    d1 = o1 & value[my, 1] & ~value[mt, 1]
                    d2 = o2 & value[my, 2] & ~value[mt, 2]
                    d3 = o3 & value[my, 3] & ~value[mt, 3]
                value[mt, 0] |= d0
                value[mt, 1] |= d1
                value[mt, 2] |= d2
                value[mt, 3] |= d3
                grew |= d0 | d1 | d2 | d3
            if grew != ZERO and queued[t] == 0:
                queued[t] = 1
                queue[tail] = t
                tail += 1
                if tail == end:
                    tail = a
                waiting += 1
    for g in range(a, b):
        if relay[g]:
            j = (g - a) * rows
            i = (int_node[int_ptr[g]] - a) * rows
            for c in range(rows):
                m = nodes[j + c]
                n = nodes[i + c]
                value[m, 0] = outside[g, 0] & value[n, 0]
                value[m, 1] = outside[g, 1] & value[n, 1]
                value[m, 2] = outside[g, 2] & value[n, 2]
                value[m, 3] = outside[g, 3] & value[n, 3]


@kernel
def _outside_satisfied(net, value, g):
    """How many of member g's outside inputs are true (value: uint8 per node)."""
    ext_node = net.scc_ext_node
    count = 0
    for e in range(net.scc_ext_ptr[g], net.scc_ext_end[g]):
        count += value[ext_node[e]]
    for e in range(net.scc_ext_end[g], net.scc_ext_ptr[g + 1]):
        count += 1 - value[ext_node[e]]
    return count


@kernel
def _inside_need(net, g):
    """Inside inputs member g needs true once its outside inputs are counted."""
    if net.kind[g] == AND:
        return net.scc_int_ptr[g + 1] - net.scc_int_ptr[g]
    return 1


@kernel
def state_component(net, value, count, stack, s):
    """Least fixpoint of cyclic component s for one state (value: uint8 per node);
    `count` (int32 per node) and `stack` (int32, at least the component's size)
    are scratch. The count of a member is its true inputs."""
    kind = net.kind
    out_ptr = net.scc_out_ptr
    out_node = net.scc_out_node
    a = net.scc_lo[s]
    b = net.scc_hi[s]
    top = 0
    for g in range(a, b):
        value[g] = 0
        outside = _outside_satisfied(net, value, g)
        size = net.scc_ext_ptr[g + 1] - net.scc_ext_ptr[g]
        if kind[g] == AND:
            # the inside inputs still needed (-1: an outside input is false)
            count[g] = net.scc_int_ptr[g + 1] - net.scc_int_ptr[g] if outside == size else -1
        else:
            count[g] = 0 if outside > 0 else 1
        if count[g] == 0:
            value[g] = 1
            stack[top] = g
            top += 1
    while top > 0:
        top -= 1
        y = stack[top]
        for e in range(out_ptr[y], out_ptr[y + 1]):
            t = out_node[e]
            if value[t] != 0 or count[t] <= 0:
                continue
            count[t] -= 1
            if count[t] == 0:
                value[t] = 1
                stack[top] = t
                top += 1


@kernel
def _touch(work, m, n_touched):
    """Remember member m's value before this update (once); the new touched count."""
    if work.old[m] == 2:
        work.old[m] = work.value[m]
        work.touched[n_touched] = m
        n_touched += 1
    return n_touched


@kernel
def update_component(net, work, s):
    """Bring cyclic component s up to date after its outside inputs changed
    (change propagation; see the module docstring). `work.count` holds every
    member's true inputs, the outside ones already updated by `propagate`,
    which also listed the members concerned in `work.pending` (flag 2: an
    input turned false). Returns the new stack size, with the members whose
    value changed pushed for their fan-out outside the component.
    """
    value = work.value
    count = work.count
    need = net.need
    kind = net.kind
    stack = work.stack
    flags = work.pending_flags
    pending = work.pending
    out_ptr = net.scc_out_ptr
    out_node = net.scc_out_node
    a = net.scc_lo[s]
    b = net.scc_hi[s]
    n_pending = work.registers[2]
    n_touched = 0
    # `work.queued` marks the members on the stack (the caller's stack is empty)
    marked = work.queued
    # 1. deletion seeds: members that lost an input, unless an OR kept true from outside
    top = 0
    for i in range(n_pending):
        m = pending[i]
        if a <= m < b and (flags[m] & 2) != 0 and value[m] != 0:
            if kind[m] == AND or _outside_satisfied(net, value, m) == 0:
                marked[m] = 1
                stack[top] = m
                top += 1
    # 2. over-delete every true member a seed reaches inside the component (the
    #    same exception), keeping the counts of true inputs
    while top > 0:
        top -= 1
        m = stack[top]
        marked[m] = 0
        n_touched = _touch(work, m, n_touched)
        value[m] = 0
        for e in range(out_ptr[m], out_ptr[m + 1]):
            t = out_node[e]
            count[t] -= 1
            if value[t] != 0 and marked[t] == 0 and (kind[t] == AND or _outside_satisfied(net, value, t) == 0):
                marked[t] = 1
                stack[top] = t
                top += 1
    # 3. derive again: deleted members and listed ones whose true inputs suffice
    for i in range(n_touched):
        m = work.touched[i]
        if count[m] >= need[m]:
            marked[m] = 1
            stack[top] = m
            top += 1
    kept = 0
    for i in range(n_pending):
        m = pending[i]
        if a <= m < b:
            flags[m] = 0
            if value[m] == 0 and marked[m] == 0 and count[m] >= need[m]:
                marked[m] = 1
                stack[top] = m
                top += 1
        else:
            pending[kept] = m
            kept += 1
    work.registers[2] = kept
    while top > 0:
        top -= 1
        m = stack[top]
        marked[m] = 0
        n_touched = _touch(work, m, n_touched)
        value[m] = 1
        for e in range(out_ptr[m], out_ptr[m + 1]):
            t = out_node[e]
            count[t] += 1
            if value[t] == 0 and marked[t] == 0 and count[t] >= need[t]:
                marked[t] = 1
                stack[top] = t
                top += 1
    # 4. the members whose value changed go on to their fan-out outside
    sp = 0
    for i in range(n_touched):
        m = work.touched[i]
        if value[m] != work.old[m]:
            work.queued[m] = 1
            stack[sp] = m
            sp += 1
        work.old[m] = 2
    return sp
