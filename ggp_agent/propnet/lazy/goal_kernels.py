"""A random playout on a network, its goals from the lazy engine's goal program (`hybrid.py`).

The network plays the moves (`state_kernels.random_playout`); the state it
ends in is read from its words as fluent ids of the goal program's term
store (`fluent_ids[i]` is fluent i's id) and the goal program runs on it.
This module must not know about terms as Python objects.
"""

from __future__ import annotations

from ..kernels.bits import set_bit_indices
from ..jit.decorators import kernel
from ..kernels.state_kernels import is_terminal, load_state, random_playout
from .game_kernels import evaluate, goals_of
from .layout import OK

#: A role had no legal move in a state that is not terminal (info[0]: the steps played).
STUCK = -20


@kernel
def playout_goals(net, work, words, rng, max_steps, codes, PG, TG, S, role_ids, values, fluent_ids, buffer,
                  goals_out, info):
    """A random playout from the state `words` (codes as `random_playout`
    records them); info[0] the joint moves played, info[1] 1 when it ended
    in a terminal state; the goals of its last state into goals_out. A
    status: OK, STUCK, or the goal program's (a table to grow: the last
    state is left in `work`)."""
    load_state(net, work, words)
    steps = random_playout(net, work, rng, max_steps, codes)
    if steps < 0:
        info[0] = -1 - steps
        return STUCK
    info[0] = steps
    info[1] = 1 if is_terminal(net, work) else 0
    n = set_bit_indices(work.state, buffer)
    for i in range(n):
        buffer[i] = fluent_ids[buffer[i]]
    status = evaluate(PG, TG, S, buffer, n, role_ids, buffer)
    if status != OK:
        return status
    goals_of(PG, TG, role_ids, values, goals_out)
    return OK


def current_words(work):
    """The state `work` holds (the network's words)."""
    return work.state
