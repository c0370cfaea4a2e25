"""Probes: a node's children that end the game, seen when the node is expanded.

MCTS finds a win in one move only once it tries that move, and MCPS may not
try it for a long time: its priors order the untried moves, and a winning
move whose code is poor on average (a drop in a column that wins only here)
waits behind the others. Sancho and Gurgeh both look at every child at
expansion. Here, when a node where one role chooses is expanded, each of that
role's moves whose move code has ever been the last move of a game is played
one step ahead on the one-state engine; a child that is terminal is attached
at once with its goal values (proven), and the solver proves the node when
one of them gives the chooser its best goal: the win in one is taken, and the
opponent one move up sees that the move leading here loses.

Two gates keep it cheap, both learnt from the search's own playouts, never
from the game's names: only codes that ended some game are probed
(`A.code_ends`: in breakthrough the moves onto the last row; in connect four
every column, all cheap), and only at nodes at least as deep as the earliest
end any playout reached, less one move per role (`C_MIN_END`, counted in joint
moves from the match's start, as Sancho gates its look-ahead by the shallowest
completion it has seen). A child probed and found not terminal is forgotten:
the tree grows as it did.

These kernels need the propnet's one-state engine (`work`); they are called by
both runners where they expand a node (`kernels.propnet_batch`,
`lane_search._expand_known`). They must not run a playout or back anything up.
"""

from __future__ import annotations

from ...propnet.jit.decorators import kernel
from ...propnet.kernels.state_kernels import advance, goals, is_terminal, load_state, state_hash
from ..tree.arena import C_CHANCE, C_MIN_END, C_PROBE_ENDS, C_PROBES, C_ROOT_STEP
from ..tree.params import P_CODES, P_PROBE, P_SOLVER
from ..tree.solver import try_prove
from ..tree.table import choosers, effect_code, new_node, set_terminal, tt_find, words_check


@kernel
def note_end(A, move_codes, end_depth):
    """A playout or a child reached a terminal state by joint move
    `move_codes` (role order; a negative code, ~c, was a role's only move),
    `end_depth` joint moves below the root: its codes become probe
    candidates, and the earliest end is kept."""
    for r in range(move_codes.shape[0]):
        c = move_codes[r]
        if c < 0:
            c = ~c
        if c < A.code_ends.shape[0]:
            A.code_ends[c] = 1
    end = A.counters[C_ROOT_STEP] + end_depth
    if end < A.counters[C_MIN_END]:
        A.counters[C_MIN_END] = end


@kernel
def probes_wanted(A, P, node, depth):
    """Whether a probe at `node`, `depth` joint moves below the root, is due:
    probes on, the solver on, one role (not chance) choosing, and the node
    deep enough (see the module docstring)."""
    if P[P_PROBE] == 0.0 or P[P_SOLVER] == 0.0:
        return False
    roles = A.node_edges.shape[1] - 1
    if A.counters[C_ROOT_STEP] + depth + roles < A.counters[C_MIN_END]:
        return False
    many, role = choosers(A, node)
    return many == 1 and role != A.counters[C_CHANCE]


@kernel
def probe_children(A, P, net, work, node):
    """Play one step ahead every move of the node's chooser whose code ended
    some game; attach the terminal children (proven, their goal values) and
    let the solver prove the node. `work` may hold any state (the node's is
    loaded when a probe is made) and holds the node's state afterwards when
    one was. Returns the children probed."""
    many, role = choosers(A, node)
    roles = A.node_edges.shape[1] - 1
    joint = A.joint
    for r in range(roles):
        joint[r] = A.edge_code[A.node_edges[node, r]]
    parent = A.node_words[node]
    loaded = False
    probed = 0
    for e in range(A.node_edges[node, role], A.node_edges[node, role + 1]):
        code = A.edge_code[e]
        if A.edge_child[e] != -1 or code >= A.code_ends.shape[0] or A.code_ends[code] == 0:
            continue
        if not loaded:
            load_state(net, work, parent)
            loaded = True
        joint[role] = code
        advance(net, work, joint)
        probed += 1
        if is_terminal(net, work):
            _attach_end(A, P, net, work, node, role, e, parent)
        load_state(net, work, parent)
    A.counters[C_PROBES] += probed
    if probed > 0:
        try_prove(A, node)
    return probed


@kernel
def _attach_end(A, P, net, work, node, role, e, parent):
    """The probed move of edge `e` ended the game in the state `work` holds: its node, terminal and proven."""
    words = work.state
    child = tt_find(A, state_hash(work), words_check(words), words)
    if child < 0:
        child = new_node(A, state_hash(work), words_check(words), words)
        if child < 0:
            return
    goals(net, work, A.goals)
    set_terminal(A, child, A.goals)
    A.edge_child[e] = child
    A.counters[C_PROBE_ENDS] += 1
    if P[P_CODES] != 0.0:
        feature = effect_code(A, role, A.edge_code[e], parent, words)
        if feature >= 0:
            A.edge_feat[e] = feature
