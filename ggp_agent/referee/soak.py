"""A soak: many matches back to back against one `ggp-agent serve` process, as
a public match server plays a registered player for days, scaled down.

Why: a player that runs for a week must not grow in memory, leak threads or
open files, or start failing after its hundredth game. The soak starts one
`serve` process (the agent as deployed, in its own process) and plays it
match after match through our GameController against an in-process random
(or legal) player, at Tiltyard's clocks scaled down (start 5 s, play 1 s):

- each match under new names (`gdl.scramble`), as Tiltyard sends them, so
  every match is a game the process has not seen (new symbols, new Prolog
  modules, new propnets);
- every `abandon_every`-th match walked away from after a few turns, with no
  STOP or ABORT (a crashed match server): the agent must free it by itself,
  and it says `available` again before the next match starts (the soak asks
  with (info), as Tiltyard does);
- between matches, malformed requests (unbalanced, unknown, binary, a PLAY
  and a STOP for no match, a START with rules that break GDL) and the status
  pages; now and then a body over the size limit.

Every `report_every` matches it notes the process's resident memory, threads
and open files, and at the end our errors (the controller's `TO`, `CE`, `IL`
for our seat), the replies our agent sent stale or as a fallback (its own
records), the `ERROR` lines of its log, and how many of its records were
written. Everything lands in `OUT/soak.json`; the records in `OUT/records`
(the controller's beside the agent's, so the status page names the opponent).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional

import aiohttp

from ..gdl import load_game
from ..gdl.scramble import scrambled
from ..player.record_index import PLAYER_SUFFIX
from ..player.records import MatchRecord, load_record
from .controller import PlayerAddress
from .lineup import PlayerSpec, parse_player_spec, play_match

#: The project's games a soak plays by default, in turn: boards of every kind
#: (one-token cells, hexagons, two coordinates) and a propnet each.
DEFAULT_GAMES = ("connectfour", "breakthrough_6x6", "tictactoe", "hex_5x5", "nogo_5x5")

#: Malformed requests sent between matches: (what, body, the status expected, the reply expected or None).
BAD_REQUESTS = (
    ("unbalanced", b"(play soak.x", 400, None),
    ("unknown message", b"(hello 1 2)", 400, None),
    ("empty", b"", 400, None),
    ("binary", bytes(range(256)) * 2, 400, None),
    ("PLAY for no match", b"(play soak.nothing nil)", 200, "busy"),
    ("STOP for no match", b"(stop soak.nothing nil)", 200, "busy"),
    ("START with unsafe rules", b"(start soak.unsafe r ((role r) (<= (goal r 100) (true ?x)) (<= terminal (true ?y))) 5 1)",
     200, "busy"),
)
#: The log line that says the serve process has its kernels (`search.warmup`).
WARM_UP_DONE = "warm-up propnet:"
#: Pages fetched between matches (their code runs on the agent's event loop too).
PAGES = ("/", "/live", "/status.json", "/matches")


@dataclass(frozen=True)
class SoakPlan:
    """What a soak plays."""

    out: Path
    matches: int = 500
    games: tuple[Path, ...] = ()
    opponent: str = "random:engine=prolog"
    start_clock: float = 5.0
    play_clock: float = 1.0
    abandon_every: int = 25
    abandon_after: int = 3
    oversize_every: int = 50
    report_every: int = 50
    scramble: bool = True
    seed: int = 1
    serve_args: tuple[str, ...] = ()


@dataclass
class Checkpoint:
    """The serve process after some matches."""

    matches: int
    seconds: float
    resident_mb: float
    threads: int
    open_files: int
    our_errors: int
    records: int


@dataclass
class SoakReport:
    """What a soak found (`soak.json`)."""

    checkpoints: list[Checkpoint] = field(default_factory=list)
    played: int = 0
    completed: int = 0
    abandoned: int = 0
    our_errors: dict[str, int] = field(default_factory=dict)
    error_details: list[dict] = field(default_factory=list)
    stale_replies: int = 0
    fallback_replies: int = 0
    records_written: int = 0
    bad_requests: int = 0
    unexpected_answers: list[str] = field(default_factory=list)
    waited_for_available_s: float = 0.0
    log_errors: list[str] = field(default_factory=list)
    serve_exit_code: Optional[int] = None
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        """No error on our side (the controller's TO, CE, IL for our seat), every
        match recorded, every bad request answered as it should, a clean exit.
        The agent's own ERROR lines (a search late to a new state, answered by
        the fallback move in time) are reported beside, not counted here."""
        return (not self.our_errors and not self.unexpected_answers
                and self.records_written == self.played and self.serve_exit_code == 0)


class ServedAgent:
    """`ggp-agent serve` in a process of its own, on 127.0.0.1, its log in a file."""

    def __init__(self, records: Path, log_path: Path, arguments: tuple[str, ...]) -> None:
        self._log = open(log_path, "w", encoding="utf-8")
        self.log_path = log_path
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ggp_agent.cli", "serve", "--host", "127.0.0.1", "--port", "0",
             "--name", "soaked", "--records", str(records), *arguments],
            stdout=subprocess.PIPE, stderr=self._log, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("serving "):
            self.stop()
            raise RuntimeError(f"ggp-agent serve did not start: {line!r} (its log: {log_path})")
        self.port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))

    def wait_for_warm_up(self, limit: float = 600.0) -> None:
        """Until the process has loaded its kernels (its log says so), as a
        deployed agent has long before its first match; matches played during
        the warm-up would measure the warm-up."""
        began = time.monotonic()
        while WARM_UP_DONE not in self.log_path.read_text(errors="replace"):
            if self.process.poll() is not None or time.monotonic() - began > limit:
                raise RuntimeError(f"ggp-agent serve did not finish its warm-up (its log: {self.log_path})")
            time.sleep(0.5)

    def measure(self) -> tuple[float, int, int]:
        """(resident MB, threads, open files) of the process, from /proc."""
        fields = {}
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            fields[key] = value.split()
        files = len(os.listdir(f"/proc/{self.process.pid}/fd"))
        return int(fields["VmRSS"][0]) / 1024, int(fields["Threads"][0]), files

    def stop(self) -> Optional[int]:
        """SIGTERM (matches in progress are aborted and recorded), SIGKILL if it does not end."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._log.close()
        return self.process.returncode


async def run_soak(plan: SoakPlan, say: Callable[[str], None] = print) -> SoakReport:
    """Play the soak; `say` gets a line per checkpoint."""
    records = plan.out / "records"
    records.mkdir(parents=True, exist_ok=True)
    games = [(path.stem, load_game(path)) for path in plan.games]
    opponent = parse_player_spec(plan.opponent)
    report = SoakReport()
    began = time.monotonic()
    run_id = time.strftime("%Y%m%d%H%M%S")
    agent = ServedAgent(records, plan.out / "serve.log", plan.serve_args)
    try:
        agent.wait_for_warm_up()
        ours = PlayerSpec("soaked", address=PlayerAddress("127.0.0.1", agent.port))
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
            for number in range(1, plan.matches + 1):
                report.waited_for_available_s += await _until_available(session, agent.port)
                await _bad_requests(session, agent.port, report, oversize=plan.oversize_every > 0
                                    and number % plan.oversize_every == 0)
                name, game = games[(number - 1) % len(games)]
                if plan.scramble:
                    game = load_game(scrambled(game.rules, plan.seed * 100_003 + number))
                seats = [ours, opponent] if number % 2 else [opponent, ours]
                abandon = plan.abandon_every > 0 and number % plan.abandon_every == 0
                record = await play_match(game, seats, plan.start_clock, plan.play_clock,
                                          match_id=f"soak.{run_id}.{number}", game_name=name, record_dir=records,
                                          seed=plan.seed + number, abandon_after=plan.abandon_after if abandon else None)
                _count_match(report, record, seats.index(ours), abandon)
                await _pages(session, agent.port, report, record.match_id)
                if number == 1 or number % plan.report_every == 0 or number == plan.matches:
                    checkpoint = _checkpoint(agent, report, number, time.monotonic() - began, records, run_id)
                    report.checkpoints.append(checkpoint)
                    say(checkpoint_line(checkpoint, report))
    finally:
        report.serve_exit_code = agent.stop()
    _read_records(report, records, run_id)
    report.log_errors = [line for line in agent.log_path.read_text(errors="replace").splitlines()
                         if " ERROR " in line and "soak.unsafe" not in line]  # declining bad rules is right
    report.seconds = time.monotonic() - began
    (plan.out / "soak.json").write_text(json.dumps({"plan": _plan_json(plan), **asdict(report),
                                                    "clean": report.clean}, indent=1))
    return report


def checkpoint_line(c: Checkpoint, report: SoakReport) -> str:
    return (f"after {c.matches} match(es), {c.seconds / 60:.1f} min: resident {c.resident_mb:.0f} MB, "
            f"{c.threads} threads, {c.open_files} open files; our errors {c.our_errors}, "
            f"records {c.records}, bad requests {report.bad_requests} "
            f"({len(report.unexpected_answers)} answered wrong)")


def summary_lines(report: SoakReport) -> list[str]:
    first, last = report.checkpoints[0], report.checkpoints[-1]
    # memory is compared from match 50 on (the first games fill caches: compiled
    # games, Prolog's tables), from the first match in a shorter soak
    anchor = next((c for c in report.checkpoints if c.matches >= 50 and c is not last), first)
    growth = (last.resident_mb - anchor.resident_mb) / anchor.resident_mb if anchor.resident_mb else 0.0
    return [
        f"{report.played} matches in {report.seconds / 60:.1f} min: {report.completed} played to the end, "
        f"{report.abandoned} abandoned by the controller",
        f"our errors: {sum(report.our_errors.values())} {report.our_errors or ''}".rstrip(),
        f"replies stale: {report.stale_replies}, fallback: {report.fallback_replies}",
        f"records written: {report.records_written} of {report.played}",
        f"bad requests: {report.bad_requests}, answered wrong: {len(report.unexpected_answers)}",
        f"ERROR lines in the agent's log: {len(report.log_errors)}"
        + "".join(f"\n  {n} x {kind}" for kind, n in error_kinds(report.log_errors)),
        f"resident memory: {first.resident_mb:.0f} MB after match {first.matches}, "
        f"{anchor.resident_mb:.0f} MB after match {anchor.matches}, {last.resident_mb:.0f} MB after match "
        f"{last.matches} ({growth:+.1%} since match {anchor.matches})",
        f"waited {report.waited_for_available_s:.0f} s in all for the agent to say available; "
        f"it exited with {report.serve_exit_code}",
    ]


def error_kinds(lines: list[str]) -> list[tuple[str, int]]:
    """Log lines told apart by what they say, without match ids, times and figures, the most frequent first."""
    counts: dict[str, int] = {}
    for line in lines:
        text = line.split(" ERROR ", 1)[-1]
        text = re.sub(r"match=[^\s:]+", "match=M", text)
        text = re.sub(r"\d+(\.\d+)?", "N", text)
        counts[text] = counts.get(text, 0) + 1
    return sorted(counts.items(), key=lambda item: -item[1])


async def _until_available(session: aiohttp.ClientSession, port: int, limit: float = 600.0) -> float:
    """Ask (info) every second until the agent says `available`; the seconds it took."""
    began = time.monotonic()
    while True:
        try:
            async with session.post(f"http://127.0.0.1:{port}/", data=b"(info)") as response:
                if "available" in await response.text():
                    return time.monotonic() - began
        except (aiohttp.ClientError, asyncio.TimeoutError):
            pass
        if time.monotonic() - began > limit:
            raise RuntimeError(f"the agent did not say available within {limit:g} s")
        await asyncio.sleep(1.0)


async def _bad_requests(session: aiohttp.ClientSession, port: int, report: SoakReport, oversize: bool) -> None:
    requests = list(BAD_REQUESTS)
    if oversize:
        requests.append(("over the size limit", b"(" + b"x" * (5 << 20) + b")", 413, None))
    for what, body, status, text in requests:
        report.bad_requests += 1
        try:
            async with session.post(f"http://127.0.0.1:{port}/", data=body,
                                    headers={"Content-Type": "text/acl"}) as response:
                answer = await response.text()
                if response.status != status or (text is not None and answer.strip() != text):
                    report.unexpected_answers.append(f"{what}: HTTP {response.status} {answer[:80]!r}")
        except (aiohttp.ClientError, asyncio.TimeoutError) as error:
            if status != 413:  # the server may close the connection on a refused body
                report.unexpected_answers.append(f"{what}: {type(error).__name__}: {error}"[:200])


async def _pages(session: aiohttp.ClientSession, port: int, report: SoakReport, match_id: str) -> None:
    for path in (*PAGES, f"/match/{match_id}"):
        try:
            async with session.get(f"http://127.0.0.1:{port}{path}") as response:
                await response.read()
                if response.status != 200 and not path.startswith("/match/"):  # an abandoned match is not over yet
                    report.unexpected_answers.append(f"GET {path}: HTTP {response.status}")
        except (aiohttp.ClientError, asyncio.TimeoutError) as error:
            report.unexpected_answers.append(f"GET {path}: {type(error).__name__}")


def _count_match(report: SoakReport, record: MatchRecord, seat: int, abandoned: bool) -> None:
    report.played += 1
    report.completed += record.is_completed
    report.abandoned += abandoned
    role = record.roles[seat] if seat < len(record.roles) else ""
    for turn in record.errors:
        code = turn[seat] if seat < len(turn) else ""
        if code:
            report.our_errors[code] = report.our_errors.get(code, 0) + 1
    for detail in record.error_details:
        if detail.get("role") == role and len(report.error_details) < 50:
            report.error_details.append({"match": record.match_id, **detail})


def _checkpoint(agent: ServedAgent, report: SoakReport, matches: int, seconds: float, records: Path,
                run_id: str) -> Checkpoint:
    resident, threads, files = agent.measure()
    written = sum(1 for _ in records.glob(f"soak.{run_id}.*{PLAYER_SUFFIX}"))
    return Checkpoint(matches, round(seconds, 1), round(resident, 1), threads, files,
                      sum(report.our_errors.values()), written)


def _read_records(report: SoakReport, records: Path, run_id: str) -> None:
    """The agent's own records of this run: how many, and the replies it sent stale or as a fallback."""
    for path in records.glob(f"soak.{run_id}.*{PLAYER_SUFFIX}"):
        try:
            record = load_record(path)
        except (OSError, ValueError, KeyError):
            continue
        report.records_written += 1
        for turn in record.extra.get("turns") or []:
            report.stale_replies += turn.get("source") == "stale"
            report.fallback_replies += turn.get("source") == "fallback"


def _plan_json(plan: SoakPlan) -> dict:
    data = asdict(plan)
    data["out"] = str(plan.out)
    data["games"] = [str(p) for p in plan.games]
    return data
