"""The commands as a person runs them: `ggp-agent serve` in one process and
`ggp-agent match` in another, over HTTP on 127.0.0.1."""

import json
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from ..helpers import GAMES, TICTACTOE, ServeProcess, raw_request, start_message


def test_match_command_against_a_served_player(tmp_path):
    with ServeProcess("--name", "served-legal", "--player", "legal", "--records", str(tmp_path / "player")) as served:
        address = served.address
        completed = subprocess.run(
            [sys.executable, "-m", "ggp_agent.cli", "-q", "match", str(TICTACTOE), "--player", address,
             "--player", "random", "--startclock", "5", "--playclock", "1", "--records", str(tmp_path / "ctl"),
             "--seed", "5"],
            capture_output=True, text=True, timeout=120,
        )
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0].startswith("match ggp-agent.tictactoe.")
    assert address in lines[1] and "errors 0" in lines[1]
    assert "random" in lines[2] and "errors 0" in lines[2]
    record = json.loads(next((tmp_path / "ctl").glob("*.json")).read_text())
    assert record["isCompleted"] and record["playerNamesFromHost"] == [address, "random"]
    mine = json.loads(next((tmp_path / "player").glob("*.player.json")).read_text())
    assert mine["matchId"] == record["matchId"] and mine["goalValues"] == record["goalValues"]


def test_match_command_reports_bad_arguments(tmp_path):
    run = lambda *args: subprocess.run([sys.executable, "-m", "ggp_agent.cli", "-q", "match", *args],
                                       capture_output=True, text=True, timeout=60)
    one_player = run(str(TICTACTOE), "--player", "random")
    assert one_player.returncode == 2 and "2 roles" in one_player.stderr
    bad_spec = run(str(TICTACTOE), "--player", "wizard", "--player", "random")
    assert bad_spec.returncode == 2 and "wizard" in bad_spec.stderr
    missing = run(str(tmp_path / "nope.kif"), "--player", "random", "--player", "random")
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_serve_on_a_port_in_use():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        completed = subprocess.run(
            [sys.executable, "-m", "ggp_agent.cli", "-q", "serve", "--port", str(port)],
            capture_output=True, text=True, timeout=60,
        )
    assert completed.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in completed.stderr


def test_serve_stops_cleanly_on_sigterm_and_records_the_aborted_match(tmp_path):
    served = ServeProcess("--player", "random", "--records", str(tmp_path))
    message = start_message("m.sigterm", "xplayer").encode()
    head = f"POST / HTTP/1.0\r\nContent-Length: {len(message)}\r\n\r\n".encode()
    assert raw_request(served.port, head + message).text == "ready"
    assert served.stop() == 0
    record = json.loads(next(tmp_path.glob("*.player.json")).read_text())
    assert record["matchId"] == "m.sigterm" and record["isAborted"]


@pytest.mark.usefixtures("compiled_kernels")
def test_sigterm_mid_move_answers_the_play_and_exits_within_two_seconds(tmp_path):
    """`docker stop` during a 30 s move: the PLAY in flight gets a legal move at
    once, the aborted match's record is on disk, the process exits 0 in time."""
    served = ServeProcess("--records", str(tmp_path), log_path=tmp_path / "serve.log")
    try:
        assert served.post(start_message("m.term", "red", GAMES / "connectfour.kif", 10, 30)).text == "ready"
        replies = []
        asking = threading.Thread(target=lambda: replies.append((served.post("(play m.term nil)", timeout=40).text,
                                                                 time.monotonic())))
        asking.start()
        time.sleep(1.5)  # the PLAY is waiting for its deadline, 28 s away
        assert replies == [] and served.process.poll() is None
        signalled = time.monotonic()
        served.process.send_signal(signal.SIGTERM)
        status = served.process.wait(timeout=10)
        exited = time.monotonic() - signalled
        asking.join(timeout=10)
        log = served.log()
    finally:
        served.stop()
    assert status == 0, log
    assert exited < 2.0, (exited, log)
    [(reply, answered_at)] = replies
    assert reply in {f"(drop {column})" for column in range(1, 8)}, reply
    assert answered_at - signalled < 1.0
    record = json.loads(next(tmp_path.glob("*.player.json")).read_text())
    assert record["matchId"] == "m.term" and record["isAborted"] and not record["isCompleted"]
    assert record["abortReason"] == "the player was stopped during the match"
    [turn] = record["turns"]
    assert turn["move"] == reply and turn["source"] == "search" and turn["stats"]["early"] == "stopping"
    assert "SIGTERM received: stopping" in log and "stopped in" in log
