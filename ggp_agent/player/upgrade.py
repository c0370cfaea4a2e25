"""A match moves to the propnet once the build that outlived its START is done.

Why: a big game's propnet may take longer than the START's share of the
start clock (amazons, the exponential prereq chain: 20 to 30 s on a busy
2-core machine), so the match starts on Prolog while the build goes on in a
thread of its own (`engines.start_engine`). When it is done the match
switches to the propnet between two PLAYs, while the search ponders: a new
search on the propnet from the current state, and the Prolog search stopped.
Its tree is not carried over: its statistics were made at a few hundred
playouts a second, and the propnet's search makes more in its first second
than the Prolog one made in the whole match so far.

The switch happens only when the engine is idle (no joint move being
applied, no call into the search in flight) and only when the propnet
agrees with the engine it replaces on our legal moves in the current state;
otherwise the match stays on Prolog. A GDL-II match never switches (its
belief holds the engine). This module must not wait: the player calls it
under the match's lock, in its engine pool.
"""

from __future__ import annotations

import logging
from typing import Callable

from ..reasoner.statemachine import StateMachine
from ..search.contract.interface import Search
from .match import Match

log = logging.getLogger(__name__)

SearchMaker = Callable[[StateMachine, int], Search]


def idle(match: Match) -> bool:
    """The match is between moves: nothing uses its engine or its search."""
    following, link = match.following, match.link
    if following is None or following.lost is not None or following.pending or following.catching_up is not None:
        return False
    return all(job is None or job.done() for job in (link.call, link.advancing))


def switch_engine(match: Match, machine: StateMachine, make_search: SearchMaker) -> bool:
    """Move the match to `machine` and a new search on it (engine pool
    thread, the match's lock held); False, and nothing changed, when the new
    engine disagrees with the old one on our legal moves."""
    following = match.following
    state = following.state
    legal = () if machine.is_terminal(state) else tuple(machine.legal_moves(state, following.role_index))
    if sorted(map(str, legal)) != sorted(map(str, following.legal_now)):
        log.error("match=%s: the propnet built in the background disagrees with %s on our legal moves; "
                  "staying on %s", match.match_id, following.machine.engine_name, following.machine.engine_name)
        return False
    search = make_search(machine, following.role_index)
    search.start(state, legal_moves=legal)
    old_search, old_machine = match.link.search, following.machine
    match.link.search, match.link.current, match.link.unseen = search, True, []
    following.machine, following.legal_now = machine, legal
    for retire in (old_search.stop if old_search is not None else None, old_machine.close):
        if retire is not None:
            try:
                retire()
            except Exception as error:  # noqa: BLE001 - the new engine plays on
                log.error("match=%s: retiring the old engine or search failed: %s", match.match_id, error)
    return True
