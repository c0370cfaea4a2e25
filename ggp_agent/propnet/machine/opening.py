"""A new build compared with the rules before anything plays on it: the initial state and its moves.

Why: the network is built from whatever the grounder's atoms say, and
nothing in the build notices a relation that came out incomplete. That
happened: with the grounder's static trial out of time, `init` came out
empty, the network's initial state read as terminal with no legal move, and
a match played on it answered `nil` at every turn. So each build (once per
process and rules: `compiled.py`) is compared with the Prolog engine, which
needs no grounding, on the initial state: its fluents, whether it is
terminal, and each role's legal moves there unless it is. A difference
raises `BrokenBuild`, which the machine reports as `PropnetUnavailable`: the
`auto` engine then plays on Prolog. The lazy engine's builds pass the same
check (`check_against_rules`, from `lazy/games.py`). It costs a Prolog module of the game and
a few queries (docs/propnet.md, "Correctness").

A role without a legal move where Prolog has none either is no difference:
the game is broken, not the build (matches go on: the manager sends `nil`
for it). When Prolog cannot answer within the time given, the build is kept
unchecked and the log says so: a game whose first state Prolog cannot
compute could not be played on Prolog either.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np

from ...gdl.validate import ValidatedGame
from ...reasoner.statemachine import ReasonerError, StateMachine
from ..kernels import state_kernels as kernels
from ..network.arrays import Net, new_work
from ..network.gates import Network
from .state_words import fluents_of_words

log = logging.getLogger(__name__)

#: Seconds the check may take when the build left it less: a Prolog module
#: and three queries take milliseconds on every game of gdl_games/.
MIN_CHECK_S = 1.0

#: Fluents or moves a difference names, at most.
NAMED = 4


class BrokenBuild(ReasonerError):
    """The network disagrees with the rules on the initial state (the message says how)."""


@dataclass(frozen=True)
class Opening:
    """What an engine says of a game's initial state."""

    state: frozenset
    terminal: bool
    #: each role's legal moves there (none when it is terminal)
    legal: tuple[frozenset, ...]


def opening_of(machine: StateMachine) -> Opening:
    """What `machine` says of the initial state."""
    state = machine.initial_state()
    terminal = machine.is_terminal(state)
    legal = tuple(frozenset() if terminal else frozenset(machine.legal_moves(state, role))
                  for role in range(len(machine.roles)))
    return Opening(frozenset(state), terminal, legal)


def network_opening(network: Network, net: Net) -> Opening:
    """What the packed network says of the initial state (the words a machine starts from)."""
    work = new_work(net)  # evaluated for the initial state
    terminal = bool(kernels.is_terminal(net, work))
    buffer = np.zeros(max(1, net.n_codes), dtype=np.int32)
    legal = []
    for role in range(net.n_roles):
        count = 0 if terminal else kernels.legal_codes(net, work, role, buffer)
        legal.append(frozenset(network.move_codes.move_of(code) for code in buffer[:count].tolist()))
    return Opening(fluents_of_words(network.fluents, net.init_words), terminal, tuple(legal))


def difference(ours: Opening, rules: Opening, roles: tuple) -> str:
    """How `ours` differs from what the rules say (`rules`), in words; '' when it does not."""
    if ours.state != rules.state:
        parts = []
        if rules.state - ours.state:
            parts.append(f"lacks {_named(rules.state - ours.state)}")
        if ours.state - rules.state:
            parts.append(f"has {_named(ours.state - rules.state)} besides")
        return (f"the initial state ({len(ours.state)} fluents) {' and '.join(parts)} "
                f"(the rules' has {len(rules.state)})")
    if ours.terminal != rules.terminal:
        return f"the initial state reads as {'terminal' if ours.terminal else 'not terminal'}, the rules say " \
               f"{'terminal' if rules.terminal else 'not terminal'}"
    for role, mine, theirs in zip(roles, ours.legal, rules.legal):
        if mine != theirs:
            parts = []
            if theirs - mine:
                parts.append(f"lacks {_named(theirs - mine)}")
            if mine - theirs:
                parts.append(f"has {_named(mine - theirs)} besides")
            return f"{role}'s legal moves in the initial state ({len(mine)}) {' and '.join(parts)} " \
                   f"(the rules give {len(theirs)})"
    return ""


def check_opening(game: ValidatedGame, network: Network, net: Net, time_limit: float) -> dict:
    """Raise BrokenBuild when the network's initial state differs from the
    rules' (Prolog's, within `time_limit` seconds, at least MIN_CHECK_S);
    the check's figures for the build's stats."""
    return check_against_rules(game, network_opening(network, net), time_limit, "the network")


def check_against_rules(game: ValidatedGame, ours: Opening, time_limit: float, built: str) -> dict:
    """Raise BrokenBuild when `ours`, what a new build (named `built` in the
    message) says of the initial state, differs from the rules' (Prolog's,
    within `time_limit` seconds, at least MIN_CHECK_S); the check's figures.
    The one check of every compiled build: the network's and the lazy engine's."""
    from ...reasoner.prolog_machine import PrologStateMachine

    started = time.perf_counter()
    limit = max(MIN_CHECK_S, time_limit)
    try:
        with PrologStateMachine(game, query_time_limit=limit, load_time_limit=limit) as prolog:
            rules = opening_of(prolog)
    except ReasonerError as error:
        log.warning("%s: the initial state went unchecked: Prolog could not compute it (%s)", built, error)
        return {"opening_checked": False, "opening_check_s": round(time.perf_counter() - started, 3)}
    found = difference(ours, rules, tuple(game.roles))
    if found:
        raise BrokenBuild(f"{built} disagrees with the rules: {found}")
    return {"opening_checked": True, "opening_check_s": round(time.perf_counter() - started, 3)}


def _named(terms: frozenset) -> str:
    named = sorted(map(str, terms))
    return ", ".join(named[:NAMED]) + (f" and {len(named) - NAMED} more" if len(named) > NAMED else "")
