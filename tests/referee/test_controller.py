"""The GameController against players that misbehave: each error is recorded
(TO, CE, IL), a random legal move is played instead, and the match finishes.

The misbehaving players are small real HTTP servers on 127.0.0.1."""

import asyncio
import json
import socket

import pytest
from aiohttp import web

from ggp_agent.referee.controller import GameController, PlayerAddress, format_result
from ggp_agent.gdl import load_game
from ggp_agent.referee.lineup import parse_player_spec, play_match, PlayerSpec
from ggp_agent.player.records import load_record
from ..helpers import GAMES, TICTACTOE

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


async def bad_player(reply_for_play, status=200):
    """A server that answers START with ready and every PLAY with `reply_for_play(turn)`."""
    turns = {"n": 0}

    async def handle(request):
        text = (await request.text()).strip().lower()
        if text.startswith("(play"):
            turns["n"] += 1
            reply = reply_for_play(turns["n"])
            if asyncio.iscoroutine(reply):
                reply = await reply
            return web.Response(text=reply, status=status)
        if text.startswith("(start"):
            return web.Response(text="ready")
        return web.Response(text="done")

    app = web.Application()
    app.router.add_post("/", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    return runner, PlayerSpec("bad", address=PlayerAddress("127.0.0.1", port))


def run_against(reply_for_play, status=200, play_clock=1.0, tmp_path=None):
    async def main():
        runner, bad = await bad_player(reply_for_play, status)
        try:
            return await play_match(load_game(TICTACTOE), [parse_player_spec("legal"), bad], 5, play_clock,
                                    seed=3, grace=0.5, record_dir=tmp_path, game_name="tictactoe")
        finally:
            await runner.cleanup()

    return asyncio.run(main())


def codes_of(record, role_index=1):
    return [turn[role_index] for turn in record.errors]


def test_illegal_moves_are_recorded_and_replaced(tmp_path):
    record = run_against(lambda turn: "(mark 9 9)", tmp_path=tmp_path)
    assert record.is_completed and record.goal_values is not None
    assert set(codes_of(record)) == {"IL"}
    assert all(turn[0] == "" for turn in record.errors)
    assert record.error_details[0]["reply"] == "(mark 9 9)"
    # The record on disk is the same record.
    on_disk = load_record(next(tmp_path.glob("*.json")))
    assert on_disk.errors == record.errors and on_disk.goal_values == record.goal_values
    data = json.loads(next(tmp_path.glob("*.json")).read_text())
    for key in ["matchId", "gameName", "roles", "startClock", "playClock", "moves", "states", "errors",
                "goalValues", "isCompleted", "isAborted", "playerNamesFromHost"]:
        assert key in data
    assert "bad" in format_result(record)


def test_a_move_in_another_case_is_illegal():
    record = run_against(lambda turn: "NOOP")
    assert "IL" in codes_of(record)


def test_unparsable_replies_are_communication_errors():
    record = run_against(lambda turn: "((( not a move")
    assert record.is_completed
    assert set(codes_of(record)) == {"CE"}


def test_http_errors_are_communication_errors():
    record = run_against(lambda turn: "noop", status=500)
    assert set(codes_of(record)) == {"CE"}


def test_late_replies_are_timeouts():
    async def late(turn):
        if turn == 1:
            await asyncio.sleep(2.0)  # play clock 1 s + grace 0.5 s
        return "noop"

    record = run_against(late)
    assert record.is_completed
    assert codes_of(record)[0] == "TO"
    assert "IL" not in codes_of(record)[:1]


def test_a_player_that_is_not_there():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    absent = PlayerSpec("absent", address=PlayerAddress("127.0.0.1", port))
    record = asyncio.run(play_match(load_game(TICTACTOE), [parse_player_spec("random"), absent], 2, 1, seed=1))
    assert record.is_completed
    assert set(codes_of(record)) == {"CE"}
    assert record.extra["startReplies"][1]["error"] == "CE"


def test_player_count_must_match_roles():
    with pytest.raises(ValueError, match="2 player roles"):
        GameController(load_game(TICTACTOE), [PlayerAddress("127.0.0.1", 1)], 1, 1)


def test_addresses_parse():
    assert PlayerAddress.parse("127.0.0.1:9147") == PlayerAddress("127.0.0.1", 9147)
    assert PlayerAddress.parse("[::1]:80").url == "http://[::1]:80/"
    for bad in ["localhost", "host:port", "1.2.3.4:99999", ""]:
        with pytest.raises(ValueError):
            PlayerAddress.parse(bad)


def test_player_specs_parse():
    spec = parse_player_spec("agent:search=mc,time=0.25,engine=prolog,name=mc-fast,seed=3")
    assert spec.config.search == "mc" and spec.config.think_time == 0.25 and spec.config.name == "mc-fast"
    assert parse_player_spec("random").config.search == "random"
    for bad in ["wizard", "agent:time=-1", "agent:search=deep", "agent:colour=red", "agent:time"]:
        with pytest.raises(ValueError):
            parse_player_spec(bad)


def test_a_gdl_ii_player_gets_only_its_own_move_and_percepts():
    """Monty Hall through the controller: it plays random, and the contestant's
    messages hold the turn, the contestant's own move and its percepts only."""
    seen = []
    replies = {0: "noop", 1: "(choose 1)", 2: "noop", 3: "switch"}

    async def handle(request):
        text = (await request.text()).strip()
        seen.append(text)
        lowered = text.lower()
        if lowered.startswith("(start"):
            return web.Response(text="ready")
        if lowered.startswith("(play"):
            return web.Response(text=replies[int(text.split()[2])])
        return web.Response(text="done")

    async def main():
        app = web.Application()
        app.router.add_post("/", handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        try:
            game = load_game(GAMES / "montyhall.kif")
            controller = GameController(game, [PlayerAddress("127.0.0.1", port)], 2, 1, match_id="mh", seed=5)
            return await controller.run()
        finally:
            await runner.cleanup()

    record = asyncio.run(main())
    assert record.is_completed and record.error_count() == 0
    assert record.players[1] == "game master"
    car = record.moves[0][1]  # (hide_car D): random's move, never sent to the contestant
    door = record.moves[2][1].strip("()").split()[1]  # (open_door D)
    messages = [m for m in seen if not m.lower().startswith("(start")]
    assert messages[:2] == ["(play mh 0 nil nil)", "(play mh 1 noop nil)"]
    assert messages[2] == "(play mh 2 (choose 1) nil)"
    assert messages[3] == f"(play mh 3 noop ((opened {door})))"
    assert messages[4].startswith("(stop mh 4 switch ((car ")
    assert not any(car in message for message in messages)
    assert record.extra["percepts"][2] == [[f"(opened {door})"], []]
    assert record.extra["percepts"][3][0][0].startswith("(car ")
