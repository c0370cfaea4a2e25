"""The status page a person reads at `GET /`: matches in progress and the last ones.

Plain HTML and CSS made from `Player.status()` (the same data as
`/status.json`), no script and no build step; it refreshes itself every two
seconds. Each match in progress is a card: its position drawn as a board when
the game has one (`board_page.py`), the moves numbered per role, the last
reply and where it came from; the search's figures are folded away
(`<details>`). Each finished match links to its replay.
"""

from __future__ import annotations

import html
from typing import Optional

from .board_page import BOARD_CSS, board_html, match_url, moves_html


def _stats_html(stats: Optional[dict]) -> str:
    """Search figures as a short list, the top moves as a small table."""
    if not stats:
        return ""
    esc = html.escape
    items = []
    for key, value in stats.items():
        if key == "top_moves":
            continue
        items.append(f"{esc(str(key).replace('_', ' '))}: <b>{esc(str(value))}</b>")
    text = "<br>".join(items)
    top = stats.get("top_moves") or []
    if top:
        rows = "".join(
            f"<tr><td><code>{esc(str(entry.get('move')))}</code></td><td>{esc(str(entry.get('visits')))}</td>"
            f"<td>{esc(str(_value_of(entry)))}</td></tr>"
            for entry in top
        )
        text += ("<table class=inner><tr><th>move</th><th>visits</th><th>value</th></tr>"
                 f"{rows}</table>")
    return text


def _value_of(entry: dict):
    """A top move's value: the tree searches report `value` (0..1), flat Monte Carlo `mean_goal`."""
    return entry["value"] if "value" in entry else entry.get("mean_goal")


def _timing_html(timing: Optional[dict]) -> str:
    """The safety margin in force and the lateness it answers to."""
    if not timing:
        return ""
    return (f"<p>Safety margin now <b>{timing['margin_now']:.3f} s</b> (base {timing['base_margin']:g} s; "
            f"replies lately {timing['lateness']:.3f} s later than planned, at worst "
            f"{timing['worst_lateness']:.3f} s, over {timing['replies_measured']} replies).</p>")


def _stalls_html(stalls: Optional[dict]) -> str:
    """How often the whole process stalled (`stall_watch`): a stall turns a quick reply into a late one."""
    if not stalls:
        return ""
    if not stalls["stalls"]:
        return f"<p>No process stall over {stalls['report_over_s']:g} s.</p>"
    last = stalls["last"]
    return (f"<p><b>The process stalled {stalls['stalls']} time(s)</b> (no thread ran), at worst "
            f"{stalls['longest_s']:.3f} s; the last at {html.escape(last['at'])}, {last['seconds']:.3f} s, "
            f"{last['garbage_collection_s']:.3f} s of it garbage collection.</p>")


def _records_html(records: Optional[dict]) -> str:
    """A warning when match records cannot be written; nothing otherwise."""
    if not records or not records.get("problem"):
        return ""
    return f"<p><b>Warning:</b> {html.escape(records['problem'])}.</p>"


def _last_reply_html(m: dict) -> str:
    """Our last reply, where it came from and its timing; the search's figures folded."""
    esc = html.escape
    last = m.get("last_move") or {}
    text = ""
    if last:
        text = (f"<p>Our last move <code>{esc(str(last.get('move', '')))}</code> (turn {last['turn']}): "
                f"{esc(last['source'])}, {last['timeUsed']:.2f} s used, {last['marginLeft']:.2f} s left.</p>")
    searched = m.get("last_search") or {}
    if searched:
        text += (f"<details><summary>search figures for <code>{esc(searched['move'])}</code> "
                 f"(turn {searched['turn']})</summary>{_stats_html(searched.get('stats'))}</details>")
    live = m.get("search")
    if live:
        text += f"<p><small>now: {esc(str(live.get('playouts', '-')))} playouts at this position</small></p>"
    return text


def _match_card(m: dict) -> str:
    """A match in progress: the board (or a note that the game has none), the moves, the last reply."""
    esc = html.escape
    picture = board_html(m.get("position")) or "<p><small>No board found in this game's fluents.</small></p>"
    roles = m.get("roles") or []
    return (
        f"<section class=card><h3>{esc(m['match_id'])} <small>{esc(m['status'])}, turn {m['turn']}</small></h3>"
        f"<p>We play <b>{esc(m['role'])}</b> of {esc(' '.join(roles))}; clocks {m['start_clock']:g} s / "
        f"{m['play_clock']:g} s; rules {esc(m.get('rules_hash', ''))}.</p>"
        f"<div class=match><div>{picture}</div><div>{moves_html(roles, m.get('moves') or [])}</div>"
        f"<div class=reply>{_last_reply_html(m)}</div></div></section>"
    )


def _finished_rows(matches: list[dict]) -> str:
    if not matches:
        return "<p>None.</p>"
    esc = html.escape
    rows = []
    for m in matches:
        last = m.get("last_move") or {}
        status = esc(m["status"]) + "<br>goals " + (esc(" ".join(map(str, m.get("goal_values") or []))) or "-")
        if m.get("error"):
            status += "<br><small>" + esc(m["error"]) + "</small>"
        rows.append(
            "<tr>"
            f"<td><a href='{esc(match_url(m['match_id']))}'>{esc(m['match_id'])}</a>"
            f"<br><small>replay; rules {esc(m.get('rules_hash', ''))}</small></td>"
            f"<td>{esc(m['role'])}<br><small>of {esc(' '.join(m.get('roles') or []))}</small></td>"
            f"<td>{status}</td>"
            f"<td>{m['start_clock']:g} s / {m['play_clock']:g} s</td>"
            f"<td>{m['turn']}</td>"
            f"<td><code>{esc(str(last.get('move', '')))}</code></td>"
            "</tr>"
        )
    return ("<table><tr><th>match</th><th>role</th><th>status</th><th>clocks</th><th>turns</th>"
            "<th>our last move</th></tr>" + "".join(rows) + "</table>")


def status_page(status: dict) -> str:
    """The human-readable page at `GET /`: matches in progress and the last ones."""
    esc = html.escape
    cards = "".join(_match_card(m) for m in status["matches"]) or "<p>None.</p>"
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>{esc(status['name'])}: {esc(status['status'])}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }}
table.inner td, table.inner th {{ border: none; padding: 0.1em 0.5em 0.1em 0; font-size: 0.85em; }}
code {{ font-size: 0.9em; }}
section.card {{ border: 1px solid #ccc; border-radius: 6px; padding: 0 1em 1em; margin-bottom: 1em; }}
div.reply {{ max-width: 24em; font-size: 0.9em; }}
{BOARD_CSS}
</style></head><body>
<h1>{esc(status['name'])} <small>({esc(status['status'])})</small></h1>
<p>Search <b>{esc(status['search'])}</b>, engine <b>{esc(status['engine'])}</b>,
up to {status['max_matches']} match(es) at once, {status['messages_handled']} messages handled.
This page refreshes every 2 s; <a href="/status.json">as JSON</a>.</p>
{_timing_html(status.get('timing'))}
{_stalls_html(status.get('stalls'))}
{_records_html(status.get('records'))}
<h2>Matches in progress</h2>
{cards}
<h2>Finished matches</h2>
{_finished_rows(status['finished'])}
</body></html>
"""
