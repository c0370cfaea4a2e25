"""The search's memory: one arena of flat numpy arrays, sized once at START.

Why an arena: the kernels are numba code over arrays (a game is data, never
code), and a match must never run out of memory or pause to allocate. Every
array here is allocated when the search starts, from a byte budget
(`plan_capacity`), and never grows; when a pool is full the search stops
growing (it keeps searching the tree it has) and the next root change collects
what the new root cannot reach (`collect.collect_garbage`).

Arrays are zeroed anonymous memory (`lazy_zeros`), so the operating system
maps their pages only when the search first touches them: a large arena costs
memory only as the tree grows, and never more than its size. Hash tables use 0
for "empty" (a slot holds index + 1) for the same reason.

Layout (N nodes, E edges, R roles, C move codes, W-playout window):

- nodes: `node_hash` and `node_check` (two independent 64-bit hashes of the
  state; a transposition must match both, and the full state words when the
  engine has them), `node_words` (the state, propnet only), `node_legal` (its
  legal move codes as a bitset, when the lane search knows them: flag
  LEGAL; then a node is expanded without the engine), `node_visits`,
  `node_flags` (terminal, expanded, proven), `node_goals` (goal values 0..100 of
  a terminal state, or the proven values), `node_edges` (role r's edges are
  `node_edges[n, r] .. node_edges[n, r + 1] - 1`), `node_amaf`/`node_perm` (a
  table in the pools below, or -1), `node_pick`/`node_pick_until` (a
  standing pick, `select.py`), `node_h`/`node_mm` (each role's heuristic
  value of the state, and its implicit minimax over the children the tree
  holds: `heuristic.py`);
- edges: one per (node, role, legal move): `edge_code`, `edge_n`, `edge_w` (the
  sum of that role's rewards in [0, 1]), `edge_child` (the child state when
  only this role chooses at the node, or -1), `edge_regret` (regret matching's
  cumulative regret at simultaneous nodes; one slot when the rule is off);
- `tt`: open-addressing transposition table, state hash -> node + 1;
- `tr_*`: children of nodes where several roles choose (simultaneous moves),
  keyed by (node, joint move);
- pools: AMAF tables (`amaf_n`, `amaf_w` per code) and frozen permutation
  tables (`perm_n`, `perm_q` per code), each owned by one node;
- the heuristic found at START (`heuristic.py`): piece sets (`heur_mask`,
  the role each counts for, `heur_role`, and its weight, `heur_weight`) and
  the coefficients that turn them into values (`heur_coef`);
- the permutation window: `win_bits[c]` has bit p set when playout p contains
  code c, `win_planes` hold each role's outcome as bit planes (`plane_*`), and
  `win_valid` marks the playouts still consistent with the moves played since;
- scratch for one iteration (the path, the rollout's codes) and `counters`.

This module allocates and sizes; it must not hold search logic.
"""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass
from typing import NamedTuple, Optional, Sequence

import numpy as np

# node_flags bits
TERMINAL = 1
EXPANDED = 2
PROVEN = 4
MARKED = 8
LEGAL = 16

#: `edge_child` of an edge whose child a lane of the batched search is computing
#: (`lane_search.py`); -1 is no child.
PENDING = -2

# counters indexes
C_NODES = 0          # nodes in use
C_EDGES = 1          # edges in use
C_AMAF = 2           # AMAF tables in use
C_PERM = 3           # permutation tables in use
C_ROOT = 4           # the root node
C_PATH = 5           # nodes on the current path (path_node[0 .. C_PATH - 1])
C_ITERATIONS = 6     # iterations since the counters were reset
C_CURSOR = 7         # playouts written to the window, ever
C_LEAF_DEPTH = 8     # sum of the depths of new leaves
C_LEAVES = 9         # new leaves added
C_ROLLOUT_STEPS = 10  # sum of rollout lengths
C_ROLLOUTS = 11      # rollouts played
C_MAX_DEPTH = 12     # deepest path seen
C_AMAF_REF = 13      # during a descent: the AMAF reference node or -1
C_PERM_REF = 14      # during a descent: the permutation reference node or -1
C_STAMP = 15         # stamp for deduplicating codes
C_CODES = 16         # codes known (the propnet: all; Prolog: interned so far)
C_FULL = 17          # iterations that found a pool full
C_TRANSITIONS = 18   # entries in the transitions table
C_TT = 19            # entries in the transposition table
C_FREEZES = 20       # permutation tables frozen
C_PROVEN = 21        # nodes proven
C_BROKEN = 22        # rollouts that met a role without legal moves
C_INTERRUPT = 23     # set by another thread: the running batch stops at its next iteration
C_CHANCE = 24        # the chance role (GDL-II's random: uniform at every node), or -1
C_FORCE_EDGE = 25    # a root edge every descent takes (ensemble searches force a root move), or -1
C_LOCK = 26          # 1 while a thread of a shared tree works on the tree (a spin lock)
C_ROOT_STEP = 27     # joint moves the match has played up to the root
C_MIN_END = 28       # the earliest joint move (counted from the match's start) a playout ended a game at
C_PROBES = 29        # children computed by probes at expansions (`runners/probes.py`), ever
C_PROBE_ENDS = 30    # of them, terminal ones, ever
C_HEUR_SETS = 31     # piece sets of the heuristic in use (`heuristic.py`)
C_CUTOFFS = 32       # playouts cut and scored by the heuristic, ever
C_OUR_ROLE = 33      # the role the search plays for (the reply floor looks at the others' nodes), or -1
N_COUNTERS = 34
HEURISTIC_SETS = 16  # piece sets a heuristic holds at most (`heuristic.py`)
#: `heur_coef` entries: the logit a unit of material is worth, the goal values' weight (0: none).
H_MATERIAL, H_GOALS, N_HEUR_COEF = 0, 1, 2
#: C_MIN_END before any playout ended a game.
NO_END = 1 << 40


class Arena(NamedTuple):
    """Every array of one search (see the module docstring)."""

    node_hash: np.ndarray    # uint64[N]
    node_check: np.ndarray   # uint64[N]
    node_words: np.ndarray   # uint64[N, n_words] (n_words = 0 without a propnet)
    node_legal: np.ndarray   # uint64[N, LW]: bit c of a LEGAL node: code c is legal (LW = 0: never kept)
    node_visits: np.ndarray  # int64[N]
    node_flags: np.ndarray   # uint8[N]
    node_goals: np.ndarray   # int16[N, R]
    node_proof: np.ndarray   # int32[N]: a proven node's distance to the terminal state its proof ends in
    node_edges: np.ndarray   # int32[N, R + 1]
    node_amaf: np.ndarray    # int32[N]
    node_perm: np.ndarray    # int32[N]
    node_pick: np.ndarray    # int32[N]: the standing pick of the node's one chooser (`select.py`)
    node_pick_until: np.ndarray  # int64[N]: it stands while its edge has fewer visits (0: none stands)
    node_h: np.ndarray       # float32[N, R]: each role's heuristic value of the node's state, in [0, 1]
    node_mm: np.ndarray      # float32[N, R]: the implicit minimax of those values below the node
    edge_code: np.ndarray    # int32[E]
    edge_n: np.ndarray       # int32[E]
    edge_w: np.ndarray       # float64[E]
    edge_child: np.ndarray   # int32[E]
    edge_feat: np.ndarray    # int32[E]: the code the statistics use (the move's, or its effect's)
    edge_regret: np.ndarray  # float64[E], or [1] without regret matching (Capacity.regret)
    tt: np.ndarray           # int32[T], node + 1, 0 empty (T a power of two)
    tr_node: np.ndarray      # int32[S], node + 1, 0 empty (S a power of two)
    tr_joint: np.ndarray     # int64[S]
    tr_child: np.ndarray     # int32[S]
    amaf_n: np.ndarray       # int32[A, C]
    amaf_w: np.ndarray       # float64[A, C]
    amaf_owner: np.ndarray   # int32[A]
    perm_n: np.ndarray       # int32[P, C]
    perm_q: np.ndarray       # float32[P, C]
    perm_owner: np.ndarray   # int32[P]
    code_role: np.ndarray    # int32[C]
    mast_n: np.ndarray       # float64[C]: playouts with a choice of move code c (`mast.py`)
    mast_w: np.ndarray       # float64[C]: their rewards for c's role
    mast_order: np.ndarray   # int32[C]: each role's move codes, best average first
    mast_key: np.ndarray     # float64[C], scratch: the averages mast_order was sorted by
    win_bits: np.ndarray     # uint64[C, WW]
    win_valid: np.ndarray    # uint64[WW]
    win_planes: np.ndarray   # uint64[K, WW]
    win_scratch: np.ndarray  # uint64[WW]
    win_index: np.ndarray    # int32[WW]
    plane_lo: np.ndarray     # int32[R + 1]: role r's planes plane_lo[r] .. plane_lo[r + 1] - 1
    plane_kind: np.ndarray   # int32[K]: 0 = goal >= param, 1 = bit `param` of the goal
    plane_param: np.ndarray  # int32[K]
    plane_weight: np.ndarray  # float64[K]
    path_node: np.ndarray    # int32[D + 1]
    path_edge: np.ndarray    # int32[D, R]
    path_code: np.ndarray    # int32[D, R]: statistics codes, ~code for a move that carried no choice
    path_move: np.ndarray    # int32[D, R]: the move codes played
    rollout: np.ndarray      # int32[L, R]
    seen: np.ndarray         # int32[C]
    stamp: np.ndarray        # int64[C]
    goals: np.ndarray        # int32[R], scratch
    reward: np.ndarray       # float64[R], scratch
    legal: np.ndarray        # int32[C], scratch: legal codes, role after role
    legal_count: np.ndarray  # int32[R], scratch
    joint: np.ndarray        # int32[R], scratch: a joint move's codes
    effect_key: np.ndarray   # uint64[X]: effect codes by hash, 0 empty (X a power of two)
    effect_code: np.ndarray  # int32[X]
    dynamic: np.ndarray      # uint64[n_words]: fluents whose next value depends on the moves
    code_group: np.ndarray   # int64[C]: destination codes: a move code's destination group, -1 none
    code_ends: np.ndarray    # uint8[C]: 1 once move code c was the last move of a game (`runners/probes.py`)
    code_played: np.ndarray  # int64[C]: times move code c was chosen in a playout (`runners/lane_greedy.py`)
    code_won: np.ndarray     # int64[C]: of them, times it ended the game at once with its role's best goal
    heur_mask: np.ndarray    # uint64[HEURISTIC_SETS, n_words]: the fluents of each piece set
    heur_role: np.ndarray    # int32[HEURISTIC_SETS]: the role a set's pieces count for
    heur_weight: np.ndarray  # float64[HEURISTIC_SETS]: what one of its pieces is worth
    heur_coef: np.ndarray    # float64[N_HEUR_COEF]: see H_MATERIAL, H_GOALS
    before: np.ndarray       # uint64[n_words], scratch: the state before a step
    gc_stack: np.ndarray     # int32[N]
    gc_remap: np.ndarray     # int32[N]
    counters: np.ndarray     # int64[N_COUNTERS]


@dataclass(frozen=True)
class Capacity:
    """How many of each thing an arena holds."""

    nodes: int
    edges: int
    amaf_tables: int
    perm_tables: int
    transitions: int
    codes: int
    window: int
    max_depth: int
    max_rollout: int
    #: codes beyond the move codes are effect codes (SearchParams.codes "effects" or "destinations")
    effects: bool = False
    #: edges keep regrets (SearchParams.sim == "rm")
    regret: bool = False
    #: words of a node's legal-move bitset (0: not kept; the lane search keeps them)
    legal_words: int = 0

    def describe(self) -> str:
        return (f"{self.nodes} nodes, {self.edges} edges, {self.amaf_tables} AMAF and "
                f"{self.perm_tables} permutation tables, {self.codes} codes")


def _pow2_at_least(n: int) -> int:
    return 1 << max(4, int(n - 1).bit_length())


def available_memory() -> Optional[int]:
    """MemAvailable from /proc/meminfo in bytes, or None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


#: Default ceiling on one search's arena, bytes.
DEFAULT_MEMORY_CAP = 1 << 30
#: Nodes a search adds per second, at most, on this kind of machine (sizes the
#: arena from the clocks: no point holding room a match cannot fill).
NODES_PER_SECOND_CEILING = 400_000
#: Turns a match is expected to last (with the clocks, the thinking time a
#: match can give, which bounds the nodes worth holding).
EXPECTED_TURNS = 100


def match_seconds(start_clock: float, play_clock: float) -> float:
    """The thinking time a match can give: the start clock and the expected turns' play clocks."""
    return start_clock + EXPECTED_TURNS * play_clock


def plan_capacity(
    *,
    n_roles: int,
    n_codes: int,
    n_words: int,
    branching: int,
    simultaneous: bool,
    memory_cap: Optional[int] = None,
    seconds: Optional[float] = None,
    rho: int = 30,
    amaf_alloc: int = 10,
    window: int = 10_000,
    max_depth: int = 400,
    max_rollout: int = 1000,
    min_nodes: int = 4096,
    effects: bool = False,
    regret: bool = False,
    legal_words: int = 0,
) -> Capacity:
    """Capacities that fit `memory_cap` bytes (and a quarter of free memory).

    `branching` is the number of edges a node is expected to hold (all roles'
    legal moves at the root is a good guess); `seconds` the thinking time the
    match can give (`match_seconds`), which bounds the nodes worth holding.
    """
    cap = DEFAULT_MEMORY_CAP if memory_cap is None else int(memory_cap)
    free = available_memory()
    if free is not None:
        cap = min(cap, free // 4)
    codes = max(1, n_codes)
    if effects:  # room for effect codes: the move codes, then up to 8 effects per move
        codes = min(max(codes * 9, 256), max(codes, 16384))
    window_words = (window + 63) // 64
    fixed = codes * window_words * 8 + 16 * window_words * 8 + (max_depth + 1) * (4 + 8 * n_roles) \
        + max_rollout * 4 * n_roles + codes * 40
    edges_per_node = max(2.0, min(float(branching), 256.0) * 0.6)
    amaf_every = max(2, amaf_alloc)
    per_node = (
        8 + 8 + 8 * n_words + 8 * legal_words + 8 + 1 + 2 * n_roles + 4 * (n_roles + 1) + 4 + 4  # node fields
        + 8 * n_roles  # heuristic values
        + 8  # transposition slots (two per node)
        + 8  # collection scratch
        + edges_per_node * (32 if regret else 24)
        + (32 if simultaneous else 2)  # transitions
        + (12 * codes + 8) / amaf_every
        + (8 * codes + 4) * 2 / max(rho, 1)
    )
    nodes = int(max(1, cap - fixed) / per_node)
    if seconds is not None:
        nodes = min(nodes, int(max(seconds, 1.0) * NODES_PER_SECOND_CEILING))
    nodes = max(min_nodes, min(nodes, 2**31 // 4))

    def sized(n: int) -> Capacity:
        return Capacity(
            nodes=n,
            edges=min(int(n * edges_per_node) + 1024, 2**31 - 1),
            amaf_tables=max(16, n // amaf_every),
            perm_tables=max(16, 2 * n // max(rho, 1)),
            transitions=_pow2_at_least(2 * n if simultaneous else n // 16),
            codes=codes,
            window=window,
            max_depth=max_depth,
            max_rollout=max_rollout,
            effects=effects,
            regret=regret,
            legal_words=legal_words,
        )

    capacity = sized(nodes)
    # The estimate above ignores rounding (hash tables are powers of two): shrink
    # until the exact size fits, down to the minimum.
    while nodes > min_nodes:
        total = capacity_bytes(capacity, n_roles=n_roles, n_words=n_words, n_planes=16 * n_roles)
        if total <= cap:
            break
        nodes = max(min_nodes, int(nodes * min(0.97, cap / total)))
        capacity = sized(nodes)
    return capacity


def capacity_bytes(capacity: Capacity, *, n_roles: int, n_words: int, n_planes: int) -> int:
    """The exact bytes `new_arena` allocates for `capacity` (with at most
    `n_planes` outcome planes)."""
    return sum(_nbytes(shape, dtype)
               for shape, dtype in _layout(capacity, max(1, n_roles), n_words, n_planes).values())


def _nbytes(shape, dtype) -> int:
    count = 1
    for size in shape:
        count *= size
    return count * np.dtype(dtype).itemsize


def _layout(capacity: Capacity, r: int, n_words: int, k: int) -> dict:
    """Shape and dtype of every array of an arena, by field name."""
    n, e, c = capacity.nodes, capacity.edges, max(1, capacity.codes)
    ww = (capacity.window + 63) // 64
    d, l = capacity.max_depth, capacity.max_rollout
    a, p, t = capacity.amaf_tables, capacity.perm_tables, capacity.transitions
    return {
        "node_hash": ((n,), np.uint64), "node_check": ((n,), np.uint64),
        "node_words": ((n, n_words), np.uint64), "node_legal": ((n, capacity.legal_words), np.uint64),
        "node_visits": ((n,), np.int64),
        "node_flags": ((n,), np.uint8), "node_goals": ((n, r), np.int16),
        "node_proof": ((n,), np.int32),
        "node_edges": ((n, r + 1), np.int32), "node_amaf": ((n,), np.int32), "node_perm": ((n,), np.int32),
        "node_pick": ((n,), np.int32), "node_pick_until": ((n,), np.int64),
        "node_h": ((n, r), np.float32), "node_mm": ((n, r), np.float32),
        "edge_code": ((e,), np.int32), "edge_n": ((e,), np.int32), "edge_w": ((e,), np.float64),
        "edge_child": ((e,), np.int32), "edge_feat": ((e,), np.int32),
        "edge_regret": ((e if capacity.regret else 1,), np.float64),
        "tt": ((_pow2_at_least(2 * n),), np.int32),
        "tr_node": ((t,), np.int32), "tr_joint": ((t,), np.int64), "tr_child": ((t,), np.int32),
        "amaf_n": ((a, c), np.int32), "amaf_w": ((a, c), np.float64), "amaf_owner": ((a,), np.int32),
        "perm_n": ((p, c), np.int32), "perm_q": ((p, c), np.float32), "perm_owner": ((p,), np.int32),
        "code_role": ((c,), np.int32),
        "mast_n": ((c,), np.float64), "mast_w": ((c,), np.float64), "mast_order": ((c,), np.int32),
        "mast_key": ((c,), np.float64),
        "win_bits": ((c, ww), np.uint64), "win_valid": ((ww,), np.uint64), "win_planes": ((k, ww), np.uint64),
        "win_scratch": ((ww,), np.uint64), "win_index": ((ww,), np.int32),
        "plane_lo": ((r + 1,), np.int32), "plane_kind": ((k,), np.int32), "plane_param": ((k,), np.int32),
        "plane_weight": ((k,), np.float64),
        "path_node": ((d + 1,), np.int32), "path_edge": ((d, r), np.int32), "path_code": ((d, r), np.int32),
        "path_move": ((d, r), np.int32),
        "rollout": ((l, r), np.int32), "seen": ((c,), np.int32), "stamp": ((c,), np.int64),
        "goals": ((r,), np.int32), "reward": ((r,), np.float64), "legal": ((c,), np.int32),
        "legal_count": ((r,), np.int32), "joint": ((r,), np.int32),
        "effect_key": ((_pow2_at_least(4 * c) if capacity.effects else 16,), np.uint64),
        "effect_code": ((_pow2_at_least(4 * c) if capacity.effects else 16,), np.int32),
        "dynamic": ((n_words,), np.uint64), "code_group": ((c,), np.int64), "before": ((n_words,), np.uint64),
        "code_ends": ((c,), np.uint8), "code_played": ((c,), np.int64), "code_won": ((c,), np.int64),
        "heur_mask": ((HEURISTIC_SETS, n_words), np.uint64), "heur_role": ((HEURISTIC_SETS,), np.int32),
        "heur_weight": ((HEURISTIC_SETS,), np.float64), "heur_coef": ((N_HEUR_COEF,), np.float64),
        "gc_stack": ((n,), np.int32), "gc_remap": ((n,), np.int32),
        "counters": ((N_COUNTERS,), np.int64),
    }


def arena_bytes(arena: Arena) -> int:
    """Bytes the arena's arrays hold (its ceiling: pages are mapped as used)."""
    return sum(int(a.nbytes) for a in arena)


def fuller_than(arena: Arena, share: float) -> bool:
    """True when a pool (nodes, edges, AMAF or permutation tables) is more
    than `share` used: after a root change, time to collect what it no longer
    reaches (`driver/root_change.py` says when)."""
    c = arena.counters
    return bool(c[C_NODES] > share * arena.node_hash.shape[0] or c[C_EDGES] > share * arena.edge_code.shape[0]
                or c[C_AMAF] > share * arena.amaf_n.shape[0] or c[C_PERM] > share * arena.perm_n.shape[0])



def goal_planes(goal_values: Optional[Sequence[Sequence[int]]], n_roles: int):
    """Bit planes that store each role's outcome in the window.

    With the goal values each role can get (a propnet knows them), one plane per
    distinct positive value, "goal >= v", weighted by the step from the value
    below: a win/loss game needs one plane per role. Without them (Prolog), or
    with more than 7 distinct values, the 7 bits of the goal, weighted 1..64.
    Either way the sum of weight x popcount over the planes of a role, divided
    by 100, is that role's total reward over a set of playouts.
    """
    lo, kind, param, weight = [0], [], [], []
    for role in range(n_roles):
        values = None
        if goal_values is not None and role < len(goal_values):
            values = sorted({int(v) for v in goal_values[role] if 0 < int(v) <= 100})
        if values is not None and len(values) <= 7:
            previous = 0
            for value in values:
                kind.append(0)
                param.append(value)
                weight.append(float(value - previous))
                previous = value
        else:
            for bit in range(7):
                kind.append(1)
                param.append(bit)
                weight.append(float(1 << bit))
        lo.append(len(kind))
    return (np.asarray(lo, dtype=np.int32), np.asarray(kind, dtype=np.int32),
            np.asarray(param, dtype=np.int32), np.asarray(weight, dtype=np.float64))


#: Arrays smaller than this come from numpy as usual (a page or so each).
LAZY_FROM_BYTES = 1 << 20


def lazy_zeros(shape, dtype) -> np.ndarray:
    """A zeroed array whose pages the kernel maps one 4 KB page at a time, on first touch.

    Not `np.zeros`: numpy advises the kernel to back large arrays with 2 MB
    huge pages, and where huge pages come on advice only (Linux's default
    `defrag` setting), the first touch of each 2 MB then compacts memory
    synchronously. The tree touches its hash tables at random, so early
    iterations met a new 2 MB page almost every time: on a 2-core VM, the
    first 100 iterations of a 1 GB arena took 1 s (0.8 s of it in the
    kernel), and breakthrough 6x6 searched 22% fewer iterations over 5 s than
    with plain pages (1.2 s of 5 s in the kernel). The mapping is freed with
    the array (it holds the mapping as its base).
    """
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes < LAZY_FROM_BYTES:
        return np.zeros(shape, dtype=dtype)
    region = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.frombuffer(region, dtype=dtype).reshape(shape)


def new_arena(
    capacity: Capacity,
    *,
    n_roles: int,
    n_words: int,
    code_role: Optional[np.ndarray] = None,
    goal_values: Optional[Sequence[Sequence[int]]] = None,
    chance_role: Optional[int] = None,
) -> Arena:
    """An empty arena (no root yet). `code_role[c]` is the role of code c when the
    codes are known in advance (the propnet); otherwise codes are registered as
    they are met (`table.register_code`). `chance_role` is the role that moves
    uniformly at random (GDL-II's `random`), if any."""
    r = max(1, n_roles)
    lo, kind, param, weight = goal_planes(goal_values, r)
    layout = _layout(capacity, r, n_words, len(kind))
    arrays = {name: lazy_zeros(shape, dtype) for name, (shape, dtype) in layout.items()}
    arrays["plane_lo"][:] = lo
    arrays["plane_kind"][:] = kind
    arrays["plane_param"][:] = param
    arrays["plane_weight"][:] = weight
    arrays["code_role"][:] = -1
    arrays["code_group"][:] = -1
    counters = arrays["counters"]
    if code_role is not None:
        arrays["code_role"][: len(code_role)] = code_role
        counters[C_CODES] = len(code_role)
    counters[C_ROOT] = -1
    counters[C_CHANCE] = -1 if chance_role is None else chance_role
    counters[C_FORCE_EDGE] = -1
    counters[C_AMAF_REF] = -1
    counters[C_PERM_REF] = -1
    counters[C_MIN_END] = NO_END
    counters[C_OUR_ROLE] = -1
    return Arena(**arrays)


def process_rss() -> int:
    """Resident memory of this process in bytes (Linux), 0 where unknown."""
    try:
        with open(f"/proc/{os.getpid()}/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
