"""Resuming a tournament: the plan kept in its folder and the matches already played.

The output folder keeps the plan (`plan.json`: the game, the players, the
clocks, the seed and the time stamp that names the matches), and a match whose
record is already in `records/` is read back instead of played again, so a long
series stopped halfway (a reboot, a Ctrl-C) goes on where it stopped. A match
that was cut short left no record (records are written whole, by rename), so it
is played again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..player.records import MatchRecord, load_record, record_filename


def plan_stamp(out_dir: Path, plan: dict, resume: bool) -> int:
    """The time stamp that names the matches: a resumed tournament's own, from
    its plan (which must be the same tournament), else now (and a new plan)."""
    plan_path = Path(out_dir) / "plan.json"
    if resume and plan_path.exists():
        saved = json.loads(plan_path.read_text(encoding="utf-8"))
        differences = [key for key in plan if saved.get(key) != plan[key]]
        if differences:
            raise ValueError(f"{out_dir} holds another tournament (its {', '.join(differences)} differ)")
        return int(saved["stamp"])
    stamp = int(time.time() * 1000)
    plan_path.parent.mkdir(parents=True, exist_ok=True)
    plan_path.write_text(json.dumps({**plan, "stamp": stamp}, indent=1), encoding="utf-8")
    return stamp


def played_records(records_dir: Path, match_ids: dict[int, str]) -> dict[int, MatchRecord]:
    """The records already in `records_dir`, by match index (`match_ids`: each index's match id)."""
    paths = {index: Path(records_dir) / record_filename(match_id) for index, match_id in match_ids.items()}
    return {index: load_record(path) for index, path in paths.items() if path.exists()}


__all__ = ["plan_stamp", "played_records"]
