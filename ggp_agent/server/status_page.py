"""The status page a person reads at `GET /`: matches in progress and the last ones.

Plain HTML and CSS made from `Player.status()` (the same data as
`/status.json`), no script and no build step; it refreshes itself every two
seconds.
"""

from __future__ import annotations

import html
from typing import Optional


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
            f"<td>{esc(str(entry.get('mean_goal')))}</td></tr>"
            for entry in top
        )
        text += ("<table class=inner><tr><th>move</th><th>visits</th><th>mean goal</th></tr>"
                 f"{rows}</table>")
    return text


def _timing_html(timing: Optional[dict]) -> str:
    """The safety margin in force and the lateness it answers to."""
    if not timing:
        return ""
    return (f"<p>Safety margin now <b>{timing['margin_now']:.3f} s</b> (base {timing['base_margin']:g} s; "
            f"replies lately {timing['lateness']:.3f} s later than planned, at worst "
            f"{timing['worst_lateness']:.3f} s, over {timing['replies_measured']} replies).</p>")


def _records_html(records: Optional[dict]) -> str:
    """A warning when match records cannot be written; nothing otherwise."""
    if not records or not records.get("problem"):
        return ""
    return f"<p><b>Warning:</b> {html.escape(records['problem'])}.</p>"


def status_page(status: dict) -> str:
    """The human-readable page at `GET /`: matches in progress and the last ones."""
    esc = html.escape

    def match_rows(matches: list[dict], finished: bool) -> str:
        if not matches:
            return "<p>None.</p>"
        rows = []
        for m in matches:
            moves = m.get("moves") or []
            recent = "<br>".join(esc(" ".join(joint)) for joint in moves[-8:])
            if len(moves) > 8:
                recent = f"... {len(moves) - 8} earlier<br>" + recent
            last = m.get("last_move") or {}
            searched = m.get("last_search") or {}
            last_detail = ""
            if last:
                last_detail = "<br><small>{}, {:.2f} s used, {:.2f} s left</small>".format(
                    esc(last["source"]), last["timeUsed"], last["marginLeft"])
            search_cell = ""
            if searched:
                search_cell = (f"<small>for <code>{esc(searched['move'])}</code> "
                               f"(turn {searched['turn']})</small><br>" + _stats_html(searched.get("stats")))
            if not finished and m.get("search"):
                live = m["search"]
                search_cell += (f"<br><small>now: {esc(str(live.get('playouts', '-')))} playouts "
                                f"at this position</small>")
            status_cell = esc(m["status"])
            if finished:
                status_cell += "<br>goals " + esc(" ".join(map(str, m.get("goal_values") or [])) or "-")
                if m.get("error"):
                    status_cell += "<br><small>" + esc(m["error"]) + "</small>"
            rows.append(
                "<tr>"
                f"<td>{esc(m['match_id'])}<br><small>rules {esc(m.get('rules_hash', ''))}</small></td>"
                f"<td>{esc(m['role'])}<br><small>of {esc(' '.join(m.get('roles') or []))}</small></td>"
                f"<td>{status_cell}</td>"
                f"<td>{m['start_clock']:g} s / {m['play_clock']:g} s</td>"
                f"<td>{m['turn']}</td>"
                f"<td><code>{recent}</code></td>"
                f"<td><code>{esc(str(last.get('move', '')))}</code>{last_detail}</td>"
                f"<td>{search_cell}</td>"
                "</tr>"
            )
        return (
            "<table><tr><th>match</th><th>role</th><th>status</th><th>clocks</th><th>turn</th>"
            "<th>moves so far</th><th>last move</th><th>last search</th></tr>" + "".join(rows) + "</table>"
        )

    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>{esc(status['name'])}: {esc(status['status'])}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }}
table.inner td, table.inner th {{ border: none; padding: 0.1em 0.5em 0.1em 0; font-size: 0.85em; }}
code {{ font-size: 0.9em; }}
</style></head><body>
<h1>{esc(status['name'])} <small>({esc(status['status'])})</small></h1>
<p>Search <b>{esc(status['search'])}</b>, engine <b>{esc(status['engine'])}</b>,
up to {status['max_matches']} match(es) at once, {status['messages_handled']} messages handled.
This page refreshes every 2 s; <a href="/status.json">as JSON</a>.</p>
{_timing_html(status.get('timing'))}
{_records_html(status.get('records'))}
<h2>Matches in progress</h2>
{match_rows(status['matches'], finished=False)}
<h2>Finished matches</h2>
{match_rows(status['finished'], finished=True)}
</body></html>
"""
