"""Match records as JSON files in the style of ggp.org's match archive.

One record per match, written by the GameController (the authoritative view:
every player's moves, errors and goal values) and by the player (its own view,
with the time it used and its search statistics per turn). The keys follow
ggp.org's archive (`matchId`, `startClock`, `playClock`, `moves`, `states`,
`errors`, `goalValues`, `isCompleted`, `isAborted`, `playerNamesFromHost`), so
tools that read those archives read ours; `roles`, `gameName` and a few other
keys are added because our records stand alone, without a game repository.

`errors` is one list per turn with one string per role, empty when that player
answered well, else `TO` (timeout or no connection), `CE` (an unparsable reply)
or `IL` (an illegal move); `errorDetails` says what happened.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ..folders import write_problem

#: The error codes a record uses, as ggp.org's archive does.
TIMEOUT = "TO"
COMMUNICATION_ERROR = "CE"
ILLEGAL_MOVE = "IL"


@dataclass
class MatchRecord:
    """What happened in one match; `to_json()` gives the archive form."""

    match_id: str
    game_name: str
    roles: list[str]
    start_clock: float
    play_clock: float
    players: list[str] = field(default_factory=list)
    start_time: float = field(default_factory=time.time)
    moves: list[list[str]] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    state_times: list[float] = field(default_factory=list)
    errors: list[list[str]] = field(default_factory=list)
    error_details: list[dict] = field(default_factory=list)
    move_times: list[list[float]] = field(default_factory=list)
    goal_values: Optional[list[int]] = None
    is_completed: bool = False
    is_aborted: bool = False
    abort_reason: Optional[str] = None
    extra: dict[str, Any] = field(default_factory=dict)

    def error_count(self) -> int:
        """How many replies were timeouts, unparsable or illegal, over all players."""
        return sum(1 for turn in self.errors for code in turn if code)

    def errors_by_player(self) -> list[int]:
        """Per role: the number of turns with an error."""
        counts = [0] * len(self.roles)
        for turn in self.errors:
            for index, code in enumerate(turn):
                if code:
                    counts[index] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """The record as ggp.org-style JSON (times in milliseconds since the epoch)."""
        data: dict[str, Any] = {
            "matchId": self.match_id,
            "gameName": self.game_name,
            "roles": self.roles,
            "playerNamesFromHost": self.players,
            "startClock": self.start_clock,
            "playClock": self.play_clock,
            "startTime": int(self.start_time * 1000),
            "moves": self.moves,
            "states": self.states,
            "stateTimes": [int(t * 1000) for t in self.state_times],
            "errors": self.errors,
            "errorDetails": self.error_details,
            "moveTimes": self.move_times,
            "isCompleted": self.is_completed,
            "isAborted": self.is_aborted,
        }
        if self.goal_values is not None:
            data["goalValues"] = self.goal_values
        if self.abort_reason:
            data["abortReason"] = self.abort_reason
        data.update(self.extra)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "MatchRecord":
        """Read back a record written by `to_json` (unknown keys go to `extra`)."""
        known = {
            "matchId", "gameName", "roles", "playerNamesFromHost", "startClock", "playClock",
            "startTime", "moves", "states", "stateTimes", "errors", "errorDetails",
            "moveTimes", "isCompleted", "isAborted", "goalValues", "abortReason",
        }
        return cls(
            match_id=data["matchId"],
            game_name=data.get("gameName", ""),
            roles=list(data.get("roles", [])),
            start_clock=data["startClock"],
            play_clock=data["playClock"],
            players=list(data.get("playerNamesFromHost", [])),
            start_time=data.get("startTime", 0) / 1000,
            moves=data.get("moves", []),
            states=data.get("states", []),
            state_times=[t / 1000 for t in data.get("stateTimes", [])],
            errors=data.get("errors", []),
            error_details=data.get("errorDetails", []),
            move_times=data.get("moveTimes", []),
            goal_values=data.get("goalValues"),
            is_completed=data.get("isCompleted", False),
            is_aborted=data.get("isAborted", False),
            abort_reason=data.get("abortReason"),
            extra={k: v for k, v in data.items() if k not in known},
        )


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def record_filename(match_id: str, suffix: str = "") -> str:
    """A file name for a match id that may hold any KIF symbol character."""
    stem = _UNSAFE.sub("_", match_id).strip("._") or "match"
    return f"{stem[:150]}{suffix}.json"


def write_record(record: MatchRecord, directory: Path, suffix: str = "") -> Path:
    """Write `record` as JSON into `directory` (created if needed); returns the path.

    Written to a temporary name and renamed, so a reader never sees half a file.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / record_filename(record.match_id, suffix)
    temporary = path.with_name(path.name + f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(record.to_json(), indent=1), encoding="utf-8")
    os.replace(temporary, path)
    return path


def records_folder_problem(directory: Optional[Path]) -> Optional[str]:
    """Why no record can be written to `directory`, as one line for the log and
    the status page; None when records can be written there (or none is asked for).

    The server checks at start, so a folder it may not write (a volume owned by
    root, a read-only mount) is reported once, up front, not match after match.
    """
    if directory is None:
        return None
    problem = write_problem(Path(directory))
    if problem is None:
        return None
    text = f"cannot write match records to {directory}: {problem}; matches are played but not recorded"
    if "Permission denied" in problem or "not permitted" in problem:
        text += f" (fix: {ownership_fix(directory)})"
    return text


def ownership_fix(directory: Path) -> str:
    """The command that lets this process write `directory`: its owner made
    this process's user (10001:10001 in the Docker image, where the command is
    run on the host folder mounted there)."""
    return f"chown -R {os.getuid()}:{os.getgid()} {directory}, in Docker on the host folder mounted there"


def load_record(path: Path) -> MatchRecord:
    """Read a record written by `write_record`."""
    return MatchRecord.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


def state_text(state) -> str:
    """A state as one KIF list of its fluents, sorted, as ggp.org's `states` hold them."""
    return "(" + " ".join(sorted(str(fluent) for fluent in state)) + ")"
