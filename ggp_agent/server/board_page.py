"""A position as a person reads it: the board drawn (squares, or hexagons in
a rhombus), its pieces coloured, and the moves numbered.

Plain HTML and CSS. A position arrives as the dict `gdl.board.Position.to_json`
makes. A piece whose content names a colour (`red`, `yellow`, `black`,
`white`, ...) is a disc of that colour, with the content's other words on it
(the wargame's health); any other piece takes a colour of a fixed palette by
its place among the pieces the board was seen to hold, so it keeps its colour
through a match, and a legend names it. A game without a board shows its
state as text. This module knows no game logic and no HTTP.
"""

from __future__ import annotations

import hashlib
import html
import urllib.parse
from typing import Optional

#: Colours for pieces named by a colour: the name in its first word, as CSS.
NAMED_COLOURS = {
    "red": "#d62728", "yellow": "#f5c400", "black": "#1b1b1b", "white": "#f7f7f7", "blue": "#1f5fbf",
    "green": "#2ca02c", "orange": "#ff7f0e", "purple": "#7b3fa0", "brown": "#8c564b", "pink": "#e377c2",
    "grey": "#8a8a8a", "gray": "#8a8a8a", "cyan": "#17becf", "magenta": "#c2185b",
}
#: Colours for the other pieces, in the order of the board's pieces.
PALETTE = ("#1f5fbf", "#d62728", "#2ca02c", "#7b3fa0", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
           "#bcbd22", "#555555")
#: Colours light enough to want dark ink on them.
_LIGHT = {"#f5c400", "#f7f7f7", "#bcbd22", "#17becf", "#ff7f0e", "#e377c2"}
#: The longest content written on its disc when the piece is not named by a colour (`x`, `wk`).
SHORT_LABEL = 2
#: Width of a hexagonal cell with its gap, in em (the rows' shift is counted in it).
HEX_STEP_EM = 2.7

#: The style the board, the move list and the replay share (the pages include it).
BOARD_CSS = """
table.board { border-collapse: collapse; margin: 0.5em 0; }
table.board td { width: 2.6em; height: 2.6em; border: 1px solid #8a6d3b; text-align: center;
  vertical-align: middle; padding: 0; background: #f3e5c0; font-size: 0.8em; }
table.board tr:nth-child(odd) td.cell:nth-child(even), table.board tr:nth-child(even) td.cell:nth-child(odd)
  { background: #e2c98f; }
table.board td.label { border: none; background: none; color: #666; width: 1.6em; height: 1.6em; font-size: 0.8em; }
div.hexboard span.label { color: #666; width: 1.6em; height: 1.6em; }
table.board td.moved { outline: 3px solid #d35400; outline-offset: -3px; }
div.hexboard { margin: 0.5em 0; font-size: 0.8em; white-space: nowrap; }
div.hexrow { height: 2.35em; }
div.hexrow span { display: inline-flex; align-items: center; justify-content: center; vertical-align: top; }
div.hexboard span.cell { width: 2.6em; height: 3em; margin-right: 0.1em; background: #e2c98f;
  clip-path: polygon(50% 0, 100% 25%, 100% 75%, 50% 100%, 0 75%, 0 25%); }
div.hexboard span.cell.moved { background: #f0a35e; }
span.piece { display: inline-block; min-width: 1.9em; height: 1.9em; line-height: 1.9em; border-radius: 50%;
  border: 1px solid #333; font-size: 0.8em; text-align: center; box-sizing: border-box; }
p.legend span.piece { min-width: 1.3em; height: 1.3em; line-height: 1.3em; vertical-align: middle; }
p.legend { font-size: 0.85em; }
table.moves td, table.moves th { border: none; padding: 0.05em 0.6em; font-size: 0.9em; text-align: left; }
table.moves tr.now td { background: #fde9c9; font-weight: bold; }
table.moves td.n { color: #666; text-align: right; }
div.match { display: flex; gap: 2em; align-items: flex-start; flex-wrap: wrap; }
nav.steps a, nav.steps span { margin-right: 0.8em; }
p.others { font-size: 0.85em; color: #444; max-width: 26em; }
pre.state { font-size: 0.8em; max-width: 40em; max-height: 20em; overflow: auto; white-space: pre-wrap; }
"""


def match_url(match_id: str, step: Optional[int] = None, record: bool = False) -> str:
    """The replay page of a finished match (at a step, or at its last one), or its JSON record."""
    url = "/match/" + urllib.parse.quote(match_id, safe="")
    if record:
        return url + "?format=json"
    return url if step is None else f"{url}?step={step}"


def board_html(position: Optional[dict]) -> str:
    """A position as a board (the last move's cells marked), a legend for the
    pieces not named by a colour, and the fluents that are not on the board;
    "" without a position."""
    if not position:
        return ""
    shift = position.get("shift") or []
    drawn = _hex_html(position) if any(shift) else _square_html(position)
    others = position.get("others") or []
    tail = f"<p class=others>also: <code>{html.escape(' '.join(others))}</code></p>" if others else ""
    return drawn + _legend_html(position) + tail


def state_html(state_text: Optional[str]) -> str:
    """A state without a board, as its fluents, one a line."""
    if not state_text:
        return "<p>No state yet.</p>"
    lines = state_text.strip()[1:-1].replace(") (", ")\n(") if state_text.startswith("(") else state_text
    return f"<pre class=state>{html.escape(lines)}</pre>"


def _square_html(position: dict) -> str:
    esc = html.escape
    changed = position.get("changed")
    rows = []
    for r, (label, cells) in enumerate(zip(position["rows"], position["cells"])):
        tds = [f"<td class=label>{esc(label)}</td>"]
        for c, content in enumerate(cells):
            tds.append(_cell("td", content, position, bool(changed and changed[r][c])))
        rows.append("<tr>" + "".join(tds) + "</tr>")
    labels = "".join(f"<td class=label>{esc(label)}</td>" for label in position["columns"])
    rows.append(f"<tr><td class=label></td>{labels}</tr>")
    return "<table class=board>" + "".join(rows) + "</table>"


def _hex_html(position: dict) -> str:
    """Hexagons, each row shifted by its share of a cell (a rhombus)."""
    esc = html.escape
    changed = position.get("changed")
    shift = position["shift"]
    rows = []
    for r, (label, cells) in enumerate(zip(position["rows"], position["cells"])):
        spans = "".join(_cell("span", content, position, bool(changed and changed[r][c]))
                        for c, content in enumerate(cells))
        rows.append(f"<div class=hexrow style='margin-left:{shift[r] * HEX_STEP_EM:.2f}em'>"
                    f"<span class=label>{esc(label)}</span>{spans}</div>")
    labels = "".join(f"<span class=label style='width:{HEX_STEP_EM}em'>{esc(label)}</span>"
                     for label in position["columns"])
    rows.append(f"<div class=hexrow style='margin-left:{shift[-1] * HEX_STEP_EM:.2f}em'>"
                f"<span class=label></span>{labels}</div>")
    return "<div class=hexboard>" + "".join(rows) + "</div>"


def _cell(tag: str, content: str, position: dict, moved: bool) -> str:
    """One cell; its title says what it holds (what a browser shows on hover, and what tests read)."""
    empty = position.get("empty", "")
    shown = "" if content == empty else content
    mark = " moved" if moved else ""
    return (f"<{tag} class='cell{mark}' title='{html.escape(shown)}'>"
            f"{piece_html(shown, position.get('pieces') or [])}</{tag}>")


def piece_style(content: str, pieces: list[str]) -> tuple[str, str, bool]:
    """(background colour, text on the disc, named by a colour) for a piece:
    the colour its first word names, with its other words on it; else the
    palette's colour at its place among `pieces` (a hash of its text when it
    is not among them), with the content on it when it is short.

    >>> piece_style("red", ["red", "yellow"])
    ('#d62728', '', True)
    >>> piece_style("blue 2", [])
    ('#1f5fbf', '2', True)
    >>> piece_style("wk", ["bk", "bp", "wk", "wp"])
    ('#2ca02c', 'wk', False)
    """
    words = content.split()
    if words and words[0].lower() in NAMED_COLOURS:
        return NAMED_COLOURS[words[0].lower()], " ".join(words[1:]), True
    if content in pieces:
        colour = PALETTE[pieces.index(content) % len(PALETTE)]
    else:
        colour = PALETTE[int(hashlib.sha1(content.encode("utf-8")).hexdigest(), 16) % len(PALETTE)]
    return colour, content if len(content) <= SHORT_LABEL else "", False


def piece_html(content: str, pieces: list[str]) -> str:
    if not content:
        return ""
    colour, label, _ = piece_style(content, pieces)
    ink = "#000" if colour in _LIGHT else "#fff"
    return (f"<span class=piece style='background:{colour};color:{ink}'>"
            f"{html.escape(label)}</span>")


def _legend_html(position: dict) -> str:
    """The pieces whose colour does not say what they are, each with its disc:
    those the board was seen to hold, and any other the position holds (a
    board found from the first states does not know a king yet)."""
    pieces = position.get("pieces") or []
    empty = position.get("empty", "")
    held = sorted({c for row in position["cells"] for c in row if c and c != empty} - set(pieces))
    unnamed = [p for p in pieces + held if not piece_style(p, pieces)[2]]
    if not unnamed:
        return ""
    return "<p class=legend>" + " &nbsp; ".join(
        f"{piece_html(p, pieces)} <code>{html.escape(p)}</code>" for p in unnamed) + "</p>"


def move_number(turn: int) -> int:
    """The number a person reads for the reply to a PLAY: the move it became
    (a reply's turn counts the joint moves before it, from 0; the move list,
    the replay's steps and the record's `moves` count from 1)."""
    return turn + 1


def waiting_move(moves: list[list[str]]) -> Optional[str]:
    """The move every role but one plays at every turn (`noop` in a game of
    alternating turns), or None when the game has no such move (simultaneous
    moves, or one role).

    >>> waiting_move([["(drop 1)", "noop"], ["noop", "(drop 2)"]])
    'noop'
    >>> waiting_move([["a", "b"], ["b", "a"], ["a", "a"]]) is None
    True
    """
    if not moves or len(moves[0]) < 2:
        return None
    for candidate in dict.fromkeys(moves[0]):
        if all(sum(move != candidate for move in joint) == 1 for joint in moves):
            return candidate
    return None


def moves_html(roles: list[str], moves: list[list[str]], current: Optional[int] = None,
               match_id: Optional[str] = None, recent: Optional[int] = None, fold_id: str = "moves") -> str:
    """The moves numbered from 1 (move N leads to step N of a replay): in a
    game of alternating turns one row per move with the role that played it
    (the others' `noop` folded away), else a column per role. Move `current`
    is highlighted; with a match id each number links to the replay at that
    step; with `recent` only the last moves show and the earlier ones are
    folded (`<details>` with the id `fold_id`, kept open across updates)."""
    if not moves:
        return "<p>No moves yet.</p>"
    esc = html.escape
    waiting = waiting_move(moves)
    if waiting is not None:
        head = "<tr><th></th><th>role</th><th>move</th></tr>"
    else:
        head = "<tr><th></th>" + "".join(f"<th>{esc(role)}</th>" for role in roles) + "</tr>"
    rows = []
    for number, joint in enumerate(moves, 1):
        label = f"{number}." if match_id is None else f"<a href='{match_url(match_id, number)}'>{number}.</a>"
        now = " class=now" if number == current else ""
        if waiting is not None:
            mover = next(k for k, move in enumerate(joint) if move != waiting)
            role = roles[mover] if mover < len(roles) else ""
            cells = f"<td>{esc(role)}</td><td><code>{esc(joint[mover])}</code></td>"
        else:
            cells = "".join(f"<td><code>{esc(move)}</code></td>" for move in joint)
        rows.append(f"<tr{now}><td class=n>{label}</td>{cells}</tr>")
    if recent is None or len(rows) <= recent:
        return "<table class=moves>" + head + "".join(rows) + "</table>"
    earlier = len(rows) - recent
    return (f"<details id='{esc(fold_id)}'><summary>{earlier} earlier move(s)</summary><table class=moves>{head}"
            + "".join(rows[:earlier]) + "</table></details>"
            + "<table class=moves>" + head + "".join(rows[earlier:]) + "</table>")
