"""The records folder as a person lists it (`player.record_index`): each
record summed up once, newest first, the controller's record beside ours
naming the opponent, a record written later seen at the next listing."""

from __future__ import annotations

import json
import time

from ggp_agent.player.record_index import Beside, RecordIndex, record_summary, result_of, score_text
from ggp_agent.player.records import MatchRecord, write_record


def record(match_id: str, start: float, goals, role="white", completed=True) -> MatchRecord:
    return MatchRecord(match_id=match_id, game_name="", roles=["white", "black"], start_clock=5, play_clock=1,
                       players=["us", ""], start_time=start, moves=[["(move a2 a3)", "noop"]] * 3,
                       goal_values=goals, is_completed=completed, is_aborted=not completed,
                       extra={"role": role, "rulesHash": "abc123abc123", "status": "stopped" if completed else
                              "abandoned", "endTime": int((start + 75) * 1000)})


def test_results_in_words_ours_first():
    assert [result_of(g, 1) for g in ([0, 100], [100, 0], [50, 50], [30, 30, 60])] == ["won", "lost", "draw", "lost"]
    assert result_of(None, 0) is None and result_of([100], 0) == "scored 100"
    assert score_text([0, 100], 1) == "100-0" and score_text([30, 20, 50], 2) == "50-30-20"
    summary = record_summary(record("m", 1000.0, [0, 100], role="black"), Beside(("ggp-agent", "random")))
    assert (summary["result"], summary["score"], summary["seconds"], summary["moves"]) == ("won", "100-0", 75.0, 3)
    assert summary["opponents"] == [{"role": "white", "name": "ggp-agent"}]
    abandoned = record_summary(record("m2", 1000.0, None, completed=False))
    assert (abandoned["result"], abandoned["score"]) == ("abandoned", "")


def test_the_folder_listed_newest_first_and_read_again_only_when_it_changes(tmp_path):
    write_record(record("m.old", time.time() - 100, [100, 0]), tmp_path, ".player")
    write_record(record("m.new", time.time(), [0, 100]), tmp_path, ".player")
    (tmp_path / "not-a-record.player.json").write_text("{")  # half written by someone else: left out
    index = RecordIndex(tmp_path)
    assert [s["match_id"] for s in index.summaries()] == ["m.new", "m.old"]
    assert [s["result"] for s in index.summaries()] == ["lost", "won"]
    # the controller's record, written after ours, names the opponent
    controller = record("m.new", time.time(), [0, 100])
    controller.players, controller.game_name = ["ggp-agent", "random"], "breakthrough"
    write_record(controller, tmp_path)
    newest = index.summaries()[0]
    assert newest["opponents"] == [{"role": "black", "name": "random"}] and newest["game"] == "breakthrough"
    write_record(record("m.later", time.time() + 5, [50, 50]), tmp_path, ".player")
    assert [s["match_id"] for s in index.summaries()] == ["m.later", "m.new", "m.old"]
    assert json.loads((tmp_path / "m.later.player.json").read_text())["matchId"] == "m.later"
