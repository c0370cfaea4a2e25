"""A PLAY whose answer is known goes out at once, not at the deadline: a proven
win, a move forced because every other one loses, our only legal move. Real
matches over HTTP through our GameController on 127.0.0.1, the agent (MCPS on
its propnet) at a 10 s play clock, against ggp-base's legal player."""

import asyncio

import pytest

from ggp_agent.gdl import load_game
from ggp_agent.player.config import PlayerConfig
from ggp_agent.player.player import Player
from ggp_agent.referee.controller import GameController, PlayerAddress
from ggp_agent.server.app import start_server

from ..helpers import DOORS, GAMES

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")

#: Time an answer known at once may take, over HTTP, at a 10 s play clock.
AT_ONCE_S = 0.5


def connect_four_from(*cells: tuple[int, int, str]) -> str:
    """Our connect four, starting from a position: (column, row, colour) discs, red to move."""
    rules = (GAMES / "connectfour.kif").read_text(encoding="utf-8")
    discs = " ".join(f"(init (cell {c} {r} {p}))" for c, r, p in cells)
    return rules.replace("(init (control red))", f"(init (control red)) {discs}")


#: Red has three in column 1: (drop 1) wins at once.
RED_WINS_NOW = connect_four_from((1, 1, "red"), (1, 2, "red"), (1, 3, "red"),
                                 (2, 1, "yellow"), (3, 1, "yellow"), (5, 1, "yellow"))

#: Columns 1 to 6 full with no four anywhere, two discs in column 7: red's only move is (drop 7).
_COLUMNS = ["yyyryr", "yyrrry", "rrryrr", "yyyryy", "yryyry", "ryrrry", "rr"]
ONE_COLUMN_LEFT = connect_four_from(*[(c, r, "red" if p == "r" else "yellow")
                                      for c, column in enumerate(_COLUMNS, 1) for r, p in enumerate(column, 1)])

def play(rules: str, max_turns: int):
    """Our agent in the first role, ggp-base's legal player in the second, 10 s / 10 s clocks."""

    async def scenario():
        agent = await start_server(Player(PlayerConfig(name="agent", search="mcps")), "127.0.0.1", 0)
        legal = await start_server(Player(PlayerConfig(name="legal", search="legal")), "127.0.0.1", 0)
        try:
            controller = GameController(
                load_game(rules), [PlayerAddress(agent.host, agent.port), PlayerAddress(legal.host, legal.port)],
                10, 10, max_turns=max_turns, engine="propnet")
            return await controller.run()
        finally:
            await agent.stop()
            await legal.stop()

    return asyncio.run(scenario())


def test_a_proven_win_is_played_at_once():
    record = play(RED_WINS_NOW, max_turns=5)
    assert record.is_completed and record.goal_values == [100, 0]
    assert record.moves == [["(drop 1)", "noop"]]
    assert record.move_times[0][0] < AT_ONCE_S, record.move_times


def test_a_move_forced_by_three_proven_losses_then_our_only_move_are_played_at_once():
    record = play(DOORS, max_turns=2)
    assert record.error_count() == 0, record.error_details
    assert [joint[0] for joint in record.moves] == ["(open 4)", "noop"]
    assert all(times[0] < AT_ONCE_S for times in record.move_times), record.move_times


def test_a_single_legal_move_on_our_turn_is_played_at_once():
    record = play(ONE_COLUMN_LEFT, max_turns=1)
    assert record.moves[0][0] == "(drop 7)"
    assert record.move_times[0][0] < AT_ONCE_S, record.move_times
