"""PLAY: follow the match to its new state, let the search think until the deadline, answer.

Time: a PLAY's deadline is the moment it arrived plus the play clock, less a
safety margin (and capped by `think_time` when one is set). The margin starts
at the configured one and grows with the lateness measured on earlier replies
(`timing.AdaptiveMargin`). A legal move is ready before the search is asked
anything: each turn the player computes our legal moves itself (its Prolog
calls go ahead of the search's) and picks a random one as the fallback, so a
search that crashes, hangs or proposes an illegal move still yields a legal
reply on time. A forced move (one legal move) is answered at once. When our
engine has no legal move for us where the match asks for one (a broken
build), a Prolog engine of the rules replays the match and gives one
(`ReplySource.RULES`): nil only when the rules have none either.

The wait for the deadline ends early when the answer is known (the search's
`answer_ready`: a proven root, a forced move) and when the player is stopping
(a SIGTERM): the reply then goes out at once with the best move known, and
the search goes on pondering (or is stopped by the shutdown). Every wait here
(the START's compile, our engine's step, the deadline) wakes for a stop.

When our engine cannot follow the match in time (a slow step, waited for a
moment past the deadline: `STEP_GRACE_S`) or at all (a resource error), the
reply is a move from the last legal moves we know, and
the log says so; a slow step is caught up on the next PLAYs: our engine's
calls may run a few play clocks (`timing.follow_time_limit`), not only its
own query limit, which would lose the match for good on one slow step.

All work runs off the event loop: applying joint moves in the engine pool,
calls into the search in the search pool (one at a time per match, under a
timeout, so a search that hangs can neither hold the reply nor take more
threads).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import random
import time
from typing import Callable, Optional

from ..engines import make_state_machine
from ..gdl import load_game
from ..gdl.terms import Term
from ..reasoner.prolog_thread import urgent_calls
from ..reasoner.statemachine import State, StateMachine
from ..search.contract.interface import Search
from .config import PlayerConfig
from .match import Following, Match, ReplySource, TurnLog, UnsentReply
from .protocol import Play, ProtocolError
from .records import state_text
from .timing import AdaptiveMargin, follow_time_limit

log = logging.getLogger(__name__)


#: How often a waiting PLAY looks whether its answer is known or the player is
#: stopping, seconds (a flag read: a hundred looks a second cost nothing).
WAKE_POLL_S = 0.01

#: How long a step of our engine still unfinished at the deadline is waited
#: for, seconds (taken from the safety margin). A step takes microseconds:
#: one unfinished at the deadline is mostly one the process could not run (the
#: whole process stalled: `server.stall_watch`), and once the process runs
#: again the deadline has passed before the step's result reaches the event
#: loop. Without this, the reply came from the previous state's legal moves:
#: after a forced turn (`noop`), a move sure to be illegal.
STEP_GRACE_S = 0.1


def step_grace_until(now: float, deadline: float, hard_limit: float) -> float:
    """When the wait for a step unfinished at `deadline` ends: STEP_GRACE_S
    after `now` (the wait woke late when the process stalled), and never in
    the second half of the safety margin, which is the reply's to travel."""
    return min(now + STEP_GRACE_S, (deadline + hard_limit) / 2)


async def wait_until(deadline: float, woken: Callable[[], bool], job: Optional[asyncio.Future] = None) -> None:
    """Wait until `deadline` (time.monotonic()), until `job` is done when one is
    given, or until `woken()` turns true (looked at every WAKE_POLL_S); the
    job is never cancelled."""
    while not ((job is not None and job.done()) or woken()):
        left = deadline - time.monotonic()
        if left <= 0:
            return
        if job is None:
            await asyncio.sleep(min(WAKE_POLL_S, left))
        else:
            await asyncio.wait({job}, timeout=min(WAKE_POLL_S, left))


class SearchBusyError(Exception):
    """A call into the search could not start: an earlier one has not returned."""


class MatchError(ProtocolError):
    """A well-formed message that does not fit the match it names (wrong number of
    moves, a joint move our engine cannot apply)."""


class StartFailedError(MatchError):
    """The START's compile outlived the start clock, then failed: the match cannot be played."""


class TurnTaker:
    """Answers the PLAYs of every match of one player."""

    def __init__(self, config: PlayerConfig, margins: AdaptiveMargin, rng: random.Random,
                 engine_pool: concurrent.futures.Executor, search_pool: concurrent.futures.Executor) -> None:
        self.config = config
        self.margins = margins
        self._rng = rng
        self._engine_pool = engine_pool
        self._search_pool = search_pool
        #: set once by the player's shutdown: every wait ends, replies go out at once
        self.stopping = False

    def is_stopping(self) -> bool:
        return self.stopping

    async def play(self, match: Match, message: Play, received: float) -> str:
        """The reply to a PLAY (the match's lock held by the caller)."""
        hard_limit, clock_deadline, deadline = self.clocks(match, received)
        if not await self.game_ready(match, hard_limit):
            return "nil"
        following = match.following
        link = match.link
        if message.moves is not None:
            if len(message.moves) != len(following.roles):
                raise MatchError(
                    f"PLAY for match {match.match_id} has {len(message.moves)} moves, "
                    f"the game has {len(following.roles)} roles"
                )
            if link.search is not None:  # the search leaves the engine to us until advance()
                quietly(link.search.hold)
            following.pending.append(tuple(message.moves))
            if not await self.catch_up(match, clock_deadline, hard_limit):
                return self._stale_reply(match, received, hard_limit)
            link.current = False
            steps, link.unseen = link.unseen, []
            advancing = asyncio.ensure_future(self._advance(match, steps, clock_deadline))
            if len(following.legal_now) > 1:
                link.current = await advancing
            else:  # our only move needs no search: reply now, the root moves meanwhile
                link.advancing = advancing
        return await self.think_and_answer(match, len(match.history.joint_moves), received, deadline, hard_limit)

    def clocks(self, match: Match, received: float) -> tuple[float, float, float]:
        """(hard limit, clock deadline, deadline) of a PLAY received at `received`.

        `deadline` ends the thinking; `clock_deadline` is the last moment a
        reply is safe. Following the match (our engine's next state, the
        search's root change, a GDL-II belief) may use all of the clock: a
        short think time must not turn a slow state update into a stale,
        illegal reply.
        """
        play_clock = match.start.play_clock
        hard_limit = received + play_clock
        clock_deadline = hard_limit - self.margins.margin(play_clock)
        deadline = clock_deadline
        if self.config.think_time is not None:
            deadline = min(deadline, received + self.config.think_time)
        return hard_limit, clock_deadline, deadline

    async def game_ready(self, match: Match, hard_limit: float) -> bool:
        """Wait for the match's compile (until `hard_limit` or a stop); False
        when it is still compiling (the reply is nil); a failed compile raises."""
        await wait_until(hard_limit, self.is_stopping, match.ready)
        if not match.ready.done():
            log.error("PLAY match=%s: the game is still compiling %s", match.match_id,
                      "and the player is stopping" if self.stopping else "at the play clock")
            return False
        if match.ready.cancelled() or match.ready.exception() is not None:
            failure = "its compile was cancelled" if match.ready.cancelled() else match.ready.exception()
            raise StartFailedError(f"match {match.match_id} could not start: {failure}") from None
        return True

    async def think_and_answer(self, match: Match, turn_number: int, received: float, deadline: float,
                               hard_limit: float) -> str:
        """Let the search think until `deadline` (or until its answer is known,
        or a stop), then choose the move, log the turn and return the reply."""
        following = match.following
        link = match.link
        planned = None
        early = None
        if len(following.legal_now) > 1 and link.current and link.search.thinks:
            search = link.search
            quietly(lambda: search.think_until(deadline))
            await wait_until(deadline, lambda: self.stopping or _answer_known(search))
            planned = min(deadline, time.monotonic())
            if planned < deadline:
                early = "stopping" if self.stopping else "answer known"
        move, source, stats = await self._choose(match, hard_limit)
        if early is not None:
            stats = {**stats, "early": early}
        reply_at = time.monotonic()
        turn = TurnLog(turn_number, str(move), source, reply_at - received, hard_limit - reply_at, stats)
        match.history.turns.append(turn)
        match.unsent = UnsentReply(turn, planned, hard_limit)
        log.info("PLAY match=%s role=%s turn=%d move=%s source=%s used=%.3fs margin_left=%.3fs playouts=%s%s",
                 match.match_id, match.role_text, turn.turn, turn.move, source.value, turn.time_used,
                 turn.margin_left, stats.get("playouts", "-"), f" early={early}" if early else "")
        return "nil" if move is None else str(move)

    def reply_sent(self, match: Match, sent_at: float, delivered: bool) -> None:
        """The server wrote our last PLAY reply at `sent_at` (or could not: `delivered`).

        Feeds the adaptive margin with how late the reply went out, and puts the
        real margin left in the turn's log.
        """
        unsent, match.unsent = match.unsent, None
        if unsent is None:
            return
        turn = unsent.turn
        clock = turn.time_used + turn.margin_left
        turn.margin_left = unsent.hard_limit - sent_at
        turn.time_used = clock - turn.margin_left
        if not delivered:
            turn.stats = {**turn.stats, "delivered": False}
            log.error("PLAY match=%s turn=%d: the reply %s could not be sent: the manager closed the "
                      "connection (it will substitute a move of its own)", match.match_id, turn.turn, turn.move)
            return
        if unsent.planned is not None:
            self.margins.observe(unsent.planned, sent_at)

    async def catch_up(self, match: Match, deadline: float, hard_limit: float) -> bool:
        """Apply the reported joint moves our engine has not applied yet, until `deadline`.

        True when our state is the match's current one. The work runs in the
        engine pool; a job still running at the deadline is waited for a
        moment more (`step_grace_until`), then goes on, and the next
        PLAY takes its result. An engine error means we lost track of the
        match for good (`Following.lost`).
        """
        following = match.following
        loop = asyncio.get_running_loop()
        while following.lost is None and (following.pending or following.catching_up is not None):
            if following.catching_up is None:
                following.catching_up = loop.run_in_executor(
                    self._engine_pool, follow, following.machine, following.state, following.role_index,
                    list(following.pending), follow_time_limit(match.start.play_clock))
            job = following.catching_up
            await wait_until(deadline, self.is_stopping, job)
            if not job.done() and not self.stopping:
                await wait_until(step_grace_until(time.monotonic(), deadline, hard_limit), self.is_stopping, job)
            if not job.done():
                log.error("PLAY match=%s: our engine is still computing the new state %s", match.match_id,
                          "and the player is stopping" if self.stopping else "at the deadline")
                return False
            results, error = job.result()
            if following.catching_up is job:
                following.catching_up = None
                self.take_states(match, results)
                if error is not None:
                    self.lose_track(match, error)
        return following.lost is None

    def take_states(self, match: Match, results: list[tuple[tuple[Term, ...], State, tuple[Term, ...]]]) -> None:
        """Record the states our engine computed (on the event loop)."""
        following = match.following
        for joint, state, legal in results:
            following.pending.pop(0)
            following.take_state(joint, state, legal)
            following.fallback = self._rng.choice(legal) if legal else None
            match.history.joint_moves.append(joint)
            match.history.states.append(state_text(state))
            match.link.unseen.append((joint, state, legal))

    @staticmethod
    def lose_track(match: Match, error: BaseException) -> None:
        """Our engine cannot compute the match's state: from now on the last legal moves we know play."""
        match.following.lost = f"{type(error).__name__}: {error}"[:300]
        log.error("match=%s: our engine cannot compute the state of turn %d (%s); "
                  "the last legal moves we know will play from now on",
                  match.match_id, len(match.history.joint_moves) + 1, match.following.lost)

    def _stale_reply(self, match: Match, received: float, hard_limit: float) -> str:
        """A reply when our state is behind the match: one of the last legal moves we know."""
        following = match.following
        choices = following.stale_choices()
        move = self._rng.choice(choices) if choices else None
        reply_at = time.monotonic()
        turn = TurnLog(len(match.history.joint_moves) + len(following.pending), str(move), ReplySource.STALE,
                       reply_at - received, hard_limit - reply_at,
                       {"lost": following.lost} if following.lost else {})
        match.history.turns.append(turn)
        match.unsent = UnsentReply(turn, None, hard_limit)
        log.warning("PLAY match=%s role=%s turn=%d move=%s source=stale (our state is %d joint move(s) behind) "
                    "used=%.3fs margin_left=%.3fs", match.match_id, match.role_text, turn.turn, turn.move,
                    len(following.pending), turn.time_used, turn.margin_left)
        return "nil" if move is None else str(move)

    async def _advance(self, match: Match, steps: list, deadline: float) -> bool:
        """Move the search's root to our current state by `steps`; True when it did in time."""
        try:
            return await self._call_search(match, _advance_search, match, steps,
                                           timeout=max(0.0, deadline - time.monotonic()), interruptible=True)
        except (asyncio.TimeoutError, SearchBusyError):
            if self.stopping:
                log.info("PLAY match=%s: the search's root change was cut short: the player is stopping",
                         match.match_id)
            else:
                log.error("PLAY match=%s: the search did not take the new state in time", match.match_id)
            return False

    async def _call_search(self, match: Match, function, *args, timeout: float, interruptible: bool = False):
        """Run one call into the search in the search pool, under a timeout
        (cut short by a stop when `interruptible`).

        At most one such call per match is in flight, and calls run in order:
        a call waits for the one before it within its own timeout, and while a
        hung call holds its thread later ones fail (SearchBusyError) instead
        of taking more threads; the engine's own pool is never touched.
        """
        link = match.link
        until = time.monotonic() + timeout
        woken = self.is_stopping if interruptible else _never
        if link.call is not None and not link.call.done():
            await wait_until(until, woken, link.call)
            if not link.call.done():
                raise SearchBusyError(f"match {match.match_id}: the search is still busy with an earlier call")
        future = asyncio.get_running_loop().run_in_executor(self._search_pool, function, *args)
        link.call = future
        await wait_until(until, woken, future)
        if not future.done():
            raise asyncio.TimeoutError()
        return future.result()

    async def _rules_move(self, match: Match, hard_limit: float) -> Optional[Term]:
        """A random legal move of the rules when our engine has none where the
        match asks us for one (a broken build: a propnet whose initial state
        read as terminal answered nil at every turn); None when the rules
        have none either or cannot say by the safety margin."""
        log.error("match=%s: our engine (%s) has no legal move for us where the match asks for one; asking "
                  "the rules", match.match_id, match.following.machine.engine_name)
        deadline = hard_limit - self.margins.margin(match.start.play_clock)
        job = asyncio.get_running_loop().run_in_executor(
            self._engine_pool, rules_moves, match.start.rules, list(match.history.joint_moves),
            match.following.role_index, max(0.1, deadline - time.monotonic()))
        await wait_until(deadline, self.is_stopping, job)
        moves = job.result() if job.done() else ()
        return self._rng.choice(moves) if moves else None

    async def _choose(self, match: Match, hard_limit: float) -> tuple[Optional[Term], ReplySource, dict]:
        """The move to send, where it came from, and the search's figures.

        The search is asked in a pool thread under a short timeout, so a search
        that hangs cannot hold the reply (or the event loop) past the clock.
        """
        following = match.following
        legal = following.legal_now
        if len(legal) == 1:
            return legal[0], ReplySource.FORCED, {}
        if not legal:
            move = await self._rules_move(match, hard_limit)
            if move is not None:
                return move, ReplySource.RULES, {}
            log.error("match=%s: our role has no legal move here, by our engine nor by the rules (a broken "
                      "game); replying nil", match.match_id)
            return None, ReplySource.NONE, {}
        if not match.link.current:
            log.warning("match=%s: the search has not taken the new state yet; a random legal move plays",
                        match.match_id)
            return following.fallback, ReplySource.FALLBACK, {}
        patience = max(0.01, min(0.25, (hard_limit - time.monotonic()) / 2))
        try:
            move, stats = await self._call_search(match, _ask_search, match.link.search, timeout=patience)
        except (asyncio.TimeoutError, SearchBusyError):
            log.error("match=%s: the search did not name a move within %.2f s", match.match_id, patience)
            return following.fallback, ReplySource.FALLBACK, {}
        except Exception as error:
            log.error("match=%s: the search failed to name a move (%s)", match.match_id, error)
            return following.fallback, ReplySource.FALLBACK, {}
        if move is None:
            log.warning("match=%s: the search has no move yet (%s iterations); a random legal move plays",
                        match.match_id, stats.get("iterations", "no"))
            return following.fallback, ReplySource.FALLBACK, stats
        if move not in legal:
            log.error("match=%s: the search proposed %s, which is not legal", match.match_id, move)
            return following.fallback, ReplySource.FALLBACK, stats
        return move, ReplySource.SEARCH, stats


def follow(machine: StateMachine, state: State, role: int, joint_moves: list[tuple[Term, ...]],
           time_limit: float = 0.0):
    """Apply joint moves from `state` (engine pool thread): per move (joint, state, our legal moves).

    Returns (what was done, the error that stopped it or None). Its Prolog
    calls go ahead of the search's, so the fallback never waits for a playout,
    and each may take `time_limit` seconds when that is more than the engine's
    own limit (`follow_time_limit`).
    """
    done = []
    try:
        with urgent_calls(at_least=time_limit):
            for joint in joint_moves:
                state = machine.next_state(state, joint)
                legal = () if machine.is_terminal(state) else tuple(machine.legal_moves(state, role))
                done.append((joint, state, legal))
    except Exception as error:  # noqa: BLE001 - the caller decides, the match goes on
        return done, error
    return done, None


def rules_moves(rules: tuple, joint_moves: list[tuple[Term, ...]], role: int, time_limit: float) -> tuple[Term, ...]:
    """Our legal moves after `joint_moves` by the rules, from a Prolog engine
    of their own that replays the match (engine pool thread): our engine's
    state is not trusted. () when they have none or cannot say."""
    try:
        with make_state_machine("prolog", load_game(rules), query_time_limit=time_limit) as prolog:
            state = prolog.initial_state()
            for joint in joint_moves:
                state = prolog.next_state(state, joint)
            return tuple(prolog.legal_moves(state, role))
    except Exception as error:  # noqa: BLE001 - the reply is nil then, as before
        log.error("the rules could not give our legal moves: %s", error)
        return ()


def new_following(machine: StateMachine, role_index: int, roles: tuple[Term, ...], rng: random.Random) -> Following:
    """Our engine's view at the initial state (engine pool thread).

    Raises MatchError when our role has no legal move there: no reply could
    ever be legal, so the player declines the match.
    """
    state = machine.initial_state()
    terminal = machine.is_terminal(state)
    legal = () if terminal else tuple(machine.legal_moves(state, role_index))
    if not terminal and not legal:
        raise MatchError(f"role {roles[role_index]} has no legal move in the initial state (a broken game)")
    return Following(machine, role_index, roles, state, legal, rng.choice(legal) if legal else None)


def _advance_search(match: Match, steps: list) -> bool:
    """Move the search's root by each (joint move, state, our legal moves) in
    turn (search pool thread); False when there is no search or it failed
    (the fallback then plays)."""
    link = match.link
    if link.search is None:
        return False
    try:
        for joint_move, state, legal in steps:
            link.search.advance(joint_move, state, legal_moves=legal)
    except Exception as error:
        log.error("match=%s: the search failed to advance (%s); the fallback move will play",
                  match.match_id, error)
        return False
    return True


def _never() -> bool:
    return False


def _answer_known(search: Search) -> bool:
    """The search's `answer_ready`, False when it fails (the deadline then rules)."""
    try:
        return bool(search.answer_ready())
    except Exception:
        return False


def quietly(function) -> None:
    """Call `function`; log its failure instead of raising (the fallback plays)."""
    try:
        function()
    except Exception as error:
        log.error("the search failed: %s", error)


def _ask_search(search: Search) -> tuple[Optional[Term], dict]:
    move = search.best_move()
    return move, safe_stats(search)


def safe_stats(search: Optional[Search]) -> dict:
    """The search's figures, or what went wrong asking for them (never raises)."""
    if search is None:
        return {}
    try:
        return dict(search.stats())
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"[:200]}
