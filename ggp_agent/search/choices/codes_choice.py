"""Move, effect or destination codes: the search decides at START, by measuring the rules' effects.

AMAF and permutation statistics pool every playout that holds a code. Keyed
by move codes, they are sound when a move means the same thing wherever it is
played (Hex, NoGo: "a stone on c3"), and they mix different moves when it
does not: connect four's "drop in column 4" lands on six different cells, so
its statistics average six moves (MCPS with move codes lost to UCT there,
0.26, and won with effect codes, 0.66: docs/experiments.md). Effect codes key
the statistics by what a move changes, at the price of hashing each playout
step's change (13-15% of the iterations per second).

`effect_counts` measures, over a few random playouts from the start (look-aheads
spread over each playout, so the end of the game is measured too: dots and
boxes' lines complete boxes only late), how many different effects each
move code has; `choose_codes` takes effect codes when
a move code has on average at least `EFFECTS_FROM` effects. Breakthrough's
moves have one or two (a capture or not: the paper's AtariGo codes add such a
flag by hand, and effect codes measured no better there), Hex's one, connect
four's up to six. Needs a propnet (its state words); over Prolog the search
keeps move codes.

Where effect codes would be chosen, destination codes (`destinations.py`)
are when the moves' own arguments say where they land and several moves
land on one cell (the Wargame's units entering a cell from its
neighbours): keyed by the destination and how much the move changed, the
statistics pool what effect codes split by source and by health (Wargame
5x5 against GRAVE: 0.644 over 160 with destination codes, 0.505 over 200
with effect codes; docs/experiments.md). Connect four's column is where its disc falls only
up to the row, and each column is a group of one: effect codes.
"""

from __future__ import annotations

import math
import time

import numpy as np
from ...propnet.network.arrays import new_work
from ...propnet.kernels.bits import rand_below
from ...propnet.jit.decorators import allocating_kernel, kernel
from ...propnet.kernels.state_kernels import advance, is_terminal, legal_codes, load_state, peek_next
from ..tree.table import effect_hash
from .destinations import pooled_share

#: Mean distinct effects per move code from which effect codes are used.
EFFECTS_FROM = 2.5
#: Where effects are chosen: the share of move codes sharing a destination
#: with others (`destinations.pooled_share`) from which destination codes are.
POOLED_FROM = 0.5
#: Distinct effects remembered per code (more count as this many).
EFFECTS_KEPT = 8
#: What the measurement may spend at START: playouts, look-aheads, seconds.
PLAYOUTS = 40
LOOKAHEADS = 20_000
SECONDS = 0.3
CHUNK = 1000
MAX_STEPS = 400
#: Look-aheads a playout step makes on average (see `effect_counts`).
LOOKAHEADS_PER_STEP = 8

@allocating_kernel
def effect_counts(net, work, rng, start_words, dynamic, seen, playouts, max_lookaheads):
    """`playouts` random playouts from `start_words`; wherever one role chooses,
    each of its legal moves is played ahead and the hash of its effect (the
    change of the move-dependent fluents, `dynamic`) kept under its move code in
    `seen` (uint64[n_codes, EFFECTS_KEPT], 0 empty), until `max_lookaheads`.
    Returns the look-aheads made."""
    n_roles = net.n_roles
    codes = np.empty(net.n_codes, dtype=np.int32)
    joint = np.empty(n_roles, dtype=np.int32)
    before = np.empty(start_words.shape[0], dtype=np.uint64)
    after = np.empty(start_words.shape[0], dtype=np.uint64)
    lookaheads = 0
    for _ in range(playouts):
        load_state(net, work, start_words)
        for _step in range(MAX_STEPS):
            if is_terminal(net, work) or lookaheads >= max_lookaheads:
                break
            chooser = -1
            for r in range(n_roles):
                n = legal_codes(net, work, r, codes)
                if n == 0:
                    return lookaheads
                joint[r] = codes[rand_below(rng, n)]
                if n > 1:
                    chooser = r if chooser == -1 else -2
            # look ahead at a step with probability LOOKAHEADS_PER_STEP / (the
            # chooser's moves): about that many look-aheads a step whatever the
            # branching, so a playout's budget reaches the end of the game,
            # where effects differ most (a capture, a box completed)
            if chooser >= 0 and _looks_ahead(net, work, rng, chooser, codes):
                for w in range(before.shape[0]):
                    before[w] = work.state[w]
                keep = joint[chooser]
                n = legal_codes(net, work, chooser, codes)
                for i in range(n):
                    code = codes[i]
                    joint[chooser] = code
                    peek_next(net, work, joint, after)
                    h = effect_hash(chooser, before, after, dynamic)
                    lookaheads += 1
                    for k in range(seen.shape[1]):
                        if seen[code, k] == h:
                            break
                        if seen[code, k] == 0:
                            seen[code, k] = h
                            break
                joint[chooser] = keep
            advance(net, work, joint)
        if lookaheads >= max_lookaheads:
            break
    return lookaheads


@kernel
def _looks_ahead(net, work, rng, chooser, codes):
    n = legal_codes(net, work, chooser, codes)
    return n <= LOOKAHEADS_PER_STEP or rand_below(rng, n) < LOOKAHEADS_PER_STEP


def measure_effects(net, rng, start_words: np.ndarray, dynamic: np.ndarray, seconds: float = SECONDS) -> np.ndarray:
    """`seen` after playouts from the start, a few at a time, within PLAYOUTS,
    LOOKAHEADS and `seconds` (slow propnets measure less)."""
    work = new_work(net)
    seen = np.zeros((int(net.n_codes), EFFECTS_KEPT), dtype=np.uint64)
    deadline = time.perf_counter() + seconds
    spent = 0
    for _ in range(PLAYOUTS):
        # a playout at a time, cut at CHUNK look-aheads, so a slow propnet
        # overruns SECONDS by one chunk at most
        spent += int(effect_counts(net, work, rng, start_words, dynamic, seen, 1, min(CHUNK, LOOKAHEADS - spent)))
        if spent >= LOOKAHEADS or time.perf_counter() > deadline:
            break
    return seen


def effect_multiplicity(seen: np.ndarray) -> float:
    """Mean distinct effects per move code met (0.0 when none was met)."""
    counts = (seen != 0).sum(axis=1)
    met = counts[counts > 0]
    return float(met.mean()) if met.size else 0.0


def choose_codes(multiplicity: float, pooled: float = 0.0) -> str:
    """Move codes unless a move code has on average at least EFFECTS_FROM
    effects; then destination codes where at least POOLED_FROM of the move
    codes share their destination with others (the Wargame's moves into a
    cell), effect codes where a move's arguments do not say where it lands
    (connect four's column)."""
    if multiplicity < EFFECTS_FROM:
        return "moves"
    return "destinations" if pooled >= POOLED_FROM else "effects"


def resolve_codes(rule: str, runner, state, terminal: bool, seconds: float = math.inf) -> tuple[str, str]:
    """What codes="auto" means for this search, and why: measured on the
    runner's engine from `state` within `seconds` (at most SECONDS); move
    codes for UCT (it keeps no statistics by code) and where the engine
    cannot say (Prolog)."""
    if rule == "uct":
        return "moves", "UCT keeps no statistics by code"
    if terminal:
        return "moves", "the state is terminal"
    budget = min(SECONDS, seconds)
    deadline = time.perf_counter() + budget
    # half for the effects: the destinations may need the rest
    multiplicity = runner.effect_multiplicity(state, budget / 2)
    if multiplicity is None:
        return "moves", "the engine cannot compare states (Prolog)"
    reason = f"{multiplicity:.2f} effects per move code (effect codes from {EFFECTS_FROM})"
    if choose_codes(multiplicity) == "moves":
        return "moves", reason
    groups = runner.destination_groups(state, max(0.0, deadline - time.perf_counter()))
    pooled = 0.0 if groups is None else pooled_share(groups)
    return choose_codes(multiplicity, pooled), (f"{reason}; {pooled:.2f} of the move codes share a "
                                                f"destination (destination codes from {POOLED_FROM})")
