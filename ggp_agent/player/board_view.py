"""The board of a match for people: found once per match, drawn for its current position.

The status page draws a match's position as a board when the game has one
(`gdl.board`). The board is looked for in every fluent the engine knows (a
propnet knows them all), else in the states met so far, again as new states
come, until it is found. A match's record keeps the board it found (`board`
in the record's extra keys), so a finished match replays from its record alone.

This module reads a match; it changes nothing but the match's board cache.
"""

from __future__ import annotations

import sys
from typing import Iterable, Optional

from ..gdl import GdlError, parse_term_list
from ..gdl.board import BoardLayout, Position, background, draw, find_board
from ..gdl.terms import Term
from .match import Match


def board_of(match: Match) -> Optional[BoardLayout]:
    """The match's board, looked for again while not found and new states came."""
    if match.board is not None or match.following is None:
        return match.board
    seen = len(match.history.states)
    if match.board_looked_at == seen:
        return None
    known = match.following.machine.known_fluents()
    # every fluent known: one look decides; else look again when states come
    match.board_looked_at = sys.maxsize if known is not None else seen
    fluents: Iterable[Term] = known if known is not None else _fluents_of(match.history.states)
    match.board = find_board(fluents, match.start.rules)
    return match.board


def current_position(match: Match) -> Optional[dict]:
    """The current position as the status page draws it, the last move's cells
    marked; None when the game has no board (or the match has no state yet)."""
    layout = board_of(match)
    states = match.history.states
    if layout is None or not states:
        return None
    return position_json(layout, states, len(states) - 1)


def current_view(match: Match) -> dict:
    """What the status page draws of a match now: `position`, the board (None
    without one), and `state`, the current state as text when there is no
    board to draw it on."""
    position = current_position(match)
    states = match.history.states
    return {"position": position, "state": None if position is not None or not states else states[-1]}


def position_json(layout: BoardLayout, states: list[str], step: int) -> Optional[dict]:
    """Step `step` of a match's states (as records write them) drawn on its
    board, the cells the step's joint move changed marked; None when a state
    cannot be read back."""
    try:
        now = _draw_text(layout, states[step])
        before = _draw_text(layout, states[step - 1]) if step > 0 else None
        first = _draw_text(layout, states[0])
    except GdlError:
        return None
    return now.to_json(before, empty=background(first))


def _draw_text(layout: BoardLayout, text: str) -> Position:
    return draw(layout, parse_term_list(text))


def _fluents_of(states: list[str]) -> set[Term]:
    found: set[Term] = set()
    for text in states:
        try:
            found.update(parse_term_list(text))
        except GdlError:
            continue
    return found
