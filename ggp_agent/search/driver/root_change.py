"""A tree's root moved to the position the match reached, what the move kept,
and the collection of what the new root no longer reaches.

They run under the search's lock with no batch in progress (`TreeSearch`
interrupts its worker first). They live apart from the search's threading
because they are the tree's own bookkeeping: which node the played joint move
leads to, how the opponents' reply ranked among the replies the tree weighed,
what MCPS's permutation window may keep of playouts that did not play it,
and when and how a full arena is made room in.

When: a collection takes time in proportion to the tree (a tenth of a second
for a few hundred thousand nodes here, seconds on a loaded machine), and a
root change after which we choose is on our clock. So with `collect` at
"off_clock" (the default) a tree more than half full is collected only after
a root change where another role chooses next (the opponents think: the
collection runs on their clock), or after our answer at a root where another
role chooses too (simultaneous moves: every root change is on our clock, and
the time between our answer and the next message is not). On our clock the
search goes on in the tree it has, growing where the arena has room.
"""

from __future__ import annotations

import logging
import time
from typing import Optional, Sequence

import numpy as np

from ...gdl.terms import Term
from ...reasoner.statemachine import State
from ..tree import iteration, mcps
from ..tree.arena import C_CHANCE, C_NODES, C_ROOT, EXPANDED, Arena, fuller_than
from ..tree.collect import clear_tree, collect_garbage
from ..tree.params import RULES, SearchParams
from ..tree.root import root_choice_codes, root_child
from ..tree.select import forget_picks
from .reuse import FOUND_BY_MOVE, FOUND_BY_STATE, FOUND_NEW

log = logging.getLogger(__name__)

#: A tree is collected once a pool is more than this full (when: the module docstring).
COLLECT_FROM = 0.5


def joint_codes(runner, joint_move: Optional[Sequence[Term]]) -> list:
    """Each role's move code in `joint_move` (None for a move the runner has no code for)."""
    return [None] if joint_move is None else [runner.code_of(r, m) for r, m in enumerate(joint_move)]


def reply_at_root(A: Arena, role: int, codes: list, our_choices: int) -> tuple[bool, Optional[int], int]:
    """Before the root moves by a joint move of `codes`: whether a role other
    than `role` (and the chance role) chose at the root, the rank by visits of
    the move it played among its moves there (1: the most visited; the worst
    rank where several roles chose; None when the tree holds no such edge),
    and how many moves it had. An unexpanded root tells nothing of the
    others' choices: a reply when our role had no choice there."""
    root = int(A.counters[C_ROOT])
    if root < 0 or not A.node_flags[root] & EXPANDED or len(codes) < A.node_edges.shape[1] - 1:
        return our_choices <= 1, None, 0
    reply, rank, moves = False, 0, 0
    for r in range(A.node_edges.shape[1] - 1):
        lo, hi = int(A.node_edges[root, r]), int(A.node_edges[root, r + 1])
        if r == role or r == int(A.counters[C_CHANCE]) or hi - lo <= 1:
            continue
        reply, moves = True, max(moves, hi - lo)
        visits = A.edge_n[lo:hi]
        played = np.flatnonzero(A.edge_code[lo:hi] == codes[r]) if codes[r] is not None else ()
        if len(played) == 0:
            rank = None
        elif rank is not None:
            rank = max(rank, 1 + int((visits > visits[played[0]]).sum()))
    return reply, (rank if reply else None), moves


def node_after(A: Arena, P: np.ndarray, params: SearchParams, runner, codes: list, state: State) -> tuple[int, str]:
    """The node of `state`, reached by the joint move of `codes` from the root
    (tree reuse) or else found by the state's hash or made new; -1 when the
    arena has no room for it. With MCPS, the window keeps only the playouts
    that played our choice of the joint move (all of it cleared when there is
    none: a determinization of a GDL-II match, or `root_window="clear"`).
    Returns the node and how it was found (`reuse.FOUND_*`)."""
    mcps_rule = RULES[params.rule] == RULES["mcps"]
    child = -1
    if all(c is not None for c in codes):
        joint = np.asarray(codes, dtype=np.int32)
        child = int(root_child(A, joint))
        if mcps_rule and params.root_window != "keep":
            choice = np.zeros(len(codes), dtype=np.int32)
            n = int(root_choice_codes(A, joint, choice))
            if n < 0 or params.root_window == "clear":
                mcps.clear_window(A)
            else:
                mcps.restrict_window(A, P, choice, n)
    elif mcps_rule:
        mcps.clear_window(A)
    forget_picks(A)
    if child >= 0:
        return child, FOUND_BY_MOVE
    nodes = int(A.counters[C_NODES])
    node = runner.root_node(A, P, state)
    return node, (FOUND_BY_STATE if 0 <= node < nodes else FOUND_NEW)


def collection_due(A: Arena, params: SearchParams, our_turn: bool) -> bool:
    """After a root change: whether to collect before searching on (when: the
    module docstring; `collect="at_change"`: whenever the tree is full enough)."""
    return fuller_than(A, COLLECT_FROM) and (params.collect == "at_change" or not our_turn)


def collection_due_after_answer(A: Arena, params: SearchParams, others_choose: bool) -> bool:
    """After our answer: whether to collect now, at a root where another role
    chooses too (the next root change is on our clock; this moment is not)."""
    return params.collect == "off_clock" and others_choose and fuller_than(A, COLLECT_FROM)


def collect_tree(A: Arena, P: np.ndarray, runners: list, root: int, state: Optional[State], name: str) -> float:
    """Free what `root` cannot reach (mark and slide, `collect.collect_garbage`);
    with no root (-1: the arena had no room even for the new one), start a
    fresh tree at `state`. `runners[0]` owns the tree's Python-side states;
    every runner drops its lanes in flight. Returns the seconds it took."""
    began = time.perf_counter()
    before = int(A.counters[C_NODES])
    for each in runners:
        each.forget_inflight(A)
    if root < 0:
        clear_tree(A)
        runners[0].after_collection(A, 0)
        iteration.set_root(A, P, runners[0].root_node(A, P, state))
        kept = int(A.counters[C_NODES])
    else:
        kept = int(collect_garbage(A))
        runners[0].after_collection(A, kept)
    took = time.perf_counter() - began
    log.info("search %s: collected the tree in %.3f s, %d of %d nodes kept", name, took, kept, before)
    return took


def others_choose(runner, state: State, role: int) -> bool:
    """Another role than `role` has a choice at `state` (a simultaneous move)."""
    return any(len(runner.legal_codes(state, r)) > 1 for r in range(runner.n_roles) if r != role)
