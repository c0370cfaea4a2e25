"""A heuristic's value of a state, and its implicit minimax over the tree.

Random playouts see material and tempo only as far as random moves keep
them: a capture that decides a breakthrough game moves a random playout's
outcome little. A heuristic found at START (`choices/heuristic_choice.py`)
says what a position is worth before the game ends: piece sets (fluents
whose count per role goes with the outcome, `A.heur_mask`, `A.heur_role`,
`A.heur_weight`) and the goal values of the state. Here, for every node the
tree creates:

- `note_state` stores each role's heuristic value of the node's state in
  `A.node_h` (in [0, 1]: σ of the material lead, in `heur_coef[H_MATERIAL]`
  logits a unit, blended with the goal values by `heur_coef[H_GOALS]`), and
  starts its minimax value `A.node_mm` there;
- `backup_minimax` keeps `A.node_mm` the heuristic's minimax over the
  children the tree holds (where one role chooses, the child best for that
  role; a move whose child is not computed yet counts as the node's own
  value, as a quiet move would leave it; proven and terminal children count
  their goals), along the path of each iteration, bottom up, stopping where
  a value did not change;
- selection (`select.py`) blends it into an edge's value with weight
  `SearchParams.minimax` (implicit minimax backups, Lanctot, Winands,
  Pepels, Sturtevant 2014): a capture is seen once its child is computed,
  and an exchange is valued at its end as far as the tree has looked.

A playout cut after `SearchParams.cutoff` joint moves scores an outcome
drawn from the heuristic's values of the state it reached (`cut_outcome`):
the statistics keep whole goal values, and their expectation is the
heuristic's.

Nodes where several roles choose keep their static value (no minimax value
exists in general). Nothing here runs unless a heuristic is on
(`heuristic_on`).
"""

from __future__ import annotations

import math

import numpy as np

from ...propnet.kernels.bits import popcount64, rand_word
from ...propnet.jit.decorators import kernel
from .arena import C_CHANCE, C_HEUR_SETS, H_GOALS, H_MATERIAL, PROVEN, TERMINAL
from .table import choosers


@kernel
def heuristic_on(A):
    """True when a heuristic was found and set (material or goals)."""
    return A.heur_coef[H_MATERIAL] > 0.0 or A.heur_coef[H_GOALS] > 0.0


@kernel
def material(A, words, role):
    """Role's material in a state: its pieces of each set, weighed."""
    total = 0.0
    for k in range(A.counters[C_HEUR_SETS]):
        if A.heur_role[k] != role:
            continue
        count = 0
        for w in range(words.shape[0]):
            count += popcount64(words[w] & A.heur_mask[k, w])
        total += A.heur_weight[k] * count
    return total


@kernel
def sigmoid(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


@kernel
def state_value(A, words, goals, role):
    """Role's heuristic value of a state (uint64 words; `goals` its goal
    values, 0..100 per role): σ(logit per unit × (its material − the mean of
    the others')) blended with its goal value / 100."""
    roles = A.node_h.shape[1]
    value = 0.5
    scale = A.heur_coef[H_MATERIAL]
    if scale > 0.0:
        own = material(A, words, role)
        others = 0.0
        for r in range(roles):
            if r != role:
                others += material(A, words, r)
        lead = own - others / max(roles - 1, 1)
        value = sigmoid(scale * lead)
    g = A.heur_coef[H_GOALS]
    if g > 0.0:
        goal = goals[role] / 100.0
        value = goal if scale <= 0.0 else (1.0 - g) * value + g * goal
    return value


@kernel
def note_state(A, node, words, goals):
    """A new node's heuristic values (node_h) and its first minimax values."""
    if not heuristic_on(A):
        return
    for r in range(A.node_h.shape[1]):
        v = state_value(A, words, goals, r)
        A.node_h[node, r] = v
        A.node_mm[node, r] = v


@kernel
def note_result(A, node):
    """A terminal or proven node: its minimax values are its goals."""
    for r in range(A.node_mm.shape[1]):
        A.node_mm[node, r] = A.node_goals[node, r] / 100.0


@kernel
def child_value(A, child, role):
    """What `child` is worth to `role` for the minimax: its goals when it is
    terminal or proven, else its minimax value."""
    if (A.node_flags[child] & (TERMINAL | PROVEN)) != 0:
        return A.node_goals[child, role] / 100.0
    return np.float64(A.node_mm[child, role])


@kernel
def _update(A, node):
    """Recompute `node`'s minimax values from its children; True when they changed."""
    if (A.node_flags[node] & (TERMINAL | PROVEN)) != 0:
        return False
    many, role = choosers(A, node)
    if many != 1 or role == A.counters[C_CHANCE]:
        return False
    best = -1.0
    best_child = -1
    missing = False
    for e in range(A.node_edges[node, role], A.node_edges[node, role + 1]):
        child = A.edge_child[e]
        if child < 0:
            missing = True
            continue
        v = child_value(A, child, role)
        if v > best:
            best = v
            best_child = child
    changed = False
    roles = A.node_mm.shape[1]
    if best_child < 0 or (missing and A.node_h[node, role] >= best):
        for r in range(roles):
            v = A.node_h[node, r]
            if A.node_mm[node, r] != v:
                A.node_mm[node, r] = v
                changed = True
        return changed
    for r in range(roles):
        v = np.float32(child_value(A, best_child, r))
        if A.node_mm[node, r] != v:
            A.node_mm[node, r] = v
            changed = True
    return changed


@kernel
def backup_minimax(A, length):
    """After an iteration along A.path_node[:length]: the minimax values of
    the path's nodes from the leaf's parent up, until one does not change."""
    k = length - 2
    while k >= 0:
        if not _update(A, A.path_node[k]):
            break
        k -= 1


@kernel
def edge_minimax(A, node, e, role):
    """The heuristic's minimax value for `role` of edge e at `node`: its
    child's, or the node's own where the child is not computed yet."""
    child = A.edge_child[e]
    if child < 0:
        return np.float64(A.node_h[node, role])
    return child_value(A, child, role)


@kernel
def _best_goal(A, role):
    """The highest goal value `role` can get (the window's planes know it), else 100."""
    hi = A.plane_lo[role + 1]
    if hi > A.plane_lo[role] and A.plane_kind[hi - 1] == 0:
        return A.plane_param[hi - 1]
    return 100


@kernel
def cut_outcome(A, words, goals, rng, out):
    """The outcome of a playout cut in a state (words, its goal values
    `goals`): one role drawn with probability its heuristic value over their
    sum gets its best goal, the others 0 (into `out`)."""
    roles = A.node_h.shape[1]
    total = 0.0
    for r in range(roles):
        total += state_value(A, words, goals, r)
    u = (rand_word(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * total
    winner = roles - 1
    acc = 0.0
    for r in range(roles):
        acc += state_value(A, words, goals, r)
        if u < acc:
            winner = r
            break
    for r in range(roles):
        out[r] = _best_goal(A, r) if r == winner else 0
