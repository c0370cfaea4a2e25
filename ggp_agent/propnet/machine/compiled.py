"""A game's compiled propnet, built once per process and shared.

Grounding is the slow part of a START (seconds on games such as
knightThrough), and a process often builds the same rules again: a public
match server replays its games, and a tournament's in-process players build
the same game side by side through the process's one SWI-Prolog, one after
the other, so each START took twice a build (the second player's propnet
sometimes missed its budget and played on Prolog). The arrays (`Net`) are
read-only once packed and every machine makes its own scratch (`Work`), so
one build serves every machine of the same rules and bounds.

A build of the same rules already under way is waited for (within the
waiter's own time limit) rather than started twice. A failure is kept only
when more time would not change it (the grounder passed a cap on atoms,
instances or rows: chess passes its cap on atoms after about 19 s, and two
players of one process would each wait that long); a later START with more
time tries again after any other.
"""

from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass

from ...gdl.validate import ValidatedGame
from ...reasoner.statemachine import ReasonerError
from ..network.arrays import Net
from ..grounding.grounder import GroundingError, ground
from ..network.gates import Network, build_network
from ..grounding.rules import prepare_rules
from ..network.sparse_plan import planned
from .opening import check_opening

#: Compiled games kept per process, the least recently used dropped first
#: (and as many failures that passed a cap).
KEPT_GAMES = 4

#: How a grounding that passed a cap says so (`grounder.ground`).
CAPPED = "too many"


@dataclass(frozen=True)
class CompiledGame:
    """What building a game's propnet gives: the network (terms, codes,
    warnings) and its packed arrays, with how the build went."""

    network: Network
    net: Net
    #: the network's figures with the grounding's: grounding_s, mode, build_s
    stats: dict
    #: what the grounder noted (e.g. rules it factored)
    notes: tuple[str, ...]
    #: the grounding's steps, the costliest first (`Grounding.profile`)
    profile: tuple = ()


def build_compiled(game: ValidatedGame, time_limit: float, **bounds) -> CompiledGame:
    """Ground, build and pack `game`'s propnet within `time_limit` seconds,
    and compare its initial state with the rules' (`opening.py`);
    ReasonerError when it cannot or they differ. `bounds` go to the grounder."""
    started = time.perf_counter()
    grounding = ground(game, prepare_rules(game), time_limit=time_limit, **bounds)
    network = build_network(grounding, deadline=started + time_limit)
    planning = time.perf_counter()
    network, net = planned(network)
    plan_s = round(time.perf_counter() - planning, 3)
    checked = check_opening(game, network, net, started + time_limit - time.perf_counter())
    stats = dict(network.stats, grounding_s=round(grounding.seconds, 3), mode=grounding.mode, plan_s=plan_s,
                 **checked, build_s=round(time.perf_counter() - started, 3))
    return CompiledGame(network, net, stats, tuple(grounding.notes), grounding.profile)


class CompiledGames:
    """The process's compiled games by rules and grounding bounds."""

    def __init__(self, kept: int = KEPT_GAMES) -> None:
        self.kept = kept
        self._games: collections.OrderedDict[tuple, CompiledGame] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[tuple, threading.Lock] = {}
        #: builds that passed a cap, by key: the same rules fail the same way
        self._failed: collections.OrderedDict[tuple, ReasonerError] = collections.OrderedDict()

    def get(self, game: ValidatedGame, time_limit: float, **bounds) -> tuple[CompiledGame, bool]:
        """`game` compiled, and whether it came from an earlier build. Waits
        for a build of the same game under way, then builds with the time
        left when none succeeded (ReasonerError when it cannot in time)."""
        key = (game.rules, tuple(sorted(bounds.items())))
        started = time.perf_counter()
        with self._lock:
            found = self._found(key)
            if found is not None:
                return found, True
            if key in self._failed:
                raise self._failed[key]
            building = self._building.setdefault(key, _Build())
            building.users += 1
        try:
            if not building.lock.acquire(timeout=max(0.0, time_limit)):
                raise ReasonerError(f"time limit: another build of the same rules took all of {time_limit:.2f} s")
            try:
                with self._lock:
                    found = self._found(key)
                    failed = self._failed.get(key)
                if found is not None:
                    return found, True
                if failed is not None:
                    raise failed
                left = time_limit - (time.perf_counter() - started)
                if left <= 0:
                    raise ReasonerError("time limit: no time left after another build of the same rules")
                try:
                    compiled = build_compiled(game, left, **bounds)
                except GroundingError as error:
                    if error.reason.startswith(CAPPED):
                        with self._lock:
                            self._failed[key] = error
                            while len(self._failed) > self.kept:
                                self._failed.popitem(last=False)
                    raise
                with self._lock:
                    self._games[key] = compiled
                    while len(self._games) > self.kept:
                        self._games.popitem(last=False)
                return compiled, False
            finally:
                building.lock.release()
        finally:
            with self._lock:
                building.users -= 1
                if building.users == 0:
                    self._building.pop(key, None)

    def _found(self, key: tuple):
        compiled = self._games.get(key)
        if compiled is not None:
            self._games.move_to_end(key)
        return compiled


class _Build:
    """A build of one game's rules under way, and how many STARTs want it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0


#: The process's one set of compiled games (`PropnetStateMachine` reads it).
COMPILED = CompiledGames()
