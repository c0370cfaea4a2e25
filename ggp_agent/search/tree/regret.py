"""Regret matching at simultaneous nodes: the `sim=rm` selection rule.

Why: at a node where several roles choose at once, decoupled UCB (each role's
own bandit, `select.py`) need not converge to an equilibrium; a rule that is
Hannan consistent and keeps exploring does (Lisý, Kovařík, Lanctot and
Bošanský 2013), and regret matching (Hart and Mas-Colell 2000) is the simplest
such rule. A node is simultaneous when two or more roles other than the chance
role have more than one edge; elsewhere the tree's rule chooses as before.

Each edge keeps its cumulative regret R (`A.edge_regret`). A role plays edge a
with probability

    σ(a) = (1 - γ)·R⁺(a) / ΣR⁺ + γ / K    (uniform while no regret is positive),

γ = `rm_gamma`, K the role's edges. After the iteration, with x the role's
reward in [0, 1] and a the edge it played, every edge b of that role gets
R(b) += x̃(b) - x, where x̃(a) = x / σ(a) and x̃(b) = 0 otherwise: the
importance-weighted estimate of what b would have earned, less what the mixed
strategy earned. The visit counts are the average strategy (the mean of the σ
played); the move played at a simultaneous root is drawn from it, less the
uniform exploration (`root_sample`).
"""

from __future__ import annotations

from ...propnet.kernels.bits import rand_below
from ...propnet.jit.decorators import kernel
from .arena import C_CHANCE
from .params import P_RM_GAMMA

#: Resolution of a uniform draw in [0, 1).
_UNIT = 1 << 30


@kernel
def simultaneous(A, node):
    """True when two or more roles other than the chance role choose at `node`."""
    chance = A.counters[C_CHANCE]
    count = 0
    for r in range(A.node_edges.shape[1] - 1):
        if r != chance and A.node_edges[node, r + 1] - A.node_edges[node, r] > 1:
            count += 1
    return count >= 2


@kernel
def _positive_total(A, lo, hi):
    total = 0.0
    for e in range(lo, hi):
        if A.edge_regret[e] > 0.0:
            total += A.edge_regret[e]
    return total


@kernel
def _probability(A, P, e, lo, hi, total):
    """σ(e) among edges lo..hi-1 (see the module docstring)."""
    k = hi - lo
    if total <= 0.0:
        return 1.0 / k
    gamma = P[P_RM_GAMMA]
    positive = A.edge_regret[e] if A.edge_regret[e] > 0.0 else 0.0
    return (1.0 - gamma) * positive / total + gamma / k


@kernel
def regret_choose(A, P, node, role, rng):
    """The edge `role` plays at simultaneous `node`, drawn from σ."""
    lo = A.node_edges[node, role]
    hi = A.node_edges[node, role + 1]
    total = _positive_total(A, lo, hi)
    u = rand_below(rng, _UNIT) / _UNIT
    cumulative = 0.0
    for e in range(lo, hi):
        cumulative += _probability(A, P, e, lo, hi, total)
        if u < cumulative:
            return e
    return hi - 1


@kernel
def regret_update(A, P, node, role, played, reward):
    """Every edge of `role` at `node` learns from an iteration that played
    edge `played` and earned `reward` (the role's, in [0, 1])."""
    lo = A.node_edges[node, role]
    hi = A.node_edges[node, role + 1]
    total = _positive_total(A, lo, hi)
    share = _probability(A, P, played, lo, hi, total)
    for e in range(lo, hi):
        A.edge_regret[e] -= reward
    A.edge_regret[played] += reward / share


@kernel
def regret_backup(A, P, steps):
    """The regret updates of one iteration: at each simultaneous node of the
    path (its first `steps` steps), every choosing role but the chance one."""
    chance = A.counters[C_CHANCE]
    roles = A.node_edges.shape[1] - 1
    for k in range(steps):
        node = A.path_node[k]
        if not simultaneous(A, node):
            continue
        for r in range(roles):
            if r != chance and A.node_edges[node, r + 1] - A.node_edges[node, r] > 1:
                regret_update(A, P, node, r, A.path_edge[k, r], A.reward[r])


@kernel
def root_sample(A, P, node, role, rng):
    """The edge `role` plays at simultaneous `node` for real: a draw from the
    average strategy (visit counts less the uniform exploration); -1 before
    any visit."""
    lo = A.node_edges[node, role]
    hi = A.node_edges[node, role + 1]
    k = hi - lo
    visits = 0
    for e in range(lo, hi):
        visits += A.edge_n[e]
    if visits == 0:
        return -1
    floor = P[P_RM_GAMMA] * visits / k
    total = 0.0
    for e in range(lo, hi):
        if A.edge_n[e] > floor:
            total += A.edge_n[e] - floor
    if total <= 0.0:
        return lo + rand_below(rng, k)
    u = total * rand_below(rng, _UNIT) / _UNIT
    cumulative = 0.0
    for e in range(lo, hi):
        if A.edge_n[e] > floor:
            cumulative += A.edge_n[e] - floor
            if u < cumulative:
                return e
    return hi - 1
