"""How far MCPS's priors are from the values the tree finds: their bias, measured in the tree.

MCPS values an edge by (n·Q + ñ·Q̃ + n̂·Q̂) / (n + ñ + n̂): the edge's own
playouts and two priors pooled over every playout that played its code. The
published rule trusts a prior as much as as many playouts of the edge itself.
That is right where a code's value is much the same wherever it is played
(Hex, NoGo: a stone on c3) and wrong where it turns with the position: in dots
and boxes the same line completes a box in one position and hands the
opponent three in another. There the default lost 1 match of 10 to UCT, and
priors worth at most 100 playouts won 5 of 6.

A prior with bias b and variance σ²/m, beside the edge's own mean with
variance σ²/n, is best weighed (least squared error) as
m / (1 + (b²/σ²)·m) playouts of the edge: the prior-count shrink of
`select.prior_weights` with prior_bias = b²/σ² (GRAVE's bias and MC-RAVE's
are this weight; Gelly and Silver 2011). So the bias is what decides, and the
tree measures it: at well-visited nodes, for edges whose own mean is already
well sampled, (Q − prior)² is b² plus the two means' sampling variance, which
is subtracted. `prior_error` sums those terms over the tree; the driver turns
them into prior_bias during the match (`driver/prior_fitting.py`).

Only nodes where one role (not chance) chooses take part, with their own AMAF
table and frozen permutation table (a node reaching ρ visits is its own
reference). The AMAF prior is taken without the edge's own playouts (those
would make the prior agree with Q by construction). Edges the priors kept
away from are never well sampled, so the measure sees the errors of the
moves the search did try: it underestimates rather than overestimates.
"""

from __future__ import annotations

from ...propnet.jit.decorators import kernel
from .arena import C_CHANCE, C_NODES, EXPANDED
from .table import choosers

#: What one call of `prior_error` adds up (indexes into its `out`).
ERR_SQUARED = 0   # sum of (Q - prior)^2 - the sampling variance of both means
ERR_VARIANCE = 1  # sum of Q(1 - Q), the per-playout variance
ERR_SAMPLES = 2   # how many edges took part
ERR_SIZE = 3


@kernel
def prior_error(A, min_node_visits, min_edge_visits, out):
    """Add to `out` (ERR_*) the squared errors of the priors of every edge
    with at least `min_edge_visits` visits (and as many prior playouts
    besides its own) at a node with at least `min_node_visits` visits."""
    n_codes = A.amaf_n.shape[1]
    chance = A.counters[C_CHANCE]
    for node in range(A.counters[C_NODES]):
        if A.node_visits[node] < min_node_visits or (A.node_flags[node] & EXPANDED) == 0:
            continue
        many, role = choosers(A, node)
        if many != 1 or role == chance:
            continue
        amaf = A.node_amaf[node]
        perm = A.node_perm[node]
        if amaf < 0 and perm < 0:
            continue
        for e in range(A.node_edges[node, role], A.node_edges[node, role + 1]):
            n = A.edge_n[e]
            if n < min_edge_visits:
                continue
            code = A.edge_feat[e]
            if code < 0 or code >= n_codes:
                continue
            q = A.edge_w[e] / n
            prior_n = 0.0
            prior_w = 0.0
            if amaf >= 0:
                others = A.amaf_n[amaf, code] - n
                if others > 0:
                    prior_n += others
                    prior_w += max(A.amaf_w[amaf, code] - A.edge_w[e], 0.0)
            if perm >= 0 and code < A.perm_n.shape[1]:
                n_perm = A.perm_n[perm, code]
                prior_n += n_perm
                prior_w += n_perm * A.perm_q[perm, code]
            if prior_n < min_edge_visits:
                continue
            prior = min(prior_w / prior_n, 1.0)
            variance = q * (1.0 - q)
            d = q - prior
            out[ERR_SQUARED] += d * d - variance * (1.0 / n + 1.0 / prior_n)
            out[ERR_VARIANCE] += variance
            out[ERR_SAMPLES] += 1.0
