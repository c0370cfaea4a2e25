"""A tree's root moved to the position the match reached, and the collection
of what the new root no longer reaches.

Both run under the search's lock with no batch in progress (`TreeSearch`
interrupts its worker first). They live apart from the search's threading
because they are the tree's own bookkeeping: which node the played joint move
leads to, what MCPS's permutation window may keep of playouts that did not
play it, and how a full arena is made room in.
"""

from __future__ import annotations

import logging
import time
from typing import Optional, Sequence

import numpy as np

from ...gdl.terms import Term
from ...reasoner.statemachine import State
from ..tree import iteration, mcps
from ..tree.arena import C_NODES, Arena
from ..tree.collect import clear_tree, collect_garbage
from ..tree.params import RULES, SearchParams
from ..tree.root import root_choice_codes, root_child
from ..tree.select import forget_picks

log = logging.getLogger(__name__)


def node_after(A: Arena, P: np.ndarray, params: SearchParams, runner,
               joint_move: Optional[Sequence[Term]], state: State) -> tuple[int, str]:
    """The node of `state`, reached by `joint_move` from the root (tree reuse)
    or else found by the state's hash or made new; -1 when the arena has no
    room for it. With MCPS, the window keeps only the playouts that played our
    choice of the joint move (all of it cleared when there is none: a
    determinization of a GDL-II match, or `root_window="clear"`). Returns the
    node and how it was found, for the log."""
    mcps_rule = RULES[params.rule] == RULES["mcps"]
    codes = [None] if joint_move is None else [runner.code_of(r, m) for r, m in enumerate(joint_move)]
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
        return child, "joint move"
    return runner.root_node(A, P, state), "state"


def collect_tree(A: Arena, P: np.ndarray, runners: list, root: int, state: Optional[State], name: str) -> int:
    """Free what `root` cannot reach (mark and slide, `collect.collect_garbage`);
    with no root (-1: the arena had no room even for the new one), start a
    fresh tree at `state`. `runners[0]` owns the tree's Python-side states;
    every runner drops its lanes in flight. Returns the nodes kept."""
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
    log.info("search %s: collected the tree in %.3f s, %d of %d nodes kept", name,
             time.perf_counter() - began, kept, before)
    return kept
