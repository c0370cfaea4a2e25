"""Full matches over HTTP for every game in gdl_games/: our agent against random,
and against itself, start clock 10 s, play clock 2 s, through our GameController.

Every record must show zero errors: no timeout, no unparsable reply, no illegal
move, on either side. The loop covers whatever gdl_games/*.kif holds; matches
other than tic-tac-toe against random are marked slow (they still run in CI).

The clocks are the real ones for every game, but outside tic-tac-toe the agent
thinks at most THINK seconds a move (it answers early, well inside the clock), so
that CI's time stays bounded as games are added: the answer-at-the-deadline path
is what the tic-tac-toe matches and the INFO-under-load test exercise.
"""

import asyncio

import pytest

from ggp_agent.gdl import Dialect, load_game
from ggp_agent.referee.lineup import parse_player_spec, play_match, play_match_with_players
from ggp_agent.player.records import load_record
from ..helpers import GAMES

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")

START_CLOCK = 10
PLAY_CLOCK = 2
PAIRINGS = {"agent-vs-random": ("agent", "random"), "agent-vs-agent": ("agent", "agent")}
#: Thinking per move outside tic-tac-toe, in seconds.
THINK = 0.25
#: Games played with the agent using its whole clock.
FULL_CLOCK = {"tictactoe"}
#: The one full match in the default (fast) run.
FAST = {("tictactoe", "agent-vs-random")}
#: Sizes between the smallest and the largest of a family play random only
#: (the agent against itself at 5x5 and 9x9 covers the family; CI's time).
MIDDLE_SIZES = ("_7x7",)


def cases():
    # GDL only: the controller and the player do not play GDL-II matches yet.
    for path in sorted(GAMES.glob("*.kif")):
        if load_game(path).dialect is not Dialect.GDL:
            continue
        for pairing in PAIRINGS:
            if pairing == "agent-vs-agent" and path.stem.endswith(MIDDLE_SIZES):
                continue
            marks = () if (path.stem, pairing) in FAST else (pytest.mark.slow,)
            yield pytest.param(path, pairing, marks=marks, id=f"{path.stem}-{pairing}")


@pytest.mark.parametrize("path, pairing", list(cases()))
def test_full_match_without_errors(path, pairing, tmp_path):
    game = load_game(path)
    first, second = PAIRINGS[pairing]
    if path.stem not in FULL_CLOCK:
        first, second = (f"{spec}:time={THINK}" if spec == "agent" else spec for spec in (first, second))
    specs = [first, second] + [second] * (len(game.roles) - 2) if len(game.roles) > 1 else [first]
    seats = [parse_player_spec(spec) for spec in specs]
    record = asyncio.run(play_match(game, seats, START_CLOCK, PLAY_CLOCK, game_name=path.stem,
                                    record_dir=tmp_path, seed=11))
    on_disk = load_record(next(tmp_path.glob("*.json")))
    assert on_disk.to_json() == record.to_json()  # what the controller returns is what it wrote
    assert on_disk.is_completed and not on_disk.is_aborted
    assert on_disk.error_count() == 0, on_disk.error_details
    assert all(code == "" for turn in on_disk.errors for code in turn)
    assert on_disk.goal_values is not None and len(on_disk.goal_values) == len(game.roles)
    assert all(0 <= value <= 100 for value in on_disk.goal_values)
    assert len(on_disk.moves) >= 1 and len(on_disk.states) == len(on_disk.moves) + 1
    assert max(max(times) for times in on_disk.move_times) < PLAY_CLOCK
    assert [reply["reply"] for reply in on_disk.extra["startReplies"]] == ["ready"] * len(game.roles)
    assert on_disk.extra["stopReplies"] == ["done"] * len(game.roles)


def test_a_match_brings_back_the_in_process_players_own_records():
    seats = [parse_player_spec("agent:search=mcps,time=0.1,ponder=0"), parse_player_spec("random")]
    played = asyncio.run(play_match_with_players(load_game(GAMES / "tictactoe.kif"), seats, START_CLOCK,
                                                 PLAY_CLOCK, seed=5))
    mine, theirs = played.player_records
    assert mine.match_id == theirs.match_id == played.record.match_id
    assert mine.goal_values == theirs.goal_values == played.record.goal_values
    searched = [turn for turn in mine.extra["turns"] if turn["source"] == "search"]
    assert searched and all("iterations" in turn["stats"] for turn in searched)
    assert sum(turn["stats"]["iterations"] for turn in searched) > 0  # (none once the solver has the root)
    assert theirs.extra["searchRule"] == "random" and mine.extra["searchRule"] == "mcps"
