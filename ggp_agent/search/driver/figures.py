"""Diagnostic figures of a search's statistics, for its stats and logs.

Why: GRAVE and MCPS rank moves by priors (the AMAF value Q̃ and the
permutation value Q̂) weighted by their sample counts; when a prior is biased
(the same code means different moves in different positions, a capture and a
quiet move share a code) it misleads selection for as long as its counts
outweigh the edge's own visits. These figures show, for the move the search
chose, the three estimates and their counts, and how often the priors rank the
moves differently from the playouts that followed (the edges' own values).

Read from the arena with numpy, in Python, when the figures are asked for
(a few hundred edges and one window of bitsets at most): nothing here runs in
the search's hot loop, and nothing here changes the search.
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from ..tree.arena import (
    C_FREEZES, C_FULL, C_ITERATIONS, C_LEAF_DEPTH, C_LEAVES, C_MAX_DEPTH, C_NODES, C_PROBE_ENDS, C_PROBES, C_PROVEN,
    C_ROLLOUT_STEPS, C_ROLLOUTS, C_ROOT, EXPANDED, PROVEN, Arena, arena_bytes,
)
from ..tree.root import best_edge, depth_of_tree

#: Edges with fewer visits than this are left out of the rank comparisons
#: (their own values are mostly noise).
MIN_VISITS = 10


def _popcount(words: np.ndarray) -> int:
    return int(np.unpackbits(words.view(np.uint8)).sum())


def arena_figures(A: Arena) -> dict:
    """What the arena's counters say about the tree: its size, depths, playout
    length, proofs, freezes and room (the rule-independent part of `stats()`)."""
    c = A.counters
    iterations = int(c[C_ITERATIONS])
    root = int(c[C_ROOT])
    return {
        "iterations": iterations,
        "playouts": iterations,
        "nodes": int(c[C_NODES]),
        "node_capacity": int(A.node_hash.shape[0]),
        "max_depth": int(c[C_MAX_DEPTH]),
        "mean_leaf_depth": round(c[C_LEAF_DEPTH] / c[C_LEAVES], 2) if c[C_LEAVES] else None,
        "mean_playout": round(c[C_ROLLOUT_STEPS] / c[C_ROLLOUTS], 2) if c[C_ROLLOUTS] else None,
        "principal_line": int(depth_of_tree(A, 200)),
        "root_visits": int(A.node_visits[root]),
        "root_proven": bool(A.node_flags[root] & PROVEN),
        "proven_nodes": int(c[C_PROVEN]),
        "probes": int(c[C_PROBES]),
        "probe_ends": int(c[C_PROBE_ENDS]),
        "frozen": int(c[C_FREEZES]),
        "pool_full": int(c[C_FULL]),
        "memory_mb": round(arena_bytes(A) / 2**20, 1),
    }


def window_stat(A: Arena, code: int, role: int, path_codes: Sequence[int] = ()) -> tuple[int, Optional[float]]:
    """(n̂, Q̂) of `code` over the window's valid playouts that contain it and
    every code of `path_codes` (Algorithm 2 for one code, in numpy); Q̂ is the
    mean reward of `role`, None when n̂ = 0."""
    if not 0 <= code < A.win_bits.shape[0]:
        return 0, None
    v = A.win_valid & A.win_bits[code]
    for c in path_codes:
        if 0 <= c < A.win_bits.shape[0]:
            v = v & A.win_bits[c]
    n = _popcount(v)
    if n == 0:
        return 0, None
    lo, hi = int(A.plane_lo[role]), int(A.plane_lo[role + 1])
    total = sum(float(A.plane_weight[k]) * _popcount(v & A.win_planes[k]) for k in range(lo, hi))
    return n, total / (100.0 * n)


def discordance(values: Sequence[float], priors: Sequence[float]) -> Optional[float]:
    """The fraction of pairs of moves that `priors` order one way and `values`
    the other (ties in either count as agreement); None with fewer than two moves.

    >>> discordance([0.9, 0.5, 0.1], [0.2, 0.5, 0.8])
    1.0
    >>> discordance([0.9, 0.5, 0.1], [0.8, 0.5, 0.2])
    0.0
    """
    k = len(values)
    if k < 2:
        return None
    v = np.asarray(values, dtype=np.float64)
    p = np.asarray(priors, dtype=np.float64)
    dv = np.sign(v[:, None] - v[None, :])
    dp = np.sign(p[:, None] - p[None, :])
    pairs = k * (k - 1)
    return float(((dv * dp) < 0).sum()) / pairs


def _amaf(A: Arena, table: int, code: int) -> tuple[int, Optional[float]]:
    if table < 0 or not 0 <= code < A.amaf_n.shape[1]:
        return 0, None
    n = int(A.amaf_n[table, code])
    return n, (float(A.amaf_w[table, code]) / n if n else None)


def _perm(A: Arena, table: int, code: int) -> tuple[int, Optional[float]]:
    if table < 0 or not 0 <= code < A.perm_n.shape[1]:
        return 0, None
    n = int(A.perm_n[table, code])
    return n, (float(A.perm_q[table, code]) if n else None)


def _chooser(A: Arena, node: int) -> int:
    """The one role with a choice at `node`, or -1 (none, or several)."""
    roles = A.node_edges.shape[1] - 1
    many = [r for r in range(roles) if A.node_edges[node, r + 1] - A.node_edges[node, r] > 1]
    return many[0] if len(many) == 1 else -1


def _rank_disagreement(A: Arena, lo: int, hi: int, prior) -> Optional[float]:
    values, priors = [], []
    for e in range(lo, hi):
        n = int(A.edge_n[e])
        p = prior(int(A.edge_feat[e]))
        if n >= MIN_VISITS and p is not None:
            values.append(float(A.edge_w[e]) / n)
            priors.append(p)
    return discordance(values, priors)


def _r(x: Optional[float]) -> Optional[float]:
    return None if x is None else round(x, 3)


def move_figures(A: Arena, rho: int, role: int, edge: int) -> dict:
    """Figures for root edge `edge` of `role` (the move the search chose):

    - `move_q`, `move_n`: its value and visits; `move_amaf_q`, `move_amaf_n`:
      the root's AMAF value and count for its code; `move_perm_q`,
      `move_perm_n`: the window's permutation value and count for its code;
    - `amaf_disagreement`: among the root's edges with at least MIN_VISITS
      visits, the fraction of pairs that Q̃ orders against Q;
    - `reply`, `reply_q`, `reply_n`, `reply_amaf_q`, `reply_amaf_n`,
      `reply_perm_q`, `reply_perm_n`: the same for the most visited answer at
      the chosen move's child (where MCPS's permutation statistics first act),
      with `reply_amaf_disagreement` and `reply_perm_disagreement` there.
    """
    root = int(A.counters[C_ROOT])
    code = int(A.edge_feat[edge])
    n = int(A.edge_n[edge])
    root_amaf = int(A.node_amaf[root])
    figures: dict = {"move_n": n, "move_q": _r(float(A.edge_w[edge]) / n) if n else None}
    a_n, a_q = _amaf(A, root_amaf, code)
    p_n, p_q = window_stat(A, code, role)
    figures.update(move_amaf_n=a_n, move_amaf_q=_r(a_q), move_perm_n=p_n, move_perm_q=_r(p_q))
    lo, hi = int(A.node_edges[root, role]), int(A.node_edges[root, role + 1])
    figures["amaf_disagreement"] = _r(_rank_disagreement(A, lo, hi, lambda c: _amaf(A, root_amaf, c)[1]))
    child = int(A.edge_child[edge])
    if child < 0 or not A.node_flags[child] & EXPANDED:
        return figures
    other = _chooser(A, child)
    if other < 0:
        return figures
    lo, hi = int(A.node_edges[child, other]), int(A.node_edges[child, other + 1])
    reply = max(range(lo, hi), key=lambda e: int(A.edge_n[e]))
    amaf_table = int(A.node_amaf[child]) if A.node_amaf[child] >= 0 and A.node_visits[child] >= rho else root_amaf
    perm_table = int(A.node_perm[child])
    r_code = int(A.edge_feat[reply])
    r_n = int(A.edge_n[reply])
    ra_n, ra_q = _amaf(A, amaf_table, r_code)
    rp_n, rp_q = _perm(A, perm_table, r_code)
    figures.update(
        reply_n=r_n, reply_q=_r(float(A.edge_w[reply]) / r_n) if r_n else None,
        reply_amaf_n=ra_n, reply_amaf_q=_r(ra_q), reply_perm_n=rp_n, reply_perm_q=_r(rp_q),
        reply_amaf_disagreement=_r(_rank_disagreement(A, lo, hi, lambda c: _amaf(A, amaf_table, c)[1])),
        reply_perm_disagreement=_r(_rank_disagreement(A, lo, hi, lambda c: _perm(A, perm_table, c)[1])),
    )
    return figures


def root_figures(A: Arena, role: int, rho: int, move_of: Callable[[int], object]) -> dict:
    """The root's five most visited moves of `role` (`top_moves`) and the move
    to play with its visits, mean value and `move_figures`."""
    root = int(A.counters[C_ROOT])
    figures: dict = {"top_moves": []}
    if not A.node_flags[root] & EXPANDED:
        return figures
    lo, hi = int(A.node_edges[root, role]), int(A.node_edges[root, role + 1])
    for e in sorted(range(lo, hi), key=lambda e: -int(A.edge_n[e]))[:5]:
        n = int(A.edge_n[e])
        figures["top_moves"].append({"move": str(move_of(int(A.edge_code[e]))), "visits": n,
                                     "value": round(float(A.edge_w[e]) / n, 3) if n else None})
    best = int(best_edge(A, role))
    if best >= 0:
        n = int(A.edge_n[best])
        figures["move"] = str(move_of(int(A.edge_code[best])))
        figures["move_visits"] = n
        figures["move_value"] = round(float(A.edge_w[best]) / n, 3) if n else None
        figures.update(move_figures(A, rho, role, best))
    return figures


def kept_share(old_root_visits: int, new_root_visits: int) -> Optional[float]:
    """The share of the old root's visits the new root holds after a root
    change (None when the old root had none): near 1 after a move the tree
    expected, near 0 after one it barely looked at. At most 1: a root found
    by its state's hash (a transposition) may hold more visits than the old
    root, and the figure says how much of that search survived, not more."""
    if old_root_visits <= 0:
        return None
    return round(min(new_root_visits / old_root_visits, 1.0), 4)


#: The figures of one answer in the move's log line: (label, stats key or keys).
_SUMMARY = (("visits", ("move_visits",)), ("value", ("move_value",)), ("iterations", ("iterations",)),
            ("per_s", ("iterations_per_s",)), ("nodes", ("nodes",)), ("depth", ("max_depth",)),
            ("leaf_depth", ("mean_leaf_depth",)), ("playout", ("mean_playout",)), ("proven", ("root_proven",)),
            ("kept", ("tree_kept",)), ("reply_kept", ("reply_kept", "reply_rank")), ("change_s", ("root_change_s",)),
            ("amaf", ("move_amaf_q", "move_amaf_n")), ("perm", ("move_perm_q", "move_perm_n")),
            ("reply", ("reply_q", "reply_n")),
            ("disagree", ("amaf_disagreement", "reply_amaf_disagreement", "reply_perm_disagreement")))


def answer_summary(stats: dict) -> str:
    """The search's figures for the move log line (a missing one reads None)."""
    return " ".join(f"{label}=" + "/".join(str(stats.get(key)) for key in keys) for label, keys in _SUMMARY)
