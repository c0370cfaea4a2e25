"""A network as flat numpy arrays (`Net`), and the per-thread working records.

Why flat arrays: numba kernels run over them without Python objects, and since
every game has the same array types, one compiled kernel serves every game
(a game is data, never code). Everything here has a fixed dtype and C layout
on purpose: a different dtype or layout would be a new numba signature, hence
a compilation at START.

Node numbering (shared with `network.py`): node 0 is the constant FALSE
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

from .network import AND, Network

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
    #: scratch per node for component re-evaluation (uint8)
    old: np.ndarray
    #: the current state and its hash (uint64)
    state: np.ndarray
    next_state: np.ndarray
    hash: np.ndarray
    #: the code each role's input proposition holds, or -1 (int32)
    input_code: np.ndarray
    #: scratch: legal codes of one role, a joint move (int32)
    codes: np.ndarray
    joint: np.ndarray
    #: integer registers: [0] stack size, [1] dirty count (int64)
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


def n_words(n_fluents: int) -> int:
    return max(1, (n_fluents + WORD_BITS - 1) // WORD_BITS)


def pack(network: Network, seed: int = 0x5EED) -> Net:
    """The network's arrays in the kernels' layout."""
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


def new_work(net: Net) -> Work:
    """Scratch for the one-at-a-time kernels, evaluated for the initial state."""
    from .state_kernels import init_work

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
        old=np.zeros(n, dtype=np.uint8),
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
    )


def new_rng(seed: int) -> np.ndarray:
    """A random generator state for the kernels (xorshift64*; never zero)."""
    value = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    return np.array([value or 1], dtype=np.uint64)
