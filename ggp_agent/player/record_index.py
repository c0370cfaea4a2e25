"""The matches a player has played, as a person lists them: read from its
records folder, each summed up in a line's worth (result in words, opponent,
start, duration), newest first, filtered and paged.

Why from the folder: a player runs for days and restarts; what it keeps in
memory is the last few matches of this process, while the folder holds every
match it recorded. Each record is read once (they are large: every state and
every turn's search figures) and its summary kept while the file does not
change, so listing a thousand matches costs a directory scan.

The opponent's name is not in the GGP protocol: a player knows only the
roles. When the controller's own record of the match lies beside the
player's (`MATCHID.json` beside `MATCHID.player.json`, as `ggp-agent match`
and `soak` write them), its `playerNamesFromHost` names the opponents.

This module reads records; it writes nothing.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .records import MatchRecord, record_filename

#: Matches on one page of the list.
PER_PAGE = 25
#: The suffix of a player's own records (`records.write_record(..., ".player")`).
PLAYER_SUFFIX = ".player.json"
#: The results a list can be filtered by; "other" is every match without a
#: result for us (aborted, abandoned, failed).
RESULTS = ("won", "lost", "draw", "other")


def result_of(goals: Optional[list[int]], ours: Optional[int]) -> Optional[str]:
    """Our result in a word: won (more than every other role), lost (less
    than one), draw (level with the best); `scored N` alone in a game; None
    without goals.

    >>> result_of([100, 0], 0), result_of([0, 100], 0), result_of([50, 50], 1), result_of([70], 0)
    ('won', 'lost', 'draw', 'scored 70')
    """
    if goals is None or ours is None or not 0 <= ours < len(goals):
        return None
    others = [g for k, g in enumerate(goals) if k != ours]
    if not others:
        return f"scored {goals[ours]}"
    best = max(others)
    return "won" if goals[ours] > best else "lost" if goals[ours] < best else "draw"


def score_text(goals: Optional[list[int]], ours: Optional[int]) -> str:
    """The goals with ours first: `100-0`; "" without goals."""
    if goals is None or ours is None or not 0 <= ours < len(goals):
        return ""
    return "-".join(str(g) for g in [goals[ours]] + [g for k, g in enumerate(goals) if k != ours])


@dataclass(frozen=True)
class Beside:
    """What the controller's record of a match adds to the player's: the
    players' names in role order, the game's name, why it aborted the match."""

    names: tuple[str, ...] = ()
    game: str = ""
    abort_reason: str = ""


def record_summary(record: MatchRecord, beside: Optional[Beside] = None) -> dict:
    """A match in a line's worth, from the player's record (and the
    controller's beside it, when there is one)."""
    role = record.extra.get("role")
    ours = record.roles.index(role) if role in record.roles else None
    result = result_of(record.goal_values, ours) if record.is_completed else None
    status = record.extra.get("status") or ("stopped" if record.is_completed else "aborted")
    ended = record.extra.get("endTime")
    end = ended / 1000 if ended else (record.state_times[-1] if record.state_times else None)
    beside = beside or Beside()
    names = beside.names
    board = record.extra.get("board") or {}
    return {
        "match_id": record.match_id,
        "game": record.game_name or beside.game,
        "rules_hash": record.extra.get("rulesHash", ""),
        "board": f"{len(board['columns'])}x{len(board['rows'])}" if board else "",
        "role": role or "",
        "roles": list(record.roles),
        "opponents": [{"role": r, "name": names[k] if k < len(names) else ""}
                      for k, r in enumerate(record.roles) if k != ours],
        "result": result or status,
        "score": score_text(record.goal_values, ours) if record.is_completed else "",
        "goal_values": record.goal_values,
        "start_time": record.start_time,
        "seconds": None if end is None else max(0.0, end - record.start_time),
        "moves": len(record.moves),
        "engine": record.extra.get("engine", ""),
        "error": record.abort_reason or record.extra.get("engineLost") or beside.abort_reason,
    }


def result_group(summary: dict) -> str:
    """The filter a summary falls under: won, lost, draw, or other."""
    return summary["result"] if summary["result"] in RESULTS[:3] else "other"


class RecordIndex:
    """The summaries of the player records in a folder, kept while their files do not change."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._lock = threading.Lock()
        #: file name -> (what the summary was made from, the summary)
        self._known: dict[str, tuple[tuple, Optional[dict]]] = {}
        #: the folder's modification time at the last scan, and the list it gave
        self._scanned: tuple[int, list[dict]] = (-1, [])

    def summaries(self) -> list[dict]:
        """Every readable player record's summary, newest first (reads what
        changed; blocking). Records are written under a temporary name and
        renamed, which changes the folder's time: an unchanged folder is not
        scanned again (the status page asks every 2 s)."""
        try:
            changed = os.stat(self.folder).st_mtime_ns
            if changed == self._scanned[0]:
                return list(self._scanned[1])
            entries = {entry.name: entry for entry in os.scandir(self.folder) if entry.name.endswith(".json")}
        except OSError:
            return []
        with self._lock:
            known = {}
            for name, entry in entries.items():
                if not name.endswith(PLAYER_SUFFIX):
                    continue
                beside = entries.get(name[: -len(PLAYER_SUFFIX)] + ".json")
                stamp = (_stamp(entry), _stamp(beside) if beside is not None else None)
                previous = self._known.get(name)
                if previous is not None and previous[0] == stamp:
                    known[name] = previous
                else:
                    known[name] = (stamp, _summary_of(Path(entry.path), beside and Path(beside.path)))
            self._known = known
            found = sorted((summary for _, summary in known.values() if summary is not None),
                           key=lambda s: s["start_time"], reverse=True)
            self._scanned = (changed, found)
        return list(found)


@dataclass(frozen=True)
class MatchPage:
    """One page of the list: its matches, where it is, and what the filters can choose."""

    rows: list[dict]
    page: int
    pages: int
    total: int
    #: (rules hash, a label, matches) per game, the most played first
    games: list[tuple[str, str, int]]


def select(summaries: list[dict], game: str = "", result: str = "", page: int = 1,
           per_page: int = PER_PAGE) -> MatchPage:
    """The matches of one game (by rules hash) and one result group, page `page` (from 1)."""
    counts: dict[str, list] = {}
    for summary in summaries:
        entry = counts.setdefault(summary["rules_hash"], [game_label(summary), 0])
        entry[1] += 1
    games = sorted(((key, label, n) for key, (label, n) in counts.items()), key=lambda g: (-g[2], g[1]))
    chosen = [s for s in summaries if (not game or s["rules_hash"] == game)
              and (not result or result_group(s) == result)]
    pages = max(1, -(-len(chosen) // per_page))
    page = max(1, min(page, pages))
    return MatchPage(chosen[(page - 1) * per_page: page * per_page], page, pages, len(chosen), games)


def game_label(summary: dict) -> str:
    """A game's name when a controller gave it; else its roles and board, with
    the rules' fingerprint (a match server sends no name)."""
    if summary["game"]:
        return summary["game"]
    board = f" {summary['board']}" if summary["board"] else ""
    return f"{'/'.join(summary['roles'])}{board} [{summary['rules_hash'][:6]}]"


def beside_of(folder: Optional[Path], match_id: str) -> Optional[Beside]:
    """What the controller's record of a match says, when it lies in `folder`
    beside ours; else None."""
    if folder is None:
        return None
    return _beside(Path(folder) / record_filename(match_id), match_id)


def _stamp(entry: os.DirEntry) -> tuple:
    try:
        stat = entry.stat()
    except OSError:
        return ()
    return stat.st_mtime_ns, stat.st_size


def _summary_of(path: Path, controller: Optional[Path]) -> Optional[dict]:
    """A record's summary, or None when it cannot be read (half written by
    another program, not a record)."""
    try:
        record = MatchRecord.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return record_summary(record, _beside(controller, record.match_id) if controller is not None else None)


def _beside(path: Path, match_id: str) -> Optional[Beside]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("matchId") == match_id:
            return Beside(tuple(str(n) for n in data.get("playerNamesFromHost", [])), str(data.get("gameName", "")),
                          str(data.get("abortReason") or ""))
    except (OSError, ValueError, AttributeError):
        pass
    return None
