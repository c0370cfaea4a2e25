"""A search's figures as a person reads them: one line, the rest behind "more".

The line is what a person watching a match wants at a glance: the three moves
the search looked at most, with their visits and values, its speed, and what
its tree kept of the opponent's last reply (and how long the root change took). The
other figures (about fifty: tree size, depths, priors, AMAF agreement) are a
click away, each rounded to what it is worth reading. The figures arrive as
`Search.stats()` gives them (`status.json`, and each turn of a record).
"""

from __future__ import annotations

import html
from typing import Any, Optional

#: How many of the search's top moves the line names.
TOP_SHOWN = 3


def rounded(value: Any) -> str:
    """A figure for reading: whole numbers with thousands separators, other
    numbers to three significant digits (1,000 and over as whole numbers).

    >>> rounded(24041.300000000003), rounded(0.55912), rounded(4.567), rounded(12345), rounded(None)
    ('24,041', '0.559', '4.57', '12,345', '-')
    """
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if abs(value) >= 1000:
            return f"{round(value):,}"
        return f"{value:.3g}"
    return str(value)


def _value_of(entry: dict):
    """A top move's value: the tree searches report `value` (0..1), flat Monte Carlo `mean_goal`."""
    return entry["value"] if "value" in entry else entry.get("mean_goal")


def search_line(stats: Optional[dict]) -> str:
    """The one line: the top moves with visits and value, iterations per second.

    >>> search_line({"iterations_per_s": 18627.3, "top_moves": [{"move": "(drop 3)", "visits": 1215, "value": 0.559}]})
    '<code>(drop 3)</code> 1,215 visits, value 0.559; 18,627 iterations/s'
    """
    if not stats:
        return ""
    esc = html.escape
    parts = []
    top = [entry for entry in (stats.get("top_moves") or [])[:TOP_SHOWN] if isinstance(entry, dict)]
    if top:
        parts.append(", ".join(f"<code>{esc(str(entry.get('move')))}</code> {rounded(entry.get('visits'))} visits, "
                               f"value {rounded(_value_of(entry))}" for entry in top))
    speed = stats.get("iterations_per_s")
    if speed is not None:
        parts.append(f"{rounded(speed)} iterations/s")
    elif stats.get("playouts") is not None:
        parts.append(f"{rounded(stats['playouts'])} playouts")
    reply = reply_text(stats)
    if reply:
        parts.append(reply)
    if stats.get("error"):
        parts.append(f"error: {esc(str(stats['error']))}")
    return "; ".join(parts)


def reply_text(stats: dict) -> str:
    """What the tree kept of the opponents' last reply and how long the root
    change took (`search/driver/reuse.py`), or "" when the turn had none.

    >>> reply_text({"reply_found": True, "reply_kept": 0.0021, "reply_rank": 12, "reply_moves": 50,
    ...             "root_change_s": 0.0012})
    'reply kept 0.0021 of the visits (our guess 12 of 50); root change 0.001 s'
    >>> reply_text({"reply_found": False, "reply_kept": 0.0, "reply_moves": 7})
    'reply not in the tree'
    """
    parts = []
    if stats.get("reply_found") is not None:
        if not stats["reply_found"]:
            parts.append("reply not in the tree")
        else:
            rank = stats.get("reply_rank")
            guess = f" (our guess {rank} of {stats.get('reply_moves')})" if rank is not None else ""
            parts.append(f"reply kept {stats.get('reply_kept')} of the visits{guess}")
    if stats.get("root_change_s") is not None and parts:
        parts.append(f"root change {stats['root_change_s']:.3f} s")
    return "; ".join(parts)


def figures_html(stats: Optional[dict], ident: str) -> str:
    """The line, and every other figure behind "more" (a `<details>` with the
    id `ident`, so the status page's updates keep it open)."""
    if not stats:
        return ""
    esc = html.escape
    rest = [(key, value) for key, value in stats.items() if key not in ("top_moves", "replies")]
    top = stats.get("top_moves") or []
    rows = "".join(f"<tr><td>{esc(str(key).replace('_', ' '))}</td><td>{esc(rounded(value))}</td></tr>"
                   for key, value in rest)
    moves = "".join(f"<tr><td><code>{esc(str(entry.get('move')))}</code></td><td>{rounded(entry.get('visits'))}</td>"
                    f"<td>{rounded(_value_of(entry))}</td></tr>" for entry in top if isinstance(entry, dict))
    table = ("<table class=inner><tr><th>move</th><th>visits</th><th>value</th></tr>" + moves + "</table>"
             if moves else "")
    return (f"<span class=line>{search_line(stats)}</span> <details id='{esc(ident)}' class=more>"
            f"<summary>more</summary>{table}<table class=inner>{rows}</table></details>")
