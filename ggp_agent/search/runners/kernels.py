"""The fused batch kernel: many search iterations over a propnet in one numba call.

Why fused: the hot loop (select, expand, playout, backup) must not come back
to Python between iterations. This kernel drives the engine-free
tree logic of `tree/iteration.py` with the propnet kernels (`propnet/kernels/state_kernels.py`): it loads
a node's stored state only where the tree needs the engine (to expand a node,
to compute a new child), plays random playouts by change propagation, and
backs them up. It runs with the GIL released, so the driver's worker thread
calls it in batches while the server keeps answering.

`propnet_root` finds or adds the node of a state for `tree_search.py` (a new root,
or the state the match moved to) with the same hashing as the kernel.

The current state is read as `work.state` rather than through
`state_kernels.current_state`: numba compiles a callee with its caller's
flags, and a function that returns an array it was not given cannot be
compiled without reference counting (`propnet/jit/decorators.py`).
"""

from __future__ import annotations


import numpy as np

from ...propnet.kernels.bits import rand_below
from ...propnet.jit.decorators import allocating_kernel, atomic_read, kernel
from ...propnet.kernels.state_kernels import (
    advance, goals, is_terminal, legal_codes, load_state, random_playout, state_hash,
)
from ..tree.arena import C_BROKEN, C_INTERRUPT, C_PATH
from ..tree.iteration import (
    AT_CAP, AT_END, NEED_EXPAND, attach_child, backup, begin_iteration, descend, expand, root_done,
)
from ..tree.params import P_CODES, P_MAX_ROLLOUT
from ..tree.table import effect_code, learn_effect, new_node, set_terminal, tt_find, words_check
from .probes import note_end, probe_children, probes_wanted


@kernel
def _collect_legal(A, net, work):
    total = 0
    for r in range(net.n_roles):
        n = legal_codes(net, work, r, A.legal[total:])
        A.legal_count[r] = n
        total += n


@kernel
def _copy(dst, src):
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@kernel
def copy_work(dst, src):
    """Copy a settled `Work` (between kernel calls: empty stack, nothing queued).

    Restoring the state a rollout started from is a memory copy, where loading
    it again would propagate every change the rollout made.
    """
    _copy(dst.value, src.value)
    _copy(dst.propagated, src.propagated)
    _copy(dst.count, src.count)
    _copy(dst.state, src.state)
    _copy(dst.hash, src.hash)
    _copy(dst.input_code, src.input_code)
    _copy(dst.registers, src.registers)


@kernel
def _rollout(A, P, net, work, rng, saved):
    """A random playout from the loaded state; goals into A.goals; its length.
    The loaded state is saved first and restored after (see `copy_work`)."""
    copy_work(saved, work)
    if P[P_CODES] != 0.0:
        steps = _effect_playout(A, P, net, work, rng)
    else:
        steps = random_playout(net, work, rng, int(P[P_MAX_ROLLOUT]), A.rollout)
    if steps < 0:
        steps = -1 - steps
        A.counters[C_BROKEN] += 1
    elif steps > 0 and is_terminal(net, work):
        # the last joint move's move codes (an effect-coded playout keeps them in A.joint)
        note_end(A, A.joint if P[P_CODES] != 0.0 else A.rollout[steps - 1], A.counters[C_PATH] - 1 + steps)
    goals(net, work, A.goals)
    copy_work(work, saved)
    return steps


@kernel
def _effect_playout(A, P, net, work, rng):
    """`state_kernels.random_playout`, recording effect codes where one role
    chooses (move codes where several do, ~code where none)."""
    limit = min(int(P[P_MAX_ROLLOUT]), A.rollout.shape[0])
    steps = 0
    while steps < limit:
        if is_terminal(net, work):
            break
        many = 0
        chooser = 0
        for r in range(net.n_roles):
            n = legal_codes(net, work, r, A.legal)
            if n == 0:
                return -1 - steps
            c = A.legal[rand_below(rng, n)]
            A.joint[r] = c
            if n > 1:
                many += 1
                chooser = r
                A.rollout[steps, r] = c
            else:
                A.rollout[steps, r] = ~c
        if many == 1:
            for w in range(A.before.shape[0]):
                A.before[w] = work.state[w]
            advance(net, work, A.joint)
            feature = effect_code(A, chooser, A.joint[chooser], A.before, work.state)
            if feature >= 0:
                A.rollout[steps, chooser] = feature
        else:
            advance(net, work, A.joint)
        steps += 1
    return steps


@kernel
def propnet_batch(A, P, net, work, saved, rng, n_iterations):
    """Run up to `n_iterations` iterations from the root; returns how many ran
    (fewer when the root is terminal or proven, nothing left to learn, or
    when another thread set `A.counters[C_INTERRUPT]`: a root change waits
    one iteration, not one batch).
    `saved` is a second `Work` of the same net (scratch for `copy_work`)."""
    joint = A.joint
    effects = P[P_CODES] != 0.0
    done = 0
    for _ in range(n_iterations):
        if root_done(A, P) or atomic_read(A.counters, C_INTERRUPT) != 0:
            break
        begin_iteration(A)
        chosen_last = 0
        n_rollout = 0
        leaf_depth = -1
        while True:
            status = descend(A, P, rng)
            depth = A.counters[C_PATH] - 1
            node = A.path_node[depth]
            if status == AT_END:
                for r in range(net.n_roles):
                    A.goals[r] = A.node_goals[node, r]
                break
            load_state(net, work, A.node_words[node])
            if status == NEED_EXPAND:
                _collect_legal(A, net, work)
                outcome = expand(A, node)
                if outcome == 1:
                    if probes_wanted(A, P, node, depth):
                        probe_children(A, P, net, work, node)
                    continue
                n_rollout = _rollout(A, P, net, work, rng, saved)
                break
            if status == AT_CAP:
                n_rollout = _rollout(A, P, net, work, rng, saved)
                break
            # NEED_CHILD: play the chosen joint move on the engine
            for r in range(net.n_roles):
                joint[r] = A.path_move[depth, r]
            advance(net, work, joint)
            words = work.state  # the current state (state_kernels.current_state)
            if effects:
                learn_effect(A, node, depth, A.node_words[node], words)
            child, is_new = attach_child(A, state_hash(work), words_check(words), words)
            if child >= 0 and is_new == 0:
                continue
            if child < 0:
                chosen_last = 1
            else:
                leaf_depth = depth + 1
            if is_terminal(net, work):
                goals(net, work, A.goals)
                note_end(A, joint, depth + 1)
                if child >= 0:
                    set_terminal(A, child, A.goals)
            else:
                n_rollout = _rollout(A, P, net, work, rng, saved)
            break
        backup(A, P, n_rollout, chosen_last, leaf_depth)
        done += 1
    return done


@kernel
def propnet_root(A, net, work, state_words):
    """The node for a state (found or added, terminal flag and goals set); -1 when full."""
    load_state(net, work, state_words)
    words = work.state
    h = state_hash(work)
    check = words_check(words)
    node = tt_find(A, h, check, words)
    if node >= 0:
        return node
    node = new_node(A, h, check, words)
    if node >= 0 and is_terminal(net, work):
        goals(net, work, A.goals)
        set_terminal(A, node, A.goals)
    return node


@allocating_kernel
def move_dependent_fluents(net, mask):
    """Set bit i of `mask` (uint64 words) for every fluent whose next value
    depends on some move (an input proposition), by a pass over the gates in
    evaluation order, repeated until cycles settle. Effect codes look only at
    these fluents, so that step counters and turn markers do not split them."""
    depends = np.zeros(net.n_nodes, dtype=np.uint8)
    base = 1 + net.n_fluents
    for c in range(net.n_codes):
        depends[base + c] = 1
    changed = True
    while changed:
        changed = False
        for g in range(net.first_gate, net.n_nodes):
            if depends[g] != 0:
                continue
            for e in range(net.in_ptr[g], net.in_ptr[g + 1]):
                if depends[net.in_lit[e] >> 1] != 0:
                    depends[g] = 1
                    changed = True
                    break
    for w in range(mask.shape[0]):
        mask[w] = 0
    for i in range(net.n_fluents):
        if depends[net.next_lit[i] >> 1] != 0:
            mask[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
