"""Faults in the middle of a match: a dropped PLAY reply, Prolog out of table
space, an engine too slow for one turn, a search out of memory. Each time the
match goes on with legal moves, the next match starts clean, and the log says
what happened. Real matches over HTTP through our GameController on 127.0.0.1."""

import asyncio
import logging
import time

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.referee.controller import PlayerAddress
from ggp_agent.gdl import load_game
from ggp_agent.referee.lineup import PlayerSpec, parse_player_spec, play_match
from ggp_agent.player.config import PlayerConfig
from ggp_agent.player.play import STEP_GRACE_S, step_grace_until
from ggp_agent.player.player import Player
from ggp_agent.player.records import load_record
from ggp_agent.search.contract.interface import Search
from ggp_agent.server.app import start_server
from ..helpers import GAMES, TICTACTOE, ServeProcess, ServerThread, hold_the_gil

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


class DroppingProxy:
    """A TCP relay on 127.0.0.1 that loses the reply to chosen PLAY messages.

    For the PLAY numbered in `drop` (counting from 0) it hands the request to
    the player and then closes both connections without reading the reply, as a
    manager whose connection broke would; everything else it relays as is.
    """

    def __init__(self, upstream_port: int, drop: set[int]):
        self.upstream_port = upstream_port
        self.drop = drop
        self.plays = 0
        self.dropped: list[int] = []
        self.server = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self.server.close()
        await self.server.wait_closed()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.decode("latin-1").split("\r\n"):
            if line.lower().startswith("content-length:"):
                length = int(line.split(":", 1)[1])
        body = await reader.readexactly(length)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        up_writer.write(head + body)
        await up_writer.drain()
        is_play = body.lstrip().lower().startswith(b"(play")
        if is_play:
            number = self.plays
            self.plays += 1
            if number in self.drop:
                self.dropped.append(number)
                up_writer.close()
                writer.close()
                return
        reply = await up_reader.read()
        up_writer.close()
        writer.write(reply)
        await writer.drain()
        writer.close()


def test_a_dropped_play_reply_is_logged_and_the_match_goes_on(caplog):
    async def scenario():
        player = Player(PlayerConfig(name="dropped", search="mc", safety_margin=0.3))
        server = await start_server(player, "127.0.0.1", 0)
        proxy = DroppingProxy(server.port, drop={1, 3})
        proxy_port = await proxy.start()
        try:
            seats = [PlayerSpec("dropped", address=PlayerAddress("127.0.0.1", proxy_port)), parse_player_spec("random")]
            first = await play_match(load_game(TICTACTOE), seats, 10, 1.0, seed=3)
            await player.wait_idle()
            again = await play_match(load_game(TICTACTOE), seats[::-1], 10, 1.0, seed=4)
            await player.wait_idle()
            return first, again, proxy.dropped, player.status()
        finally:
            await proxy.stop()
            await server.stop()

    with caplog.at_level(logging.INFO, logger="ggp_agent"):
        first, again, dropped, status = asyncio.run(scenario())
    assert dropped == [1, 3]
    assert first.is_completed and again.is_completed
    # The manager saw exactly the two lost replies (connection errors) and
    # substituted moves; every other reply was legal and on time by the
    # manager's own rule (a late reply would be a TO here). How close to the
    # clock a reply comes is the loaded machine's business, not this test's.
    ours = [detail for detail in first.error_details if detail["player"] == "dropped"]
    assert [(d["turn"], d["error"]) for d in ours] == [(1, "CE"), (3, "CE")]
    assert again.error_count() == 0, again.error_details
    lost = [r.getMessage() for r in caplog.records if "could not be sent" in r.getMessage()]
    assert len(lost) == 2 and all("closed the connection" in text for text in lost)
    assert status["status"] == "available"


#: Two roles that always have moves a and b; from the state (step 6) on, the
#: terminal test needs a tabled closure of half a million answers, far more
#: table space than a player with GGP_PROLOG_TABLE_MB=8 has (the controller,
#: at the default limit, computes it in a second or two).
def _table_hungry_game(links: int = 1000) -> str:
    rules = ["(role me) (role you) (init (step 0))"]
    rules.append(" ".join(f"(link n{i} n{i + 1})" for i in range(links)))
    rules.append(" ".join(f"(succ {i} {i + 1})" for i in range(12)))
    rules.append("""
(<= (path ?x ?y) (link ?x ?y))
(<= (path ?x ?y) (path ?x ?z) (link ?z ?y))
(legal me a) (legal me b) (legal you a) (legal you b)
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 10)))
(<= terminal (true (step 6)) (path ?x ?y) (true never))
(<= (goal me 50) (true (step ?n)))
(<= (goal you 50) (true (step ?n)))
""")
    return "\n".join(rules)


@pytest.mark.slow
def test_prolog_out_of_table_space_mid_match(tmp_path):
    records = tmp_path / "records"
    with ServeProcess("--name", "starved", "--records", str(records), "--margin", "0.3",
                      "--engine", "prolog", "--search", "mc",
                      log_path=tmp_path / "serve.log", env={"GGP_PROLOG_TABLE_MB": "8"}) as agent:
        seat = PlayerSpec("starved", address=PlayerAddress.parse(agent.address))

        async def both():
            hungry = await play_match(load_game(_table_hungry_game()), [seat, parse_player_spec("random")],
                                      10, 2.0, seed=1)
            clean = await play_match(load_game(TICTACTOE), [parse_player_spec("random"), seat], 10, 1.0, seed=2)
            return hungry, clean

        hungry, clean = asyncio.run(both())
        info = agent.post("(info)").text
        log = agent.log()
    assert hungry.is_completed and len(hungry.moves) == 10
    assert hungry.errors_by_player()[0] == 0, hungry.error_details  # a and b stay legal
    assert clean.is_completed and clean.error_count() == 0, clean.error_details
    assert info == "((name starved) (status available))"
    # The log says what happened: the search's playouts and then our own engine
    # ran out of table space, and the last known legal moves played on.
    assert "a step failed: ReasonerResourceError" in log and "table_space" in log
    assert "cannot compute the state of turn 6 (ReasonerResourceError" in log
    assert "source=stale" in log
    mine = load_record(next(records.glob(f"{hungry.match_id}*.json")))
    assert "ReasonerResourceError" in mine.extra["engineLost"]
    assert mine.moves == hungry.moves
    assert {t["source"] for t in mine.extra["turns"][6:]} == {"stale"}


#: A one-role game whose state (step 3) needs a slow legal-move computation the
#: first time (a tabled closure over a chain; kept afterwards: it does not
#: depend on the state). The player's engine is behind for one turn.
SLOW_STEP = "\n".join([
    "(role me) (init (step 0))",
    " ".join(f"(link n{i} n{i + 1})" for i in range(1000)),
    " ".join(f"(succ {i} {i + 1})" for i in range(12)),
    """
(<= (path ?x ?y) (link ?x ?y))
(<= (path ?x ?y) (path ?x ?z) (link ?z ?y))
(legal me a) (legal me b)
(<= (legal me c) (true (step 3)) (path ?x ?y) (true never))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 12)))
(<= (goal me 100) (true (step 12)))
""",
])


def test_an_engine_behind_for_a_turn_answers_from_the_last_legal_moves_then_catches_up(tmp_path):
    with ServerThread(name="behind", search="random", engine="prolog", safety_margin=0.3,
                      record_dir=tmp_path) as server:
        assert server.post(f"(START m.slow me ({SLOW_STEP}) 30 0.6)").text == "ready"
        replies = [server.post("(play m.slow nil)").text]
        for _ in range(11):
            replies.append(server.post("(play m.slow (a))").text)
        assert server.post("(stop m.slow (a))").text == "done"
        assert server.post("(info)").text == "((name behind) (status available))"
        server.call(server.player.wait_idle())
    assert set(replies) <= {"a", "b"}
    mine = load_record(next(tmp_path.glob("*.player.json")))
    sources = [turn["source"] for turn in mine.extra["turns"]]
    assert "stale" in sources and sources[-1] != "stale", sources
    assert len(mine.moves) == 12 and len(mine.states) == 13  # every joint move applied in the end
    assert mine.goal_values == [100]
    assert "engineLost" not in mine.extra


#: A one-role game whose only legal move names the step: a reply from the
#: previous state's legal moves is always illegal.
COUNTING = " ".join([
    "(role me) (init (step 0))",
    " ".join(f"(succ {i} {i + 1})" for i in range(6)),
    "(<= (legal me (go ?n)) (true (step ?n)))",
    "(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))",
    "(<= terminal (true (step 6))) (<= (goal me 100) (true (step 6)))",
])


def test_a_process_stall_through_the_deadline_still_answers_from_the_new_state(tmp_path, caplog):
    """The whole process stops (the GIL held, as by a long garbage collection)
    while our engine computes turn 3's state, until past the deadline; the
    step itself then needs a moment more. Before, the player found the step
    unfinished when it woke and replied from the previous state: `(go 2)`,
    illegal. Now it waits a moment for the step (`STEP_GRACE_S`), and the
    stall watch names the stall in the log."""
    def stalling_engine(game):
        machine = make_state_machine("prolog", game)
        step, steps = machine.next_state, []

        def next_state(state, joint_move):
            steps.append(joint_move)
            if len(steps) == 3:
                hold_the_gil(0.8)  # every thread stops: past the 0.7 s deadline
                time.sleep(0.02)  # the step, unfinished as the event loop wakes
            return step(state, joint_move)

        machine.next_state = next_state
        return machine

    player = Player(PlayerConfig(name="stalled", search="random", safety_margin=0.3, record_dir=tmp_path),
                    engine_factory=stalling_engine)
    with caplog.at_level(logging.WARNING), ServerThread(player) as server:
        assert server.post(f"(START m.stall me ({COUNTING}) 30 1)").text == "ready"
        replies = [server.post("(play m.stall nil)").text]
        for _ in range(5):
            replies.append(server.post(f"(play m.stall ({replies[-1]}))").text)
        assert server.post(f"(stop m.stall ({replies[-1]}))").text == "done"
        server.call(server.player.wait_idle())
    assert replies == [f"(go {n})" for n in range(6)]
    mine = load_record(next(tmp_path.glob("*.player.json")))
    assert "stale" not in [turn["source"] for turn in mine.extra["turns"]]
    assert mine.goal_values == [100]
    assert "the process stalled for 0.7" in caplog.text or "the process stalled for 0.8" in caplog.text


def test_the_wait_for_a_late_step_keeps_half_the_margin_for_the_reply():
    """Clock deadline at 1.5 s, hard limit at 2 s (a 0.5 s margin): the full
    grace; with a 0.1 s margin at most half of it; a wake after that, none."""
    assert step_grace_until(1.5, 1.5, 2.0) == pytest.approx(1.5 + STEP_GRACE_S)
    assert step_grace_until(1.9, 1.9, 2.0) == pytest.approx(1.95)
    assert step_grace_until(1.97, 1.9, 2.0) < 1.97


def test_a_step_slower_than_the_engines_query_limit_is_caught_up_not_lost(tmp_path):
    """Our engine's own query limit is 0.2 s and the slow step takes about a
    second: following the match, its queries may run a few play clocks, so the
    player falls behind for a turn or two and catches up. Before, the first
    timeout ended its view of the match and every later reply was stale."""
    def strict_engine(game):
        return make_state_machine("prolog", game, query_time_limit=0.2)

    player = Player(PlayerConfig(name="strict", search="random", safety_margin=0.3, record_dir=tmp_path),
                    engine_factory=strict_engine)
    with ServerThread(player) as server:
        assert server.post(f"(START m.strict me ({SLOW_STEP}) 30 1)").text == "ready"
        replies = [server.post("(play m.strict nil)").text]
        for _ in range(11):
            replies.append(server.post("(play m.strict (a))").text)
        assert server.post("(stop m.strict (a))").text == "done"
        server.call(server.player.wait_idle())
    assert set(replies) <= {"a", "b"}
    mine = load_record(next(tmp_path.glob("*.player.json")))
    assert "engineLost" not in mine.extra, mine.extra["engineLost"]
    sources = [turn["source"] for turn in mine.extra["turns"]]
    assert sources[-1] != "stale" and sources.count("stale") <= 4, sources
    assert len(mine.states) == 13 and mine.goal_values == [100]


def test_a_short_think_time_still_waits_for_the_state_within_the_clock(tmp_path):
    """`think_time` bounds the thinking, not following the match: the slow step
    (about a third of a second) is computed within the 3 s clock, so no reply
    comes from the previous state's moves."""
    with ServerThread(name="quick", search="random", engine="prolog", safety_margin=0.3,
                      think_time=0.05, record_dir=tmp_path) as server:
        assert server.post(f"(START m.quick me ({SLOW_STEP}) 30 3)").text == "ready"
        server.post("(play m.quick nil)")
        for _ in range(11):
            server.post("(play m.quick (a))")
        assert server.post("(stop m.quick (a))").text == "done"
        server.call(server.player.wait_idle())
    mine = load_record(next(tmp_path.glob("*.player.json")))
    assert [turn["source"] for turn in mine.extra["turns"]].count("stale") == 0, mine.extra["turns"]


class ArenaFullSearch(Search):
    """A search whose memory runs out after two turns (as a full node arena would):
    advance raises MemoryError, and so does everything after it."""

    thinks = True

    def __init__(self, machine, role):
        self.machine, self.role, self.turns, self.full = machine, role, 0, False
        self.moves = ()

    def start(self, state, legal_moves=None):
        self.moves = legal_moves or ()

    def advance(self, joint_move, state, legal_moves=None):
        self.turns += 1
        if self.turns > 2:
            self.full = True
            raise MemoryError("node arena full (4,096 nodes)")
        self.moves = legal_moves or ()

    def best_move(self):
        if self.full:
            raise MemoryError("node arena full (4,096 nodes)")
        return self.moves[0] if self.moves else None

    def stop(self):
        pass

    def stats(self):
        return {"rule": "arena", "full": self.full}


def test_a_search_out_of_memory_leaves_the_fallback_to_play(caplog):
    async def scenario():
        player = Player(PlayerConfig(name="full", safety_margin=0.3), search_factory=ArenaFullSearch)
        server = await start_server(player, "127.0.0.1", 0)
        try:
            seat = PlayerSpec("full", address=PlayerAddress("127.0.0.1", server.port))
            first = await play_match(load_game(TICTACTOE), [seat, parse_player_spec("random")], 10, 1.0, seed=5)
            again = await play_match(load_game(TICTACTOE), [seat, parse_player_spec("random")], 10, 1.0, seed=6)
            await player.wait_idle()
            return first, again
        finally:
            await server.stop()

    with caplog.at_level(logging.INFO, logger="ggp_agent"):
        first, again = asyncio.run(scenario())
    for record in (first, again):
        assert record.is_completed and record.error_count() == 0, record.error_details
    messages = [r.getMessage() for r in caplog.records]
    assert any("failed to advance" in text and "node arena full" in text for text in messages)


def test_the_real_search_in_a_full_arena_plays_on_and_says_so(tmp_path):
    """The same fault with the real MCPS search: a memory cap of one byte gives
    each tree (one per thread) the smallest arena (4,096 nodes), which connect
    four fills within a turn.
    The search then collects what the new root no longer reaches and counts
    the iterations it could not store; every move is legal and in time."""
    connect_four = (GAMES / "connectfour.kif").read_text()

    async def scenario():
        player = Player(PlayerConfig(name="tiny", search="mcps", memory_cap=1, safety_margin=0.3,
                                     record_dir=tmp_path))
        server = await start_server(player, "127.0.0.1", 0)
        try:
            seat = PlayerSpec("tiny", address=PlayerAddress("127.0.0.1", server.port))
            record = await play_match(load_game(connect_four), [seat, parse_player_spec("random")], 10, 1.0, seed=7)
            await player.wait_idle()
            return record
        finally:
            await server.stop()

    record = asyncio.run(scenario())
    assert record.is_completed and record.error_count() == 0, record.error_details
    mine = load_record(next(tmp_path.glob("*.player.json")))
    stats = [turn["stats"] for turn in mine.extra["turns"] if turn["stats"].get("rule") == "mcps"]
    # the smallest arena for each tree (one per thread, merged in the figures)
    assert stats and all(s["node_capacity"] == 4096 * s.get("threads", 1) for s in stats)
    assert max(s["pool_full"] for s in stats) > 0  # the arena did fill
    assert all(s["nodes"] <= s["node_capacity"] for s in stats)
