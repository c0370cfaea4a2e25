"""Full matches over HTTP for every game in gdl_games/: our agent against random,
and against itself, start clock 10 s, play clock 2 s, through our GameController.

Every record must show zero errors: no timeout, no unparsable reply, no illegal
move, on either side. The GDL-II games are played with the GDL-II messages (the
controller plays `random`), and their records hold every role's percepts. The
loop covers whatever gdl_games/*.kif holds; matches other than tic-tac-toe and
Monty Hall against random are marked slow (they still run in CI).

The clocks are the real ones for every game, but outside tic-tac-toe the agent
thinks at most THINK seconds a move (it answers early, well inside the clock), so
that CI's time stays bounded as games are added: the answer-at-the-deadline path
is what the tic-tac-toe matches and the INFO-under-load test exercise.
"""

import asyncio

import pytest

from ggp_agent.gdl import Dialect, load_game
from ggp_agent.referee.controller import GAME_MASTER
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
#: The full matches in the default (fast) run: one GDL game, one GDL-II game.
FAST = {("tictactoe", "agent-vs-random"), ("montyhall", "agent-vs-random")}
#: Board sizes above a family's smallest play the agent against random only
#: (the agent against itself at 5x5 covers the family's rules, against random
#: at every size its board sizes; CI's time).
LARGER_SIZES = ("_7x7", "_9x9")


def cases():
    for path in sorted(GAMES.glob("*.kif")):
        for pairing in PAIRINGS:
            if pairing == "agent-vs-agent" and path.stem.endswith(LARGER_SIZES):
                continue
            marks = () if (path.stem, pairing) in FAST else (pytest.mark.slow,)
            yield pytest.param(path, pairing, marks=marks, id=f"{path.stem}-{pairing}")


@pytest.mark.parametrize("path, pairing", list(cases()))
def test_full_match_without_errors(path, pairing, tmp_path):
    game = load_game(path)
    first, second = PAIRINGS[pairing]
    if path.stem not in FULL_CLOCK:
        first, second = (f"{spec}:time={THINK}" if spec == "agent" else spec for spec in (first, second))
    players = len(game.player_roles)
    specs = [first, second] + [second] * (players - 2) if players > 1 else [first]
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
    assert [reply["reply"] for reply in on_disk.extra["startReplies"]] == ["ready"] * players
    assert on_disk.extra["stopReplies"] == ["done"] * players
    if game.dialect is Dialect.GDL_II:
        assert_gdl2_record(game, on_disk)


def assert_gdl2_record(game, record):
    """The true history with every role's percepts; the game master plays random."""
    if game.random_role is not None:
        assert record.players[game.random_role] == GAME_MASTER
    percepts = record.extra["percepts"]
    assert len(percepts) == len(record.moves)
    assert all(len(turn) == len(game.roles) for turn in percepts)
    for role in game.player_roles:  # every player perceived something along the match
        assert any(turn[role] for turn in percepts), record.roles[role]
    if game.random_role is not None:
        assert not any(turn[game.random_role] for turn in percepts)


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


@pytest.mark.parametrize("name", ["connectfour", "montyhall"])
def test_a_match_on_the_lazy_engine_searches_and_answers_every_move(name):
    """Both seats on the lazy engine, pondering (the search's twin runs while
    the player answers): every reply legal and in time, every searched turn
    with iterations, the records naming the engine; Monty Hall's percepts come
    from the machine's own Prolog engine."""
    game = load_game(GAMES / f"{name}.kif")
    spec = "agent:engine=lazy,time=0.3"
    seats = [parse_player_spec(spec) for _ in game.player_roles]
    played = asyncio.run(play_match_with_players(game, seats, START_CLOCK, PLAY_CLOCK, seed=7))
    record = played.record
    assert record.is_completed and record.error_count() == 0, record.error_details
    assert max(max(times) for times in record.move_times) < PLAY_CLOCK
    for mine in played.player_records:
        assert mine.extra["engine"] == "lazy"
        searched = [turn for turn in mine.extra["turns"] if turn["source"] == "search"]
        assert searched and sum(turn["stats"]["iterations"] for turn in searched) > 0
    if game.dialect is Dialect.GDL_II:
        assert_gdl2_record(game, record)
