"""A match as a person reads it: the position drawn as a board, the moves as a
numbered list per role, and the replay of a finished match, step by step.

Plain HTML and CSS, no script: a replay steps through a match's positions by
links (`/match/<id>?step=N`), each a page the server makes from the match's
record (`records.MatchRecord`: its `states`, its `moves`, the board the player
found, `gdl.board`). A position arrives as the dict `gdl.board.Position.to_json`
makes; a game without a board shows its fluents as text. This module knows no
game logic and no HTTP.
"""

from __future__ import annotations

import hashlib
import html
import urllib.parse
from typing import Optional

from ..gdl.board import BoardLayout
from ..player.board_view import position_json
from ..player.records import MatchRecord

#: Piece colours, given to a cell's content by a hash of its text (the same
#: content gets the same colour on every page).
_PALETTE = ("#c0392b", "#f1c40f", "#2c3e50", "#ecf0f1", "#27ae60", "#8e44ad", "#e67e22", "#16a085",
            "#2980b9", "#7f8c8d")

#: The style the board, the move list and the replay share (the status page includes it).
BOARD_CSS = """
table.board { border-collapse: collapse; margin: 0.5em 0; }
table.board td { width: 2.6em; height: 2.6em; border: 1px solid #8a6d3b; text-align: center;
  vertical-align: middle; padding: 0; background: #f3e5c0; font-size: 0.8em; }
table.board tr:nth-child(odd) td.cell:nth-child(even), table.board tr:nth-child(even) td.cell:nth-child(odd)
  { background: #e2c98f; }
table.board td.label { border: none; background: none; color: #666; width: 1.6em; height: 1.6em; }
table.board td.moved { outline: 3px solid #d35400; outline-offset: -3px; }
span.piece { display: inline-block; min-width: 1.9em; height: 1.9em; line-height: 1.9em; border-radius: 50%;
  border: 1px solid #333; font-size: 0.75em; overflow: hidden; }
table.moves td, table.moves th { border: none; padding: 0.05em 0.6em; font-size: 0.9em; }
table.moves tr.now td { background: #fde9c9; font-weight: bold; }
table.moves td.n { color: #666; text-align: right; }
div.match { display: flex; gap: 2em; align-items: flex-start; flex-wrap: wrap; }
nav.steps a, nav.steps span { margin-right: 0.8em; }
p.others { font-size: 0.85em; color: #444; max-width: 40em; }
"""


def match_url(match_id: str, step: Optional[int] = None) -> str:
    """The replay page of a finished match (at a step, or at its last one)."""
    url = "/match/" + urllib.parse.quote(match_id, safe="")
    return url if step is None else f"{url}?step={step}"


def board_html(position: Optional[dict]) -> str:
    """A position as a table of cells (the last move's cells outlined), with
    the fluents that are not on the board below it; "" without a position."""
    if not position:
        return ""
    esc = html.escape
    changed = position.get("changed")
    empty = position.get("empty", "")
    rows = []
    for r, (label, cells) in enumerate(zip(position["rows"], position["cells"])):
        tds = [f"<td class=label>{esc(label)}</td>"]
        for c, content in enumerate(cells):
            moved = " moved" if changed and changed[r][c] else ""
            tds.append(f"<td class='cell{moved}'>{_piece(content, empty)}</td>")
        rows.append("<tr>" + "".join(tds) + "</tr>")
    labels = "".join(f"<td class=label>{esc(label)}</td>" for label in position["columns"])
    rows.append(f"<tr><td class=label></td>{labels}</tr>")
    others = position.get("others") or []
    tail = f"<p class=others>also: <code>{esc(' '.join(others))}</code></p>" if others else ""
    return "<table class=board>" + "".join(rows) + "</table>" + tail


def _piece(content: str, empty: str) -> str:
    if not content or content == empty:
        return ""
    esc = html.escape
    colour = _PALETTE[int(hashlib.sha1(content.encode("utf-8")).hexdigest(), 16) % len(_PALETTE)]
    ink = "#000" if colour in ("#f1c40f", "#ecf0f1") else "#fff"
    return f"<span class=piece style='background:{colour};color:{ink}' title='{esc(content)}'>{esc(content)}</span>"


def moves_html(roles: list[str], moves: list[list[str]], current: Optional[int] = None,
               match_id: Optional[str] = None) -> str:
    """The moves as a numbered list per role (one column each); move `current`
    (1-based: the move that led to step `current`) highlighted, and with a
    match id each number links to the replay at that step."""
    if not moves:
        return "<p>No moves yet.</p>"
    esc = html.escape
    head = "<tr><th></th>" + "".join(f"<th>{esc(role)}</th>" for role in roles) + "</tr>"
    rows = []
    for number, joint in enumerate(moves, 1):
        label = f"{number}." if match_id is None else f"<a href='{match_url(match_id, number)}'>{number}.</a>"
        now = " class=now" if number == current else ""
        cells = "".join(f"<td><code>{esc(move)}</code></td>" for move in joint)
        rows.append(f"<tr{now}><td class=n>{label}</td>{cells}</tr>")
    return "<table class=moves>" + head + "".join(rows) + "</table>"


def replay_page(record: MatchRecord, step: Optional[int] = None) -> str:
    """A finished match at one step (0 the initial state; the last by default):
    the board (or the state's fluents), the joint move that led there, links to
    step through, the numbered moves."""
    esc = html.escape
    states = record.states
    last = max(0, len(states) - 1)
    step = last if step is None else max(0, min(step, last))
    layout = BoardLayout.from_json(record.extra["board"]) if record.extra.get("board") else None
    if layout is not None and states:
        picture = board_html(position_json(layout, states, step)) or _fluents_html(states[step])
    else:
        picture = _fluents_html(states[step]) if states else "<p>No state was recorded.</p>"
    played = ""
    if 0 < step <= len(record.moves):
        played = "<p>Last move: " + ", ".join(
            f"{esc(role)} <code>{esc(move)}</code>" for role, move in zip(record.roles, record.moves[step - 1])) + "</p>"
    goals = " ".join(map(str, record.goal_values)) if record.goal_values else "-"
    ending = "completed" if record.is_completed else "aborted" if record.is_aborted else "unfinished"
    ident = record.match_id
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{esc(ident)}: step {step} of {last}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; }}
{BOARD_CSS}
</style></head><body>
<p><a href="/">status</a></p>
<h1>{esc(ident)} <small>step {step} of {last}</small></h1>
<p>Roles {esc(' '.join(record.roles))}; clocks {record.start_clock:g} s / {record.play_clock:g} s;
{ending}, goals {esc(goals)}.</p>
{_steps_html(ident, step, last)}
{played}
<div class=match><div>{picture}</div>
<div>{moves_html(record.roles, record.moves, current=step, match_id=ident)}</div></div>
</body></html>
"""


def _steps_html(match_id: str, step: int, last: int) -> str:
    def link(text: str, target: int) -> str:
        if target == step or not 0 <= target <= last:
            return f"<span>{text}</span>"
        return f"<a href='{match_url(match_id, target)}'>{text}</a>"

    return ("<nav class=steps>" + link("&laquo; first", 0) + link("&lsaquo; previous", step - 1)
            + link("next &rsaquo;", step + 1) + link("last &raquo;", last) + "</nav>")


def _fluents_html(state_text: str) -> str:
    return f"<p class=others>state: <code>{html.escape(state_text)}</code></p>"
