"""PLAY in a GDL-II match: update the belief from our move and percepts, let the search think, answer.

A GDL-II game master (the Dresden protocol) tells a player only its own move as
executed (LASTMOVE) and its own percepts (PERCEPTS), numbered by TURN from 0.
So instead of following the state, the player keeps a belief (`search.belief`):
the weighted states consistent with everything it was told. Each PerceptPlay:

1. the search is held (its trees are about the last turn);
2. the belief takes the turn's observation (turns we never got a message for
   are taken as unknown moves and percepts) in the engine pool, within
   `belief_budget` of the time left on the clock, and a log line says how many
   consistent states it holds;
3. our legal moves come from the belief (a move illegal in the true state is
   one the percepts rule out), with a random one kept as the fallback;
4. the search gets the belief (`Search.observe`), thinks until the deadline
   (a `think_time`, when set, counts from the end of the update, so that
   equal-time experiments give every search the same time; the wait ends
   early, as in a GDL PLAY, when the search's answer is ready or the player
   stops) and names the move (`TurnTaker._choose`, which checks it against
   those legal moves).

A PerceptStop updates the belief one last time (terminal states only), so the
player's record can give the goals of the likeliest end. A GDL message in a
GDL-II match, or the reverse, is a `MatchError` that names the dialect.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Optional

from ..reasoner.prolog_thread import urgent_calls
from ..search.contract.belief import BeliefUpdate, belief_budget
from .match import Match
from .play import MatchError, TurnTaker, quietly
from .protocol import PerceptPlay, PerceptStop

log = logging.getLogger(__name__)

#: Seconds the last belief update of a match (at STOP, for the record) may take.
FINAL_UPDATE_SECONDS = 1.0


class HiddenTurnTaker(TurnTaker):
    """Answers the PerceptPlays of every GDL-II match of one player."""

    async def play_percepts(self, match: Match, message: PerceptPlay, received: float) -> str:
        """The reply to a PerceptPlay (the match's lock held by the caller)."""
        hard_limit, clock_deadline, deadline = self.clocks(match, received)
        if not await self.game_ready(match, hard_limit):
            return "nil"
        if match.belief is None:
            raise MatchError(f"match {match.match_id} plays a GDL game: expected (play ID MOVES), "
                             "got the GDL-II form (play ID TURN LASTMOVE PERCEPTS)")
        following = match.following
        link = match.link
        seen = len(match.history.observations)
        if message.turn < seen or (message.turn == 0 and seen > 0):
            raise MatchError(f"PLAY for match {match.match_id} has turn {message.turn}; turn {seen} was expected")
        if message.turn > 0 and following.lost is None:
            if link.search is not None:
                quietly(link.search.hold)
            soft, hard = belief_budget(time.monotonic(), clock_deadline)
            steps = [(None, None)] * (message.turn - seen - 1) + [(message.last_move, message.percepts)]
            reports = await self._update(match, steps, soft, hard, final=False)
            if reports is not None:
                link.current = False
                try:
                    await self._call_search(match, _observe, match,
                                            timeout=max(0.0, clock_deadline - time.monotonic()))
                except Exception as error:  # noqa: BLE001 - the fallback plays
                    log.error("PLAY match=%s: the search did not take the new belief (%s)", match.match_id, error)
        if self.config.think_time is not None:  # the search's time starts once the belief is updated
            deadline = min(clock_deadline, time.monotonic() + self.config.think_time)
        return await self.think_and_answer(match, message.turn, received, deadline, hard_limit)

    async def _update(self, match: Match, steps: list, soft: float, hard: float,
                      final: bool) -> Optional[list[BeliefUpdate]]:
        """The belief takes `steps` (move, percepts) in the engine pool; our legal
        moves and the fallback follow. None when the belief cannot be updated
        (the last legal moves we know then play)."""
        loop = asyncio.get_running_loop()
        try:
            reports, legal = await loop.run_in_executor(self._engine_pool, _take, match, steps, soft, hard, final)
        except Exception as error:  # noqa: BLE001 - an engine failure: play on what we know
            self.lose_track(match, error)
            return None
        for (move, percepts), report in zip(steps, reports):
            match.history.observations.append({
                "turn": report.turn, "move": None if move is None else str(move),
                "percepts": None if percepts is None else [str(p) for p in percepts], "belief": report.to_json(),
            })
            level = logging.ERROR if report.lost else logging.INFO
            log.log(level, "belief match=%s role=%s turn=%d: %s", match.match_id, match.role_text, report.turn,
                    report.describe())
        if not final:
            following = match.following
            following.legal_now = legal
            following.fallback = self._rng.choice(legal) if legal else None
        return reports

    async def finish(self, match: Match, message: PerceptStop) -> None:
        """The last observation (the game is over): a belief over terminal states,
        for the goals in the player's record. Never raises: a failure leaves the
        record without goals, and the STOP is answered all the same."""
        if match.belief is None or match.following is None or match.following.lost is not None:
            return
        seen = len(match.history.observations)
        if message.turn <= seen:
            return
        steps = [(None, None)] * (message.turn - seen - 1) + [(message.last_move, message.percepts)]
        now = time.monotonic()
        try:
            await self._update(match, steps, now + FINAL_UPDATE_SECONDS / 2, now + FINAL_UPDATE_SECONDS,
                               final=True)
        except Exception as error:  # noqa: BLE001 - the record goes without goals
            log.error("STOP match=%s: the last belief update failed: %s", match.match_id, error)


def _take(match: Match, steps: list, soft: float, hard: float, final: bool):
    """Belief updates in the engine pool (its Prolog calls ahead of the search's):
    the reports, and our legal moves in the new belief (none after the last)."""
    belief = match.belief
    reports = []
    with urgent_calls():
        for index, (move, percepts) in enumerate(steps):
            last = index == len(steps) - 1
            reports.append(belief.update(move, percepts, soft, hard, final=final and last))
        legal = () if final else belief.legal_moves()
    return reports, legal


def _observe(match: Match) -> None:
    """Hand the belief to the search (search pool thread)."""
    link = match.link
    if link.search is None:
        return
    link.search.observe(match.belief, match.following.legal_now)
    link.current = True


def expected_goals(match: Match) -> Optional[list[int]]:
    """The goals of the likeliest final state of a GDL-II match (None before the end)."""
    belief = match.belief
    following = match.following
    if belief is None or following is None or not belief.history:
        return None
    state = belief.most_likely()
    if not following.machine.is_terminal(state):
        return None
    return list(following.machine.goal_values(state))

