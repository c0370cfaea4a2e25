"""The GGP messages as small frozen dataclasses: parsing, printing and replies.

Both ends of the wire use this module: the server parses what a game manager
sends into `Info`, `Preview`, `Start`, `Play`, `Stop` or `Abort`, and our
GameController prints the same dataclasses back into KIF to send them. Message
keywords are case-insensitive (`(INFO)`, `( PLAY id NIL )`); match ids, roles and
moves keep their case, because a move sent back in another case is illegal.

GDL-II matches (the Dresden game master's protocol) have their own PLAY and
STOP: `(play MATCHID TURN LASTMOVE PERCEPTS)`, parsed into `PerceptPlay` and
`PerceptStop`. The parser tells the two forms apart by their shape (two
arguments or four), so a player meets whichever its game master speaks.

Parsing reuses the GDL reader (`read_forms`), so there is one tokenizer in the
project. Every failure is a `ProtocolError` naming the message and what is wrong
with it, in one line, fit for an HTTP 400 reply. This module knows nothing of
HTTP, matches or engines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Union

from ..gdl import GdlSyntaxError, Rule, Term, read_forms, rules_from_sexps, variables
from ..gdl.reader import SExp, sexp_to_kif, to_term

#: Replies with a fixed text.
READY = "ready"
BUSY = "busy"
DONE = "done"
ABORTED = "aborted"

#: How much of an offending message an error quotes.
_QUOTE_LIMIT = 120


class ProtocolError(Exception):
    """A message that cannot be understood; `str()` is one line, fit for a 400 reply."""

    def __init__(self, reason: str, message: Optional[str] = None):
        super().__init__(reason)
        self.reason = reason
        self.message = message

    def __str__(self) -> str:
        if self.message is None:
            return self.reason
        return f"{self.reason} (in message: {_quote(self.message)})"


class MalformedMessageError(ProtocolError):
    """Not well-formed KIF, a wrong number of arguments, a clock that is not a number."""


class UnknownMessageError(ProtocolError):
    """A well-formed message whose keyword is none of the protocol's."""


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _QUOTE_LIMIT else flat[:_QUOTE_LIMIT] + "..."


def _format_clock(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else repr(float(seconds))


def _format_moves(moves: Optional[tuple[Term, ...]]) -> str:
    return "nil" if moves is None else "(" + " ".join(map(str, moves)) + ")"


@dataclass(frozen=True)
class Info:
    """`(info)`: a ping; the reply says our name and whether we are free."""

    def to_kif(self) -> str:
        return "(info)"


@dataclass(frozen=True)
class Preview:
    """`(preview RULES CLOCK)`: the rules in advance; we answer `ready`."""

    rules: tuple[Rule, ...]
    preview_clock: float

    def to_kif(self) -> str:
        rules = " ".join(map(str, self.rules))
        return f"(preview ({rules}) {_format_clock(self.preview_clock)})"


@dataclass(frozen=True)
class Start:
    """`(start MATCHID ROLE (RULES...) STARTCLOCK PLAYCLOCK)`: a new match.

    `role` is the term the manager named; the player finds it among the game's
    roles. Clocks are in seconds and count from when the manager sent the message.
    """

    match_id: str
    role: Term
    rules: tuple[Rule, ...]
    start_clock: float
    play_clock: float

    def to_kif(self) -> str:
        rules = " ".join(map(str, self.rules))
        return (
            f"(start {self.match_id} {self.role} ({rules}) "
            f"{_format_clock(self.start_clock)} {_format_clock(self.play_clock)})"
        )


@dataclass(frozen=True)
class Play:
    """`(play MATCHID MOVES)`: our move is due; `moves` is None on the first turn,
    else the last joint move, one term per role in role order."""

    match_id: str
    moves: Optional[tuple[Term, ...]]

    def to_kif(self) -> str:
        return f"(play {self.match_id} {_format_moves(self.moves)})"


@dataclass(frozen=True)
class Stop:
    """`(stop MATCHID MOVES)`: the game ended after the joint move `moves`."""

    match_id: str
    moves: Optional[tuple[Term, ...]]

    def to_kif(self) -> str:
        return f"(stop {self.match_id} {_format_moves(self.moves)})"


@dataclass(frozen=True)
class PerceptPlay:
    """`(play MATCHID TURN LASTMOVE PERCEPTS)`: GDL-II's PLAY; our move is due.

    A GDL-II player sees neither the state nor the others' moves. `turn` is 0 on
    the first PLAY and grows by one with each PLAY or STOP; `last_move` is our own
    move as the game master executed it last turn (it differs from our reply when
    that was late or illegal), None at turn 0; `percepts` is what we perceived of
    that turn (the `sees` facts of our role), empty at turn 0. Printed, empty
    percepts and a missing move are `nil`.
    """

    match_id: str
    turn: int
    last_move: Optional[Term]
    percepts: tuple[Term, ...]

    def to_kif(self) -> str:
        return _format_percept_message("play", self)


@dataclass(frozen=True)
class PerceptStop:
    """`(stop MATCHID TURN LASTMOVE PERCEPTS)`: GDL-II's STOP; the game ended after
    our `last_move`, and `percepts` are what we perceived of that last turn."""

    match_id: str
    turn: int
    last_move: Optional[Term]
    percepts: tuple[Term, ...]

    def to_kif(self) -> str:
        return _format_percept_message("stop", self)


def _format_percept_message(keyword: str, message: "PerceptPlay | PerceptStop") -> str:
    move = "nil" if message.last_move is None else str(message.last_move)
    percepts = _format_moves(message.percepts or None)
    return f"({keyword} {message.match_id} {message.turn} {move} {percepts})"


@dataclass(frozen=True)
class Abort:
    """`(abort MATCHID)`: the match was cancelled."""

    match_id: str

    def to_kif(self) -> str:
        return f"(abort {self.match_id})"


Message = Union[Info, Preview, Start, Play, Stop, PerceptPlay, PerceptStop, Abort]

#: keyword -> the numbers of arguments it may take after it.
_ARITY = {"info": (0,), "preview": (2,), "start": (5,), "play": (2, 4), "stop": (2, 4), "abort": (1,)}

#: The two forms of PLAY and STOP, for error messages.
_PLAY_FORMS = "2 arguments (MOVES) or 4 (GDL-II: TURN LASTMOVE PERCEPTS)"


def parse_message(text: str) -> Message:
    """Parse one protocol message, e.g. `( PLAY m1 (( mark 1 1 ) noop ) )`.

    >>> parse_message("( PLAY m1 (( mark 1 1 ) noop ) )")
    Play(match_id='m1', moves=(Compound(functor='mark', args=(Symbol(name='1'), Symbol(name='1'))), Symbol(name='noop')))
    >>> parse_message("(INFO)")
    Info()

    Raises MalformedMessageError or UnknownMessageError with a one-line reason.
    """
    if not text.strip():
        raise MalformedMessageError("empty message")
    try:
        forms = read_forms(text)
    except GdlSyntaxError as error:
        raise MalformedMessageError(f"not well-formed KIF: {error.reason}", text) from None
    if len(forms) != 1:
        raise MalformedMessageError(f"expected one message, found {len(forms)} forms", text)
    sexp = forms[0].sexp
    if isinstance(sexp, str):
        # A bare keyword, e.g. `info` without parentheses: accept the 0-ary one.
        sexp = [sexp]
    if not sexp or not isinstance(sexp[0], str):
        raise MalformedMessageError("a message starts with a keyword", text)
    keyword = sexp[0].lower()
    args = sexp[1:]
    if keyword not in _ARITY:
        raise UnknownMessageError(f"unknown message '{sexp[0]}'", text)
    if len(args) not in _ARITY[keyword]:
        raise MalformedMessageError(f"'{keyword}' takes {_arity_text(keyword)}, got {len(args)}", text)
    if keyword == "info":
        return Info()
    if keyword == "preview":
        return Preview(_rules(args[0], text), _clock(args[1], "preview clock", text))
    if keyword == "start":
        return Start(
            match_id=_match_id(args[0], text),
            role=_ground_term(args[1], "role", text),
            rules=_rules(args[2], text),
            start_clock=_clock(args[3], "start clock", text),
            play_clock=_clock(args[4], "play clock", text),
        )
    if keyword in ("play", "stop") and len(args) == 4:
        kind = PerceptPlay if keyword == "play" else PerceptStop
        return kind(
            match_id=_match_id(args[0], text),
            turn=_turn(args[1], text),
            last_move=_optional_move(args[2], text),
            percepts=_percepts(args[3], text),
        )
    if keyword == "play":
        return Play(_match_id(args[0], text), _moves(args[1], text))
    if keyword == "stop":
        return Stop(_match_id(args[0], text), _moves(args[1], text))
    return Abort(_match_id(args[0], text))


def _arity_text(keyword: str) -> str:
    counts = _ARITY[keyword]
    return _PLAY_FORMS if len(counts) > 1 else f"{counts[0]} arguments"


def _turn(sexp: SExp, text: str) -> int:
    if isinstance(sexp, str) and sexp.isascii() and sexp.isdigit():
        return int(sexp)
    raise MalformedMessageError(f"the turn must be a whole number, not {_quote(sexp_to_kif(sexp))}", text)


def _is_nil(sexp: SExp) -> bool:
    return isinstance(sexp, str) and sexp.lower() == "nil"


def _optional_move(sexp: SExp, text: str) -> Optional[Term]:
    return None if _is_nil(sexp) else _ground_term(sexp, "last move", text)


def _percepts(sexp: SExp, text: str) -> tuple[Term, ...]:
    if _is_nil(sexp):
        return ()
    if isinstance(sexp, str):
        raise MalformedMessageError(f"percepts must be nil or a list of percepts, not {_quote(sexp)}", text)
    return tuple(_ground_term(item, "percept", text) for item in sexp)


def _match_id(sexp: SExp, text: str) -> str:
    if not isinstance(sexp, str):
        raise MalformedMessageError(f"a match id is a symbol, not {_quote(sexp_to_kif(sexp))}", text)
    return sexp


def _clock(sexp: SExp, what: str, text: str) -> float:
    if isinstance(sexp, str):
        try:
            value = float(sexp)
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    raise MalformedMessageError(
        f"the {what} must be a number of seconds, not {_quote(sexp_to_kif(sexp))}", text
    )


def _ground_term(sexp: SExp, what: str, text: str) -> Term:
    try:
        term = to_term(sexp)
    except GdlSyntaxError as error:
        raise MalformedMessageError(f"bad {what}: {error.reason}", text) from None
    if next(variables(term), None) is not None:
        raise MalformedMessageError(f"the {what} {term} holds a variable", text)
    return term


def _rules(sexp: SExp, text: str) -> tuple[Rule, ...]:
    if isinstance(sexp, str):
        raise MalformedMessageError("the rules must be a parenthesized list of rules", text)
    try:
        return rules_from_sexps(sexp)
    except GdlSyntaxError as error:
        raise MalformedMessageError(f"bad rules: {error.reason}", text) from None


def _moves(sexp: SExp, text: str) -> Optional[tuple[Term, ...]]:
    if isinstance(sexp, str):
        if _is_nil(sexp):
            return None
        raise MalformedMessageError(f"moves must be nil or a list of moves, not {sexp}", text)
    return tuple(_ground_term(item, "move", text) for item in sexp)


def info_reply(name: str, busy: bool, species: Optional[str] = None) -> str:
    """The reply to `(info)`: `((name NAME) (status available))`, `busy` mid-match."""
    parts = [f"(name {name})", f"(status {'busy' if busy else 'available'})"]
    if species:
        parts.append(f"(species {species})")
    return "(" + " ".join(parts) + ")"


def parse_info_reply(text: str) -> dict[str, str]:
    """The fields of an INFO reply (`name`, `status`, ...); a bare word is the status.

    ggp-base's older players answer `available` or `busy` alone.
    """
    try:
        forms = read_forms(text)
    except GdlSyntaxError as error:
        raise MalformedMessageError(f"not well-formed KIF: {error.reason}", text) from None
    if len(forms) == 1 and isinstance(forms[0].sexp, str):
        return {"status": forms[0].sexp.lower()}
    fields: dict[str, str] = {}
    for form in forms:
        items = form.sexp if isinstance(form.sexp, list) else [form.sexp]
        for item in items:
            if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str):
                fields[item[0].lower()] = sexp_to_kif(item[1])
    return fields


def safe_name(name: str) -> str:
    """A player name as one KIF symbol (no spaces, parentheses or `;`)."""
    cleaned = "".join(ch if not (ch.isspace() or ch in "();") else "_" for ch in name)
    return cleaned or "ggp-agent"
