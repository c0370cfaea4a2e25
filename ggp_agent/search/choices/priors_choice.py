"""Whole or capped priors: MCPS decides at START, by whether played move codes come back.

MCPS prices a move by every playout that played its code at any time after
the node (AMAF), or in any order (permutations), and weighs that prior by
its count, which grows with the node's visits whether the move is tried or
not. That is sound where a code means one move whatever the moment: a
placement (Hex's "stone on c3", a cell of nine-board tic-tac-toe, connect
four's effect code "disc on (4, 2)") is played once and is never legal again.
Where a played code comes back (a pawn steps from e2 to e3; later another
pawn stands on e2 and the same code is legal again), one code names
different moves at different times, and its pooled prior can be far from
its value here: on breakthrough 6x6 a move worth 0.61 in one position was
priced at 0.35 over 30,000 playouts, was played twice, and was buried for
the rest of the search (docs/search.md). There the search caps what a prior
is worth and explores the root (`SearchParams.priors`, "capped"): measured
against UCT it lifts breakthrough 6x6 and knightThrough, and on placement
games it would cost what MCPS wins from its priors against GRAVE (Hex,
AtariGo) and, at 1 s, on nine-board tic-tac-toe.

`returning_share` plays random playouts from the start and counts, among the
codes a role played that were later not legal at one of its turns, the share
that became legal again at a later turn of the same playout: 0 on
tic-tac-toe, connect four, Hex, NoGo, AtariGo and nine-board tic-tac-toe,
0.011 on pawnWhopping; 0.09 on knightThrough, 0.20 on the breakthroughs 6x6,
0.27 on breakthrough 8x8, 0.32 on Go 7x7, 0.55 on the Wargame. (Counting
every code that leaves and comes back, played or not, took in nine-board
tic-tac-toe, whose cells leave while their board is not the one sent to:
capping cost it a third of its score at 1 s.) Any engine can answer it (it
asks only for legal moves), within `SECONDS`.
"""

from __future__ import annotations

import math
import random
import time
from typing import Optional

from ...reasoner.statemachine import State, StateMachine

#: The share of played codes that left and came back from which priors are
#: capped (knightThrough 0.09, pawnWhopping 0.011, placements 0).
RETURNING_FROM = 0.05
#: What the measurement may spend at START: playouts, joint moves per playout, seconds.
PLAYOUTS = 30
MAX_STEPS = 300
SECONDS = 0.3

# A code's course in one playout: played by its role, then not legal at a later turn, then legal again.
_PLAYED, _GONE, _BACK = 1, 2, 3


def returning_share(machine: StateMachine, state: State, seed: int = 0,
                    playouts: int = PLAYOUTS, seconds: float = SECONDS) -> Optional[float]:
    """Among the (playout, role, move) whose move the role played and which
    later was not legal at one of the role's turns with a choice, the share
    that was legal again at a later such turn, over random playouts from
    `state` (None when no played code ever left). The same seed gives the
    same answer when the playouts fit in `seconds`."""
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
                move = rng.choice(legal)
                joint.append(move)
                if len(legal) > 1:
                    _follow(course, role, set(legal), move)
            current = machine.next_state(current, joint)
        gone += sum(1 for step in course.values() if step >= _GONE)
        back += sum(1 for step in course.values() if step == _BACK)
        if time.perf_counter() > deadline:
            break
    return back / gone if gone else None


def _follow(course: dict, role: int, legal: set, played) -> None:
    """One turn of `role` with a choice among `legal`, where it plays `played`:
    its played codes move on their course, and `played` starts one."""
    for key, step in course.items():
        if key[0] != role:
            continue
        if step == _PLAYED and key[1] not in legal:
            course[key] = _GONE
        elif step == _GONE and key[1] in legal:
            course[key] = _BACK
    course.setdefault((role, played), _PLAYED)


def choose_priors(share: Optional[float]) -> str:
    """"capped" when at least RETURNING_FROM of the played codes that left came back, else "whole"."""
    return "capped" if share is not None and share >= RETURNING_FROM else "whole"


def resolve_priors(rule: str, machine: StateMachine, state: State, terminal: bool,
                   seconds: float = math.inf) -> tuple[str, str]:
    """What priors="auto" means for this search, and why: measured within
    `seconds` (at most SECONDS)."""
    if rule != "mcps":
        return "whole", f"{rule.upper()} keeps its published rule"
    if terminal:
        return "whole", "the state is terminal"
    share = returning_share(machine, state, seconds=min(SECONDS, seconds))
    priors = choose_priors(share)
    if share is None:
        return priors, "no played move code left the legal moves in random playouts"
    return priors, (f"{share:.2f} of the played move codes that left the legal moves came back "
                    f"(capped from {RETURNING_FROM})")
