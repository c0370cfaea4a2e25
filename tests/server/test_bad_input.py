"""Bad input, each answered, and the server still up after every one."""

import socket

import pytest

from ..helpers import ServerThread, raw_request, read_response, start_message

INFO_AVAILABLE = "((name bad-input) (status available))"


@pytest.fixture(scope="module")
def server():
    with ServerThread(name="bad-input", search="random") as running:
        yield running


def still_up(server, status="available"):
    response = server.post("(info)")
    assert response.status == 200
    assert response.text == f"((name bad-input) (status {status}))"


def assert_bad_request(response, words):
    assert response.status == 400
    reason = response.text
    assert words in reason
    assert "\n" not in reason.strip()
    assert response.headers["access-control-allow-origin"] == "*"


def test_empty_body(server):
    assert_bad_request(server.post(""), "empty message")
    still_up(server)


def test_post_with_no_body_at_all(server):
    response = raw_request(server.port, b"POST / HTTP/1.0\r\nHost: localhost\r\n\r\n")
    assert_bad_request(response, "empty message")
    still_up(server)


def test_unknown_message(server):
    assert_bad_request(server.post("(hello 1 2)"), "unknown message 'hello'")
    still_up(server)


def test_wrong_arity(server):
    assert_bad_request(server.post("(play m1)"), "'play' takes 2 arguments (MOVES) or 4")
    assert_bad_request(server.post("(start m1 xplayer ((role xplayer)) 10)"), "'start' takes 5 arguments")
    still_up(server)


def test_non_numeric_clocks(server):
    assert_bad_request(server.post(start_message("m.clock", "xplayer").replace(" 10 2)", " ten 2)")),
                       "start clock must be a number")
    assert_bad_request(server.post(start_message("m.clock", "xplayer").replace(" 10 2)", " 10 two)")),
                       "play clock must be a number")
    still_up(server)  # and no match was started


def test_garbage_bytes(server):
    body = bytes(range(256)) * 4 + b"\xff\xfe((("
    head = f"POST / HTTP/1.0\r\nContent-Length: {len(body)}\r\n\r\n".encode()
    response = raw_request(server.port, head + body)
    assert response.status == 400
    still_up(server)


def test_not_http_at_all(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n")
        sock.recv(65536)  # aiohttp answers 400 and closes; either way no crash
    still_up(server)


def test_body_of_50_megabytes(server):
    size = 50 * 1024 * 1024
    head = f"POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {size}\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(head)
        chunk = b"(" * 65536
        sent = 0
        try:  # the server may answer and close before the body is all sent
            while sent < size:
                sock.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        try:

            response = read_response(sock)
            assert response.status == 413
            assert "too large" in response.text
        except ConnectionResetError:
            pass  # the reply was sent, then the reset of the unread body overtook it
    still_up(server)


def test_chunked_body_over_the_limit():
    with ServerThread(name="bad-input", search="random", max_body=100_000) as small:
        with socket.create_connection(("127.0.0.1", small.port), timeout=30) as sock:
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            piece = b"(" * 50_000
            try:
                for _ in range(10):
                    sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            try:

                assert read_response(sock).status == 413
            except ConnectionResetError:
                pass
        still_up(small)


def test_unknown_match_id(server):
    for message in ["(play nosuch nil)", "(stop nosuch nil)", "(abort nosuch)"]:
        response = server.post(message)
        assert response.status == 200
        assert response.text == "busy"
    still_up(server)


def test_play_before_start(server):
    assert server.post("(play m.early nil)").text == "busy"
    assert server.post(start_message("m.early", "xplayer")).text == "ready"
    assert server.post("(play m.early nil)").text.startswith("(mark ")
    assert server.post("(abort m.early)").text == "aborted"
    still_up(server)


def test_start_twice(server):
    assert server.post(start_message("m.twice", "oplayer")).text == "ready"
    assert server.post(start_message("m.twice", "oplayer")).text == "busy"
    assert server.post(start_message("m.other", "oplayer")).text == "busy"  # max one match
    # The first match is unharmed.
    assert server.post("(play m.twice nil)").text == "noop"
    still_up(server, "busy")
    assert server.post("(abort m.twice)").text == "aborted"
    still_up(server)


def test_stop_for_a_finished_match(server):
    assert server.post(start_message("m.done", "xplayer")).text == "ready"
    move = server.post("(play m.done nil)").text
    assert server.post(f"(stop m.done ({move} noop))").text == "done"
    assert server.post(f"(stop m.done ({move} noop))").text == "busy"
    assert server.post("(play m.done nil)").text == "busy"
    still_up(server)


def test_play_with_the_wrong_number_of_moves(server):
    assert server.post(start_message("m.count", "xplayer")).text == "ready"
    server.post("(play m.count nil)")
    assert_bad_request(server.post("(play m.count ((mark 1 1)))"), "has 1 moves, the game has 2 roles")
    assert server.post("(abort m.count)").text == "aborted"
    still_up(server)


def test_start_with_an_unplayable_game(server):
    # Well-formed, but no role: the player declines with busy and stays free.
    response = server.post("(start m.broken r ((init (p))) 10 2)")
    assert response.status == 200
    assert response.text == "busy"
    # A role that is not in the game.
    assert server.post(start_message("m.norole", "zplayer")).text == "busy"
    still_up(server)


def test_status_page_and_json(server):
    page = raw_request(server.port, b"GET / HTTP/1.0\r\n\r\n")
    assert page.status == 200
    assert page.headers["content-type"].startswith("text/html")
    assert b"bad-input" in page.body and b"Matches in progress" in page.body
    data = raw_request(server.port, b"GET /status.json HTTP/1.0\r\n\r\n")
    assert data.status == 200
    assert b'"status": "available"' in data.body
    assert raw_request(server.port, b"GET /favicon.ico HTTP/1.0\r\n\r\n").status == 404
    assert raw_request(server.port, b"GET /%28bogus%29 HTTP/1.0\r\n\r\n").status == 400
