"""START's trials (`driver/trials.py`): settings chosen by experiment, named in the log and the record.

A search given time for trials plays quick games between the settings it
decided and each candidate that applies, and keeps a candidate only where it
wins beyond the noise; the verdict and its margins are logged and in every
turn's figures of the match record. The rules of the verdict are pinned
here too.
"""

from __future__ import annotations

import json
import logging

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.player.config import PlayerConfig
from ggp_agent.player.player import Player
from ggp_agent.search.driver.trials import (
    Candidate, TrialResult, apply_trials, beyond_noise, candidates, trial_budget,
)
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.tree.params import tree_params

from ..helpers import GAMES, ServerThread, start_message

pytestmark = pytest.mark.usefixtures("compiled_kernels")


def test_candidates_are_those_that_apply():
    mcps = tree_params("mcps", {"heuristic": "on"})
    assert [c.name for c in candidates(mcps, heuristic_found=True)] == ["heuristic off", "probes off"]
    assert [c.name for c in candidates(mcps, heuristic_found=False)] == ["probes off"]
    assert [c.name for c in candidates(tree_params("uct", {"heuristic": "off"}), heuristic_found=True)] == [
        "heuristic on"]


def test_a_candidate_replaces_the_settings_only_beyond_the_noise():
    incumbent = tree_params("mcps", {"heuristic": "on"})
    off = Candidate("heuristic off", {"heuristic": "off"})
    close = TrialResult(off, games=16, points=10.5, move_seconds=0.03)
    close.kept = beyond_noise(close.points, close.games)
    params, reason = apply_trials(incumbent, [close])
    assert not close.kept and params == incumbent and reason.startswith("the incumbent stays")
    clear = TrialResult(off, games=16, points=13, move_seconds=0.03)
    clear.kept = beyond_noise(clear.points, clear.games)
    params, reason = apply_trials(incumbent, [clear])
    assert clear.kept and params.heuristic == "off" and reason.startswith("heuristic off (heuristic off scored 13")


def test_no_trials_without_the_time_for_them():
    assert trial_budget(10, 9) == 0.0 and trial_budget(20, 19) == 6.0


@pytest.fixture(scope="module")
def breakthrough():
    machine = make_state_machine("propnet", load_game(GAMES / "breakthrough_6x6.kif"))
    yield machine
    machine.close()


def test_trials_play_games_and_say_what_they_chose(breakthrough, caplog):
    search = make_tree_search("mcps", breakthrough, 0, seed=2, start_seconds=3, trial_seconds=8)
    with caplog.at_level(logging.INFO, logger="ggp_agent.search"):
        search.prepare(breakthrough.initial_state())
    stats = search.stats()
    names = [result["candidate"] for result in stats["trial_results"]]
    assert names == ["heuristic off", "probes off"]
    assert all(result["games"] >= 2 for result in stats["trial_results"])
    assert "heuristic off scored" in stats["trials"] and "probes off scored" in stats["trials"]
    assert any("trials in" in record.getMessage() and "scored" in record.getMessage() for record in caplog.records)


def test_trials_can_be_switched_off(breakthrough):
    search = make_tree_search("mcps", breakthrough, 0, seed=2, options={"trials": False}, start_seconds=3,
                              trial_seconds=8)
    search.prepare(breakthrough.initial_state())
    assert search.stats()["trials"] == "no trials" and search.stats()["trial_results"] == []


def test_the_match_record_carries_the_start_choices(tmp_path):
    """A START with a start clock that leaves time for trials: the record's turns say what was chosen."""
    player = Player(PlayerConfig(name="chooser", record_dir=tmp_path, threads=1))
    with ServerThread(player) as server:
        started = server.post(start_message("trialled", "white", GAMES / "breakthrough_6x6.kif", start_clock=24,
                                            play_clock=3), timeout=40)
        assert started.text.strip().lower() == "ready"
        assert server.post("(PLAY trialled NIL)", timeout=10).status == 200
        assert server.post("(ABORT trialled)").text.strip().lower() == "aborted"
    records = [json.loads(p.read_text()) for p in tmp_path.glob("*.json")]
    turns = [turn for record in records for turn in record.get("turns", [])]
    assert turns, records
    figures = turns[0]["stats"]
    assert figures["heuristic"] == "on" and figures["heuristic_reason"].startswith("material")
    assert "scored" in figures["trials"] and figures["trial_results"]
