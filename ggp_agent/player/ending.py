"""The end of a match: its search stopped, its engine freed, its record
written, off the event loop; and what the status page and a replay read of
the last matches that ended.

STOP, ABORT, a failed START and an abandoned match all end here, through
`schedule`. Once the player is closing, every wait (the START's compile, a
slow engine step, the release) ends at the grace `close_by`; the record then
holds what was known, and a compile that finishes later is released on its
own.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import logging
import threading
import time
from typing import Callable, Optional

from . import collector
from .board_view import board_of
from .config import PlayerConfig
from .hidden import HiddenTurnTaker, expected_goals
from .match import Match, MatchStatus
from .play import wait_until
from .record_index import RecordIndex, record_summary
from .records import MatchRecord, load_record, record_filename, state_text, write_record

log = logging.getLogger(__name__)

#: How many ended matches are kept in memory: listed when there is no records
#: folder (and in status.json), replayed without reading their files.
KEPT = 20


class Endings:
    """The clean-ups of the matches that ended, and what is kept of them."""

    def __init__(self, config: PlayerConfig, name: str, pool: concurrent.futures.Executor,
                 turns: HiddenTurnTaker) -> None:
        self.config = config
        self.name = name
        self._pool = pool
        self._turns = turns
        #: the summaries of the last matches that ended, newest first (`record_index.record_summary`)
        self.finished: collections.deque[dict] = collections.deque(maxlen=KEPT)
        self._records: collections.deque[MatchRecord] = collections.deque(maxlen=KEPT)
        self._index = None if config.record_dir is None else RecordIndex(config.record_dir)
        self._tasks: set[asyncio.Task] = set()
        #: when the clean-ups stop waiting (time.monotonic()), once the player closes
        self.close_by: Optional[float] = None

    @property
    def running(self) -> int:
        """Clean-ups not done yet."""
        return len(self._tasks)

    def schedule(self, match: Match, moves, status: MatchStatus) -> None:
        """End `match` with `status` (the last joint `moves` from a STOP, else None)."""
        task = asyncio.get_running_loop().create_task(self._cleanup(match, moves, status))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait_idle(self) -> None:
        """Wait until every ended match has been cleaned up and recorded."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def failed(self, match: Match, error: str) -> None:
        """A match whose START failed: listed (with why), never recorded."""
        record = match.record(self.name, self.config.search, None)
        record.abort_reason = error[:300]
        self.finished.appendleft(record_summary(record))

    def summaries(self) -> list[dict]:
        """The ended matches, newest first: every one in the records folder
        (across restarts) with this process's that are not there (failed
        STARTs, records that could not be written); without a folder, the
        last KEPT of this process. Reads files: call it off the event loop."""
        kept = list(self.finished)
        if self._index is None:
            return kept
        stored = self._index.summaries()
        listed = {summary["match_id"] for summary in stored}
        return sorted(stored + [s for s in kept if s["match_id"] not in listed],
                      key=lambda s: s["start_time"], reverse=True)

    def record_of(self, match_id: str) -> Optional[MatchRecord]:
        """The record of an ended match, to replay: one of the last ones in
        memory, else the one in the records folder; None when neither has it."""
        for record in list(self._records):  # a snapshot: read from a thread while the loop appends
            if record.match_id == match_id:
                return record
        if self.config.record_dir is None:
            return None
        path = self.config.record_dir / record_filename(match_id, ".player")
        try:
            record = load_record(path)
        except (OSError, ValueError, KeyError):
            return None
        return record if record.match_id == match_id else None

    async def _cleanup(self, match: Match, moves, status: MatchStatus) -> None:
        """Stop the search, free the engine, write the record (off the event loop)."""
        match.status = status
        if match.ready is not None:
            if not await self._within_grace(match.ready):
                log.error("match=%s: still compiling as the player stops; released when it is done",
                          match.match_id)
                match.ready.add_done_callback(_release_when_compiled(match))
                await self._write_record(match, None)
                return
            if not match.ready.cancelled():
                match.ready.exception()  # a match that never started has nothing to free
        async with match.lock:
            loop = asyncio.get_running_loop()
            following = match.following
            if following is not None and following.catching_up is not None:
                # a slow step: let it finish, keep its states
                job, following.catching_up = following.catching_up, None
                if await self._within_grace(job):
                    try:
                        results, error = job.result()
                        self._turns.take_states(match, results)
                        if error is not None:
                            self._turns.lose_track(match, error)
                    except Exception as error:  # noqa: BLE001
                        self._turns.lose_track(match, error)
                else:
                    log.error("match=%s: our engine is still computing a state as the player stops; "
                              "the record ends before it", match.match_id)
            goals = None
            release = loop.run_in_executor(self._pool, _release, match, moves)
            if await self._within_grace(release):
                try:
                    goals = release.result()
                except Exception as error:
                    log.error("match=%s: clean-up failed: %s", match.match_id, error)
            else:
                log.error("match=%s: the search or the engine did not stop within the grace", match.match_id)
                release.add_done_callback(lambda f: f.cancelled() or f.exception())
        await self._write_record(match, goals)

    async def _write_record(self, match: Match, goals: Optional[list[int]]) -> None:
        """Keep the summary for the status page and write the record (inline
        once the player is closing: the pool may be busy with work left behind)."""
        board_of(match)  # the board, when the match found none yet: the record keeps it
        record = match.record(self.name, self.config.search, goals)
        if self._turns.stopping and match.status is MatchStatus.ABORTED:
            record.abort_reason = "the player was stopped during the match"
        self._records.appendleft(record)
        self.finished.appendleft(record_summary(record))
        if self.config.record_dir is None:
            return
        try:
            if self._turns.stopping:
                path = write_record(record, self.config.record_dir, ".player")
            else:
                path = await asyncio.get_running_loop().run_in_executor(
                    self._pool, write_record, record, self.config.record_dir, ".player")
            log.info("match=%s: record written to %s", match.match_id, path)
        except OSError as error:
            log.error("match=%s: cannot write the record: %s", match.match_id, error)

    async def _within_grace(self, job: asyncio.Future) -> bool:
        """Wait for `job`; once the player is closing, no longer than its grace.
        True when the job is done."""
        await wait_until(float("inf"), self._grace_over, job)
        return job.done()

    def _grace_over(self) -> bool:
        return self.close_by is not None and time.monotonic() >= self.close_by


def _release_when_compiled(match: Match) -> Callable[[asyncio.Future], None]:
    """A callback for a compile that outlived the player's close: release what it
    built (the search's thread, the engine) in a thread of its own."""

    def release(future: asyncio.Future) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        threading.Thread(target=_release, args=(match, None), name="late-release", daemon=True).start()

    return release


def _release(match: Match, moves) -> Optional[list[int]]:
    """Stop the search, apply the last joint moves for the record, free the engine
    (engine pool thread); the goal values when the match ended in a terminal state."""
    following = match.following
    goals = None
    try:
        if match.link.search is not None:
            try:
                match.link.search.stop()
            except Exception as error:
                log.error("match=%s: the search failed to stop: %s", match.match_id, error)
        if following is not None and match.belief is not None:
            goals = expected_goals(match)
        elif following is not None:
            state = following.state
            joints = list(following.pending)
            if moves is not None and len(moves) == len(following.roles):
                joints.append(tuple(moves))
            if following.lost is not None:  # the moves go in the record; no state, no goals
                match.history.joint_moves.extend(joints)
                return None
            for joint in joints:
                state = following.machine.next_state(state, joint)
                match.history.joint_moves.append(joint)
                match.history.states.append(state_text(state))
            following.pending.clear()
            if following.machine.is_terminal(state):
                goals = list(following.machine.goal_values(state))
    finally:
        if following is not None:
            following.machine.close()
        if match.holds_collector:
            match.holds_collector = False
            collector.release()
    return goals


