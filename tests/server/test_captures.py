"""The raw requests of ../shared/protocol/, byte for byte, against a real server.

ggp-base's GameServer (HTTP/1.0, upper-case keywords) and the browser forms
(no Content-Type, OPTIONS preflight, GET /<url-encoded message>) must get the
replies and headers ggp-base's own players send.
"""

import pytest

from ggp_agent.gdl import load_game, parse_term
from ggp_agent.engines import make_state_machine
from ..helpers import SHARED, ServerThread, raw_request

CAPTURES = SHARED / "protocol"
GAMESERVER = CAPTURES / "ggp-base-gameserver"
CONSTRUCTED = CAPTURES / "constructed"

pytestmark = pytest.mark.skipif(not CAPTURES.is_dir(), reason="../shared/protocol is absent")

EXPECTED_HEADERS = {
    "content-type": "text/acl",
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "POST, GET, OPTIONS",
    "access-control-allow-headers": "Content-Type",
    "access-control-allow-age": "86400",
}


def captured(path):
    return path.read_bytes()


def reference_body(name: str) -> str:
    return (GAMESERVER / name).read_bytes().split(b"\r\n\r\n", 1)[1].decode()


def assert_ggp_headers(response):
    for name, value in EXPECTED_HEADERS.items():
        assert response.headers.get(name) == value, (name, response.raw_headers)
    assert int(response.headers["content-length"]) == len(response.body)


@pytest.fixture(scope="module")
def server():
    with ServerThread(name="capture-player", search="random") as running:
        yield running


def test_reference_responses_carry_the_headers_we_send():
    # The captures themselves: what ggp-base's player answered is what we copy.
    for name in ["start", "play-first", "play-later", "stop"]:
        head = (GAMESERVER / f"{name}.reference-response").read_bytes().split(b"\r\n\r\n")[0].decode()
        lower = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip()
                 for line in head.split("\r\n")[1:]}
        for header, value in EXPECTED_HEADERS.items():
            assert lower[header] == value


def test_ggp_base_match_start_play_stop(server):
    start = raw_request(server.port, captured(GAMESERVER / "start.request"))
    assert start.status == 200
    assert start.version == "HTTP/1.0"  # an HTTP/1.0 client gets an HTTP/1.0 answer
    assert start.text == reference_body("start.reference-response") == "ready"
    assert_ggp_headers(start)

    first = raw_request(server.port, captured(GAMESERVER / "play-first.request"))
    assert first.status == 200
    assert_ggp_headers(first)
    machine = make_state_machine("prolog", load_game(_capture_rules()))
    try:
        legal = machine.legal_moves(machine.initial_state(), 0)
    finally:
        machine.close()
    assert parse_term(first.text) in legal  # any legal move is right; the reference was random

    later = raw_request(server.port, captured(GAMESERVER / "play-later.request"))
    assert later.status == 200
    assert later.text == reference_body("play-later.reference-response") == "noop"
    assert_ggp_headers(later)

    stop = raw_request(server.port, captured(GAMESERVER / "stop.request"))
    assert stop.status == 200
    assert stop.text == reference_body("stop.reference-response") == "done"
    assert_ggp_headers(stop)
    assert not server.player.busy


def _capture_rules():
    from ggp_agent.player.protocol import parse_message

    body = captured(GAMESERVER / "start.request").split(b"\r\n\r\n", 1)[1].decode()
    return parse_message(body).rules


def test_preview_gets_ready(server):
    response = raw_request(server.port, captured(GAMESERVER / "preview.request"))
    assert response.status == 200
    assert response.text == "ready"
    assert_ggp_headers(response)


def test_info_from_the_game_server(server):
    response = raw_request(server.port, captured(CONSTRUCTED / "info.request"))
    assert response.status == 200
    assert response.text == "((name capture-player) (status available))"
    assert_ggp_headers(response)


def test_abort_of_a_running_match(server):
    start = raw_request(server.port, captured(GAMESERVER / "start.request"))
    assert start.text == "ready"
    assert "(status busy)" in raw_request(server.port, captured(CONSTRUCTED / "info.request")).text
    response = raw_request(server.port, captured(CONSTRUCTED / "abort.request"))
    assert response.status == 200
    assert response.text == "aborted"
    assert_ggp_headers(response)
    assert "(status available)" in raw_request(server.port, captured(CONSTRUCTED / "info.request")).text
    # The match is gone: a second ABORT names an unknown match.
    assert raw_request(server.port, captured(CONSTRUCTED / "abort.request")).text == "busy"


def test_browser_get_with_url_encoded_message(server):
    response = raw_request(server.port, captured(CONSTRUCTED / "browser-get-info.request"))
    assert response.status == 200
    assert response.text == "((name capture-player) (status available))"
    assert_ggp_headers(response)


def test_browser_options_preflight(server):
    response = raw_request(server.port, captured(CONSTRUCTED / "browser-options-preflight.request"))
    assert response.status == 200
    assert response.body == b""
    assert_ggp_headers(response)


def test_browser_post_without_content_type(server):
    # A PLAY for a match this player never started: ggp-base's players say busy.
    response = raw_request(server.port, captured(CONSTRUCTED / "browser-post-no-content-type.request"))
    assert response.status == 200
    assert response.text == "busy"
    assert_ggp_headers(response)


def test_browser_post_without_content_type_in_a_match(server):
    start = server.post(
        "(start kiosk.ticTacToe.1 oplayer ("
        + " ".join(str(rule) for rule in _capture_rules()) + ") 10 2)"
    )
    assert start.text == "ready"
    first = server.post("(play kiosk.ticTacToe.1 nil)")
    assert first.text == "noop"
    response = raw_request(server.port, captured(CONSTRUCTED / "browser-post-no-content-type.request"))
    assert response.status == 200
    assert response.text.startswith("(mark ")  # oplayer's move after (mark 2 2)
    assert response.text != "(mark 2 2)"
    assert server.post("(abort kiosk.ticTacToe.1)").text == "aborted"
