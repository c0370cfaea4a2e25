"""Stopping the player (`Player.close`, what SIGTERM does) while work is in
flight: every waiting reply goes out at once, every match is recorded as
aborted, and the close keeps to its grace even when a compile or an engine
step would take much longer. Real servers on 127.0.0.1 in this process; the
SIGTERM to a real `ggp-agent serve` is in tests/cli/test_serve.py."""

import threading
import time

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.player.config import PlayerConfig
from ggp_agent.player.player import Player
from ggp_agent.player.records import load_record

from ..helpers import ServerThread, start_message

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


class SlowSteps:
    """A Prolog engine whose next_state takes `seconds` once armed."""

    def __init__(self, game, seconds: float):
        self.inner = make_state_machine("prolog", game)
        self.seconds = seconds
        self.armed = False

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def next_state(self, state, joint_move):
        if self.armed:
            time.sleep(self.seconds)
        return self.inner.next_state(state, joint_move)


def _in_background(function):
    box = []
    thread = threading.Thread(target=lambda: box.append((function(), time.monotonic())), daemon=True)
    thread.start()
    return thread, box


def _close(server: ServerThread) -> float:
    """Stop the server now (leaving the `with` stops it again: a no-op); the seconds it took."""
    began = time.monotonic()
    server.call(server.server.stop())
    return time.monotonic() - began


def test_a_start_waiting_for_a_slow_compile_answers_and_the_close_keeps_its_grace(tmp_path):
    def slow_engine(game):
        time.sleep(4)
        return make_state_machine("prolog", game)

    player = Player(PlayerConfig(name="slow", search="random", record_dir=tmp_path), engine_factory=slow_engine)
    with ServerThread(player) as server:
        thread, box = _in_background(lambda: server.post(start_message("m.compiling", "xplayer", start_clock=60)).text)
        time.sleep(0.5)
        closing = time.monotonic()
        took = _close(server)
        thread.join(timeout=5)
    [(reply, answered)] = box
    assert reply == "ready" and answered - closing < 0.5
    assert took < 2.0
    record = load_record(next(tmp_path.glob("*.player.json")))
    assert record.match_id == "m.compiling" and record.is_aborted and record.states == []


def test_a_play_waiting_for_a_slow_engine_step_answers_from_the_moves_it_knows(tmp_path):
    engines = []

    def slow_steps(game):
        engines.append(SlowSteps(game, seconds=5))
        return engines[-1]

    player = Player(PlayerConfig(name="behind", search="random", record_dir=tmp_path), engine_factory=slow_steps)
    with ServerThread(player) as server:
        assert server.post(start_message("m.slow", "xplayer", play_clock=30)).text == "ready"
        first = server.post("(play m.slow nil)").text
        engines[0].armed = True
        thread, box = _in_background(lambda: server.post(f"(play m.slow ({first} noop))").text)
        time.sleep(0.5)
        closing = time.monotonic()
        took = _close(server)
        thread.join(timeout=5)
    [(reply, answered)] = box
    assert reply.startswith("(mark ") and answered - closing < 0.5  # stale, but a reply at once
    assert took < 2.0
    record = load_record(next(tmp_path.glob("*.player.json")))
    assert record.is_aborted and record.abort_reason == "the player was stopped during the match"
    assert [turn["source"] for turn in record.extra["turns"]] == ["search", "stale"]
