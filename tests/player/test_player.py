"""The match lifecycle under failure: a search that crashes, hangs or lies, a slow
compile. Real matches over HTTP through our GameController, on 127.0.0.1."""

import asyncio
import json
import logging
import threading
import time

import pytest

from ggp_agent.referee.controller import PlayerAddress
from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import Symbol, load_game
from ggp_agent.referee.lineup import PlayerSpec, parse_player_spec, play_match
from ggp_agent.player.config import PlayerConfig
from ggp_agent.player.player import Player
from ggp_agent.player.records import load_record
from ggp_agent.reasoner.prolog_machine import PrologStateMachine
from ggp_agent.search.contract.interface import Search
from ggp_agent.search.registry import make_search
from ggp_agent.server.app import start_server
from ..helpers import TICTACTOE, ServerThread, start_message

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


class CrashingSearch(Search):
    """Its worker thread dies at once; every method after start raises."""

    thinks = True

    def __init__(self, machine, role):
        self.thread = None

    def start(self, state, legal_moves=None):
        def die():
            raise RuntimeError("search thread crashed")

        self.thread = threading.Thread(target=die, daemon=True)
        self.thread.start()

    def advance(self, joint_move, state, legal_moves=None):
        raise RuntimeError("advance crashed")

    def best_move(self):
        raise RuntimeError("best_move crashed")

    def stop(self):
        raise RuntimeError("stop crashed")

    def stats(self):
        raise RuntimeError("stats crashed")


class LyingSearch(CrashingSearch):
    """Proposes a move no game has, and a legal move in another case."""

    def start(self, state, legal_moves=None):
        pass

    def advance(self, joint_move, state, legal_moves=None):
        pass

    def best_move(self):
        return Symbol("MARK")

    def stop(self):
        pass

    def stats(self):
        return {"rule": "lying"}


class HangingSearch(LyingSearch):
    """Never answers best_move (a deadlock inside a search)."""

    def __init__(self, machine, role):
        self.release = threading.Event()

    def best_move(self):
        self.release.wait(30)
        return None

    def stop(self):
        self.release.set()


class EmptySearch(LyingSearch):
    """Has not finished an iteration when the move is asked for (a slow engine)."""

    def best_move(self):
        return None

    def stats(self):
        return {"rule": "empty", "iterations": 0}


class NoStartSearch(LyingSearch):
    def start(self, state, legal_moves=None):
        raise RuntimeError("cannot start")


async def match_against_random(search_factory, seat=0, play_clock=1.0, start_clock=10.0, engine_factory=None,
                               record_dir=None):
    """Our player, with the given search, against ggp-base-style random play."""
    player = Player(PlayerConfig(name="faulty", safety_margin=0.3, record_dir=record_dir),
                    engine_factory=engine_factory, search_factory=search_factory)
    server = await start_server(player, "127.0.0.1", 0)
    try:
        seats = [parse_player_spec("random"), parse_player_spec("random")]
        seats[seat] = PlayerSpec("faulty", address=PlayerAddress("127.0.0.1", server.port))
        record = await play_match(load_game(TICTACTOE), seats, start_clock, play_clock, seed=7)
        await player.wait_idle()
        return record, player
    finally:
        await server.stop()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("search", [CrashingSearch, LyingSearch, HangingSearch, NoStartSearch])
def test_a_failing_search_still_yields_legal_timely_moves(search):
    record, _ = asyncio.run(match_against_random(search))
    assert record.is_completed
    assert record.error_count() == 0, record.error_details
    assert all(times[0] < 1.0 for times in record.move_times), record.move_times


def test_player_record_says_where_each_move_came_from(tmp_path):
    record, player = asyncio.run(match_against_random(LyingSearch, record_dir=tmp_path))
    assert record.error_count() == 0
    mine = load_record(next(tmp_path.glob("*.player.json")))
    assert mine.match_id == record.match_id
    assert mine.goal_values == record.goal_values
    assert mine.moves == record.moves
    sources = {turn["source"] for turn in mine.extra["turns"]}
    assert sources <= {"fallback", "forced"} and "fallback" in sources


def test_a_search_without_a_move_says_so_and_a_legal_move_plays(caplog):
    """A search with no answer yet (over Prolog, no iteration finished by the
    deadline) is replaced by a random legal move, and the log says why."""
    with caplog.at_level(logging.WARNING, logger="ggp_agent"):
        record, _ = asyncio.run(match_against_random(EmptySearch))
    assert record.is_completed and record.error_count() == 0, record.error_details
    assert "the search has no move yet (0 iterations); a random legal move plays" in caplog.text


class LosingMoves(PrologStateMachine):
    """Prolog, but past the initial state it has no legal move for anyone
    (`no_moves`) or calls every state terminal: a broken build's answers."""

    def __init__(self, game, says_terminal: bool):
        super().__init__(game)
        self.says_terminal = says_terminal

    def legal_moves(self, state, role):
        lost = state != self.initial_state() and not self.says_terminal
        return () if lost else super().legal_moves(state, role)

    def is_terminal(self, state):
        return (state != self.initial_state() and self.says_terminal) or super().is_terminal(state)


@pytest.mark.parametrize("says_terminal", [False, True], ids=["no_moves", "says_terminal"])
def test_an_engine_without_our_legal_moves_still_yields_legal_moves_from_the_rules(says_terminal, tmp_path,
                                                                                   caplog):
    with caplog.at_level(logging.ERROR, logger="ggp_agent"):
        record, _ = asyncio.run(match_against_random(
            lambda machine, role: make_search("random", machine, role), record_dir=tmp_path,
            engine_factory=lambda game: LosingMoves(game, says_terminal)))
    assert record.is_completed and record.error_count() == 0, record.error_details
    turns = load_record(next(tmp_path.glob("*.player.json"))).extra["turns"]
    assert {turn["source"] for turn in turns[1:]} == {"rules"} and "nil" not in {t["move"] for t in turns}
    assert "our engine (prolog) has no legal move for us where the match asks for one" in caplog.text


def test_compile_slower_than_the_start_clock():
    def slow_engine(game):
        time.sleep(1.5)
        return make_state_machine("prolog", game)

    record, _ = asyncio.run(match_against_random(
        lambda machine, role: make_search("random", machine, role),
        start_clock=1.0, play_clock=2.0, engine_factory=slow_engine,
    ))
    assert record.is_completed
    assert record.error_count() == 0, record.error_details
    assert record.extra["startReplies"][0]["reply"] == "ready"
    assert record.extra["startReplies"][0]["seconds"] < 1.0


def test_two_concurrent_matches_when_allowed():
    with ServerThread(name="double", search="random", max_matches=2) as server:
        assert server.post(start_message("m.a", "xplayer")).text == "ready"
        assert server.post(start_message("m.b", "oplayer")).text == "ready"
        assert server.post(start_message("m.c", "oplayer")).text == "busy"
        assert server.post("(play m.a nil)").text.startswith("(mark ")
        assert server.post("(play m.b nil)").text == "noop"
        status = server.player.status()
        assert {m["match_id"] for m in status["matches"]} == {"m.a", "m.b"}
        assert server.post("(abort m.a)").text == "aborted"
        assert server.post("(abort m.b)").text == "aborted"
        assert server.post("(info)").text == "((name double) (status available))"


def test_monte_carlo_finds_the_winning_move():
    # xplayer to move with two in a row: (mark 1 3) wins at once. The margin
    # is wide (0.5 s: the search is asked with up to 0.25 s to answer) so
    # that a stall of the test process at the deadline, which once made the
    # player fall back to a random move (its designed answer, tested in
    # test_faults.py), does not stand in for the search's choice.
    with ServerThread(name="mc", search="mc", safety_margin=0.5) as server:
        assert server.post(start_message("m.win", "xplayer", play_clock=1.5)).text == "ready"
        server.post("(play m.win nil)")
        server.post("(play m.win ((mark 1 1) noop))")
        server.post("(play m.win (noop (mark 3 1)))")
        server.post("(play m.win ((mark 1 2) noop))")
        move = server.post("(play m.win (noop (mark 3 2)))").text
        assert move in ("(mark 1 3)", "(mark 3 3)")  # both win at once
        status = server.player.status()["matches"][0]
        assert status["last_move"]["source"] == "search"
        assert status["last_move"]["stats"]["playouts"] > 0
        assert server.post("(abort m.win)").text == "aborted"


def test_an_abandoned_match_is_freed_by_the_next_start():
    with ServerThread(name="forgetful", search="random", abandon_grace=0.5) as server:
        assert server.post(start_message("m.left", "xplayer", start_clock=0.2, play_clock=0.2)).text == "ready"
        assert server.post(start_message("m.next", "xplayer")).text == "busy"  # still within its clocks
        time.sleep(1.2)  # 2 x 0.2 s + 0.5 s without a message: the manager is gone
        assert server.post(start_message("m.next", "xplayer")).text == "ready"
        assert server.post("(play m.left nil)").text == "busy"
        assert server.post("(abort m.next)").text == "aborted"


def test_an_abandoned_match_is_freed_by_an_info_ping(tmp_path):
    """A match server schedules only players that answer `available` to
    (info): a match whose manager walked away ends when a ping finds it idle
    past its limit, and is recorded as abandoned."""
    with ServerThread(name="pinged", search="random", abandon_grace=0.5, record_dir=tmp_path) as server:
        assert server.post(start_message("m.gone", "xplayer", start_clock=0.2, play_clock=0.2)).text == "ready"
        assert server.post("(info)").text == "((name pinged) (status busy))"
        time.sleep(1.2)
        assert server.post("(info)").text == "((name pinged) (status available))"
        server.call(server.player.wait_idle())
    [record] = [json.loads(path.read_text()) for path in tmp_path.glob("*.player.json")]
    assert record["matchId"] == "m.gone" and record["status"] == "abandoned" and record["isAborted"]


def test_a_compile_that_fails_after_the_start_clock_frees_the_match():
    from ggp_agent.reasoner.statemachine import ReasonerError

    def failing_engine(game):
        time.sleep(1.2)
        raise ReasonerError("the game is too big for this engine")

    player = Player(PlayerConfig(name="late-failure", safety_margin=0.2), engine_factory=failing_engine)
    with ServerThread(player) as server:
        assert server.post(start_message("m.late", "xplayer", start_clock=1)).text == "ready"
        play = server.post("(play m.late nil)")
        assert play.status == 400 and "could not start" in play.text and "too big" in play.text
        assert server.post("(info)").text == "((name late-failure) (status available))"
        assert server.post("(play m.late nil)").text == "busy"


@pytest.mark.parametrize("start_clock", [3.0, 10.0])
def test_the_player_gives_the_propnet_the_engines_share_of_the_start_clock(start_clock, caplog):
    """The budget the player uses is `engines.propnet_budget`, the rule its own test checks."""
    from ggp_agent.engines import propnet_budget
    from ggp_agent.player.protocol import Abort, parse_message

    async def scenario():
        player = Player(PlayerConfig(name="budget", search="random"))
        try:
            start = parse_message(start_message("m.budget", "xplayer", start_clock=start_clock))
            assert await player.handle(start) == "ready"
            await player.handle(Abort("m.budget"))
        finally:
            await player.close()

    with caplog.at_level(logging.INFO, logger="ggp_agent.player"):
        asyncio.run(scenario())
    assert f"propnet budget {propnet_budget(start_clock):.2f} s of the {start_clock:g} s start clock" in caplog.text
