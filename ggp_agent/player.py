"""The match lifecycle: START compiles and starts a search, PLAY answers in time,
STOP and ABORT free the match.

`Player.handle` takes a parsed message and returns the reply text. It runs on the
event loop but never does long work there: compiling a game, applying a joint
move and stopping a search go to a thread pool, and the search thinks in its own
worker thread. While a PLAY waits for its deadline the loop is free, so INFO and
the status page answer at once.

Time: a PLAY's deadline is the moment it arrived plus the play clock, less a
safety margin (and capped by `think_time` when one is set). The margin starts
at the configured one and grows with the lateness measured on earlier replies
(`timing.AdaptiveMargin`). A legal move is ready before the search is asked
anything: each turn the player computes our legal moves itself (its Prolog
calls go ahead of the search's) and picks a random one as the fallback, so a
search that crashes, hangs or proposes an illegal move still yields a legal
reply on time. A forced move (one legal move) is answered at once.

When our engine cannot follow the match in time (a slow step) or at all (a
resource error), the reply is a move from the last legal moves we know, and
the log says so; a slow step is caught up on the next PLAY.

This module knows nothing of HTTP; the server turns replies and errors into
responses.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import hashlib
import logging
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from .engines import make_state_machine
from .gdl import Term, ValidatedGame, load_game
from .protocol import (
    ABORTED, BUSY, DONE, READY, Abort, Info, Message, Play, Preview, ProtocolError, Start,
    Stop, info_reply, safe_name,
)
from .reasoner.prolog_thread import urgent_calls
from .reasoner.statemachine import State, StateMachine
from .records import MatchRecord, state_text, write_record
from .searchers import Search, make_search
from .timing import AdaptiveMargin

log = logging.getLogger(__name__)

#: `--player` kinds the server offers, and the search rule each one runs.
PLAYER_KINDS = {"agent": "mcps", "random": "random", "legal": "legal"}

#: Turns a match is expected to last (sizes a tree search's arena from the clocks).
EXPECTED_TURNS = 100

EngineFactory = Callable[[ValidatedGame], StateMachine]
SearchFactory = Callable[[StateMachine, int], Search]


class SearchBusyError(Exception):
    """A call into the search could not start: an earlier one has not returned."""


class MatchError(ProtocolError):
    """A well-formed message that does not fit the match it names (wrong number of
    moves, a joint move our engine cannot apply)."""


@dataclass(frozen=True)
class PlayerConfig:
    """How a player plays: its name, engine, search rule, limits and clocks.

    `safety_margin` is the time in seconds kept back from every clock for the
    reply to travel; `think_time`, when set, caps the thinking per move (fast
    tournaments). `max_matches` bounds concurrent matches; a START beyond it
    gets `busy`. A match with no message for twice its longer clock plus
    `abandon_grace` seconds counts as abandoned by its manager (which never
    sent STOP or ABORT) and is freed when the next START comes.

    For the tree searches (mcps, grave, uct): `search_options` override the
    rule's constants by name (`SearchParams`), `ponder` lets the search think
    between messages (off: only from a new position where we have a choice until
    the move is asked for, as in equal-time experiments), and `memory_cap`
    bounds its arena in bytes. The `auto` engine builds a propnet within half
    the start clock (at most `propnet_time_limit`), else falls back to Prolog.
    """

    name: str = "ggp-agent"
    search: str = "mcps"
    engine: str = "auto"
    max_matches: int = 1
    safety_margin: float = 0.5
    think_time: Optional[float] = None
    record_dir: Optional[Path] = None
    seed: Optional[int] = None
    abandon_grace: float = 60.0
    search_options: tuple[tuple[str, str], ...] = ()
    ponder: bool = True
    memory_cap: Optional[int] = None
    propnet_time_limit: float = 60.0


@dataclass
class TurnLog:
    """What the player did on one PLAY (for the record and the status page)."""

    turn: int
    move: str
    source: str
    time_used: float
    margin_left: float
    stats: dict

    def to_json(self) -> dict:
        return {
            "turn": self.turn, "move": self.move, "source": self.source,
            "timeUsed": round(self.time_used, 4), "marginLeft": round(self.margin_left, 4),
            "stats": self.stats,
        }


@dataclass
class Match:
    """One match in progress, as the player sees it."""

    start: Start
    received: float
    role_index: Optional[int] = None
    roles: tuple[Term, ...] = ()
    machine: Optional[StateMachine] = None
    search: Optional[Search] = None
    state: Optional[State] = None
    legal_now: tuple[Term, ...] = ()
    fallback: Optional[Term] = None
    joint_moves: list[tuple[Term, ...]] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    turns: list[TurnLog] = field(default_factory=list)
    status: str = "starting"
    compile_seconds: Optional[float] = None
    search_current: bool = False  # the search's root is the current state
    search_call: Optional[asyncio.Future] = None  # the call into the search in flight
    pending: list[tuple[Term, ...]] = field(default_factory=list)  # joint moves not applied yet
    catching_up: Optional[asyncio.Future] = None  # the job applying `pending`
    lost: Optional[str] = None  # why our engine cannot follow the match any more
    unsent: Optional[tuple[TurnLog, Optional[float], float]] = None  # last reply: turn, planned, hard limit
    unsearched: list = field(default_factory=list)  # (joint, state, legal) the search has not seen
    last_message_at: float = field(default_factory=time.monotonic)
    started_wall: float = field(default_factory=time.time)
    ready: Optional[asyncio.Future] = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def match_id(self) -> str:
        return self.start.match_id

    @property
    def role_text(self) -> str:
        return str(self.start.role)

    def idle_limit(self, grace: float) -> float:
        """Seconds without a message after which the match counts as abandoned."""
        return 2 * max(self.start.start_clock, self.start.play_clock) + grace

    def summary(self) -> dict:
        """What the status page shows about this match."""
        last = self.turns[-1] if self.turns else None
        searched = next((t for t in reversed(self.turns) if t.source == "search"), None)
        return {
            "match_id": self.match_id,
            "role": self.role_text,
            "status": self.status,
            "roles": [str(r) for r in self.roles],
            "start_clock": self.start.start_clock,
            "play_clock": self.start.play_clock,
            "turn": len(self.joint_moves),
            "moves": [[str(m) for m in joint] for joint in self.joint_moves],
            "compile_seconds": self.compile_seconds,
            "last_move": last.to_json() if last else None,
            "last_search": searched.to_json() if searched else None,
            "rules_hash": rules_hash(self.start),
        }


def rules_hash(start: Start) -> str:
    """A short fingerprint of a START's rules (the game has no name in the protocol)."""
    text = " ".join(map(str, start.rules))
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


class Player:
    """Plays the matches a game manager starts; one instance per server."""

    def __init__(
        self,
        config: PlayerConfig = PlayerConfig(),
        engine_factory: Optional[EngineFactory] = None,
        search_factory: Optional[SearchFactory] = None,
        records_problem: Optional[str] = None,
    ):
        """`records_problem`: why the records folder cannot be written (shown by `status()`)."""
        self.config = config
        self.records_problem = records_problem
        self.name = safe_name(config.name)
        self._engine_factory = engine_factory
        self._search_factory = search_factory
        self._rng = random.Random(config.seed)
        self._matches: dict[str, Match] = {}
        self._finished: collections.deque[dict] = collections.deque(maxlen=20)
        self._cleanups: set[asyncio.Task] = set()
        # Engine work (compile, apply a move, clean up) and calls into the search
        # use separate pools, so a search that hangs cannot starve the engine.
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=2 + 2 * config.max_matches, thread_name_prefix="ggp-engine"
        )
        self._search_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=2 * config.max_matches, thread_name_prefix="ggp-search"
        )
        self.messages_handled = 0
        self.margins = AdaptiveMargin(base=config.safety_margin)

    def _next_seed(self) -> Optional[int]:
        return None if self.config.seed is None else self._rng.randrange(2**31)

    # ------------------------------------------------------------------ public

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
        if isinstance(message, Play):
            async with match.lock:
                return await self._play(match, message, received)
        if isinstance(message, Stop):
            return await self._finish(match, message.moves, "stopped", DONE, received)
        if isinstance(message, Abort):
            return await self._finish(match, None, "aborted", ABORTED, received)
        raise ProtocolError(f"unhandled message {message!r}")

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
            "matches": [self._live_summary(m) for m in self._matches.values()],
            "finished": list(self._finished),
        }

    async def wait_idle(self) -> None:
        """Wait until every finished match has been cleaned up and recorded."""
        while self._cleanups:
            await asyncio.gather(*list(self._cleanups), return_exceptions=True)

    async def close(self) -> None:
        """Abort every match, wait for the clean-ups, free the thread pool."""
        for match in list(self._matches.values()):
            await self._finish(match, None, "aborted", ABORTED, time.monotonic())
        await self.wait_idle()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._search_pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ START

    async def _start(self, message: Start, received: float) -> str:
        self._evict_abandoned(received)
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
        match.ready = loop.run_in_executor(self._pool, self._compile, match)
        deadline = received + message.start_clock - self.margins.margin(message.start_clock)
        try:
            await asyncio.wait_for(asyncio.shield(match.ready), timeout=max(0.0, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            log.warning("START match=%s role=%s: still compiling at the start clock, replying ready",
                        match.match_id, match.role_text)
            match.ready.add_done_callback(lambda f: f.cancelled() or f.exception())  # no "never retrieved" noise
            return READY
        except Exception as error:
            self._matches.pop(message.match_id, None)
            self._finished.appendleft({**match.summary(), "status": "failed", "error": str(error)[:300]})
            log.error("START match=%s role=%s: cannot play this game, replying busy: %s",
                      match.match_id, match.role_text, error)
            return BUSY
        used = time.monotonic() - received
        log.info("START match=%s role=%s roles=%d compile=%.3fs used=%.3fs margin_left=%.3fs",
                 match.match_id, match.role_text, len(match.roles), match.compile_seconds or 0.0,
                 used, message.start_clock - used)
        return READY

    def _compile(self, match: Match) -> None:
        """Validate the rules, build the engine, start the search (in a pool thread)."""
        began = time.monotonic()
        game = load_game(match.start.rules)
        role_index = _find_role(game.roles, match.start.role)
        if role_index is None:
            raise MatchError(
                f"role {match.start.role} is not a role of the game "
                f"({' '.join(map(str, game.roles))})"
            )
        machine = self._engine_factory(game) if self._engine_factory else self._make_engine(game, match)
        try:
            state = machine.initial_state()
            terminal = machine.is_terminal(state)
            legal = () if terminal else tuple(machine.legal_moves(state, role_index))
            if not terminal and not legal:  # no reply could ever be legal: decline the match
                raise MatchError(f"role {match.start.role} has no legal move in the initial state (a broken game)")
            match.role_index, match.roles, match.machine = role_index, tuple(game.roles), machine
            match.state, match.legal_now = state, legal
            match.fallback = self._rng.choice(legal) if legal else None
            match.states.append(state_text(state))
        except BaseException:
            machine.close()
            raise
        try:
            if self._search_factory is not None:
                match.search = self._search_factory(machine, role_index)
            else:
                match.search = self._make_search(machine, role_index, match)
            match.search.start(state, legal_moves=legal)
            match.search_current = True
        except Exception as error:  # the match is still playable: the fallback moves play
            log.error("START match=%s: the search failed to start (%s); playing fallback moves",
                      match.match_id, error)
        match.compile_seconds = time.monotonic() - began
        match.status = "playing"

    def _make_engine(self, game: ValidatedGame, match: Match) -> StateMachine:
        """The configured engine; a propnet attempt gets half the start clock."""
        budget = min(self.config.propnet_time_limit, max(1.0, 0.5 * match.start.start_clock))
        return make_state_machine(self.config.engine, game, time_limit=budget)

    def _make_search(self, machine: StateMachine, role_index: int, match: Match) -> Search:
        """The configured search, sized for this match's clocks."""
        start = match.start
        return make_search(
            self.config.search, machine, role_index, seed=self._next_seed(),
            options=dict(self.config.search_options), ponder=self.config.ponder,
            memory_cap=self.config.memory_cap,
            clock_seconds=start.start_clock + EXPECTED_TURNS * start.play_clock,
        )

    def _evict_abandoned(self, now: float) -> None:
        for match in list(self._matches.values()):
            idle = now - match.last_message_at
            if idle > match.idle_limit(self.config.abandon_grace):
                log.warning("match=%s role=%s: no message for %.0f s, abandoning it",
                            match.match_id, match.role_text, idle)
                self._matches.pop(match.match_id, None)
                self._schedule_cleanup(match, None, "abandoned")

    # ------------------------------------------------------------------ PLAY

    async def _play(self, match: Match, message: Play, received: float) -> str:
        start = match.start
        hard_limit = received + start.play_clock
        # `deadline` ends the thinking; `clock_deadline` is the last moment a
        # reply is safe. Following the match (our engine's next state, the
        # search's root change) may use all of the clock: a short think time
        # must not turn a slow state update into a stale, illegal reply.
        clock_deadline = hard_limit - self.margins.margin(start.play_clock)
        deadline = clock_deadline
        if self.config.think_time is not None:
            deadline = min(deadline, received + self.config.think_time)
        try:
            await asyncio.wait_for(asyncio.shield(match.ready), timeout=max(0.0, hard_limit - time.monotonic()))
        except asyncio.TimeoutError:
            log.error("PLAY match=%s: the game is still compiling at the play clock", match.match_id)
            return "nil"
        except Exception as error:
            # The compile outlived the start clock, then failed: free the match.
            if self._matches.get(match.match_id) is match:
                self._matches.pop(match.match_id)
                self._schedule_cleanup(match, None, "failed")
            raise MatchError(f"match {match.match_id} could not start: {error}") from None
        if message.moves is not None:
            if len(message.moves) != len(match.roles):
                raise MatchError(
                    f"PLAY for match {match.match_id} has {len(message.moves)} moves, "
                    f"the game has {len(match.roles)} roles"
                )
            hold = getattr(match.search, "hold", None)
            if hold is not None:  # the search leaves the engine to us until advance()
                _quietly(hold)
            match.pending.append(tuple(message.moves))
            if not await self._catch_up(match, clock_deadline):
                return self._stale_reply(match, received, hard_limit)
            match.search_current = False
            steps, match.unsearched = match.unsearched, []
            try:
                await self._call_search(match, self._advance_search, match, steps,
                                        timeout=max(0.0, clock_deadline - time.monotonic()))
            except (asyncio.TimeoutError, SearchBusyError):
                log.error("PLAY match=%s: the search did not take the new state in time", match.match_id)
        planned = None
        if len(match.legal_now) > 1 and match.search_current and getattr(match.search, "thinks", True):
            planned = deadline
            await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        move, source, stats = await self._choose(match, hard_limit)
        reply_at = time.monotonic()
        turn = TurnLog(len(match.joint_moves), str(move), source, reply_at - received, hard_limit - reply_at, stats)
        match.turns.append(turn)
        match.unsent = (turn, planned, hard_limit)
        log.info("PLAY match=%s role=%s turn=%d move=%s source=%s used=%.3fs margin_left=%.3fs playouts=%s",
                 match.match_id, match.role_text, turn.turn, turn.move, source, turn.time_used,
                 turn.margin_left, stats.get("playouts", "-"))
        return "nil" if move is None else str(move)

    async def _call_search(self, match: Match, function, *args, timeout: float):
        """Run one call into the search in the search pool, under a timeout.

        At most one such call per match is in flight: while a hung call holds
        its thread, later ones fail at once (SearchBusyError) instead of taking
        more threads, and the engine's own pool is never touched.
        """
        if match.search_call is not None and not match.search_call.done():
            raise SearchBusyError(f"match {match.match_id}: the search is still busy with an earlier call")
        future = asyncio.get_running_loop().run_in_executor(self._search_pool, function, *args)
        match.search_call = future
        return await asyncio.wait_for(asyncio.shield(future), timeout=timeout)

    async def _catch_up(self, match: Match, deadline: float) -> bool:
        """Apply the reported joint moves our engine has not applied yet, until `deadline`.

        True when our state is the match's current one. The work runs in the
        engine pool; a job that outlives the deadline goes on, and the next
        PLAY takes its result. An engine error means we lost track of the
        match for good (`match.lost`).
        """
        loop = asyncio.get_running_loop()
        while match.lost is None and (match.pending or match.catching_up is not None):
            if match.catching_up is None:
                match.catching_up = loop.run_in_executor(
                    self._pool, _follow, match.machine, match.state, match.role_index, list(match.pending))
            job = match.catching_up
            try:
                results, error = await asyncio.wait_for(asyncio.shield(job), timeout=max(0.0, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                log.error("PLAY match=%s: our engine is still computing the new state at the deadline",
                          match.match_id)
                return False
            if match.catching_up is job:
                match.catching_up = None
                self._take_states(match, results)
                if error is not None:
                    match.lost = f"{type(error).__name__}: {error}"[:300]
                    log.error("match=%s: our engine cannot compute the state of turn %d (%s); "
                              "the last legal moves we know will play from now on",
                              match.match_id, len(match.joint_moves) + 1, match.lost)
        return match.lost is None

    def _take_states(self, match: Match, results: list[tuple[tuple[Term, ...], State, tuple[Term, ...]]]) -> None:
        """Record the states our engine computed (on the event loop)."""
        for joint, state, legal in results:
            match.pending.pop(0)
            match.state, match.legal_now = state, legal
            match.fallback = self._rng.choice(legal) if legal else None
            match.joint_moves.append(joint)
            match.states.append(state_text(state))
            match.unsearched.append((joint, state, legal))

    def _stale_reply(self, match: Match, received: float, hard_limit: float) -> str:
        """A reply when our state is behind the match: one of the last legal moves we know."""
        move = self._rng.choice(match.legal_now) if match.legal_now else None
        reply_at = time.monotonic()
        turn = TurnLog(len(match.joint_moves) + len(match.pending), str(move), "stale",
                       reply_at - received, hard_limit - reply_at, {"lost": match.lost} if match.lost else {})
        match.turns.append(turn)
        match.unsent = (turn, None, hard_limit)
        log.warning("PLAY match=%s role=%s turn=%d move=%s source=stale (our state is %d joint move(s) behind) "
                    "used=%.3fs margin_left=%.3fs", match.match_id, match.role_text, turn.turn, turn.move,
                    len(match.pending), turn.time_used, turn.margin_left)
        return "nil" if move is None else str(move)

    def reply_sent(self, message: Message, sent_at: float, delivered: bool) -> None:
        """The server wrote our reply to `message` at `sent_at` (or could not: `delivered`).

        Feeds the adaptive margin with how late the reply went out, and puts the
        real margin left in the turn's log.
        """
        if not isinstance(message, Play):
            return
        match = self._matches.get(message.match_id)
        if match is None or match.unsent is None:
            return
        turn, planned, hard_limit = match.unsent
        match.unsent = None
        clock = turn.time_used + turn.margin_left
        turn.margin_left = hard_limit - sent_at
        turn.time_used = clock - turn.margin_left
        if not delivered:
            turn.stats = {**turn.stats, "delivered": False}
            log.error("PLAY match=%s turn=%d: the reply %s could not be sent: the manager closed the "
                      "connection (it will substitute a move of its own)", match.match_id, turn.turn, turn.move)
            return
        if planned is not None:
            self.margins.observe(planned, sent_at)

    def _advance_search(self, match: Match, steps: list) -> None:
        """Move the search's root by each (joint move, state, our legal moves) in
        turn (pool thread); a failure leaves the fallback to play."""
        if match.search is None:
            return
        try:
            for joint_move, state, legal in steps:
                match.search.advance(joint_move, state, legal_moves=legal)
        except Exception as error:
            log.error("match=%s: the search failed to advance (%s); the fallback move will play",
                      match.match_id, error)
            return
        match.search_current = True

    async def _choose(self, match: Match, hard_limit: float) -> tuple[Optional[Term], str, dict]:
        """The move to send, where it came from, and the search's figures.

        The search is asked in a pool thread under a short timeout, so a search
        that hangs cannot hold the reply (or the event loop) past the clock.
        """
        legal = match.legal_now
        if len(legal) == 1:
            return legal[0], "forced", {}
        if not legal:
            log.error("match=%s: our role has no legal move in a state that is not terminal (a broken game); "
                      "replying nil", match.match_id)
            return None, "none", {}
        if not match.search_current:
            return match.fallback, "fallback", {}
        patience = max(0.01, min(0.25, (hard_limit - time.monotonic()) / 2))
        try:
            move, stats = await self._call_search(match, _ask_search, match.search, timeout=patience)
        except (asyncio.TimeoutError, SearchBusyError):
            log.error("match=%s: the search did not name a move within %.2f s", match.match_id, patience)
            return match.fallback, "fallback", {}
        except Exception as error:
            log.error("match=%s: the search failed to name a move (%s)", match.match_id, error)
            return match.fallback, "fallback", {}
        if move is None:
            return match.fallback, "fallback", stats
        if move not in legal:
            log.error("match=%s: the search proposed %s, which is not legal", match.match_id, move)
            return match.fallback, "fallback", stats
        return move, "search", stats

    # ------------------------------------------------------------------ STOP, ABORT

    async def _finish(self, match: Match, moves, status: str, reply: str, received: float) -> str:
        self._matches.pop(match.match_id, None)
        match.status = status
        self._schedule_cleanup(match, moves, status)
        log.info("%s match=%s role=%s turns=%d used=%.3fs",
                 "STOP" if status == "stopped" else "ABORT", match.match_id, match.role_text,
                 len(match.joint_moves), time.monotonic() - received)
        return reply

    def _schedule_cleanup(self, match: Match, moves, status: str) -> None:
        task = asyncio.get_running_loop().create_task(self._cleanup(match, moves, status))
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)

    async def _cleanup(self, match: Match, moves, status: str) -> None:
        """Stop the search, free the engine, write the record (off the event loop)."""
        match.status = status
        if match.ready is not None:
            try:
                await match.ready
            except Exception:
                pass  # a match that never started has nothing to free
        async with match.lock:
            loop = asyncio.get_running_loop()
            if match.catching_up is not None:  # a slow step: let it finish, keep its states
                job, match.catching_up = match.catching_up, None
                try:
                    results, error = await job
                    self._take_states(match, results)
                    if error is not None:
                        match.lost = f"{type(error).__name__}: {error}"[:300]
                except Exception as error:  # noqa: BLE001
                    match.lost = f"{type(error).__name__}: {error}"[:300]
            try:
                goals = await loop.run_in_executor(self._pool, self._release, match, moves)
            except Exception as error:
                log.error("match=%s: clean-up failed: %s", match.match_id, error)
                goals = None
        summary = {**match.summary(), "goal_values": goals, "finished_at": time.time()}
        self._finished.appendleft(summary)
        if self.config.record_dir is not None:
            try:
                record = self._record(match, goals, status)
                path = await asyncio.get_running_loop().run_in_executor(
                    self._pool, write_record, record, self.config.record_dir, ".player")
                log.info("match=%s: record written to %s", match.match_id, path)
            except OSError as error:
                log.error("match=%s: cannot write the record: %s", match.match_id, error)

    def _release(self, match: Match, moves) -> Optional[list[int]]:
        goals = None
        try:
            if match.search is not None:
                try:
                    match.search.stop()
                except Exception as error:
                    log.error("match=%s: the search failed to stop: %s", match.match_id, error)
            if match.machine is not None and match.state is not None:
                state = match.state
                joints = list(match.pending)
                if moves is not None and len(moves) == len(match.roles):
                    joints.append(tuple(moves))
                if match.lost is not None:  # the moves go in the record; no state, no goals
                    match.joint_moves.extend(joints)
                    return None
                for joint in joints:
                    state = match.machine.next_state(state, joint)
                    match.joint_moves.append(joint)
                    match.states.append(state_text(state))
                match.pending.clear()
                if match.machine.is_terminal(state):
                    goals = list(match.machine.goal_values(state))
        finally:
            if match.machine is not None:
                match.machine.close()
        return goals

    def _record(self, match: Match, goals, status: str) -> MatchRecord:
        start = match.start
        return MatchRecord(
            match_id=match.match_id,
            game_name="",
            roles=[str(r) for r in match.roles],
            start_clock=start.start_clock,
            play_clock=start.play_clock,
            players=[self.name if i == match.role_index else "" for i in range(len(match.roles))],
            start_time=match.started_wall,
            moves=[[str(m) for m in joint] for joint in match.joint_moves],
            states=match.states,
            goal_values=goals,
            is_completed=status == "stopped" and goals is not None,
            is_aborted=status != "stopped",
            extra={
                "role": match.role_text,
                "rulesHash": rules_hash(start),
                "compileSeconds": match.compile_seconds,
                "turns": [t.to_json() for t in match.turns],
                "searchRule": self.config.search,
                **({"engineLost": match.lost} if match.lost else {}),
            },
        )

    def _live_summary(self, match: Match) -> dict:
        summary = match.summary()
        summary["search"] = _safe_stats(match.search)
        return summary


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


def _follow(machine: StateMachine, state: State, role: int, joint_moves: list[tuple[Term, ...]]):
    """Apply joint moves from `state` (engine pool thread): per move (joint, state, our legal moves).

    Returns (what was done, the error that stopped it or None). Its Prolog
    calls go ahead of the search's, so the fallback never waits for a playout.
    """
    done = []
    try:
        with urgent_calls():
            for joint in joint_moves:
                state = machine.next_state(state, joint)
                legal = () if machine.is_terminal(state) else tuple(machine.legal_moves(state, role))
                done.append((joint, state, legal))
    except Exception as error:  # noqa: BLE001 - the caller decides, the match goes on
        return done, error
    return done, None


def _quietly(function) -> None:
    try:
        function()
    except Exception as error:
        log.error("the search failed: %s", error)


def _ask_search(search: Search) -> tuple[Optional[Term], dict]:
    move = search.best_move()
    return move, _safe_stats(search)


def _safe_stats(search: Optional[Search]) -> dict:
    if search is None:
        return {}
    try:
        return dict(search.stats())
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"[:200]}
