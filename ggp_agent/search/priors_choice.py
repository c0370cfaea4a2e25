"""Whole or capped priors: MCPS decides at START, by whether move codes come back.

MCPS prices a move by every playout that played its code at any time after
the node (AMAF), or in any order (permutations), and weighs that prior by
its count, which grows with the node's visits whether the move is tried or
not. That is sound where a code means one move whatever the moment: a
placement (Hex's "stone on c3", connect four's column) is legal until it is
played or filled, and then never again. Where codes come and go (a pawn
leaves e2 and another arrives later; nine-board tic-tac-toe's cells are
playable only while their board is the one sent to), one code is a different
move at different times, and its pooled prior can be far from its value
here: on breakthrough 6x6 a move worth 0.61 in one position was priced at
0.35 over 30,000 playouts, was played twice, and was buried for the rest of
the search (docs/search.md). There the search caps what a prior is worth
and explores the root (`SearchParams.priors`, "capped"): measured against
UCT it lifts breakthrough 6x6 and knightThrough, and on placement games it
would cost what MCPS wins from its priors against GRAVE (Hex, AtariGo).

`returning_share` plays random playouts from the start and counts, among the
codes that were legal at one of a role's turns and then were not, the share
that became legal again later in the same playout: 0 on Hex, NoGo, AtariGo
and connect four; 0.24 to 0.63 on the breakthroughs, knightThrough, the
Wargame, nine-board tic-tac-toe and Go. Any engine can answer it (it asks
only for legal moves), within `SECONDS`.
"""

from __future__ import annotations

import random
import time
from typing import Optional

from ..reasoner.statemachine import State, StateMachine

#: The share of departed codes that come back from which priors are capped.
RETURNING_FROM = 0.1
#: What the measurement may spend at START: playouts, joint moves per playout, seconds.
PLAYOUTS = 30
MAX_STEPS = 300
SECONDS = 0.3

# A code's course in one playout: legal at a turn of its role, then not, then legal again.
_LEGAL, _GONE, _BACK = 1, 2, 3


def returning_share(machine: StateMachine, state: State, seed: int = 0,
                    playouts: int = PLAYOUTS, seconds: float = SECONDS) -> Optional[float]:
    """Among the (playout, role, move) whose move was legal at one of the
    role's turns with a choice and later was not, the share that was legal
    again at a later such turn, over random playouts from `state` (None when
    no code ever left). The same seed gives the same answer, so that every
    search thread of a match decides alike."""
    rng = random.Random(seed)
    deadline = time.perf_counter() + seconds
    gone = back = 0
    roles = range(len(machine.roles))
    for _ in range(playouts):
        course: dict = {}
        current = state
        for _step in range(MAX_STEPS):
            if machine.is_terminal(current) or time.perf_counter() > deadline:
                break
            joint = []
            for role in roles:
                legal = machine.legal_moves(current, role)
                joint.append(rng.choice(legal))
                if len(legal) > 1:
                    _follow(course, role, set(legal))
            current = machine.next_state(current, joint)
        gone += sum(1 for step in course.values() if step >= _GONE)
        back += sum(1 for step in course.values() if step == _BACK)
        if time.perf_counter() > deadline:
            break
    return back / gone if gone else None


def _follow(course: dict, role: int, legal: set) -> None:
    """One turn of `role` with a choice among `legal`: each of its codes moves on its course."""
    for move in legal:
        key = (role, move)
        step = course.get(key, 0)
        if step == 0:
            course[key] = _LEGAL
        elif step == _GONE:
            course[key] = _BACK
    for key, step in course.items():
        if step == _LEGAL and key[0] == role and key[1] not in legal:
            course[key] = _GONE


def choose_priors(share: Optional[float]) -> str:
    """"capped" when at least RETURNING_FROM of the codes that left came back, else "whole"."""
    return "capped" if share is not None and share >= RETURNING_FROM else "whole"


def resolve_priors(rule: str, machine: StateMachine, state: State, terminal: bool) -> tuple[str, str]:
    """What priors="auto" means for this search, and why."""
    if rule != "mcps":
        return "whole", f"{rule.upper()} keeps its published rule"
    if terminal:
        return "whole", "the state is terminal"
    share = returning_share(machine, state)
    priors = choose_priors(share)
    if share is None:
        return priors, "no move code left the legal moves in random playouts"
    return priors, f"{share:.2f} of the move codes that left the legal moves came back (capped from {RETURNING_FROM})"
