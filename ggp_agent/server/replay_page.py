"""A finished match replayed step by step from its record (`GET /match/<id>?step=N`).

Step N is the position after move N (0 the initial state). Each page says
which role we played, against whom, how the match ended in words, and, for the
step's move, what we played, where the move came from, the time it took and
what the search thought (its line: top moves, visits, values). Below the board,
the moves numbered; below them, every move of ours with its time and its
search, the turns we could only wait (`noop` in a game of alternating turns)
folded away. The JSON record is one link away. Made from the record alone
(`records.MatchRecord`: its `states`, `moves`, the board the player found and
its `turns`), so a match replays after a restart as well as before.
"""

from __future__ import annotations

import html
from typing import Optional

from ..gdl.board import BoardLayout
from ..player.board_view import position_json
from ..player.record_index import Beside, record_summary
from ..player.records import MatchRecord
from .board_page import BOARD_CSS, board_html, match_url, move_number, moves_html, state_html
from .figures_html import figures_html, search_line
from .match_list import duration_text, opponents_text, result_text, when_text


def replay_page(record: MatchRecord, step: Optional[int] = None, beside: Optional[Beside] = None) -> str:
    """A finished match at one step (0 the initial state; the last by default);
    `beside`, what the controller's record adds (the players' names, why it aborted)."""
    esc = html.escape
    states = record.states
    last = max(0, len(states) - 1)
    step = last if step is None else max(0, min(step, last))
    layout = BoardLayout.from_json(record.extra["board"]) if record.extra.get("board") else None
    if layout is not None and states:
        picture = board_html(position_json(layout, states, step)) or state_html(states[step])
    else:
        picture = state_html(states[step]) if states else "<p>No state was recorded.</p>"
    summary = record_summary(record, beside)
    ident = record.match_id
    turns = [t for t in record.extra.get("turns") or [] if isinstance(t, dict)]
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{esc(ident)}: step {step} of {last}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; }}
table.turns td, table.turns th {{ border-bottom: 1px solid #ddd; padding: 0.2em 0.6em; font-size: 0.9em;
  text-align: left; vertical-align: top; }}
table.turns {{ border-collapse: collapse; }}
table.turns td {{ white-space: nowrap; }}
table.turns td.search {{ white-space: normal; }}
table.inner td, table.inner th {{ border: none; padding: 0.1em 0.5em 0.1em 0; font-size: 0.85em; }}
{BOARD_CSS}
</style></head><body>
<p><a href="/">status</a> &middot; <a href="/matches">every match</a></p>
<h1>{esc(ident)} <small>step {step} of {last}</small></h1>
<p>We played <b>{esc(summary['role'] or '-')}</b> against {esc(opponents_text(summary))}:
<b>{esc(result_text(summary))}</b>{_reason(summary)}. Started {esc(when_text(summary['start_time']))},
{esc(duration_text(summary['seconds']))}, {summary['moves']} move(s); clocks {record.start_clock:g} s /
{record.play_clock:g} s{_engine(record)}. <a href='{esc(match_url(ident, record=True))}'>The JSON record</a>.</p>
{_steps_html(ident, step, last)}
{_played_html(record, step, turns)}
<div class=match><div>{picture}</div>
<div>{moves_html(record.roles, record.moves, current=step, match_id=ident)}</div></div>
<h2>Our moves</h2>
{_turns_html(record, turns, step)}
</body></html>
"""


def _reason(summary: dict) -> str:
    return f" ({html.escape(summary['error'])})" if summary.get("error") else ""


def _engine(record: MatchRecord) -> str:
    engine = record.extra.get("engine")
    return f"; engine {html.escape(str(engine))}" if engine else ""


def _steps_html(match_id: str, step: int, last: int) -> str:
    def link(text: str, target: int) -> str:
        if target == step or not 0 <= target <= last:
            return f"<span>{text}</span>"
        return f"<a href='{match_url(match_id, target)}'>{text}</a>"

    return ("<nav class=steps>" + link("&laquo; first", 0) + link("&lsaquo; previous", step - 1)
            + link("next &rsaquo;", step + 1) + link("last &raquo;", last) + "</nav>")


def _played_html(record: MatchRecord, step: int, turns: list[dict]) -> str:
    """The move that led to this step, and ours in it: where it came from, its time, its search."""
    if not 0 < step <= len(record.moves):
        return "<p>The initial position.</p>"
    esc = html.escape
    text = f"<p>Move {step}: " + ", ".join(
        f"{esc(role)} <code>{esc(move)}</code>" for role, move in zip(record.roles, record.moves[step - 1])) + ".</p>"
    ours = next((t for t in turns if move_number(t.get("turn", -1)) == step), None)
    if ours is not None:
        text += (f"<p>Ours: <code>{esc(str(ours.get('move')))}</code>, {esc(str(ours.get('source')))}, "
                 f"{ours.get('timeUsed', 0):.2f} s used, {ours.get('marginLeft', 0):.2f} s left"
                 + (f"; the search: {figures_html(ours['stats'], f'step-{step}')}" if ours.get("stats") else ".")
                 + "</p>")
    return text


def _turns_html(record: MatchRecord, turns: list[dict], step: int) -> str:
    """Every turn of ours: the move, where it came from, the time, the search's line; forced turns folded."""
    if not turns:
        return "<p>The record holds none of our turns.</p>"
    esc = html.escape
    shown = [t for t in turns if t.get("source") != "forced"]
    forced = len(turns) - len(shown)
    rows = []
    for t in shown:
        number = move_number(t.get("turn", 0))
        now = " class=now" if number == step else ""
        link = f"<a href='{match_url(record.match_id, number)}'>{number}.</a>"
        rows.append(f"<tr{now}><td>{link}</td><td><code>{esc(str(t.get('move')))}</code></td>"
                    f"<td>{esc(str(t.get('source')))}</td><td>{t.get('timeUsed', 0):.2f} s</td>"
                    f"<td class=search>{search_line(t.get('stats'))}</td></tr>")
    note = (f"<p><small>{forced} turn(s) with only one legal move (a wait in a game of alternating "
            "turns) not listed.</small></p>") if forced else ""
    return ("<table class=turns><tr><th>move</th><th>ours</th><th>from</th><th>time</th><th>the search</th></tr>"
            + "".join(rows) + "</table>" + note)
