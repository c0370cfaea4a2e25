"""The status page a person reads at `GET /`: matches in progress and the last ones.

The page is made from `Player.status()` (the same data as `/status.json`) and
the ended matches' summaries (`Player.finished_summaries`). Its live part (the
timing, the matches in progress, the last matches) is also served alone at
`GET /live`; a few lines of plain script fetch it every two seconds and put
it in place, keeping open whatever panel a person opened (`<details>` with
stable ids), so the page is never reloaded and nothing is rendered twice: the
server makes all of the HTML. Without script the page reloads itself.

Each match in progress is a card: its position drawn as a board when the game
has one (`board_page.py`), else its state as text; the moves numbered from 1
(the number a replay's step has); our last reply and the search's figures in
one line (`figures_html.py`), the rest behind "more".
"""

from __future__ import annotations

import hashlib
import html
from typing import Optional

from .board_page import BOARD_CSS, board_html, move_number, moves_html, state_html
from .figures_html import figures_html
from .match_list import LIST_CSS, match_table

#: Ended matches the status page lists (the rest: `/matches`).
RECENT = 10
#: Moves a card lists before it folds the earlier ones.
RECENT_MOVES = 12
#: How often the page fetches its live part, in milliseconds.
REFRESH_MS = 2000

#: The page's script: fetch the live part, put it in place, reopen the panels that were open.
SCRIPT = f"""
<script>
setInterval(async () => {{
  const live = document.getElementById("live");
  let response;
  try {{ response = await fetch("/live", {{cache: "no-store"}}); }} catch (error) {{ return; }}
  if (!response.ok) return;
  const text = await response.text();
  const open = new Set(Array.from(live.querySelectorAll("details[open]"), (d) => d.id));
  live.innerHTML = text;
  live.querySelectorAll("details").forEach((d) => {{ d.open = open.has(d.id); }});
}}, {REFRESH_MS});
</script>
"""


def stalls_matter(stalls: Optional[dict], timing: Optional[dict]) -> bool:
    """True when a stall of the process came within half the safety margin:
    one that long, at the wrong moment, makes a reply late. Shorter stalls
    (a tenth of a second on a shared machine) are normal and not shown."""
    if not stalls or not stalls.get("stalls"):
        return False
    margin = (timing or {}).get("margin_now", 0.0)
    return stalls["longest_s"] >= margin / 2


def _ident(kind: str, match_id: str) -> str:
    """A stable id for a panel of a match (the page's updates reopen it by id)."""
    return f"{kind}-" + hashlib.sha1(match_id.encode("utf-8")).hexdigest()[:12]


def _timing_html(timing: Optional[dict]) -> str:
    """The safety margin in force and the lateness it answers to."""
    if not timing:
        return ""
    return (f"<p>Safety margin now <b>{timing['margin_now']:.2f} s</b> (base {timing['base_margin']:g} s; "
            f"replies lately {timing['lateness']:.3f} s later than planned, at worst "
            f"{timing['worst_lateness']:.3f} s, over {timing['replies_measured']} replies).</p>")


def _stalls_html(stalls: Optional[dict], timing: Optional[dict]) -> str:
    """The process's stalls (`stall_watch`), when one was long enough to matter."""
    if not stalls_matter(stalls, timing):
        return ""
    last = stalls["last"]
    return (f"<p><b>The process stalled for up to {stalls['longest_s']:.2f} s</b> (no thread ran; "
            f"{stalls['stalls']} stall(s) over {stalls['report_over_s']:g} s in all); the last at "
            f"{html.escape(last['at'])}, {last['seconds']:.2f} s, {last['garbage_collection_s']:.2f} s of it "
            "garbage collection. A stall this long near a deadline makes a reply late.</p>")


def _records_html(records: Optional[dict]) -> str:
    """A warning when match records cannot be written; nothing otherwise."""
    if not records or not records.get("problem"):
        return ""
    return f"<p><b>Warning:</b> {html.escape(records['problem'])}.</p>"


def _reply_html(m: dict) -> str:
    """Our last move from the search with its figures' line; a later reply
    that did not come from the search (a fallback, a stale move) as well; the
    search's line now. A forced reply (our only legal move: a wait) is not
    worth a line."""
    esc = html.escape
    text = ""
    searched = m.get("last_search") or {}
    if searched:
        figures = figures_html(searched.get("stats"), _ident("searched", m["match_id"]))
        text += (f"<p>Our move {move_number(searched['turn'])}: <code>{esc(searched['move'])}</code> from the "
                 f"search, {searched['timeUsed']:.2f} s used, {searched['marginLeft']:.2f} s left"
                 f"{'; ' + figures if figures else '.'}</p>")
    last = m.get("last_move") or {}
    if last and last["source"] not in ("search", "forced"):
        text += (f"<p>Our move {move_number(last['turn'])}: <code>{esc(str(last.get('move', '')))}</code>, "
                 f"<b>{esc(last['source'])}</b>, {last['timeUsed']:.2f} s used, {last['marginLeft']:.2f} s left.</p>")
    live = m.get("search")
    if live:
        text += f"<p>Searching now: {figures_html(live, _ident('now', m['match_id']))}</p>"
    return text


def _match_card(m: dict) -> str:
    """A match in progress: the board (or the state as text), the moves, the last reply."""
    esc = html.escape
    roles = m.get("roles") or []
    others = [r for r in roles if r != m["role"]]
    picture = board_html(m.get("position")) or state_html(m.get("state"))
    against = f" against {esc(', '.join(others))}" if others else ""
    return (
        f"<section class=card><h3>{esc(m['match_id'])} <small>we play <b>{esc(m['role'])}</b>{against}; "
        f"{m['turn']} move(s) played; {esc(m['status'])}</small></h3>"
        f"<p class=small>Clocks {m['start_clock']:g} s / {m['play_clock']:g} s; rules "
        f"{esc(m.get('rules_hash', ''))}.</p>"
        f"<div class=match><div>{picture}</div>"
        f"<div>{moves_html(roles, m.get('moves') or [], recent=RECENT_MOVES, fold_id=_ident('moves', m['match_id']))}"
        f"</div><div class=reply>{_reply_html(m)}</div></div></section>"
    )


def live_html(status: dict, finished: list[dict]) -> str:
    """The part of the page that changes: timing, warnings, matches in progress, the last matches."""
    cards = "".join(_match_card(m) for m in status["matches"]) or "<p>None.</p>"
    more = f" <a href='/matches'>All {len(finished)} matches &rsaquo;</a>" if len(finished) > RECENT else ""
    return (f"<p><b>{html.escape(status['status'])}</b>, {status['messages_handled']} messages handled.</p>"
            f"{_timing_html(status.get('timing'))}{_stalls_html(status.get('stalls'), status.get('timing'))}"
            f"{_records_html(status.get('records'))}<h2>Matches in progress</h2>{cards}"
            f"<h2>Finished matches</h2>{match_table(finished[:RECENT])}<p>{more}</p>")


def status_page(status: dict, finished: list[dict]) -> str:
    """The human-readable page at `GET /`: matches in progress and the last ones."""
    esc = html.escape
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8">
<noscript><meta http-equiv="refresh" content="5"></noscript>
<title>{esc(status['name'])}: {esc(status['status'])}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }}
table.inner td, table.inner th {{ border: none; padding: 0.1em 0.5em 0.1em 0; font-size: 0.85em; }}
code {{ font-size: 0.9em; }}
section.card {{ border: 1px solid #ccc; border-radius: 6px; padding: 0 1em 1em; margin-bottom: 1em; }}
div.reply {{ max-width: 30em; font-size: 0.9em; }}
p.small {{ font-size: 0.85em; color: #555; }}
{BOARD_CSS}
{LIST_CSS}
</style></head><body>
<h1>{esc(status['name'])}</h1>
<p>Search <b>{esc(status['search'])}</b>, engine <b>{esc(status['engine'])}</b>,
up to {status['max_matches']} match(es) at once. This page updates itself every {REFRESH_MS / 1000:g} s; <a href="/status.json">as JSON</a>;
<a href="/matches">every match recorded</a>.</p>
<div id=live>{live_html(status, finished)}</div>
{SCRIPT}
</body></html>
"""
