"""Greedy playouts on the lanes: a win in one is played, a move that lets the opponent win in one is taken back.

Random playouts walk past wins: a breakthrough pawn one step from the last
row moves sideways as often as it scores, and a runner the other side could
stop goes through. Sancho's greedy rollouts play a move that ends the game
in the mover's favour when one is legal, and take back a move after which
the next mover has one. Here, on the 256 lanes (`SearchParams.playout`
"greedy"):

- **Decisive moves** are learnt from the search's own playouts, never from
  the game's names: a move code whose every play so far ended the game at
  once with its role's best goal (`A.code_played`, `A.code_won`; at least
  `MIN_WINS` wins and `DECISIVE_SHARE` of its plays), listed per role at
  each call (`update_decisive`). Breakthrough's moves onto the last row are
  decisive; connect four's drops are not (a drop wins only in some
  positions), and there the policy does nothing.
- **A decisive move legal is played** (`take_decisive`): after the random
  choice, in each lane where the mover has one.
- **A move that lets the next mover win at once is taken back**
  (`take_back`): at the start of a step, in a lane where the role to move
  has a decisive move and another role alone chose the move before, the
  lane's fluents go back to the state before that move (kept bit-sliced in
  `S.prev_rows` before every step, `keep_rows`), the move is excluded, and
  the lane sits out the step while its gates are evaluated again; the
  excluded moves are drawn around next time (`avoid_excluded`). At most
  `GREEDY_EXCLUDED` moves are excluded at one step (then the win is played)
  and `GREEDY_ROLLBACKS` steps are taken back in one playout.

A taken-back step costs the lane one step of the batch; a lane without a
decisive move in sight costs only the bit-sliced threat test per step.
"""

from __future__ import annotations

import numpy as np

from ...propnet.kernels.bits import ONE, ZERO, lowest_bit_index, rand_below
from ...propnet.jit.decorators import kernel
from ...propnet.kernels.lane_gates import WORDS
from .lane_slots import GREEDY_EXCLUDED, GREEDY_ROLLBACKS

#: A move code is decisive from this many wins at once, and when at least
#: this share of its plays were such wins.
MIN_WINS = 4
DECISIVE_SHARE = 0.95


@kernel
def _best_goal(A, role):
    hi = A.plane_lo[role + 1]
    if hi > A.plane_lo[role] and A.plane_kind[hi - 1] == 0:
        return A.plane_param[hi - 1]
    return 100


@kernel
def update_decisive(A, net, S):
    """List each role's decisive move codes (see the module docstring) in
    S.decisive / S.decisive_lo; returns how many there are."""
    n = 0
    for r in range(net.n_roles):
        S.decisive_lo[r] = n
        for c in range(net.role_lo[r], net.role_lo[r + 1]):
            won = A.code_won[c]
            if won >= MIN_WINS and won >= DECISIVE_SHARE * A.code_played[c]:
                S.decisive[n] = c
                n += 1
    S.decisive_lo[net.n_roles] = n
    return n


@kernel
def find_threats(net, lanes, S):
    """S.threat[r]: the lanes where role r has a decisive move legal."""
    value = lanes.value
    masks = net.masks
    for r in range(net.n_roles):
        for k in range(WORDS):
            S.threat[r, k] = ZERO
        for i in range(S.decisive_lo[r], S.decisive_lo[r + 1]):
            lit = net.legal_lit[S.decisive[i]]
            for k in range(WORDS):
                S.threat[r, k] |= value[lit >> 1, k] ^ masks[lit & 1]


@kernel
def _mover_with_threat(net, S, lane):
    """The role that has a decisive move legal in the lane, or -1."""
    k = lane >> 6
    bit = ONE << np.uint64(lane & 63)
    for r in range(net.n_roles):
        if S.threat[r, k] & bit:
            return r
    return -1


@kernel
def take_back(net, lanes, S, lane):
    """At the start of a step of a playing lane: where the role to move has a
    decisive move and another role alone chose the move before, restore the
    state before that move, exclude the move and let the lane sit out this
    step. Returns True when it did."""
    steps = lanes.steps
    if steps[lane] < 1 or S.rollbacks[lane] >= GREEDY_ROLLBACKS:
        return False
    previous = S.prev_role[lane]
    mover = _mover_with_threat(net, S, lane)
    if previous < 0 or mover < 0 or mover == previous:
        return False
    at = steps[lane] - 1
    if S.excluded_step[lane] != at:
        S.excluded_step[lane] = at
        S.n_excluded[lane] = 0
    if S.n_excluded[lane] >= GREEDY_EXCLUDED:
        return False
    S.excluded[lane, S.n_excluded[lane]] = S.prev_move[lane]
    S.n_excluded[lane] += 1
    k = lane >> 6
    bit = ONE << np.uint64(lane & 63)
    value = lanes.value
    for i in range(net.n_fluents):
        value[1 + i, k] = (value[1 + i, k] & ~bit) | (S.prev_rows[i, k] & bit)
    steps[lane] = at
    S.rollbacks[lane] += 1
    S.prev_role[lane] = -1
    S.sitting[k] |= bit
    return True


@kernel
def _replace_choice(net, lanes, r, lane, c):
    base = 1 + net.n_fluents
    k = lane >> 6
    bit = ONE << np.uint64(lane & 63)
    value = lanes.value
    value[base + lanes.role_choice[r, lane], k] &= ~bit
    value[base + c, k] |= bit
    lanes.role_choice[r, lane] = c


@kernel
def take_decisive(net, lanes, S, movers):
    """After the random choice: in each lane of `movers` where a role has a
    decisive move legal, that role plays its first one."""
    value = lanes.value
    masks = net.masks
    for r in range(net.n_roles):
        lo = S.decisive_lo[r]
        hi = S.decisive_lo[r + 1]
        if lo == hi:
            continue
        for k in range(WORDS):
            todo = movers[k] & S.threat[r, k] & ~lanes.role_forced[r, k] & ~lanes.role_stuck[r, k]
            while todo != ZERO:
                b = lowest_bit_index(todo)
                todo &= todo - ONE
                lane = k * 64 + b
                bit = ONE << np.uint64(b)
                for i in range(lo, hi):
                    c = S.decisive[i]
                    lit = net.legal_lit[c]
                    if (value[lit >> 1, k] ^ masks[lit & 1]) & bit:
                        _replace_choice(net, lanes, r, lane, c)
                        break


@kernel
def _excluded(S, lane, c):
    for i in range(S.n_excluded[lane]):
        if S.excluded[lane, i] == c:
            return True
    return False


@kernel
def avoid_excluded(net, lanes, S, movers, rng):
    """After the choice: a lane taken back at this step draws its chooser's
    move again among the legal moves it has not excluded (none left: it keeps
    the move, and the next mover's win is played)."""
    value = lanes.value
    masks = net.masks
    steps = lanes.steps
    for k in range(WORDS):
        todo = movers[k]
        while todo != ZERO:
            b = lowest_bit_index(todo)
            todo &= todo - ONE
            lane = k * 64 + b
            if S.n_excluded[lane] == 0 or S.excluded_step[lane] != steps[lane]:
                continue
            bit = ONE << np.uint64(b)
            for r in range(net.n_roles):
                if (lanes.role_forced[r, k] | lanes.role_stuck[r, k]) & bit:
                    continue
                if not _excluded(S, lane, lanes.role_choice[r, lane]):
                    continue
                allowed = 0
                for c in range(net.role_lo[r], net.role_lo[r + 1]):
                    lit = net.legal_lit[c]
                    if (value[lit >> 1, k] ^ masks[lit & 1]) & bit and not _excluded(S, lane, c):
                        allowed += 1
                if allowed == 0:
                    continue
                pick = rand_below(rng, allowed)
                for c in range(net.role_lo[r], net.role_lo[r + 1]):
                    lit = net.legal_lit[c]
                    if (value[lit >> 1, k] ^ masks[lit & 1]) & bit and not _excluded(S, lane, c):
                        if pick == 0:
                            _replace_choice(net, lanes, r, lane, c)
                            break
                        pick -= 1


@kernel
def keep_rows(net, lanes, S):
    """Before a step's moves: the fluent rows, so that a lane can take the step back."""
    value = lanes.value
    for i in range(net.n_fluents):
        for k in range(WORDS):
            S.prev_rows[i, k] = value[1 + i, k]


@kernel
def note_moves(A, net, lanes, S, lane):
    """A playing lane's step is chosen: count its choices' plays and remember
    the role that alone chose and its move (what `take_back` undoes)."""
    k = lane >> 6
    bit = ONE << np.uint64(lane & 63)
    chooser = -1
    many = 0
    for r in range(net.n_roles):
        if (lanes.role_forced[r, k] | lanes.role_stuck[r, k]) & bit:
            continue
        c = lanes.role_choice[r, lane]
        A.code_played[c] += 1
        chooser = r
        many += 1
    if many == 1:
        S.prev_role[lane] = chooser
        S.prev_move[lane] = lanes.role_choice[chooser, lane]
    else:
        S.prev_role[lane] = -1


@kernel
def note_win(A, net, S, lane, goals):
    """A playing lane reached a terminal state (its goals): the move that got
    it there counts as won at once when its role got its best goal."""
    r = S.prev_role[lane]
    if r >= 0 and goals[r] >= _best_goal(A, r):
        A.code_won[S.prev_move[lane]] += 1


@kernel
def start_playout(S, lane):
    """A lane begins a playout: nothing to take back yet."""
    S.prev_role[lane] = -1
    S.n_excluded[lane] = 0
    S.excluded_step[lane] = -1
    S.rollbacks[lane] = 0
