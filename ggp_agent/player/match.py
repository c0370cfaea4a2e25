"""One match as the player sees it: where our engine is, what the search knows, what happened.

A match's data falls into three parts that change for different reasons, each
its own small record:

- `Following`: our engine's view of the game (the state after the joint moves
  applied so far, our legal moves there and a random fallback among them, the
  joint moves reported but not applied yet, and why we lost track if we did);
- `SearchLink`: the search and whether its root is our current state;
- `History`: what goes in the record (joint moves, states, our turns; in a
  GDL-II match, what we were told each turn and the belief's figures).

A GDL-II match also holds a `Belief` (the states its percepts leave possible),
which stands where the state stands in a GDL match.

`Match` holds them with the protocol's side (the START message, the status,
the timestamps). Nothing here does work: `player.py` does.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import time
from dataclasses import dataclass, field
from typing import Optional

from ..gdl.board import BoardLayout
from ..gdl.terms import Term
from ..reasoner.statemachine import State, StateMachine
from ..search.contract.belief import Belief
from ..search.contract.interface import Search
from .protocol import Start
from .records import MatchRecord


class MatchStatus(enum.Enum):
    """Where a match is in its life."""

    STARTING = "starting"
    PLAYING = "playing"
    STOPPED = "stopped"
    ABORTED = "aborted"
    ABANDONED = "abandoned"
    FAILED = "failed"


class ReplySource(enum.Enum):
    """Where the move we sent came from."""

    SEARCH = "search"
    FORCED = "forced"  # our only legal move
    FALLBACK = "fallback"  # the random legal move kept ready (no usable answer from the search)
    STALE = "stale"  # our engine is behind the match: one of the last legal moves we know
    RULES = "rules"  # our engine had no legal move where the match asks for one: the rules' (Prolog's)
    NONE = "none"  # no legal move at all, the rules' neither (a broken game): nil


@dataclass
class TurnLog:
    """What the player did on one PLAY (for the record and the status page)."""

    turn: int
    move: str
    source: ReplySource
    time_used: float
    margin_left: float
    stats: dict

    def to_json(self) -> dict:
        return {
            "turn": self.turn, "move": self.move, "source": self.source.value,
            "timeUsed": round(self.time_used, 4), "marginLeft": round(self.margin_left, 4),
            "stats": self.stats,
        }


@dataclass
class Following:
    """Our engine's view of the match."""

    machine: StateMachine
    role_index: int
    roles: tuple[Term, ...]
    state: State
    legal_now: tuple[Term, ...]
    fallback: Optional[Term]
    #: joint moves reported but not applied yet, and the job applying them
    pending: list[tuple[Term, ...]] = field(default_factory=list)
    catching_up: Optional[asyncio.Future] = None
    #: why our engine cannot follow the match any more, or None
    lost: Optional[str] = None
    #: our legal moves the last time we had a choice, and the joint moves
    #: applied since: what a stale reply guesses from (`stale_choices`)
    last_choice: tuple[Term, ...] = ()
    played_since_choice: list[tuple[Term, ...]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.legal_now) > 1:
            self.last_choice = self.legal_now

    def take_state(self, joint: tuple[Term, ...], state: State, legal: tuple[Term, ...]) -> None:
        """Our engine applied `joint`: `state` and our `legal` moves are current."""
        self.state, self.legal_now = state, legal
        if len(legal) > 1:
            self.last_choice, self.played_since_choice = legal, []
        else:
            self.played_since_choice.append(joint)

    def stale_choices(self) -> tuple[Term, ...]:
        """The moves a reply picks from when our state is behind the match.

        The legal moves we know are those of a state the match has left. When
        that state gave us one move only (a noop while the opponent moves, in
        a game that alternates) it will not be legal now: the moves of our
        last choice are a better guess, less those played since or reported
        (a cell taken is not free any more). One rule for every game: it
        guesses, and the reply stays a guess."""
        pool = self.legal_now if len(self.legal_now) > 1 or not self.last_choice else self.last_choice
        played = {move for joint in [*self.played_since_choice, *self.pending] for move in joint}
        fresh = tuple(move for move in pool if move not in played)
        return fresh or pool


@dataclass
class SearchLink:
    """The search of a match, and what it has seen."""

    search: Optional[Search] = None
    #: the search's root is our current state
    current: bool = False
    #: the call into the search in flight (at most one)
    call: Optional[asyncio.Future] = None
    #: a root change left running after a forced reply (kept so it is not lost)
    advancing: Optional[asyncio.Future] = None
    #: (joint move, state, our legal moves) the search has not been told yet
    unseen: list = field(default_factory=list)


@dataclass
class History:
    """What happened, for the record."""

    joint_moves: list[tuple[Term, ...]] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    turns: list[TurnLog] = field(default_factory=list)
    #: GDL-II: per turn, our executed move, our percepts and the belief's figures
    observations: list[dict] = field(default_factory=list)


@dataclass
class UnsentReply:
    """The last PLAY reply, until the server says when it went out."""

    turn: TurnLog
    #: when the reply was planned to leave (None: not a planned wait), and the clock's end
    planned: Optional[float]
    hard_limit: float


@dataclass
class Match:
    """One match in progress."""

    start: Start
    received: float
    status: MatchStatus = MatchStatus.STARTING
    following: Optional[Following] = None
    link: SearchLink = field(default_factory=SearchLink)
    history: History = field(default_factory=History)
    #: GDL-II: the states consistent with our moves and percepts (None in a GDL match)
    belief: Optional[Belief] = None
    compile_seconds: Optional[float] = None
    unsent: Optional[UnsentReply] = None
    last_message_at: float = field(default_factory=time.monotonic)
    started_wall: float = field(default_factory=time.time)
    #: the START's compile job; PLAY waits for it
    ready: Optional[asyncio.Future] = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: the game's board, once found (`board_view`), and how many states were looked at for it
    board: Optional[BoardLayout] = None
    board_looked_at: int = -1
    #: True once the match holds the garbage collector's freeze (`collector.hold`)
    holds_collector: bool = False
    #: the turn at which the match moved to a propnet built in the background (`upgrade.py`)
    switched_at_turn: Optional[int] = None

    @property
    def match_id(self) -> str:
        return self.start.match_id

    @property
    def role_text(self) -> str:
        return str(self.start.role)

    @property
    def roles(self) -> tuple[Term, ...]:
        return self.following.roles if self.following else ()

    def idle_limit(self, grace: float) -> float:
        """Seconds without a message after which the match counts as abandoned."""
        return 2 * max(self.start.start_clock, self.start.play_clock) + grace

    def summary(self) -> dict:
        """What the status page shows about this match."""
        turns = self.history.turns
        last = turns[-1] if turns else None
        searched = next((t for t in reversed(turns) if t.source is ReplySource.SEARCH), None)
        return {
            "match_id": self.match_id,
            "role": self.role_text,
            "status": self.status.value,
            "roles": [str(r) for r in self.roles],
            "start_clock": self.start.start_clock,
            "play_clock": self.start.play_clock,
            "turn": max(len(self.history.joint_moves), len(self.history.observations)),
            "moves": [[str(m) for m in joint] for joint in self.history.joint_moves],
            "compile_seconds": self.compile_seconds,
            "last_move": last.to_json() if last else None,
            "last_search": searched.to_json() if searched else None,
            "rules_hash": rules_hash(self.start),
        }

    def record(self, player_name: str, search_rule: str, goals: Optional[list[int]]) -> MatchRecord:
        """The player's record of the match (its own view: its turns, its figures)."""
        start = self.start
        role_index = self.following.role_index if self.following else None
        lost = self.following.lost if self.following else None
        return MatchRecord(
            match_id=self.match_id,
            game_name="",
            roles=[str(r) for r in self.roles],
            start_clock=start.start_clock,
            play_clock=start.play_clock,
            players=[player_name if i == role_index else "" for i in range(len(self.roles))],
            start_time=self.started_wall,
            moves=[[str(m) for m in joint] for joint in self.history.joint_moves],
            states=self.history.states,
            goal_values=goals,
            is_completed=self.status is MatchStatus.STOPPED and goals is not None,
            is_aborted=self.status is not MatchStatus.STOPPED,
            extra={
                "role": self.role_text,
                "rulesHash": rules_hash(start),
                "compileSeconds": self.compile_seconds,
                **({"engine": self.following.machine.engine_name} if self.following else {}),
                "turns": [t.to_json() for t in self.history.turns],
                "searchRule": search_rule,
                "status": self.status.value,
                "endTime": int(time.time() * 1000),
                **({"board": self.board.to_json()} if self.board else {}),
                **({"engineLost": lost} if lost else {}),
                **({"engineSwitchedAtTurn": self.switched_at_turn} if self.switched_at_turn is not None else {}),
                **({"observations": self.history.observations} if self.belief is not None else {}),
            },
        )


def rules_hash(start: Start) -> str:
    """A short fingerprint of a START's rules (the game has no name in the protocol)."""
    text = " ".join(map(str, start.rules))
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]
