"""A network as flat numpy arrays (`Net`), and the per-thread working records.

Why flat arrays: numba kernels run over them without Python objects, and since
every game has the same array types, one compiled kernel serves every game
(a game is data, never code). Everything here has a fixed dtype and C layout
on purpose: a different dtype or layout would be a new numba signature, hence
a compilation at START.

Node numbering (shared with `gates.py`): node 0 is the constant FALSE
(literal 0 FALSE, literal 1 TRUE), nodes 1..F are the base propositions
(fluent i is node 1 + i, bit i of the state words), nodes F+1..F+C the input
propositions (move code c is node F + 1 + c), then the gates in evaluation
order: [first_gate, split) before the moves, [split, n_nodes) after. A literal
is `2 * node + negated`.

`Work` is one search thread's scratch for the one-at-a-time kernels (change
propagation); `Lanes` the scratch of the lane kernels (256 playouts at once). Neither may be
shared between threads; `Net` may.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .component_groups import find_groups
from .gates import AND, OR, Network

#: A state of F fluents is ceil(F / 64) words; at least one.
WORD_BITS = 64


class Net(NamedTuple):
    """A compiled game: read-only arrays, shared by all threads."""

    n_nodes: int
    n_fluents: int
    n_codes: int
    n_roles: int
    n_words: int
    first_gate: int
    split: int
    terminal_lit: int
    #: 1 for AND, 2 for OR, 0 for leaves (uint8)
    kind: np.ndarray
    #: inputs satisfied for a gate to be true: all for AND, one for OR (int32)
    need: np.ndarray
    #: gate inputs, CSR over nodes (int32); in_lit holds literals
    in_ptr: np.ndarray
    in_lit: np.ndarray
    #: the same inputs as nodes, each gate's plain inputs first and its negated
    #: ones from pos_end[g] on (int32): the lane kernels need no mask per wire
    in_node: np.ndarray
    pos_end: np.ndarray
    #: fan-out, CSR over nodes (int32); out_lit holds 2 * target + negated
    out_ptr: np.ndarray
    out_lit: np.ndarray
    #: cyclic component of each node or -1; component s spans nodes
    #: scc_lo[s]..scc_hi[s]-1 (int32)
    scc: np.ndarray
    scc_lo: np.ndarray
    scc_hi: np.ndarray
    #: a component member's wires split for `component_kernels` (CSR over
    #: nodes, int32, empty for the other nodes): inputs from inside its
    #: component (`scc_int_*`, always plain), inputs from outside (`scc_ext_*`,
    #: plain ones before scc_ext_end[g], negated ones after), and its fan-out
    #: inside the component (`scc_out_*`)
    scc_int_ptr: np.ndarray
    scc_int_node: np.ndarray
    scc_ext_ptr: np.ndarray
    scc_ext_node: np.ndarray
    scc_ext_end: np.ndarray
    scc_out_ptr: np.ndarray
    scc_out_node: np.ndarray
    #: the lanes' worklist skips relays: an AND member with one input inside
    #: the component, that input no such AND, feeding only ORs inside it
    #: (scc_relay[g] = 1). A member's hops (CSR over nodes, int32) are its
    #: fan-out inside with each relay replaced by the relay's own targets;
    #: scc_hop_via is the relay passed (its outside inputs mask the hop), or
    #: the target itself
    scc_relay: np.ndarray
    scc_hop_ptr: np.ndarray
    scc_hop_node: np.ndarray
    scc_hop_via: np.ndarray
    #: groups of parallel components evaluated together by the lanes
    #: (`component_groups.find_groups`): a component's group or -1 (int32), each
    #: group's lead component, component count and rows in `group_nodes`
    scc_group: np.ndarray
    group_lead: np.ndarray
    group_size: np.ndarray
    group_ptr: np.ndarray
    group_nodes: np.ndarray
    #: outputs (int32 literals): next per fluent, legal per code, goals
    next_lit: np.ndarray
    legal_lit: np.ndarray
    goal_lit: np.ndarray
    goal_role: np.ndarray
    goal_value: np.ndarray
    #: the role of each code, and each role's codes role_lo[r]..role_lo[r+1]-1 (int32)
    code_role: np.ndarray
    role_lo: np.ndarray
    #: the initial state (uint64 words) and a random key per fluent for hashing
    init_words: np.ndarray
    zobrist: np.ndarray
    #: [0, all ones] (uint64): masks[lit & 1] negates a 64-lane word
    masks: np.ndarray
    #: the lanes' pass after the moves (`lane_gates`, planned by
    #: `sparse_plan.plan_sparse`): 1 sparse, 0 dense; the ANDs each node
    #: triggers (CSR over nodes, int32), ...
    post_sparse: int = 0
    trig_ptr: np.ndarray = np.zeros(1, dtype=np.int32)
    trig_node: np.ndarray = np.zeros(0, dtype=np.int32)
    #: ... and the ANDs each node fires: triggered by it, with every other
    #: input before the moves (CSR over nodes, int32), and those other inputs
    #: per fire edge (CSR over edges, int32 literals)
    fire_ptr: np.ndarray = np.zeros(1, dtype=np.int32)
    fire_node: np.ndarray = np.zeros(0, dtype=np.int32)
    fire_in_ptr: np.ndarray = np.zeros(1, dtype=np.int32)
    fire_in_lit: np.ndarray = np.zeros(0, dtype=np.int32)
    #: the ORs each node is a plain input of, when they have only plain inputs
    #: (CSR over nodes, int32), and a bitmap of those ORs (uint64)
    push_ptr: np.ndarray = np.zeros(1, dtype=np.int32)
    push_node: np.ndarray = np.zeros(0, dtype=np.int32)
    post_pushed: np.ndarray = np.zeros(1, dtype=np.uint64)
    #: the nodes before the moves that trigger or push into some gate after
    #: them, and a bitmap of the gates evaluated at every step (uint64)
    post_sources: np.ndarray = np.zeros(0, dtype=np.int32)
    post_dense: np.ndarray = np.zeros(1, dtype=np.uint64)


class Work(NamedTuple):
    """One thread's state for the one-at-a-time kernels (change propagation)."""

    #: node values as last computed, and as last propagated to fan-out (uint8)
    value: np.ndarray
    propagated: np.ndarray
    #: 1 while a node waits on the stack (uint8)
    queued: np.ndarray
    #: satisfied inputs per gate (int32)
    count: np.ndarray
    #: propagation stack (int32, one slot per node)
    stack: np.ndarray
    #: cyclic components waiting for re-evaluation (uint8 flags, int32 list)
    scc_dirty: np.ndarray
    dirty: np.ndarray
    #: scratch per node for component re-evaluation: a member's value before
    #: it (uint8, 2 when untouched), the members touched (int32), members
    #: whose count changed from outside (int32 list) and their flags (uint8:
    #: 1 listed, 2 lost an input)
    old: np.ndarray
    touched: np.ndarray
    pending: np.ndarray
    pending_flags: np.ndarray
    #: the current state and its hash (uint64)
    state: np.ndarray
    next_state: np.ndarray
    hash: np.ndarray
    #: the code each role's input proposition holds, or -1 (int32)
    input_code: np.ndarray
    #: scratch: legal codes of one role, a joint move (int32)
    codes: np.ndarray
    joint: np.ndarray
    #: integer registers: [0] stack size, [1] dirty count, [2] pending count (int64)
    registers: np.ndarray


class Lanes(NamedTuple):
    """One thread's state for the lane kernels: four uint64 words per node, bit
    (64 k + b) of a node's words (word k, bit b) is lane 64 k + b: 256 lanes."""

    #: node words (uint64[n_nodes, 4]) and scratch next-state words (uint64[n_fluents, 4])
    value: np.ndarray
    next_value: np.ndarray
    #: per lane (256): legal-move counts and choices (int32), which start it
    #: plays (int64), its joint moves so far (int32)
    count: np.ndarray
    choice: np.ndarray
    item: np.ndarray
    steps: np.ndarray
    #: lane masks (uint64[4]): playing, moving this step, finished, refilled
    active: np.ndarray
    movers: np.ndarray
    done: np.ndarray
    fresh: np.ndarray
    #: the moves `lane_kernels.choose_moves` chose: per role and lane the code
    #: (int32[n_roles, 256]); per role the lanes where it was the only legal
    #: move, and where there was none (uint64[n_roles, 4])
    role_choice: np.ndarray
    role_forced: np.ndarray
    role_stuck: np.ndarray
    #: bit-sliced per-lane counters for the move choice (uint64[96, 4])
    tally: np.ndarray
    #: the sparse pass after the moves (`lane_gates.post_move_sparse`): a
    #: bitmap of candidate gates (uint64 per 64 nodes), the gates it made
    #: non-zero (int32) and their count (registers[0], int64), and the stack
    #: of non-zero gates whose fired ANDs wait (int32)
    candidates: np.ndarray
    nonzero: np.ndarray
    registers: np.ndarray
    fired: np.ndarray
    #: a cyclic component's evaluation (`component_kernels.lane_component`):
    #: the AND of each member's outside inputs (uint64[n_nodes, 4], one row
    #: when the network has no cycle), a queue and its flags per node
    outside: np.ndarray
    queue: np.ndarray
    queued: np.ndarray


def n_words(n_fluents: int) -> int:
    return max(1, (n_fluents + WORD_BITS - 1) // WORD_BITS)


def pack(network: Network, seed: int = 0x5EED) -> Net:
    """The network's arrays in the kernels' layout (with the dense pass after
    the moves: `sparse_plan.planned` adds the sparse pass's plan)."""
    n = network.n_nodes
    kind = np.ascontiguousarray(network.kind, dtype=np.uint8)
    in_ptr = np.ascontiguousarray(network.in_ptr, dtype=np.int32)
    in_lit = np.ascontiguousarray(network.in_lit, dtype=np.int32)
    sizes = np.diff(network.in_ptr)
    need = np.where(kind == AND, sizes, 1).astype(np.int32)
    # per gate, plain inputs before negated ones (a stable sort on the sign)
    gate_of = np.repeat(np.arange(n, dtype=np.int64), sizes)
    by_sign = np.lexsort((network.in_lit & 1, gate_of))
    in_node = (network.in_lit[by_sign] >> 1).astype(np.int32)
    negated = np.bincount(gate_of, weights=network.in_lit & 1, minlength=n).astype(np.int64)
    pos_end = (network.in_ptr[1:] - negated).astype(np.int32)
    need[: network.first_gate] = 0
    # fan-out: for every gate input literal 2*src+neg, an edge src -> 2*gate+neg
    targets = np.repeat(np.arange(n, dtype=np.int64), sizes)
    sources = network.in_lit >> 1
    order = np.argsort(sources, kind="stable")
    out_lit = ((targets[order] << 1) | (network.in_lit[order] & 1)).astype(np.int32)
    out_ptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(sources, minlength=n), out=out_ptr[1:])
    scc = np.ascontiguousarray(network.scc, dtype=np.int32)
    n_scc = int(scc.max()) + 1 if n and scc.max() >= 0 else 0
    scc_lo = np.zeros(n_scc, dtype=np.int32)
    scc_hi = np.zeros(n_scc, dtype=np.int32)
    for s in range(n_scc):
        members = np.flatnonzero(scc == s)
        scc_lo[s], scc_hi[s] = members[0], members[-1] + 1
        if len(members) != scc_hi[s] - scc_lo[s]:
            raise ValueError("a cyclic component is not contiguous in the gate order")
    components = _component_wires(kind, scc, scc_lo, scc_hi, in_ptr, in_lit, n)
    codes = network.move_codes
    code_role = np.asarray([codes.role_of(c) for c in range(len(codes))], dtype=np.int32)
    role_lo = np.zeros(len(network.roles) + 1, dtype=np.int32)
    for role in range(len(network.roles)):
        span = codes.codes_of(role)
        role_lo[role + 1] = span.stop if len(span) else role_lo[role]
    words = n_words(network.n_fluents)
    init_words = np.zeros(words, dtype=np.uint64)
    for fluent in network.init:
        init_words[fluent // WORD_BITS] |= np.uint64(1) << np.uint64(fluent % WORD_BITS)
    rng = np.random.default_rng(seed)
    zobrist = rng.integers(0, 2**63, size=network.n_fluents, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1)
    return Net(
        n_nodes=int(n),
        n_fluents=int(network.n_fluents),
        n_codes=int(len(codes)),
        n_roles=int(len(network.roles)),
        n_words=int(words),
        first_gate=int(network.first_gate),
        split=int(network.split),
        terminal_lit=int(network.terminal_lit),
        kind=kind,
        need=need,
        in_ptr=in_ptr,
        in_lit=in_lit,
        in_node=in_node,
        pos_end=pos_end,
        out_ptr=out_ptr,
        out_lit=out_lit,
        scc=scc,
        scc_lo=scc_lo,
        scc_hi=scc_hi,
        **components,
        next_lit=np.ascontiguousarray(network.next_lit, dtype=np.int32),
        legal_lit=np.ascontiguousarray(network.legal_lit, dtype=np.int32),
        goal_lit=np.ascontiguousarray(network.goal_lit, dtype=np.int32),
        goal_role=np.ascontiguousarray(network.goal_role, dtype=np.int32),
        goal_value=np.ascontiguousarray(network.goal_value, dtype=np.int32),
        code_role=code_role,
        role_lo=role_lo,
        init_words=init_words,
        zobrist=zobrist,
        masks=np.array([0, np.iinfo(np.uint64).max], dtype=np.uint64),
    )


def _csr(owner: np.ndarray, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays (ptr over n nodes, values) of `values` grouped by `owner`
    (stable: the order within an owner is kept)."""
    order = np.argsort(owner, kind="stable")
    ptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(owner, minlength=n), out=ptr[1:])
    return ptr, np.ascontiguousarray(values[order], dtype=np.int32)


def _component_wires(kind: np.ndarray, scc: np.ndarray, scc_lo: np.ndarray, scc_hi: np.ndarray,
                     in_ptr: np.ndarray, in_lit: np.ndarray, n: int) -> dict:
    """The wires of cyclic components split as `component_kernels` reads them
    (see `Net.scc_int_ptr`), and the groups of parallel components."""
    sizes = np.diff(in_ptr).astype(np.int64)
    gate = np.repeat(np.arange(n, dtype=np.int64), sizes)
    source = (in_lit >> 1).astype(np.int64)
    negated = (in_lit & 1).astype(np.int64)
    member = scc[gate] >= 0
    inside = member & (scc[source] == scc[gate])
    outside = member & ~inside
    int_ptr, int_node = _csr(gate[inside], source[inside], n)
    # outside inputs: plain ones first, then negated ones (a stable sort on the sign)
    ext_gate, ext_source, ext_negated = gate[outside], source[outside], negated[outside]
    by_sign = np.lexsort((ext_negated, ext_gate))
    ext_ptr, _ = _csr(ext_gate, ext_source, n)
    ext_node = np.ascontiguousarray(ext_source[by_sign], dtype=np.int32)
    ext_end = (ext_ptr[1:] - np.bincount(ext_gate, weights=ext_negated, minlength=n).astype(np.int64)).astype(np.int32)
    out_ptr, out_node = _csr(source[inside], gate[inside], n)
    relay, hop_ptr, hop_node, hop_via = _hops(kind, scc, int_ptr, int_node, source[inside], gate[inside], n)
    wires = dict(scc_int_ptr=int_ptr, scc_int_node=int_node, scc_ext_ptr=ext_ptr, scc_ext_node=ext_node,
                 scc_ext_end=ext_end, scc_out_ptr=out_ptr, scc_out_node=out_node, scc_relay=relay,
                 scc_hop_ptr=hop_ptr, scc_hop_node=hop_node, scc_hop_via=hop_via)
    scc_group, lead, size, ptr, nodes = find_groups(kind, scc, scc_lo, scc_hi, int_ptr, int_node, out_ptr,
                                                    out_node, ext_ptr, ext_node, ext_end)
    return dict(wires, scc_group=scc_group, group_lead=lead, group_size=size, group_ptr=ptr, group_nodes=nodes)


def _hops(kind: np.ndarray, scc: np.ndarray, int_ptr: np.ndarray, int_node: np.ndarray, source: np.ndarray,
          target: np.ndarray, n: int):
    """Relays and hops (see `Net.scc_relay`) from the inside wires source -> target."""
    member = scc >= 0
    inside_inputs = np.diff(int_ptr)
    single = member & (kind == AND) & (inside_inputs == 1)
    only_input = np.full(n, -1, dtype=np.int64)
    only_input[single] = int_node[int_ptr[:-1][single]]
    feeds_non_or = np.bincount(source, weights=(kind[target] != OR), minlength=n) > 0
    relay = single & ~feeds_non_or
    relay[single] &= ~single[only_input[single]]
    # hops: wires from non-relays; a wire into a relay becomes the relay's own wires
    out_ptr, out_node = _csr(source, target, n)
    keep = ~relay[source]
    src, dst = source[keep], target[keep]
    direct = ~relay[dst]
    through = dst[~direct]
    fan = out_ptr[through + 1] - out_ptr[through]
    via_src = np.repeat(src[~direct], fan)
    via_relay = np.repeat(through, fan)
    starts = np.repeat(out_ptr[through], fan)
    offsets = np.arange(len(starts)) - np.repeat(np.cumsum(fan) - fan, fan)
    via_dst = out_node[(starts + offsets).astype(np.int64)] if len(starts) else np.zeros(0, dtype=np.int64)
    hop_src = np.concatenate([src[direct], via_src]).astype(np.int64)
    hop_dst = np.concatenate([dst[direct], via_dst]).astype(np.int64)
    hop_via = np.concatenate([dst[direct], via_relay]).astype(np.int64)
    order = np.argsort(hop_src, kind="stable")
    hop_ptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(hop_src, minlength=n), out=hop_ptr[1:])
    return (relay.astype(np.uint8), hop_ptr, np.ascontiguousarray(hop_dst[order], dtype=np.int32),
            np.ascontiguousarray(hop_via[order], dtype=np.int32))


def new_work(net: Net) -> Work:
    """Scratch for the one-at-a-time kernels, evaluated for the initial state."""
    from ..kernels.state_kernels import init_work

    n = net.n_nodes
    n_scc = len(net.scc_lo)
    work = Work(
        value=np.zeros(n, dtype=np.uint8),
        propagated=np.zeros(n, dtype=np.uint8),
        queued=np.zeros(n, dtype=np.uint8),
        count=np.zeros(n, dtype=np.int32),
        stack=np.zeros(max(1, n), dtype=np.int32),
        scc_dirty=np.zeros(max(1, n_scc), dtype=np.uint8),
        dirty=np.zeros(max(1, n_scc), dtype=np.int32),
        old=np.full(n, 2, dtype=np.uint8),
        touched=np.zeros(max(1, n), dtype=np.int32),
        pending=np.zeros(max(1, n), dtype=np.int32),
        pending_flags=np.zeros(n, dtype=np.uint8),
        state=np.zeros(net.n_words, dtype=np.uint64),
        next_state=np.zeros(net.n_words, dtype=np.uint64),
        hash=np.zeros(1, dtype=np.uint64),
        input_code=np.full(max(1, net.n_roles), -1, dtype=np.int32),
        codes=np.zeros(max(1, net.n_codes), dtype=np.int32),
        joint=np.zeros(max(1, net.n_roles), dtype=np.int32),
        registers=np.zeros(4, dtype=np.int64),
    )
    init_work(net, work)
    return work


def new_lanes(net: Net) -> Lanes:
    """Scratch for the lane kernels."""
    return Lanes(
        value=np.zeros((net.n_nodes, 4), dtype=np.uint64),
        next_value=np.zeros((max(1, net.n_fluents), 4), dtype=np.uint64),
        count=np.zeros(256, dtype=np.int32),
        choice=np.zeros(256, dtype=np.int32),
        item=np.zeros(256, dtype=np.int64),
        steps=np.zeros(256, dtype=np.int32),
        active=np.zeros(4, dtype=np.uint64),
        movers=np.zeros(4, dtype=np.uint64),
        done=np.zeros(4, dtype=np.uint64),
        fresh=np.zeros(4, dtype=np.uint64),
        role_choice=np.zeros((max(1, net.n_roles), 256), dtype=np.int32),
        role_forced=np.zeros((max(1, net.n_roles), 4), dtype=np.uint64),
        role_stuck=np.zeros((max(1, net.n_roles), 4), dtype=np.uint64),
        tally=np.zeros((96, 4), dtype=np.uint64),
        outside=np.zeros((net.n_nodes if len(net.scc_lo) else 1, 4), dtype=np.uint64),
        queue=np.zeros(max(1, net.n_nodes), dtype=np.int32),
        queued=np.zeros(max(1, net.n_nodes), dtype=np.uint8),
        candidates=np.zeros((net.n_nodes + 63) // 64 if net.post_sparse else 1, dtype=np.uint64),
        nonzero=np.zeros(net.n_nodes if net.post_sparse else 1, dtype=np.int32),
        registers=np.zeros(1, dtype=np.int64),
        fired=np.zeros(net.n_nodes if net.post_sparse else 1, dtype=np.int32),
    )


def new_rng(seed: int) -> np.ndarray:
    """A random generator state for the kernels (xorshift64*; never zero)."""
    value = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    return np.array([value or 1], dtype=np.uint64)
