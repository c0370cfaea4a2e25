"""The matches a player recorded, as a person browses them (`GET /matches`):
newest first, a page at a time, filtered by game and by result.

Each row says what a person asks first: when, which game, whom we played,
how it ended ("won 100-0"), how long it took, and links to the replay and to
the JSON record. The rows come from `player.record_index` (summaries read
from the records folder); the status page lists its last few with the same
table. Plain HTML: a filter is a form that GETs the page again.
"""

from __future__ import annotations

import html
import time
import urllib.parse
from typing import Optional

from ..player.record_index import RESULTS, MatchPage, game_label
from .board_page import match_url

#: The style of the list (the status page includes it).
LIST_CSS = """
table.matches td.result { font-weight: bold; }
table.matches td.won { color: #1e7b34; }
table.matches td.lost { color: #b03a2e; }
nav.pages a, nav.pages span { margin-right: 0.8em; }
form.filter { margin: 0.5em 0 1em; }
"""


def duration_text(seconds: Optional[float]) -> str:
    """A match's length for reading.

    >>> duration_text(45.2), duration_text(192), duration_text(3900), duration_text(None)
    ('45 s', '3 min 12 s', '1 h 05 min', '-')
    """
    if seconds is None:
        return "-"
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def when_text(epoch_seconds: float) -> str:
    """A start time in the server's local time."""
    if not epoch_seconds:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch_seconds))


def result_text(summary: dict) -> str:
    """The result in words with the score, ours first: `won 100-0`, `lost 0-100`, `aborted`."""
    return f"{summary['result']} {summary['score']}".strip()


def opponents_text(summary: dict) -> str:
    """Whom we played: each other role with its player's name when a controller's record gave it."""
    return ", ".join(f"{o['name']} ({o['role']})" if o["name"] else o["role"] for o in summary["opponents"]) or "-"


def match_table(rows: list[dict]) -> str:
    """The matches as a table, one row each; "None." without any."""
    if not rows:
        return "<p>None.</p>"
    esc = html.escape
    lines = []
    for s in rows:
        error = f"<br><small>{esc(s['error'][:200])}</small>" if s.get("error") else ""
        ident = s["match_id"]
        lines.append(
            "<tr>"
            f"<td>{esc(when_text(s['start_time']))}</td>"
            f"<td>{esc(game_label(s))}</td>"
            f"<td><b>{esc(s['role'] or '-')}</b> against {esc(opponents_text(s))}</td>"
            f"<td class='result {esc(s['result'].split()[0])}'>{esc(result_text(s))}{error}</td>"
            f"<td>{s['moves']}</td><td>{esc(duration_text(s['seconds']))}</td>"
            f"<td><a href='{esc(match_url(ident))}'>{esc(ident)}</a> "
            f"<small>(<a href='{esc(match_url(ident, record=True))}'>JSON</a>)</small></td>"
            "</tr>"
        )
    return ("<table class=matches><tr><th>started</th><th>game</th><th>we played</th><th>result</th>"
            "<th>moves</th><th>time</th><th>replay</th></tr>" + "".join(lines) + "</table>")


def list_url(game: str = "", result: str = "", page: int = 1) -> str:
    query = {key: value for key, value in (("game", game), ("result", result), ("page", page))
             if value and not (key == "page" and value == 1)}
    return "/matches" + ("?" + urllib.parse.urlencode(query) if query else "")


def match_list_page(name: str, listing: MatchPage, game: str = "", result: str = "",
                    problem: Optional[str] = None) -> str:
    """`GET /matches`: one page of the list, the filters, links to the other pages."""
    esc = html.escape
    games = "".join(f"<option value='{esc(key)}'{' selected' if key == game else ''}>{esc(label)} ({n})</option>"
                    for key, label, n in listing.games)
    results = "".join(f"<option{' selected' if word == result else ''}>{word}</option>" for word in RESULTS)

    def link(text: str, target: int) -> str:
        if target == listing.page or not 1 <= target <= listing.pages:
            return f"<span>{text}</span>"
        return f"<a href='{esc(list_url(game, result, target))}'>{text}</a>"

    pages = ("<nav class=pages>" + link("&laquo; newest", 1) + link("&lsaquo; newer", listing.page - 1)
             + f"<span>page {listing.page} of {listing.pages}</span>"
             + link("older &rsaquo;", listing.page + 1) + link("oldest &raquo;", listing.pages) + "</nav>")
    warning = f"<p><b>Warning:</b> {esc(problem)}.</p>" if problem else ""
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{esc(name)}: matches</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }}
{LIST_CSS}
</style></head><body>
<p><a href="/">status</a></p>
<h1>{esc(name)}: {listing.total} match(es)</h1>
{warning}
<form class=filter method=get action="/matches">
<label>game <select name=game><option value="">every game</option>{games}</select></label>
<label>result <select name=result><option value="">any result</option>{results}</select></label>
<button>show</button></form>
{pages}
{match_table(listing.rows)}
{pages}
</body></html>
"""
