"""The GGP messages as small frozen dataclasses: parsing, printing and replies.

Both ends of the wire use this module: the server parses what a game manager
sends into `Info`, `Preview`, `Start`, `Play`, `Stop` or `Abort`, and our
GameController prints the same dataclasses back into KIF to send them. Message
keywords are case-insensitive (`(INFO)`, `( PLAY id NIL )`); match ids, roles and
moves keep their case, because a move sent back in another case is illegal.

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
class Abort:
    """`(abort MATCHID)`: the match was cancelled."""

    match_id: str

    def to_kif(self) -> str:
        return f"(abort {self.match_id})"


Message = Union[Info, Preview, Start, Play, Stop, Abort]

#: keyword -> number of arguments after it.
_ARITY = {"info": 0, "preview": 2, "start": 5, "play": 2, "stop": 2, "abort": 1}


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
    if len(args) != _ARITY[keyword]:
        raise MalformedMessageError(
            f"'{keyword}' takes {_ARITY[keyword]} arguments, got {len(args)}", text
        )
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
    if keyword == "play":
        return Play(_match_id(args[0], text), _moves(args[1], text))
    if keyword == "stop":
        return Stop(_match_id(args[0], text), _moves(args[1], text))
    return Abort(_match_id(args[0], text))


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
        if sexp.lower() == "nil":
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
