"""The match lifecycle: START compiles and starts a search, PLAY answers in time
(`play.py`), STOP and ABORT free the match (`ending.py`).

`Player.handle` takes a parsed message and returns the reply text. It runs on the
event loop but never does long work there: compiling a game, applying a joint
move and stopping a search go to a thread pool, and the search thinks in its own
worker thread. While a PLAY waits for its deadline the loop is free, so INFO and
the status page answer at once.

START: the rules are validated and the engine built (`engines.make_state_machine`,
the propnet within `engines.propnet_budget` of the start clock) in a pool thread;
the reply is `ready` at the start clock's deadline even if that is not done (the
first PLAY waits for it), and `busy` when the game cannot be played at all.

A GDL-II game (`ValidatedGame.dialect`) is played with PerceptPlay and
PerceptStop (`hidden.py`, whose turn taker answers both dialects): the match
keeps a belief, a tree rule runs as Ensemble Determinization MCTS over it, and
a message of the other dialect is a MatchError.

Stopping (`close`, on SIGTERM): every wait ends at once (a PLAY waiting for its
deadline answers with the best move known, a START waiting for its compile
answers), every match is aborted, its search stopped and its record written,
all within a grace of a couple of seconds whatever the clocks; work that
outlives the grace (a compile, a slow engine step) is left behind and the
record says what was known.

This module knows nothing of HTTP; the server turns replies and errors into
responses.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import random
import time
from typing import Callable, Optional

from ..cores import pin_this_thread
from ..engines import BACKGROUND_BUILD_S, propnet_budget, start_engine
from ..gdl import Dialect, Term, ValidatedGame, load_game
from ..reasoner.statemachine import StateMachine
from ..search.tree.arena import match_seconds
from ..search.contract.belief import Belief
from ..search.contract.interface import Search
from ..search.registry import make_search
from ..search.choices.start_choices import start_budget
from ..search.driver.trials import trial_budget
from . import collector
from .config import PlayerConfig
from .ending import Endings
from .hidden import HiddenTurnTaker
from .match import Match, MatchStatus
from .play import MatchError, StartFailedError, new_following, safe_stats, wait_until
from .protocol import ABORTED, BUSY, DONE, READY, Abort, Info, Message, PerceptPlay, PerceptStop, Play, Preview, \
    ProtocolError, Start, Stop, info_reply, safe_name
from .board_view import current_view
from .record_index import Beside, beside_of
from .records import MatchRecord, state_text
from .timing import AdaptiveMargin
from .upgrade import idle, switch_engine

log = logging.getLogger(__name__)

EngineFactory = Callable[[ValidatedGame], StateMachine]
SearchFactory = Callable[[StateMachine, int], Search]

__all__ = ["MatchError", "Player", "PlayerConfig"]

#: Seconds `close` may take by default: a container's stop waits 10 s before
#: it kills, and the replies in flight must reach the manager before that.
CLOSE_GRACE_S = 1.2
#: The end of the grace kept for writing records once the waits are over.
RECORDING_S = 0.3

#: How often a propnet built in the background looks again whether its match
#: is between moves, seconds.
UPGRADE_POLL_S = 0.05


class Player:
    """Plays the matches a game manager starts; one instance per server.

    `engine_factory` and `search_factory` replace the configured engine and
    search (tests put slow or broken ones in their place); `records_problem` is
    why the records folder cannot be written, shown on the status page.
    """

    def __init__(
        self,
        config: PlayerConfig = PlayerConfig(),
        engine_factory: Optional[EngineFactory] = None,
        search_factory: Optional[SearchFactory] = None,
        records_problem: Optional[str] = None,
    ):
        self.config = config
        #: why the records folder cannot be written (checked by `serve` at start), or None
        self.records_problem = records_problem
        self.name = safe_name(config.name)
        self._engine_factory = engine_factory
        self._search_factory = search_factory
        self._rng = random.Random(config.seed)
        self._matches: dict[str, Match] = {}
        # Engine work (compile, apply a move, clean up) and calls into the search
        # use separate pools, so a search that hangs cannot starve the engine.
        # With `cpus`, every pool thread is pinned as it starts, and the search
        # threads a compile starts inherit the pinning (cores.py).
        pinning = {} if config.cpus is None else {"initializer": pin_this_thread, "initargs": (config.cpus,)}
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=2 + 2 * config.max_matches, thread_name_prefix="ggp-engine", **pinning
        )
        self._search_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=2 * config.max_matches, thread_name_prefix="ggp-search", **pinning
        )
        self.messages_handled = 0
        self.margins = AdaptiveMargin(base=config.safety_margin)
        self._turns = HiddenTurnTaker(config, self.margins, self._rng, self._pool, self._search_pool)
        self._endings = Endings(config, self.name, self._pool, self._turns)

    def _next_seed(self) -> Optional[int]:
        return None if self.config.seed is None else self._rng.randrange(2**31)

    # ------------------------------------------------------------------ public

    @property
    def stopping(self) -> bool:
        """True once `close` (or `begin_shutdown`) has been called."""
        return self._turns.stopping

    def begin_shutdown(self) -> None:
        """Wake every waiting PLAY and START (they answer at once) and refuse new
        matches; `close` does the rest. Safe to call more than once."""
        if not self._turns.stopping:
            log.info("stopping: %d match(es) in progress will be aborted and recorded", len(self._matches))
        self._turns.stopping = True

    @property
    def busy(self) -> bool:
        """True while any match is in progress (INFO then says `busy`)."""
        return bool(self._matches)

    async def handle(self, message: Message, received: Optional[float] = None) -> str:
        """The reply to one message. `received` is when it arrived (time.monotonic()).

        Raises ProtocolError (MatchError) when the message does not fit its match.
        """
        received = time.monotonic() if received is None else received
        self.messages_handled += 1
        if isinstance(message, Info):
            # a match server schedules only players that say `available`: a
            # match its manager walked away from must not keep us busy forever
            self._evict_abandoned(received)
            reply = info_reply(self.name, self.busy)
            log.info("INFO status=%s", "busy" if self.busy else "available")
            return reply
        if isinstance(message, Preview):
            log.info("PREVIEW rules=%d preview_clock=%s", len(message.rules), message.preview_clock)
            return READY
        if isinstance(message, Start):
            return await self._start(message, received)
        match = self._matches.get(message.match_id)
        if match is None:
            log.warning("%s match=%s: unknown or finished match, replying busy",
                        type(message).__name__.upper(), message.match_id)
            return BUSY
        match.last_message_at = received
        if isinstance(message, (Play, PerceptPlay)):
            async with match.lock:
                try:
                    if isinstance(message, PerceptPlay):
                        return await self._turns.play_percepts(match, message, received)
                    if match.belief is not None:
                        raise MatchError(f"match {match.match_id} plays a GDL-II game: expected "
                                         "(play ID TURN LASTMOVE PERCEPTS), got (play ID MOVES)")
                    return await self._turns.play(match, message, received)
                except StartFailedError:
                    if self._matches.get(match.match_id) is match:
                        self._matches.pop(match.match_id)
                        self._endings.schedule(match, None, MatchStatus.FAILED)
                    raise
        if isinstance(message, PerceptStop):
            async with match.lock:
                await self._turns.finish(match, message)
            return await self._finish(match, None, MatchStatus.STOPPED, DONE, received)
        if isinstance(message, Stop):
            return await self._finish(match, message.moves, MatchStatus.STOPPED, DONE, received)
        if isinstance(message, Abort):
            return await self._finish(match, None, MatchStatus.ABORTED, ABORTED, received)
        raise ProtocolError(f"unhandled message {message!r}")

    def reply_sent(self, message: Message, sent_at: float, delivered: bool) -> None:
        """The server wrote our reply to `message` at `sent_at` (or could not: `delivered`)."""
        if not isinstance(message, (Play, PerceptPlay)):
            return
        match = self._matches.get(message.match_id)
        if match is not None:
            self._turns.reply_sent(match, sent_at, delivered)

    def status(self) -> dict:
        """A snapshot for the status page: matches in progress and the last finished."""
        return {
            "name": self.name,
            "status": "busy" if self.busy else "available",
            "search": self.config.search,
            "engine": self.config.engine,
            "max_matches": self.config.max_matches,
            "messages_handled": self.messages_handled,
            "timing": self.margins.snapshot(),
            "records": {"folder": None if self.config.record_dir is None else str(self.config.record_dir),
                        "problem": self.records_problem},
            "matches": [{**m.summary(), "search": safe_stats(m.link.search), **current_view(m)}
                        for m in self._matches.values()],
            "finished": list(self._endings.finished),
        }

    def finished_summaries(self) -> list[dict]:
        """Every ended match, newest first, from the records folder when there
        is one (`Endings.summaries`; reads files: call it off the event loop)."""
        return self._endings.summaries()

    def finished_record(self, match_id: str) -> Optional[MatchRecord]:
        """The record of a finished match, to replay (None when it is not kept)."""
        return self._endings.record_of(match_id)

    def controller_view(self, match_id: str) -> Optional[Beside]:
        """What a controller's record of the match says (its players' names,
        which the protocol never sends), when one lies in the records folder;
        reads a file."""
        return beside_of(self.config.record_dir, match_id)

    async def wait_idle(self) -> None:
        """Wait until every finished match has been cleaned up and recorded."""
        await self._endings.wait_idle()

    async def close(self, grace: float = CLOSE_GRACE_S) -> None:
        """Stop within `grace` seconds: the replies in flight go out at once,
        every match is aborted (its search stopped, its record written), the
        thread pools are freed. Work still running after the grace (a compile,
        a slow engine step) is left to finish on its own."""
        began = time.monotonic()
        self.begin_shutdown()
        # the clean-ups stop waiting for work in progress a little before the
        # grace ends, so that they still write their records within it
        self._endings.close_by = began + max(0.0, grace - RECORDING_S)
        for match in list(self._matches.values()):
            await self._finish(match, None, MatchStatus.ABORTED, ABORTED, time.monotonic())
        try:
            await asyncio.wait_for(asyncio.shield(self.wait_idle()),
                                   timeout=max(0.05, began + grace - time.monotonic()))
        except asyncio.TimeoutError:
            log.error("stopping: %d clean-up(s) still running after %.1f s; not waiting for them",
                      self._endings.running, grace)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._search_pool.shutdown(wait=False, cancel_futures=True)
        log.info("stopped in %.3f s", time.monotonic() - began)

    # ------------------------------------------------------------------ START

    async def _start(self, message: Start, received: float) -> str:
        self._evict_abandoned(received)
        if self.stopping:
            log.warning("START match=%s: the player is stopping, replying busy", message.match_id)
            return BUSY
        if message.match_id in self._matches:
            log.warning("START match=%s: already in this match, replying busy", message.match_id)
            return BUSY
        if len(self._matches) >= self.config.max_matches:
            log.warning("START match=%s: already in %d match(es) (max %d), replying busy",
                        message.match_id, len(self._matches), self.config.max_matches)
            return BUSY
        loop = asyncio.get_running_loop()
        match = Match(start=message, received=received, last_message_at=received)
        self._matches[message.match_id] = match
        match.ready = loop.run_in_executor(self._pool, self._compile, match, loop)
        deadline = received + message.start_clock - self.margins.margin(message.start_clock)
        await wait_until(deadline, self._turns.is_stopping, match.ready)
        if not match.ready.done():
            log.warning("START match=%s role=%s: still compiling %s, replying ready", match.match_id,
                        match.role_text, "as the player stops" if self.stopping else "at the start clock")
            match.ready.add_done_callback(lambda f: f.cancelled() or f.exception())  # no "never retrieved" noise
            return READY
        try:
            match.ready.result()
        except Exception as error:
            self._matches.pop(message.match_id, None)
            match.status = MatchStatus.FAILED
            self._endings.failed(match, str(error))
            log.error("START match=%s role=%s: cannot play this game, replying busy: %s",
                      match.match_id, match.role_text, error)
            return BUSY
        used = time.monotonic() - received
        log.info("START match=%s role=%s roles=%d compile=%.3fs used=%.3fs margin_left=%.3fs",
                 match.match_id, match.role_text, len(match.roles), match.compile_seconds or 0.0,
                 used, message.start_clock - used)
        return READY

    def _compile(self, match: Match, loop: asyncio.AbstractEventLoop) -> None:
        """Validate the rules, build the engine, start the search (in a pool thread)."""
        began = time.monotonic()
        game = load_game(match.start.rules)
        role_index = _find_role(game.roles, match.start.role)
        if role_index is None:
            raise MatchError(
                f"role {match.start.role} is not a role of the game "
                f"({' '.join(map(str, game.roles))})"
            )
        hidden = game.dialect is Dialect.GDL_II
        if self._engine_factory:
            machine, pending = self._engine_factory(game), None
        else:
            machine, pending = self._make_engine(game, match, background=not hidden)
        try:
            following = new_following(machine, role_index, tuple(game.roles), self._rng)
            if hidden:
                match.belief = Belief(machine, role_index, seed=self._next_seed())
        except BaseException:
            machine.close()
            raise
        match.following = following
        match.history.states.append(state_text(following.state))
        try:
            if self._search_factory is not None:
                search = self._search_factory(machine, role_index)
            else:
                left = match.received + match.start.start_clock - self.margins.margin(match.start.start_clock)
                search = self._make_search(machine, role_index, match, hidden,
                                           trial_seconds=trial_budget(match.start.start_clock,
                                                                      left - time.monotonic()))
            match.link.search = search
            search.start(following.state, legal_moves=following.legal_now)
            match.link.current = True
        except Exception as error:  # the match is still playable: the fallback moves play
            log.error("START match=%s: the search failed to start (%s); playing fallback moves",
                      match.match_id, error)
        collector.hold()
        match.holds_collector = True
        match.compile_seconds = time.monotonic() - began
        match.status = MatchStatus.PLAYING
        if pending is not None:
            pending.add_done_callback(lambda done: loop.call_soon_threadsafe(self._upgrade_soon, match, done))

    def _make_engine(self, game: ValidatedGame, match: Match, background: bool):
        """The configured engine, and the propnet's build still under way, if
        any: a propnet attempt gets its share of the start clock, and may go
        on in the background (`engines.start_engine`)."""
        budget = propnet_budget(match.start.start_clock, cap=self.config.propnet_time_limit)
        log.info("START match=%s: engine %s, propnet budget %.2f s of the %g s start clock",
                 match.match_id, self.config.engine, budget, match.start.start_clock)
        return start_engine(self.config.engine, game, budget, BACKGROUND_BUILD_S if background else 0.0)

    def _upgrade_soon(self, match: Match, build: concurrent.futures.Future) -> None:
        """The background build is done (on the event loop): switch when the match is idle."""
        asyncio.ensure_future(self._upgrade(match, build))

    async def _upgrade(self, match: Match, build: concurrent.futures.Future) -> None:
        """Move the match to the propnet built in the background (`upgrade.py`),
        at the first moment it is between moves."""
        if build.exception() is not None:
            log.info("match=%s: the propnet's background build failed: %s", match.match_id, build.exception())
            return
        machine = build.result()
        began = time.monotonic()
        while self._matches.get(match.match_id) is match and not self.stopping:
            async with match.lock:
                if idle(match):
                    make = lambda m, role: self._make_search(m, role, match, hidden=False)  # noqa: E731
                    switched = await asyncio.get_running_loop().run_in_executor(
                        self._pool, switch_engine, match, machine, make)
                    if switched:
                        match.switched_at_turn = len(match.history.joint_moves)
                        log.info("match=%s: switched to the propnet built in the background (%.1f s after the "
                                 "START, at turn %d; %.3f s to switch)", match.match_id,
                                 time.monotonic() - match.received, match.switched_at_turn,
                                 time.monotonic() - began)
                        return
                    break
            await asyncio.sleep(UPGRADE_POLL_S)
        machine.close()

    def _make_search(self, machine: StateMachine, role_index: int, match: Match, hidden: bool,
                     trial_seconds: float = 0.0) -> Search:
        """The configured search, sized for this match's clocks (over a belief in a GDL-II match);
        `trial_seconds` for START's trials (`search/driver/trials.py`; none after the START)."""
        start = match.start
        return make_search(
            self.config.search, machine, role_index, seed=self._next_seed(), hidden=hidden,
            options=dict(self.config.search_options), ponder=self.config.ponder,
            memory_cap=self.config.memory_cap, threads=self.config.search_threads, parallel=self.config.parallel,
            batch=self.config.batch, clock_seconds=match_seconds(start.start_clock, start.play_clock),
            start_seconds=start_budget(start.start_clock), trial_seconds=trial_seconds,
        )

    def _evict_abandoned(self, now: float) -> None:
        for match in list(self._matches.values()):
            idle = now - match.last_message_at
            if idle > match.idle_limit(self.config.abandon_grace):
                log.warning("match=%s role=%s: no message for %.0f s, abandoning it",
                            match.match_id, match.role_text, idle)
                self._matches.pop(match.match_id, None)
                self._endings.schedule(match, None, MatchStatus.ABANDONED)

    # ------------------------------------------------------------------ STOP, ABORT

    async def _finish(self, match: Match, moves, status: MatchStatus, reply: str, received: float) -> str:
        self._matches.pop(match.match_id, None)
        match.status = status
        self._endings.schedule(match, moves, status)
        log.info("%s match=%s role=%s turns=%d used=%.3fs",
                 "STOP" if status is MatchStatus.STOPPED else "ABORT", match.match_id, match.role_text,
                 len(match.history.joint_moves), time.monotonic() - received)
        return reply


def _find_role(roles, wanted: Term) -> Optional[int]:
    """The index of `wanted` among the roles; exact first, then ignoring case."""
    for index, role in enumerate(roles):
        if role == wanted:
            return index
    lowered = str(wanted).lower()
    for index, role in enumerate(roles):
        if str(role).lower() == lowered:
            return index
    return None
