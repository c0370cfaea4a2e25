"""A game's steps on the lazy engine's three programs: legal moves, next state, goals, playouts.

The programs (`build.PROGRAMS`) read the state from their first input
relation (`true`) and the joint move from the second (`does`), and their
outputs are read here by position: the `legal` program's `legal` then
`terminal`, the `next` program's `next`, the `goal` program's `goal`. A
state is an array of fluent term ids (in no order); a move is a term id.

`playout` plays uniformly random joint moves to the end in one call. Its
`info` says how it ended: [status, steps, terminal, stuck role, fluents of
the last state, whether the last step's joint move was chosen]. A status
other than OK means a table or the state buffer was full (the caller grows
it and plays again) or a role had no legal move in a state that is not
terminal (`NO_MOVE`, the role in info[3]); info[4] holds the fluents
of the last state. This module must not know about
terms as Python objects.
"""

from __future__ import annotations

import numpy as np

from ..kernels.bits import rand_below
from ..jit.decorators import inline_kernel, kernel
from .layout import OK
from .vm import insert_tuple, reset, run

#: A role has no legal move in a state that is not terminal (info[3]: the role).
NO_MOVE = -10
#: The state buffer is too small for the next state (info[3]: the fluents it needs).
STATE_FULL = -11
#: The legal move buffer is too small (info[3]: the moves it needs).
LEGAL_FULL = -12


@inline_kernel
def _fail(T, status):
    T.status[0] = status
    return status


@kernel
def evaluate(P, T, S, state, n_state, role_ids, moves):
    """Run a program on a state (and, when it reads `does`, the joint move
    `moves`: a term id per role, -1 for none)."""
    reset(P, T)
    T.status[0] = OK
    facts = P.inputs[0]
    if facts >= 0:
        for i in range(n_state):
            T.args[0] = state[i]
            status = insert_tuple(P, T, S, facts, T.args)
            if status < 0:
                return _fail(T, status)
    if len(P.inputs) > 1 and P.inputs[1] >= 0:
        for role in range(len(role_ids)):
            if moves[role] >= 0:
                T.args[0] = role_ids[role]
                T.args[1] = moves[role]
                status = insert_tuple(P, T, S, P.inputs[1], T.args)
                if status < 0:
                    return _fail(T, status)
    return run(P, T, S)


@inline_kernel
def output_count(P, T, position):
    """Rows of the program's output at `position` (0 when the program has none)."""
    r = P.outputs[position]
    if r < 0:
        return np.int64(0)
    return T.view_n[P.rel_views[P.rel_view_ptr[r]]]


@inline_kernel
def output_cell(P, T, position, row, column):
    """Cell `column` of row `row` of the program's output at `position`."""
    r = P.outputs[position]
    v = P.rel_views[P.rel_view_ptr[r]]
    return np.int64(T.cells[T.view_base[v] + row * max(P.view_width[v], 1) + column])


@inline_kernel
def role_of(role_ids, term):
    for role in range(len(role_ids)):
        if role_ids[role] == term:
            return role
    return -1


@inline_kernel
def legal_of(P, T, role_ids, role, out):
    """Role's legal move ids into out (from an evaluated `legal` program); how many."""
    n = 0
    for row in range(output_count(P, T, 0)):
        if output_cell(P, T, 0, row, 0) == role_ids[role]:
            out[n] = output_cell(P, T, 0, row, 1)
            n += 1
    return n


@inline_kernel
def next_state(P, T, out):
    """The next state's fluents into out (from an evaluated `next` program): how
    many, or STATE_FULL when out is too small."""
    n = output_count(P, T, 0)
    if n > len(out):
        return STATE_FULL
    for row in range(n):
        out[row] = output_cell(P, T, 0, row, 0)
    return n


@kernel
def goals_of(P, T, role_ids, values, out):
    """Each role's goal (from an evaluated `goal` program): the highest value
    it has, 0 for none. Returns how many roles have none or several."""
    for role in range(len(role_ids)):
        out[role] = -1
    odd = 0
    for row in range(output_count(P, T, 0)):
        role = role_of(role_ids, output_cell(P, T, 0, row, 0))
        term = output_cell(P, T, 0, row, 1)
        if role < 0 or term >= len(values) or values[term] < 0:
            continue
        if out[role] >= 0:
            odd += 1
        out[role] = max(out[role], np.int64(values[term]))
    for role in range(len(role_ids)):
        if out[role] < 0:
            out[role] = 0
            odd += 1
    return odd


@kernel
def playout(PL, TL, PN, TN, PG, TG, S, role_ids, values, state, n_state, rng, max_steps, moves_out,
            choices_out, goals_out, legal_buf, info):
    """A uniformly random playout from state[:n_state] (module docstring):
    moves_out[step, role] the move's term id, choices_out[step, role] 1 when
    the role had a choice; goals_out the goals at the end. Leaves the last
    state in state[:info[4]]. It goes on from step info[1] (0 for a new
    playout; a playout stopped by a full table goes on from where it
    stopped, once the table has grown)."""
    n_roles = len(role_ids)
    steps = info[1]
    info[0] = OK
    info[2] = 0
    joint = moves_out[0]
    while True:
        if info[5] == 0:  # the step's joint move is still to choose
            status = evaluate(PL, TL, S, state, n_state, role_ids, joint)
            if status != OK:
                info[0] = status
                break
            if output_count(PL, TL, 1) > 0:
                info[2] = 1
                break
            if steps >= max_steps:
                break
            joint = moves_out[steps]
            if output_count(PL, TL, 0) > len(legal_buf):
                info[0] = LEGAL_FULL
                info[3] = output_count(PL, TL, 0)
                break
            for role in range(n_roles):
                n = legal_of(PL, TL, role_ids, role, legal_buf)
                if n == 0:
                    info[0] = NO_MOVE
                    info[3] = role
                    break
                joint[role] = legal_buf[rand_below(rng, n)]
                choices_out[steps, role] = 1 if n > 1 else 0
            if info[0] != OK:
                break
            info[5] = 1
        joint = moves_out[steps]  # chosen: a playout that stopped here goes on with the same move
        status = evaluate(PN, TN, S, state, n_state, role_ids, joint)
        if status != OK:
            info[0] = status
            break
        n = next_state(PN, TN, state)
        if n < 0:
            info[0] = n
            info[3] = output_count(PN, TN, 0)
            break
        n_state = n
        steps += 1
        info[5] = 0
    info[1] = steps
    info[4] = n_state
    if info[0] != OK:
        return info[0]
    status = evaluate(PG, TG, S, state, n_state, role_ids, joint)
    if status != OK:
        info[0] = status
        return status
    goals_of(PG, TG, role_ids, values, goals_out)
    return OK
