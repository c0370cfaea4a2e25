"""A local GameController: real matches over HTTP between any GGP players.

It behaves as ggp-base's GameServer does: START to every player at once, then
each turn PLAY to every player at once (the previous joint move, `nil` first),
and STOP with the last joint move when the game is over. It trusts no player:
each reply is checked with our own reasoner, and a reply that is late (`TO`),
unreadable or from a player it cannot reach (`CE`), or illegal (`IL`) is
replaced by a random legal move and recorded as that player's error. A broken
player never crashes the match; a failure of our own reasoner aborts it (ABORT to
every player) and the record says why.

GDL-II games (chance, hidden information) are played as the Dresden game
master plays them: the controller plays the role `random` itself (uniformly
among its legal moves), the players take the other roles, and each player gets
`(play ID TURN LASTMOVE PERCEPTS)`: its own executed move and its own percepts
only (TURN from 0, `nil` for both at turn 0), and a STOP of the same form. The
record keeps the true history (every joint move, random's included, and every
state) and, under `percepts`, what each role perceived after each joint move.

The result is a `records.MatchRecord`, written to a directory when one is given.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import aiohttp

from ..engines import make_state_machine
from ..gdl import Dialect, GdlError, Term, ValidatedGame, parse_term
from ..player.protocol import Abort, PerceptPlay, PerceptStop, Play, Start, Stop
from ..player.records import (
    COMMUNICATION_ERROR, ILLEGAL_MOVE, TIMEOUT, MatchRecord, state_text, write_record,
)
from ..reasoner.percepts import percepts_of_every_role
from ..reasoner.statemachine import StateMachine

log = logging.getLogger(__name__)

#: Extra seconds a player gets beyond each clock before its reply counts as late
#: (ggp-base's GameServer waits PLAYCLOCK + 1 s).
DEFAULT_GRACE = 1.0

#: The name the random role has in a record: the controller plays it.
GAME_MASTER = "game master"

#: Longest reply read from a player, in bytes; a move is a few dozen.
MAX_REPLY_BYTES = 1 << 20

_ADDRESS = re.compile(r"^(?:\[(?P<v6>[^\]]+)\]|(?P<host>[^:\s\[\]]+)):(?P<port>\d{1,5})$")


@dataclass(frozen=True)
class PlayerAddress:
    """Where a player listens: `HOST:PORT` (IPv6 as `[::1]:9147`)."""

    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> "PlayerAddress":
        """Read `HOST:PORT`; raises ValueError naming the text when it is not one."""
        found = _ADDRESS.match(text.strip())
        if not found or not 0 < int(found["port"]) < 65536:
            raise ValueError(f"not a HOST:PORT address: {text!r}")
        return cls(found["v6"] or found["host"], int(found["port"]))

    @staticmethod
    def looks_like(text: str) -> bool:
        return _ADDRESS.match(text.strip()) is not None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


@dataclass(frozen=True)
class Exchange:
    """One request to one player: the reply text, or why there is none, and the time."""

    reply: Optional[str]
    seconds: float
    error: Optional[str] = None  # TIMEOUT or COMMUNICATION_ERROR
    detail: str = ""


class GameController:
    """Runs one match of `game` between `players`: one address per role in role
    order, the role `random` of a GDL-II game left out (the controller plays it)."""

    def __init__(
        self,
        game: ValidatedGame,
        players: Sequence[PlayerAddress],
        start_clock: float,
        play_clock: float,
        *,
        match_id: Optional[str] = None,
        game_name: str = "",
        engine: str = "prolog",
        machine: Optional[StateMachine] = None,
        grace: float = DEFAULT_GRACE,
        record_dir: Optional[Path] = None,
        seed: Optional[int] = None,
        max_turns: Optional[int] = None,
        player_names: Optional[Sequence[str]] = None,
        abandon_after: Optional[int] = None,
    ):
        #: the role index each player takes (every role but `random`)
        self.seats = game.player_roles
        if len(players) != len(self.seats):
            raise ValueError(
                f"the game has {len(self.seats)} player roles "
                f"({' '.join(str(game.roles[r]) for r in self.seats)}) but {len(players)} players were given"
            )
        self.game = game
        self.hidden = game.dialect is Dialect.GDL_II
        self.players = list(players)
        self.start_clock = start_clock
        self.play_clock = play_clock
        self.match_id = match_id or f"ggp-agent.{game_name or 'game'}.{int(time.time() * 1000)}"
        self.game_name = game_name
        self.engine = engine
        self._machine = machine
        self.grace = grace
        self.record_dir = record_dir
        self.max_turns = max_turns
        #: walk away after this many turns without a STOP or ABORT, as a match
        #: server that crashed does (the soak's abandoned matches)
        self.abandon_after = abandon_after
        self.player_names = list(player_names) if player_names else [str(p) for p in players]
        self._rng = random.Random(seed)

    async def run(self) -> MatchRecord:
        """Play the match to its end (or abort it); write and return the record."""
        roles = [str(r) for r in self.game.roles]
        names = [GAME_MASTER] * len(roles)
        for seat, role in enumerate(self.seats):
            names[role] = self.player_names[seat]
        record = MatchRecord(
            match_id=self.match_id, game_name=self.game_name, roles=roles,
            start_clock=self.start_clock, play_clock=self.play_clock, players=names,
        )
        if self.hidden:
            record.extra["dialect"] = Dialect.GDL_II.value
            record.extra["percepts"] = []
        own_machine = self._machine is None
        machine = self._machine or await asyncio.to_thread(make_state_machine, self.engine, self.game)
        connector = aiohttp.TCPConnector(force_close=True, limit=0)
        try:
            async with aiohttp.ClientSession(connector=connector) as session:
                await self._play_match(session, machine, record)
        finally:
            if own_machine:
                await asyncio.to_thread(machine.close)
        if self.record_dir is not None:
            path = write_record(record, self.record_dir)
            log.info("match=%s: record written to %s", self.match_id, path)
        return record

    async def _play_match(self, session: aiohttp.ClientSession, machine: StateMachine, record: MatchRecord) -> None:
        rules = tuple(self.game.rules)
        replies = await asyncio.gather(*(
            self._send(session, player, Start(self.match_id, role, rules, self.start_clock, self.play_clock).to_kif(),
                       self.start_clock + self.grace)
            for player, role in zip(self.players, (self.game.roles[r] for r in self.seats))
        ))
        record.extra["startReplies"] = [
            {"reply": ex.reply, "seconds": round(ex.seconds, 4), "error": ex.error, "detail": ex.detail}
            for ex in replies
        ]
        for name, ex in zip(self.player_names, replies):
            if ex.reply is None or ex.reply.strip().lower() != "ready":
                log.warning("match=%s: %s answered START with %r %s", self.match_id, name, ex.reply, ex.detail)
        try:
            state = await asyncio.to_thread(machine.initial_state)
            record.states.append(state_text(state))
            record.state_times.append(time.time())
            previous: Optional[tuple[Term, ...]] = None
            percepts: Optional[tuple[tuple[Term, ...], ...]] = None
            while not await asyncio.to_thread(machine.is_terminal, state):
                if self.abandon_after is not None and len(record.moves) >= self.abandon_after:
                    record.is_aborted = True
                    record.abort_reason = f"abandoned after {self.abandon_after} turns: no STOP or ABORT sent"
                    log.info("match=%s: %s", self.match_id, record.abort_reason)
                    return
                if self.max_turns is not None and len(record.moves) >= self.max_turns:
                    await self._abort(session, record, f"no terminal state after {self.max_turns} turns (the turn limit)",
                                      logging.WARNING)
                    return
                legal = await asyncio.to_thread(
                    lambda s=state: [machine.legal_moves(s, r) for r in range(len(self.game.roles))]
                )
                messages = self._messages(PerceptPlay, Play, len(record.moves), previous, percepts)
                joint = await self._turn(session, record, messages, legal)
                if self.hidden:
                    percepts = await asyncio.to_thread(percepts_of_every_role, machine, state, joint)
                    record.extra["percepts"].append([[str(p) for p in seen] for seen in percepts])
                state = await asyncio.to_thread(machine.next_state, state, joint)
                previous = joint
                record.states.append(state_text(state))
                record.state_times.append(time.time())
            goals = await asyncio.to_thread(machine.goal_values, state)
        except Exception as error:  # our reasoner failed: the match cannot go on
            log.exception("match=%s: the controller's reasoner failed", self.match_id)
            await self._abort(session, record, f"reasoner failed: {type(error).__name__}: {error}")
            return
        record.goal_values = list(goals)
        record.is_completed = True
        stops = await asyncio.gather(*(
            self._send(session, player, message, self.play_clock + self.grace)
            for player, message in zip(self.players, self._messages(
                PerceptStop, Stop, len(record.moves), previous, percepts))
        ))
        record.extra["stopReplies"] = [ex.reply for ex in stops]
        log.info("match=%s finished after %d turns: goals %s, errors %s", self.match_id, len(record.moves),
                 " ".join(map(str, goals)), record.errors_by_player())

    def _messages(self, hidden_kind, open_kind, turn: int, previous, percepts) -> list[str]:
        """The PLAY or STOP each player gets (in seat order): in a GDL game the
        last joint move, the same for all; in a GDL-II game its own last move
        and its own percepts (`nil` before the first joint move)."""
        if not self.hidden:
            return [open_kind(self.match_id, previous).to_kif()] * len(self.players)
        return [
            hidden_kind(self.match_id, turn, None if previous is None else previous[role],
                        () if percepts is None else percepts[role]).to_kif()
            for role in self.seats
        ]

    async def _turn(self, session, record: MatchRecord, messages: list[str], legal) -> tuple[Term, ...]:
        turn = len(record.moves)
        exchanges = await asyncio.gather(*(
            self._send(session, player, message, self.play_clock + self.grace)
            for player, message in zip(self.players, messages)
        ))
        roles = len(legal)
        joint: list[Optional[Term]] = [None] * roles
        if self.game.random_role is not None:  # the game master's move: uniform among the legal ones
            joint[self.game.random_role] = self._rng.choice(legal[self.game.random_role])
        errors: list[str] = [""] * roles
        seconds: list[float] = [0.0] * roles
        for seat, (role, exchange) in enumerate(zip(self.seats, exchanges)):
            moves = legal[role]
            move, code, detail = self._judge(exchange, moves)
            if code:
                move = self._rng.choice(moves)
                record.error_details.append({
                    "turn": turn, "role": record.roles[role], "player": self.player_names[seat],
                    "error": code, "detail": detail, "reply": exchange.reply, "substitute": str(move),
                })
                log.warning("match=%s turn=%d role=%s player=%s: %s (%s); playing %s instead",
                            self.match_id, turn, record.roles[role], self.player_names[seat],
                            code, detail, move)
            joint[role] = move
            errors[role] = code
            seconds[role] = round(exchange.seconds, 4)
        record.moves.append([str(m) for m in joint])
        record.errors.append(errors)
        record.move_times.append(seconds)
        return tuple(joint)

    def _judge(self, exchange: Exchange, legal: Sequence[Term]) -> tuple[Optional[Term], str, str]:
        """(the move, "" or an error code, what went wrong) for one PLAY reply."""
        if exchange.error:
            return None, exchange.error, exchange.detail
        if exchange.seconds > self.play_clock + self.grace:
            return None, TIMEOUT, f"replied after {exchange.seconds:.2f} s"
        try:
            move = parse_term(exchange.reply)
        except GdlError as error:
            return None, COMMUNICATION_ERROR, f"unparsable reply {exchange.reply[:80]!r}: {error.reason}"
        if move not in legal:
            return None, ILLEGAL_MOVE, f"{move} is not legal"
        return move, "", ""

    async def _send(self, session: aiohttp.ClientSession, player: PlayerAddress, message: str, timeout: float) -> Exchange:
        """POST one message as ggp-base's GameServer does; never raises."""
        headers = {
            "Content-Type": "text/acl",
            "Sender": "GAMESERVER",
            "Receiver": f"{player.host}:{player.port}",
            "Accept": "text/delim",
        }
        began = time.monotonic()

        async def exchange() -> tuple[int, bytes]:
            async with session.post(player.url, data=message.encode("utf-8"), headers=headers) as response:
                return response.status, await response.content.read(MAX_REPLY_BYTES)

        try:
            status, body = await asyncio.wait_for(exchange(), timeout)
        except asyncio.TimeoutError:
            return Exchange(None, time.monotonic() - began, TIMEOUT, f"no reply within {timeout:g} s")
        except (aiohttp.ClientError, OSError) as error:
            return Exchange(None, time.monotonic() - began, COMMUNICATION_ERROR,
                            f"{type(error).__name__}: {error}"[:200])
        seconds = time.monotonic() - began
        text = body.decode("utf-8", errors="replace").strip()
        if status != 200:
            return Exchange(text, seconds, COMMUNICATION_ERROR, f"HTTP {status}: {text[:120]}")
        return Exchange(text, seconds)

    async def _abort(self, session, record: MatchRecord, reason: str, level: int = logging.ERROR) -> None:
        """End the match without goals, telling every player. `level`: a
        failure is an error; the turn limit the operator set is a warning."""
        record.is_aborted = True
        record.abort_reason = reason
        message = Abort(self.match_id).to_kif()
        await asyncio.gather(*(
            self._send(session, player, message, self.play_clock + self.grace) for player in self.players
        ))
        log.log(level, "match=%s aborted: %s", self.match_id, reason)


def format_result(record: MatchRecord) -> str:
    """A few lines for a person: who played which role, goals, errors."""
    lines = [f"match {record.match_id} ({record.game_name or 'game'}): "
             + ("aborted: " + (record.abort_reason or "") if record.is_aborted else f"{len(record.moves)} turns")]
    errors = record.errors_by_player()
    for index, role in enumerate(record.roles):
        if index < len(record.players) and record.players[index] == GAME_MASTER:
            continue
        goal = record.goal_values[index] if record.goal_values else "-"
        player = record.players[index] if index < len(record.players) else ""
        lines.append(f"  {role:<12} {player:<28} goal {goal:>3}  errors {errors[index]}")
    return "\n".join(lines)
