"""Destination codes: a move keyed by where it lands and how much it changes.

Between move codes and effect codes (`SearchParams.codes` "destinations"):
the paper codes its Wargame by hand as (player, destination, attacks or not)
and its AtariGo with a capture flag, so that a code means one thing wherever
it is played, and pools what is alike: every unit arriving on c3. Here the
destination is found from the rules by measurement, for any game: an argument
of a move term is a destination when its value appears in the fluents the
move makes true, in nearly every sampled play of a move of that name (in
`(move ?from ?to)` the `?to`; in breakthrough's `(move ?x1 ?y1 ?x2 ?y2)`
the `?x2 ?y2`). Moves with the same role, name and destination values form
one group (`group_codes`); the search keys a group's moves by the group and
how many move-dependent fluents the move changed (`table.destination_hash`),
which tells a plain move from a capture or an attack. A move name with no
destination argument (a pass, a drop whose cell the rules compute) keeps its
effect code.
"""

from __future__ import annotations

import logging
import random
import time
from typing import Callable, Optional

import numpy as np

from ...gdl.terms import Compound, Term
from ...reasoner.statemachine import State, StateMachine

log = logging.getLogger(__name__)

#: Seconds START may spend finding destination arguments (`group_destinations`).
DESTINATION_SECONDS = 0.2
#: A move argument is a destination when it appears in the fluents made true
#: in at least this share of the sampled plays of its move name.
DESTINATION_FROM = 0.9
#: Sampled plays per move name before the measurement may stop early.
ENOUGH_PLAYS = 60


def _atoms(term: Term, into: set) -> None:
    if isinstance(term, Compound):
        for arg in term.args:
            into.add(arg)
            _atoms(arg, into)


def destination_positions(machine: StateMachine, state: State, seconds: float,
                          rng: random.Random) -> dict[tuple[int, str], tuple[int, ...]]:
    """For each (role, move name) played in random playouts from `state`, the
    argument positions whose value appears among the arguments of the fluents
    the move made true (DESTINATION_FROM of the plays), within about `seconds`."""
    deadline = time.perf_counter() + seconds
    plays: dict[tuple[int, str], int] = {}
    hits: dict[tuple[int, str], list[int]] = {}
    roles = range(len(machine.roles))
    while time.perf_counter() < deadline:
        current = state
        while not machine.is_terminal(current) and time.perf_counter() < deadline:
            legal = [machine.legal_moves(current, r) for r in roles]
            joint = [rng.choice(moves) for moves in legal]
            choosers = [r for r in roles if len(legal[r]) > 1]
            if len(choosers) == 1:
                role = choosers[0]
                for move in rng.sample(list(legal[role]), min(4, len(legal[role]))):
                    if not isinstance(move, Compound):
                        continue
                    trial = list(joint)
                    trial[role] = move
                    made = set()
                    for fluent in machine.next_state(current, trial) - current:
                        _atoms(fluent, made)
                    key = (role, move.functor)
                    plays[key] = plays.get(key, 0) + 1
                    counts = hits.setdefault(key, [0] * len(move.args))
                    for i, arg in enumerate(move.args):
                        counts[i] += arg in made
            current = machine.next_state(current, joint)
        if plays and min(plays.values()) >= ENOUGH_PLAYS:
            break
    return {key: tuple(i for i, n in enumerate(hits[key]) if n >= DESTINATION_FROM * count)
            for key, count in plays.items()}


def group_codes(n_codes: int, code_role: np.ndarray, move_of: Callable[[int], Term],
                positions: dict[tuple[int, str], tuple[int, ...]]) -> np.ndarray:
    """Each move code's destination group (int64), -1 where its name has no
    destination argument or was never measured."""
    groups = np.full(n_codes, -1, dtype=np.int64)
    ids: dict[tuple, int] = {}
    for code in range(n_codes):
        move = move_of(code)
        if not isinstance(move, Compound):
            continue
        role = int(code_role[code])
        where: Optional[tuple[int, ...]] = positions.get((role, move.functor))
        if not where:
            continue
        key = (role, move.functor, tuple(move.args[i] for i in where))
        groups[code] = ids.setdefault(key, len(ids))
    return groups


def pooled_share(groups: np.ndarray) -> float:
    """The share of the grouped move codes whose group holds another move
    code too (0.0 when none is grouped): what destination codes pool that
    move codes keep apart."""
    grouped = groups[groups >= 0]
    if grouped.size == 0:
        return 0.0
    _, inverse, counts = np.unique(grouped, return_inverse=True, return_counts=True)
    return float((counts[inverse] > 1).mean())


def group_destinations(A, runner, state: State, start_seconds: Optional[float], name: str) -> None:
    """Destination codes: each move code's group into the arena's `code_group`,
    measured from `state` by the search's runner (already, when the codes
    choice measured it), within DESTINATION_SECONDS of the start clock."""
    seconds = min(DESTINATION_SECONDS, start_seconds or DESTINATION_SECONDS)
    groups = runner.destination_groups(state, seconds)
    if groups is None:  # not reached: the coding needs a propnet (`TreeSearch.__init__`)
        return
    A.code_group[:len(groups)] = groups
    log.info("search %s: destination codes: %d move codes in %d destination groups", name,
             int((groups >= 0).sum()), len(set(groups[groups >= 0].tolist())))
