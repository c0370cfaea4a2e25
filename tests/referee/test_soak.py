"""The soak (`ggp-agent soak`), short: a real `serve` process played match
after match under scrambled names, one match walked away from without a STOP,
malformed requests and an oversized body between matches, its memory read
from /proc. The long run (500 matches) is an operator's command, with its
figures in docs/operations.md."""

from __future__ import annotations

import asyncio
import json

import pytest

from ggp_agent.player.records import load_record
from ggp_agent.referee.soak import BAD_REQUESTS, SoakPlan, error_kinds, run_soak, summary_lines

from ..helpers import GAMES

pytestmark = pytest.mark.slow  # a serve process and three matches: about a minute


def test_a_short_soak_plays_records_and_measures(tmp_path):
    plan = SoakPlan(out=tmp_path, matches=3, games=(GAMES / "tictactoe.kif",), start_clock=3, play_clock=1,
                    abandon_every=2, oversize_every=3, report_every=2, serve_args=("--abandon-grace", "1"))
    lines = []
    report = asyncio.run(run_soak(plan, say=lines.append))
    assert report.clean, summary_lines(report)
    assert (report.played, report.abandoned, report.records_written, report.serve_exit_code) == (3, 1, 3, 0)
    assert report.completed == 2 and report.bad_requests == 3 * len(BAD_REQUESTS) + 1
    assert [c.matches for c in report.checkpoints] == [1, 2, 3] and len(lines) == 3
    assert all(c.resident_mb > 50 and c.threads > 1 and c.open_files > 3 for c in report.checkpoints)
    assert report.waited_for_available_s > 1  # the abandoned match held the agent until its idle limit
    # the agent recorded the abandoned match itself; every match went out under new names
    records = {load_record(p).match_id: load_record(p) for p in (tmp_path / "records").glob("*.player.json")}
    abandoned = next(r for r in records.values() if r.match_id.endswith(".2"))
    assert abandoned.extra["status"] == "abandoned" and len(abandoned.moves) >= 2
    assert all("xplayer" not in r.roles for r in records.values())
    saved = json.loads((tmp_path / "soak.json").read_text())
    assert saved["clean"] and saved["played"] == 3 and len(saved["checkpoints"]) == 3
    assert "records written: 3 of 3" in summary_lines(report)


def test_log_errors_are_told_apart_by_what_they_say():
    lines = ["2026-01-01 10:00:00,001 ERROR ggp_agent.player.play: PLAY match=a.1: the search did not take the "
             "new state in time", "2026-01-01 10:00:01,002 ERROR ggp_agent.player.play: PLAY match=b.2: the search "
             "did not take the new state in time", "x ERROR y: turn 3 failed in 0.25 s"]
    assert error_kinds(lines) == [("ggp_agent.player.play: PLAY match=M: the search did not take the new state "
                                   "in time", 2), ("y: turn N failed in N s", 1)]
