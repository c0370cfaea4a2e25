"""The selection rules, one kernel for all three: UCT, GRAVE and MCPS.

One role's bandit at one node: among that role's edges, the one to try next.
The three rules differ only in the value they give an edge, so they share
everything else (the loop, tie-breaking, the solver's rules), and a comparison
between them measures the rule, not the code. Values are from the point of
view of the role choosing (its own rewards in [0, 1]), which is what makes
decoupled selection for simultaneous moves and any number of roles work.

For an edge with n visits and reward sum w (Q = w/n), and the reference node's
AMAF statistics ñ, w̃ for its code (Q̃ = w̃/ñ) and frozen permutation
statistics n̂, Q̂:

- UCT: Q + c·sqrt(ln N / n); an edge with n = 0 first.
- GRAVE (Cazenave 2015): (1 - β)·Q + β·Q̃ with β = ñ / (n + ñ + bias·n·ñ);
  an edge with n = ñ = 0 first.
- MCPS (Cazenave 2026): (n·Q + ñ·Q̃ + n̂·Q̂) / (n + ñ + n̂), Q = 1 when n = 0;
  an edge with ñ = 0 first. With `prior_explore` c', plus
  c'·sqrt(ln N / (n + ñ' + n̂' + 1)), the priors (as weighed) counting as visits.

Two kinds of node choose otherwise, before any rule: the chance role (GDL-II's
`random`, `A.counters[C_CHANCE]`) picks uniformly among its edges at every node
(it plays for no goal: a maximizing bandit would make the dice conspire), and
with `sim=rm` a role at a simultaneous node plays by regret matching
(`regret.py`).

Ties go to a random edge (the scan starts at a random offset). With the
solver, at a node where one role alone chooses, an edge to a child proven to
give that role its best goal is taken at once, and an edge to any other proven
child is left alone while an edge with an unproven child remains: its value is
known exactly, another visit teaches nothing, and the unproven moves must be
tried to prove the node (GRAVE and MCPS have no exploration term, so without
this a proven draw could hold their attention forever). An edge whose child a
lane of the batched search is computing (`PENDING`) is left alone too while
another edge remains: the batch's leaves stay apart.

Standing picks (`pick_refresh`, MCPS's default): at a node where one role
chooses, a scan's choice stands for the next few passes, `pick_refresh` of
the node's visits and at most PICK_STAND_MAX passes of that edge (counted
by its visits, the lanes' virtual losses included), unless its child gets
proven or a lane computes it. One more result barely moves the values of a
well-visited node, so the scan would mostly choose the same edge again, and
the scans are most of a descent's cost. A root change forgets every
standing pick (`forget_picks`); a collection moves each with its node's
edges.
"""

from __future__ import annotations

import math

import numpy as np

from ...propnet.kernels.bits import rand_below
from ...propnet.jit.decorators import kernel
from .arena import C_CHANCE, C_NODES, C_ROOT, PENDING, PROVEN
from .params import (
    P_AMAF_OWN, P_AMAF_WEIGHT, P_BIAS, P_C, P_EXPLORE, P_PERM_WEIGHT, P_PRIOR_BIAS, P_PRIOR_EXPLORE,
    P_PICK_REFRESH, P_ROOT_EXPLORE, P_ROOT_PRIOR_BIAS, P_RULE, P_SIM, RULE_GRAVE, RULE_UCT, SIM_RM,
)
from .regret import regret_choose, simultaneous

INFINITY = np.inf
#: A standing pick holds for at most this many passes of its edge, the lanes'
#: virtual losses counted: one batch of lanes must not pile onto one line.
PICK_STAND_MAX = 16


@kernel
def forget_picks(A):
    """Every node's standing pick goes: the root moved, and the permutation
    window with it."""
    for node in range(A.counters[C_NODES]):
        A.node_pick_until[node] = 0


@kernel
def _standing_pick(A, node):
    """The node's standing pick while it stands, else -1: not past its passes,
    and its child neither computed by a lane nor proven (the scan's solver
    rules decide those)."""
    if A.node_pick_until[node] == 0:
        return -1
    e = A.node_pick[node]
    child = A.edge_child[e]
    if A.edge_n[e] >= A.node_pick_until[node] or child == PENDING:
        return -1
    if child >= 0 and (A.node_flags[child] & PROVEN) != 0:
        return -1
    return e


@kernel
def _let_stand(A, P, node, e, visits):
    """A scan chose `e` at a node with `visits`: it stands for `pick_refresh`
    of them in passes of its edge, at most PICK_STAND_MAX (fewer than two: none)."""
    stand = min(int(visits * P[P_PICK_REFRESH]), PICK_STAND_MAX)
    if stand >= 2:
        A.node_pick[node] = e
        A.node_pick_until[node] = A.edge_n[e] + stand


@kernel
def role_best_goal(A, role):
    """The best goal value `role` can get: the highest of its known goal values
    (a propnet knows them), else 100."""
    lo = A.plane_lo[role]
    hi = A.plane_lo[role + 1]
    if hi > lo and A.plane_kind[hi - 1] == 0:
        return A.plane_param[hi - 1]
    return 100


@kernel
def edge_value(A, P, rule, e, log_visits, amaf_table, perm_table, prior_bias):
    """The value of edge e under `rule` (INFINITY: try it first); MCPS's
    priors shrunk by `prior_bias` (see `mcps_value`)."""
    n = A.edge_n[e]
    w = A.edge_w[e]
    if rule == RULE_UCT:
        if n == 0:
            return INFINITY
        return w / n + P[P_C] * math.sqrt(log_visits / n)
    code = A.edge_feat[e]
    tracked = amaf_table >= 0 and code < A.amaf_n.shape[1]
    n_amaf = 0
    w_amaf = 0.0
    if tracked:
        n_amaf = A.amaf_n[amaf_table, code]
        w_amaf = A.amaf_w[amaf_table, code]
    if rule == RULE_GRAVE:
        if n_amaf > 0:
            beta = n_amaf / (n + n_amaf + P[P_BIAS] * n * n_amaf)
            q = w / n if n > 0 else 0.0
            value = (1.0 - beta) * q + beta * (w_amaf / n_amaf)
        elif n > 0:
            value = w / n
        else:
            return INFINITY
        return value + exploration(P, n, log_visits)
    # MCPS
    n_perm = 0
    q_perm = 1.0
    if perm_table >= 0 and code < A.perm_n.shape[1]:
        n_perm = A.perm_n[perm_table, code]
        q_perm = A.perm_q[perm_table, code]
    if P[P_AMAF_WEIGHT] > 0.0:
        if n_amaf == 0 and (tracked or n == 0):
            return INFINITY
    elif n == 0 and (n_perm == 0 or P[P_PERM_WEIGHT] == 0.0):
        return INFINITY
    return mcps_value(P, n, w, n_amaf, w_amaf, n_perm, q_perm, prior_bias, log_visits)


@kernel
def mcps_value(P, n, w, n_amaf, w_amaf, n_perm, q_perm, prior_bias, log_visits):
    """(n·Q + ñ·Q̃ + n̂·Q̂) / (n + ñ + n̂), Q = 1 when n = 0, with the prior
    counts as `prior_weights` gives them, plus the exploration terms at a
    node of ln N = `log_visits` (none when it is 0)."""
    a, a_w, b = prior_weights(P, n, w, n_amaf, w_amaf, n_perm, prior_bias)
    q = w / n if n > 0 else 1.0
    total = n + a + b
    value = (n * q + a_w + b * q_perm) / total if total > 0.0 else 1.0
    return value + exploration(P, n, log_visits) + prior_exploration(P, n, a, b, log_visits)


@kernel
def prior_weights(P, n, w, n_amaf, w_amaf, n_perm, prior_bias):
    """MCPS's priors as the value weighs them: (ñ', w̃', n̂'), the counts ñ
    and n̂ weighted (`amaf`, `perm`) and shrunk to ñ / (1 + prior_bias·ñ)
    (`SearchParams.prior_bias`, or `root_prior_bias` at the root: a prior is
    then worth at most 1 / prior_bias playouts of the edge itself), without
    the edge's own n playouts and w rewards when `amaf_own` is off. The
    value and `prior_explore` read the same counts."""
    if P[P_AMAF_OWN] == 0.0:
        n_amaf = max(n_amaf - n, 0)
        w_amaf = max(w_amaf - w, 0.0) if n_amaf > 0 else 0.0
    a = n_amaf * P[P_AMAF_WEIGHT]
    a_w = w_amaf * P[P_AMAF_WEIGHT]
    b = n_perm * P[P_PERM_WEIGHT]
    if prior_bias > 0.0:
        shrink = 1.0 / (1.0 + prior_bias * a)
        a *= shrink
        a_w *= shrink
        b = b / (1.0 + prior_bias * b)
    return a, a_w, b


@kernel
def exploration(P, n, log_visits):
    """The exploration term added to GRAVE and MCPS values (`SearchParams.explore`)."""
    c = P[P_EXPLORE]
    if c <= 0.0:
        return 0.0
    return c * math.sqrt(log_visits / (n + 1))


@kernel
def prior_exploration(P, n, a, b, log_visits):
    """The exploration term over the edge's visits and its weighed prior
    counts a, b (`SearchParams.prior_explore`)."""
    c = P[P_PRIOR_EXPLORE]
    if c <= 0.0:
        return 0.0
    return c * math.sqrt(log_visits / (n + a + b + 1.0))


@kernel
def choose_edge(A, P, node, role, amaf_ref, perm_ref, rng, solver_here):
    """The edge role `role` plays at `node` (see the module docstring).

    `amaf_ref`/`perm_ref` are the reference nodes (or -1); `solver_here` is
    True when this role alone chooses at the node (edges then lead to children).
    """
    lo = A.node_edges[node, role]
    hi = A.node_edges[node, role + 1]
    count = hi - lo
    if count <= 1:
        return lo
    if role == A.counters[C_CHANCE]:
        return lo + rand_below(rng, count)
    if P[P_SIM] == SIM_RM and simultaneous(A, node):
        return regret_choose(A, P, node, role, rng)
    visits = A.node_visits[node]
    if solver_here:
        standing = _standing_pick(A, node)
        if standing >= 0:
            return standing
    rule = int(P[P_RULE])
    amaf_table = A.node_amaf[amaf_ref] if amaf_ref >= 0 else -1
    perm_table = A.node_perm[perm_ref] if perm_ref >= 0 else -1
    log_visits = math.log(visits) if visits > 1 else 0.0
    best_goal = role_best_goal(A, role) if solver_here else 0
    at_root = rule != RULE_UCT and node == A.counters[C_ROOT]
    root_c = P[P_ROOT_EXPLORE] if at_root else 0.0
    prior_bias = P[P_ROOT_PRIOR_BIAS] if at_root and P[P_ROOT_PRIOR_BIAS] > 0.0 else P[P_PRIOR_BIAS]
    start = rand_below(rng, count)
    best = -1
    best_value = -INFINITY
    fallback = lo
    fallback_goal = -1
    pending = -1
    for i in range(count):
        e = lo + (start + i) % count
        if solver_here:
            child = A.edge_child[e]
            if child == PENDING:  # a lane computes this child: another edge while one remains
                pending = e
                continue
            if child >= 0 and (A.node_flags[child] & PROVEN) != 0:
                g = A.node_goals[child, role]
                if g >= best_goal:
                    return e
                if g > fallback_goal:
                    fallback_goal = g
                    fallback = e
                continue
        value = edge_value(A, P, rule, e, log_visits, amaf_table, perm_table, prior_bias)
        if root_c > 0.0 and value < INFINITY:
            value += root_c * math.sqrt(log_visits / (A.edge_n[e] + 1))
        if value > best_value:
            best_value = value
            best = e
    if best < 0:
        return pending if pending >= 0 else fallback
    if solver_here:
        _let_stand(A, P, node, best, visits)
    return best
