"""The lane search: search iterations whose engine work all runs on the propnet's 256 lanes.

Each lane carries one iteration. When a lane is free, the tree descends from
the root (`iteration.descend`, the rules of `select.py` untouched) to a leaf:

- the leaf's node has no edges yet: its legal moves were kept when it was
  created (`Arena.node_legal`), so it is expanded without the engine, and
  the descent goes on;
- the descent chose a joint move at node P whose child the tree does not
  hold: the lane starts from P's state, plays that joint move at its first
  step (forced), and at the next step the child's state, hashes, legal moves
  and terminal flag are read from the lane and the child is attached
  (`iteration.attach_child`); the lane then plays a random playout from it;
- the path ends at a terminal or proven node: backed up at once, no lane;
- the depth cap: the lane plays out from the node.

A leaf may get more than one playout (`SearchParams.leaf_playouts`): the
lane that took it owes copies, which free lanes serve before they descend
for a new leaf (`lane_copies.py`), each backed up as an iteration of its
own, so the tree's part is paid once for them.

When its playout ends the lane's iteration is backed up (`iteration.backup`:
visits, rewards, AMAF tables, the permutation window, the solver) and the
lane takes the next leaf. So the backups of a batch arrive one by one as
lanes finish, and every descent sees every result already in.

Distinct leaves: every edge on a lane's path carries a virtual loss (one
visit with no reward) while the lane is out, and an edge whose child is
being computed is marked pending (`PENDING` in `edge_child`): a descent
that chooses it plays out from the node before it instead, so two lanes
never compute the same child. Virtual losses are taken off when a call ends
and put back when the next one starts (lanes stay in flight across calls),
so between calls the tree holds only real results; `forget_inflight` drops
the lanes in flight (a root change, a collection).

The number of lanes in flight is the batch size: the caller bounds it
(`LaneRunner`: young trees get few, the end of the thinking time none new).
Over Prolog nothing of this runs (`serial.MachineRunner`).
"""

from __future__ import annotations


import numpy as np

from ...propnet.kernels.bits import ONE, ZERO, lowest_bit_index, set_bit_indices
from ...propnet.jit.decorators import atomic_read, atomic_swap_if, atomic_write, kernel
from ...propnet.kernels.lane_gates import LANES, WORDS, lane_forward
from ...propnet.kernels.lane_kernels import (
    advance_lanes, choose_moves, clear_inputs, lane_goals, load_lane, prefer_moves,
)
from ...propnet.kernels.state_kernels import legal_codes, load_state
from ..tree.arena import C_BROKEN, C_INTERRUPT, C_LOCK, C_PATH, LEGAL, PENDING
from ..tree.iteration import (
    AT_CAP, AT_END, NEED_EXPAND, attach_child, backup, begin_iteration, descend, expand, root_done,
)
from ..tree.mast import mast_rank
from ..tree.params import P_CODES, P_MAST_EPSILON, P_MAX_ROLLOUT, P_PLAYOUT, PLAYOUT_MAST
from ..tree.table import choosers, find_child, learn_effect, set_terminal, words_check
from .lane_copies import copy_source, owe_copies, take_copy
from .lane_effects import keep_before, record_effects
from .lane_slots import S_COLLISIONS, S_DONE, S_INFLIGHT, S_STEPS
from .probes import note_end, probe_children, probes_wanted


# lane phases
IDLE = 0
LOAD_FORCED = 1   # its start state is loaded at the end of this step; it plays the forced joint move next
LOAD_PLAY = 2     # its start state is loaded at the end of this step; it plays out from it next
FORCED = 3        # plays the forced joint move this step
CHILD = 4         # stands on the child: attach it, then play out
PLAY = 5          # plays a random playout

@kernel
def take_tree(A):
    """Wait for the tree and take it (threads sharing one tree: a spin lock on
    A.counters[C_LOCK]; the holders keep it for one step's tree work)."""
    while atomic_swap_if(A.counters, C_LOCK, 0, 1) != 0:
        pass


@kernel
def free_tree(A):
    atomic_write(A.counters, C_LOCK, 0)


@kernel
def _virtual_loss(A, S, lane, sign):
    """Add (sign 1) or take off (-1) a visit with no reward on every edge the
    lane's iteration will back up."""
    steps = S.length[lane] - 1 + S.chosen[lane]
    roles = A.node_edges.shape[1] - 1
    for k in range(steps):
        for r in range(roles):
            A.edge_n[S.path_edge[lane, k, r]] += sign


@kernel
def _to_arena(A, S, lane):
    """The lane's path into the arena's path (what attach_child and backup read)."""
    length = S.length[lane]
    roles = A.node_edges.shape[1] - 1
    for k in range(length):
        A.path_node[k] = S.path_node[lane, k]
    for k in range(length - 1 + S.chosen[lane]):
        for r in range(roles):
            A.path_edge[k, r] = S.path_edge[lane, k, r]
            A.path_code[k, r] = S.path_code[lane, k, r]
    A.counters[C_PATH] = length


@kernel
def _from_arena(A, S, lane, chosen):
    """The arena's path (a descent just made) into the lane's."""
    length = A.counters[C_PATH]
    roles = A.node_edges.shape[1] - 1
    for k in range(length):
        S.path_node[lane, k] = A.path_node[k]
    for k in range(length - 1 + chosen):
        for r in range(roles):
            S.path_edge[lane, k, r] = A.path_edge[k, r]
            S.path_code[lane, k, r] = A.path_code[k, r]
    S.length[lane] = length
    S.chosen[lane] = chosen
    S.new_leaf[lane] = -1
    S.pending[lane] = -1


@kernel
def _expand_known(A, net, work, node):
    """Expand `node` from its kept legal moves (or, for a node the lane search
    did not create, from the engine). Returns `iteration.expand`'s result."""
    total = 0
    if (A.node_flags[node] & LEGAL) != 0:
        for r in range(net.n_roles):
            n = 0
            for c in range(net.role_lo[r], net.role_lo[r + 1]):
                if (A.node_legal[node, c >> 6] >> np.uint64(c & 63)) & ONE:
                    A.legal[total + n] = c
                    n += 1
            A.legal_count[r] = n
            total += n
    else:
        load_state(net, work, A.node_words[node])
        for r in range(net.n_roles):
            n = legal_codes(net, work, r, A.legal[total:])
            A.legal_count[r] = n
            total += n
    return expand(A, node)


@kernel
def _note_lane_end(A, lanes, S, lane, forced, n_steps):
    """The lane reached a terminal state: its last joint move (the forced
    one, or its playout's last) and the depth it ended at (`probes.note_end`)."""
    if not forced and n_steps == 0:
        return
    for r in range(A.joint.shape[0]):
        A.joint[r] = S.forced[lane, r] if forced else lanes.role_choice[r, lane]
    note_end(A, A.joint, S.length[lane] - 1 + S.chosen[lane] + n_steps)


@kernel
def _finish(A, P, S, lane, n_rollout):
    """Back the lane's iteration up (goals in S.goals[lane]); the lane is free."""
    _virtual_loss(A, S, lane, -1)
    _to_arena(A, S, lane)
    roles = A.node_edges.shape[1] - 1
    for t in range(n_rollout):
        for r in range(roles):
            A.rollout[t, r] = S.rollout[lane, t, r]
    for r in range(roles):
        A.goals[r] = S.goals[lane, r]
    backup(A, P, n_rollout, S.chosen[lane], S.new_leaf[lane])
    S.phase[lane] = IDLE
    S.counters[S_INFLIGHT] -= 1
    S.counters[S_DONE] += 1


@kernel
def _start(A, P, net, work, S, lane, rng):
    """Descend to a new leaf for the free lane. Returns True when the lane got
    work, False when the descent ended at a terminal or proven node (backed up
    at once: an iteration with no lane)."""
    begin_iteration(A)
    while True:
        status = descend(A, P, rng)
        depth = A.counters[C_PATH] - 1
        node = A.path_node[depth]
        if status == AT_END:
            for r in range(net.n_roles):
                A.goals[r] = A.node_goals[node, r]
            backup(A, P, 0, 0, -1)
            S.counters[S_DONE] += 1
            return False
        if status == NEED_EXPAND:
            if _expand_known(A, net, work, node) == 1:
                if probes_wanted(A, P, node, depth):
                    probe_children(A, P, net, work, node)
                continue
            _from_arena(A, S, lane, 0)
            S.phase[lane] = LOAD_PLAY
            break
        if status == AT_CAP:
            _from_arena(A, S, lane, 0)
            S.phase[lane] = LOAD_PLAY
            break
        # NEED_CHILD: compute the child on the lane, unless another lane is at it
        if find_child(A, node, depth) == PENDING:
            S.counters[S_COLLISIONS] += 1
            _from_arena(A, S, lane, 0)
            S.phase[lane] = LOAD_PLAY
            break
        _from_arena(A, S, lane, 1)
        for r in range(net.n_roles):
            S.forced[lane, r] = A.path_move[depth, r]
        many, key_role = choosers(A, node)
        if many <= 1:
            e = A.path_edge[depth, key_role]
            A.edge_child[e] = PENDING
            S.pending[lane] = e
        S.phase[lane] = LOAD_FORCED
        break
    last = A.path_node[A.counters[C_PATH] - 1]
    for w in range(A.node_words.shape[1]):
        S.start[lane, w] = A.node_words[last, w]
    _virtual_loss(A, S, lane, 1)
    S.counters[S_INFLIGHT] += 1
    if S.phase[lane] == LOAD_PLAY:
        owe_copies(A, P, S, lane, S.start[lane])
    return True


@kernel
def _lane_words(net, value, lane, words):
    """One lane's state as state words."""
    k = lane >> 6
    shift = np.uint64(lane & 63)
    for w in range(words.shape[0]):
        words[w] = ZERO
    for i in range(net.n_fluents):
        if (value[1 + i, k] >> shift) & ONE:
            words[i >> 6] |= ONE << np.uint64(i & 63)


@kernel
def _zobrist(net, words):
    h = ZERO
    for w in range(words.shape[0]):
        x = words[w]
        while x != ZERO:
            b = lowest_bit_index(x)
            x &= x - ONE
            h ^= net.zobrist[w * 64 + b]
    return h


@kernel
def _attach(A, net, lanes, S, lane, terminal, effects):
    """The lane stands on the child of its forced joint move: find or add its
    node, keep its legal moves, and with effect codes learn the effect of the
    edge that led there (`table.learn_effect`); True when the child is
    terminal (the lane's iteration ends there)."""
    value = lanes.value
    words = S.words
    _lane_words(net, value, lane, words)
    _to_arena(A, S, lane)
    e = S.pending[lane]
    if e >= 0 and A.edge_child[e] == PENDING:
        A.edge_child[e] = -1
    S.pending[lane] = -1
    if effects:
        step = S.length[lane] - 1
        learn_effect(A, S.path_node[lane, step], step, S.start[lane], words)
        for r in range(A.node_edges.shape[1] - 1):
            S.path_code[lane, step, r] = A.path_code[step, r]
    child, is_new = attach_child(A, _zobrist(net, words), words_check(words), words)
    if child < 0:
        return terminal  # no room: the iteration backs up the chosen edge without a node
    length = S.length[lane]
    S.path_node[lane, length] = child
    S.length[lane] = length + 1
    S.chosen[lane] = 0
    if is_new:
        S.new_leaf[lane] = length
        k = lane >> 6
        shift = np.uint64(lane & 63)
        masks = net.masks
        for w in range(A.node_legal.shape[1]):
            A.node_legal[child, w] = ZERO
        if not terminal and A.node_legal.shape[1] * 64 >= net.n_codes:
            for c in range(net.n_codes):
                lit = net.legal_lit[c]
                if ((value[lit >> 1, k] ^ masks[lit & 1]) >> shift) & ONE:
                    A.node_legal[child, c >> 6] |= ONE << np.uint64(c & 63)
            A.node_flags[child] |= LEGAL
        if terminal:
            lane_goals(net, value, lane, A.goals)
            set_terminal(A, child, A.goals)
    return terminal


@kernel
def lane_search(A, P, net, lanes, S, work, rng, budget, inflight, shared):
    """Run iterations on the lanes until `budget` of them have been backed up
    (or another thread sets A.counters[C_INTERRUPT], or the root is done and
    the lanes drained), with at most `inflight` lanes out at once (0: start
    none, only finish those out). Returns the iterations backed up. Lanes
    still out stay out for the next call (see the module docstring).

    `shared` (1): other threads search the same tree with their own lanes;
    every touch of the tree (descents, attaches, backups, virtual losses) is
    then made holding it (`take_tree`), and the lane steps run in parallel."""
    value = lanes.value
    masks = net.masks
    terminal_lit = net.terminal_lit
    limit = min(int(P[P_MAX_ROLLOUT]), S.rollout.shape[1])
    base = 1 + net.n_fluents
    movers = lanes.movers
    steps = lanes.steps
    effects = P[P_CODES] != 0.0
    n_dynamic = set_bit_indices(A.dynamic, S.dynamic) if effects else 0
    n_effect_lanes = 0
    mast = P[P_PLAYOUT] == PLAYOUT_MAST
    greedy = int(round((1.0 - P[P_MAST_EPSILON]) * 16.0))
    if shared:
        take_tree(A)
    if mast:
        mast_rank(A, net.role_lo, rng)
    for lane in range(LANES):
        if S.phase[lane] != IDLE:
            _virtual_loss(A, S, lane, 1)
    if shared:
        free_tree(A)
    S.counters[S_DONE] = 0
    while S.counters[S_DONE] < budget and atomic_read(A.counters, C_INTERRUPT) == 0:
        S.counters[S_STEPS] += 1
        lane_forward(net, lanes, net.first_gate, net.split)
        if shared:
            take_tree(A)
        # lanes on a new child attach it; playouts that ended are backed up
        for lane in range(LANES):
            phase = S.phase[lane]
            if phase != CHILD and phase != PLAY:
                continue
            k = lane >> 6
            bit = ONE << np.uint64(lane & 63)
            over = ((value[terminal_lit >> 1, k] ^ masks[terminal_lit & 1]) & bit) != ZERO
            if phase == CHILD:
                steps[lane] = 0
                S.phase[lane] = PLAY
                over = _attach(A, net, lanes, S, lane, over, effects)
                if not over:
                    owe_copies(A, P, S, lane, S.words)
            if over:
                _note_lane_end(A, lanes, S, lane, phase == CHILD, steps[lane])
            if over or steps[lane] >= limit:
                lane_goals(net, value, lane, S.goals[lane])
                _finish(A, P, S, lane, steps[lane])
        # free lanes take the copies owed, then new leaves
        if inflight > 0 and not root_done(A, P):
            lane = 0
            cursor = 0
            while (lane < LANES and S.counters[S_INFLIGHT] < inflight
                   and S.counters[S_DONE] < budget and not root_done(A, P)):
                if S.phase[lane] != IDLE:
                    lane += 1
                    continue
                source = copy_source(S, lane, cursor)
                if source >= 0:
                    if source != lane:
                        cursor = source  # the lanes from the cursor up to it owe nothing
                    take_copy(S, source, lane)
                    S.phase[lane] = LOAD_PLAY
                    _virtual_loss(A, S, lane, 1)
                    S.counters[S_INFLIGHT] += 1
                    lane += 1
                    continue
                _start(A, P, net, work, S, lane, rng)
                cursor = min(cursor, lane)  # the leaf it took may owe copies
                if S.phase[lane] == IDLE:
                    continue  # backed up at once: descend again for this lane
                lane += 1
        if shared:
            free_tree(A)
        if S.counters[S_INFLIGHT] == 0:
            break
        # moves: random in playing lanes, the forced joint move in the others
        for k in range(WORDS):
            movers[k] = ZERO
        for lane in range(LANES):
            if S.phase[lane] == PLAY:
                movers[lane >> 6] |= ONE << np.uint64(lane & 63)
        clear_inputs(net, lanes)
        choose_moves(net, lanes, rng, movers)
        if mast and greedy > 0:
            prefer_moves(net, lanes, rng, movers, A.mast_order, greedy)
        for k in range(WORDS):
            w = movers[k]
            while w != ZERO:
                b = lowest_bit_index(w)
                w &= w - ONE
                lane = k * 64 + b
                bit = ONE << np.uint64(b)
                stuck = False
                for r in range(net.n_roles):
                    if lanes.role_stuck[r, k] & bit:
                        stuck = True
                    c = lanes.role_choice[r, lane]
                    S.rollout[lane, steps[lane], r] = -1 - c if lanes.role_forced[r, k] & bit else c
                if stuck:  # no legal move in a non-terminal state: a broken game
                    movers[k] &= ~bit
                    lane_goals(net, value, lane, S.goals[lane])
                    if shared:
                        take_tree(A)
                    A.counters[C_BROKEN] += 1
                    _finish(A, P, S, lane, steps[lane])
                    if shared:
                        free_tree(A)
        if effects:
            n_effect_lanes = keep_before(net, lanes, S, movers, n_dynamic)
        for lane in range(LANES):
            if S.phase[lane] == FORCED:
                k = lane >> 6
                bit = ONE << np.uint64(lane & 63)
                movers[k] |= bit
                for r in range(net.n_roles):
                    value[base + S.forced[lane, r], k] |= bit
        advance_lanes(net, lanes, movers)
        if effects:
            if shared:
                take_tree(A)
            record_effects(A, net, lanes, S, n_dynamic, n_effect_lanes)
            if shared:
                free_tree(A)
        for lane in range(LANES):
            phase = S.phase[lane]
            if phase == PLAY:
                steps[lane] += 1
            elif phase == FORCED:
                S.phase[lane] = CHILD
            elif phase == LOAD_FORCED or phase == LOAD_PLAY:
                load_lane(net, value, lane, S.start[lane])
                steps[lane] = 0
                S.phase[lane] = FORCED if phase == LOAD_FORCED else PLAY
    if shared:
        take_tree(A)
    for lane in range(LANES):
        if S.phase[lane] != IDLE:
            _virtual_loss(A, S, lane, -1)
    if shared:
        free_tree(A)
    return S.counters[S_DONE]


@kernel
def forget_inflight(A, S):
    """Drop the lanes out (their iterations are lost): before the root moves or
    the tree is collected. Called between `lane_search` calls (no virtual loss
    is on the tree then)."""
    for lane in range(LANES):
        if S.phase[lane] != IDLE:
            e = S.pending[lane]
            if e >= 0 and e < A.edge_child.shape[0] and A.edge_child[e] == PENDING:
                A.edge_child[e] = -1
            S.pending[lane] = -1
            S.phase[lane] = IDLE
        S.owed[lane] = 0
    S.counters[S_INFLIGHT] = 0


@kernel
def keep_legal(A, net, work, node):
    """Keep the legal moves of `node`, whose state `work` holds (a root made
    by the one-state kernels), so that the lane search expands it without
    the engine."""
    if A.node_legal.shape[1] * 64 < net.n_codes:
        return
    for w in range(A.node_legal.shape[1]):
        A.node_legal[node, w] = ZERO
    buffer = A.legal
    for r in range(net.n_roles):
        n = legal_codes(net, work, r, buffer)
        for i in range(n):
            c = buffer[i]
            A.node_legal[node, c >> 6] |= ONE << np.uint64(c & 63)
    A.node_flags[node] |= LEGAL
