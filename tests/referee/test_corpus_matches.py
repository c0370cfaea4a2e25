"""Full matches over HTTP on the corpus' big games, the agent against itself,
at a 60 s start clock and a 10 s play clock: chess (speedChess), checkers,
amazonsSuicide and chineseCheckers3. These used to play on Prolog (their
propnets did not build within a START); now each builds a propnet within
the start clock's share, or plays on Prolog until the one building in the
background is ready (`player/upgrade.py`).

Zero errors on either side: no timeout, no unparsable reply, no illegal move.
The clocks are the real ones; each agent thinks THINK seconds a move, well
inside the clock, so that the four matches take minutes rather than an hour
(the deadline path is covered by `test_matches.py`'s tic-tac-toe). Slow; skips
without ../shared. Chinese checkers (about a minute) runs in the suite; the
other three take 2 to 7 minutes each and are `long`: `pytest -m long
tests/referee/test_corpus_matches.py` runs them.
"""

import asyncio

import pytest

from ggp_agent.gdl import load_game
from ggp_agent.player.records import load_record
from ggp_agent.referee.lineup import parse_player_spec, play_match_with_players

from ..helpers import shared_path

pytestmark = [pytest.mark.usefixtures("compiled_kernels"), pytest.mark.slow]

START_CLOCK = 60
PLAY_CLOCK = 10
THINK = 2.0
GAMES = (pytest.param("speedChess", marks=pytest.mark.long), pytest.param("checkers", marks=pytest.mark.long),
         pytest.param("amazonsSuicide", marks=pytest.mark.long), "chineseCheckers3")


@pytest.mark.parametrize("name", GAMES)
def test_the_agent_plays_a_big_corpus_game_against_itself_without_errors(name, tmp_path):
    game = load_game(shared_path("gdl-corpus", "games", f"{name}.kif"))
    seats = [parse_player_spec(f"agent:time={THINK}") for _ in game.player_roles]
    played = asyncio.run(play_match_with_players(game, seats, START_CLOCK, PLAY_CLOCK, game_name=name,
                                                 record_dir=tmp_path, seed=5, engine="auto"))
    record = load_record(next(tmp_path.glob("*.json")))
    assert record.is_completed and not record.is_aborted
    assert record.error_count() == 0, record.error_details
    assert [reply["reply"] for reply in record.extra["startReplies"]] == ["ready"] * len(seats)
    assert max(max(times) for times in record.move_times) < PLAY_CLOCK
    engines = [own.extra["engine"] for own in played.player_records]
    assert engines == ["propnet"] * len(seats), engines
