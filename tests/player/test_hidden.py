"""A GDL-II match as the player sees it: PerceptPlay and PerceptStop, the belief
behind the legal moves, and the dialect deciding which messages a match takes.

Messages go straight to `Player.handle` (the HTTP side is the controller's
tests'); the engine and the search are the real ones.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from ggp_agent.gdl import parse_term
from ggp_agent.player.config import PlayerConfig
from ggp_agent.player.play import MatchError
from ggp_agent.player.player import Player
from ggp_agent.player.protocol import PerceptPlay, PerceptStop, Play, parse_message

from ..helpers import GAMES, start_message

pytestmark = pytest.mark.usefixtures("compiled_kernels")

BLIND = GAMES / "blind_tictactoe.kif"


def percepts(*texts: str) -> tuple:
    return tuple(parse_term(text) for text in texts)


async def started(player: Player, match_id: str, role: str, game=BLIND) -> None:
    start = parse_message(start_message(match_id, role, game, start_clock=5, play_clock=2))
    assert await player.handle(start) == "ready"


def test_a_blind_match_infers_the_legal_moves_from_percepts(tmp_path):
    async def run():
        player = Player(PlayerConfig(name="blind", search="mcps", think_time=0.2, ponder=False,
                                     safety_margin=0.3, record_dir=tmp_path))
        try:
            await started(player, "m.blind", "oplayer")
            assert await player.handle(PerceptPlay("m.blind", 0, None, ())) == "noop"
            # xplayer marked somewhere (we cannot see where): our turn
            first = parse_term(await player.handle(
                PerceptPlay("m.blind", 1, parse_term("noop"), percepts("(turn oplayer)"))))
            assert str(first).startswith("(mark ")
            # pretend the cell was taken: it is perceived, and never tried again
            reply = await player.handle(PerceptPlay("m.blind", 2, first, percepts(
                f"(occupied {first.args[0]} {first.args[1]})", "(turn oplayer)")))
            assert reply != str(first) and reply.startswith("(mark ")
            assert await player.handle(PerceptStop("m.blind", 3, parse_term(reply), percepts(
                f"(placed {reply[6:9]})", "(turn xplayer)"))) == "done"
            await player.wait_idle()
        finally:
            await player.close()

    asyncio.run(run())
    record = json.loads(next(tmp_path.glob("*.json")).read_text())
    observations = record["observations"]
    assert [o["turn"] for o in observations] == [1, 2, 3]
    assert observations[1]["percepts"][0].startswith("(occupied ")
    assert all(o["belief"]["states"] >= 1 and not o["belief"]["lost"] for o in observations)
    assert observations[0]["belief"]["states"] == 9  # x's first mark: any of nine cells


def test_a_missed_turn_is_taken_as_unknown_and_play_goes_on():
    async def run():
        player = Player(PlayerConfig(name="gap", search="random", safety_margin=0.3))
        try:
            await started(player, "m.gap", "contestant", GAMES / "montyhall.kif")
            assert await player.handle(PerceptPlay("m.gap", 0, None, ())) == "noop"
            # turn 1 never arrived; turn 2: random hid the car, we chose a door
            reply = await player.handle(PerceptPlay("m.gap", 2, parse_term("(choose 2)"), ()))
            assert reply == "noop"
            reply = await player.handle(PerceptPlay("m.gap", 3, parse_term("noop"), percepts("(opened 3)")))
            assert reply in ("stay", "switch")
            with pytest.raises(MatchError, match="turn 3 was expected|turn 4 was expected"):
                await player.handle(PerceptPlay("m.gap", 1, parse_term("noop"), ()))
        finally:
            await player.close()

    asyncio.run(run())


def test_each_dialect_keeps_its_own_messages():
    async def run():
        player = Player(PlayerConfig(name="dialects", search="random", safety_margin=0.3, max_matches=2))
        try:
            await started(player, "m.gdl", "xplayer", GAMES / "tictactoe.kif")
            with pytest.raises(MatchError, match="GDL game"):
                await player.handle(PerceptPlay("m.gdl", 0, None, ()))
            await started(player, "m.gdl2", "xplayer")
            with pytest.raises(MatchError, match="GDL-II game"):
                await player.handle(Play("m.gdl2", None))
        finally:
            await player.close()

    asyncio.run(run())


def test_a_percept_play_waiting_for_its_deadline_answers_when_the_player_stops(tmp_path):
    async def run():
        player = Player(PlayerConfig(name="blind", search="mcps", ponder=False, record_dir=tmp_path))
        try:
            start = parse_message(start_message("m.stop", "xplayer", BLIND, start_clock=5, play_clock=60))
            assert await player.handle(start) == "ready"
            reply = asyncio.ensure_future(player.handle(PerceptPlay("m.stop", 0, None, ())))
            await asyncio.sleep(0.5)
            player.begin_shutdown()
            return await reply
        finally:
            await player.close()

    assert asyncio.run(run()).startswith("(mark ")
    record = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert [turn["stats"].get("early") for turn in record["turns"]] == ["stopping"]
