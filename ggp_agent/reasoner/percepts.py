"""What the roles perceive along a match: helpers over `StateMachine.percepts`.

Whoever runs a GDL-II match needs every role's percepts after each joint move
(the game master sends each player only its own); `ggp-agent check` counts them
over a random match, so a `sees` rule that never fires shows. Engine-neutral:
these call the protocol only.
"""

from __future__ import annotations

import random
from typing import Sequence

from ..gdl.terms import Term
from .statemachine import State, StateMachine

#: Longest random match `random_match_percept_counts` plays, in joint moves.
MAX_RANDOM_MATCH_STEPS = 1000


def percepts_of_every_role(machine: StateMachine, state: State, joint_move: Sequence[Term]) -> tuple[tuple[Term, ...], ...]:
    """Each role's percepts (role order) when `joint_move` is played in `state`."""
    return tuple(machine.percepts(state, joint_move, role) for role in range(len(machine.roles)))


def random_match_percept_counts(machine: StateMachine, state: State, rng: random.Random) -> list[int]:
    """How many percepts each role gets over one uniformly random match from `state`
    (every role, the random one included, picks uniformly among its legal moves)."""
    counts = [0] * len(machine.roles)
    for _ in range(MAX_RANDOM_MATCH_STEPS):
        if machine.is_terminal(state):
            break
        joint = [move for move, _ in machine.random_joint_move(state, rng)]
        for role, seen in enumerate(percepts_of_every_role(machine, state, joint)):
            counts[role] += len(seen)
        state = machine.next_state(state, joint)
    return counts
