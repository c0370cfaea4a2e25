"""The status page and a replay rendered by a real browser: headless Chromium
loads them from our server on 127.0.0.1, and we read back the DOM it built
(and what its script changed) through chromedriver, or the DOM it dumps.
Skipped, with the reason, where Chromium is not installed (Debian:
`apt-get install chromium chromium-driver`)."""

from __future__ import annotations

import re
import time

import pytest

from ..helpers import GAMES, ServerThread, start_message
from .browser import DrivenBrowser, browse, needs_browser, needs_driver

pytestmark = pytest.mark.slow  # browser starts: 5 to 20 s each on a busy 2-core machine

#: The live board's cells in the page, top row first: what each holds and whether the last move marked it.
READ_BOARD = """
return Array.from(document.querySelectorAll('#live .cell'),
                  (c) => [c.getAttribute('title'), c.classList.contains('moved')]);
"""


def wait_for_moves(server, count: int) -> None:
    """Until our engine has applied `count` joint moves (a forced reply goes out before it has)."""
    deadline = time.monotonic() + 30
    while server.player.status()["matches"][0]["turn"] < count:
        assert time.monotonic() < deadline, "our engine did not catch up"
        time.sleep(0.05)


def cell_index(cell: str, width: int, height: int) -> int:
    """Where a one-token cell (`c3`) is among the board's cells, top row first."""
    column, row = ord(cell[0]) - ord("a"), int(cell[1:])
    return (height - row) * width + column


@needs_driver
@pytest.mark.parametrize("game, role, size, last_move, holds", [
    ("breakthrough_6x6", "white", 6, "(move b5 b4)", "black"),
    ("go_5x5", "black", 5, "(place c3)", "white"),
])
def test_breakthrough_and_go_draw_a_board_with_the_last_move_marked(tmp_path, game, role, size, last_move, holds):
    """The opponent's last move is marked on the board the browser draws:
    the cell it played (and, in breakthrough, the cell it left)."""
    with ServerThread(name="browsed", search="legal") as server, DrivenBrowser(tmp_path / "profile") as browser:
        assert server.post(start_message("m.seen", role, GAMES / f"{game}.kif", 10, 5)).text == "ready"
        ours = server.post("(play m.seen nil)").text
        assert server.post(f"(play m.seen ({ours} noop))").text == "noop"
        server.post(f"(play m.seen (noop {last_move}))")
        wait_for_moves(server, 2)
        browser.open(f"http://127.0.0.1:{server.port}/")
        board = browser.run(READ_BOARD)
    assert len(board) == size * size
    target = re.findall(r"[a-z]\d", last_move)[-1]
    assert board[cell_index(target, size, size)] == [holds, True]
    marked = {k for k, (_, moved) in enumerate(board) if moved}
    played = {cell_index(cell, size, size) for cell in re.findall(r"[a-z]\d", last_move + " " + ours)}
    assert cell_index(target, size, size) in marked and marked <= played


@needs_driver
def test_the_page_updates_itself_and_an_opened_panel_stays_open(tmp_path):
    """The page's script swaps its live part in every two seconds: a move
    played meanwhile appears without a reload, and the search's "more" a
    person opened stays open."""
    with ServerThread(name="live", search="legal") as server, DrivenBrowser(tmp_path / "profile") as browser:
        assert server.post(start_message("m.live", "red", GAMES / "connectfour.kif", 10, 5)).text == "ready"
        ours = server.post("(play m.live nil)").text
        server.post(f"(play m.live ({ours} noop))")
        browser.open(f"http://127.0.0.1:{server.port}/")
        opened = browser.run("""
            window.notReloaded = true;
            const more = document.querySelector('#live details.more');
            more.open = true;
            return more.id;""")
        server.post("(play m.live (noop (drop 5)))")
        deadline = time.monotonic() + 15
        while True:
            seen = browser.run("""
                const more = document.getElementById(arguments[0]);
                return [window.notReloaded === true, !!(more && more.open),
                        document.querySelectorAll('#live .cell.moved').length,
                        document.querySelector('#live table.moves').textContent];""", opened)
            if "(drop 5)" in seen[3] or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    assert "(drop 5)" in seen[3], seen  # the new move arrived
    assert seen[:3] == [True, True, 1]  # no reload, the panel still open, the new drop marked


@needs_browser
def test_a_browser_steps_through_a_replay(tmp_path):
    with ServerThread(name="browsed", search="legal") as server:
        assert server.post(start_message("m.seen", "xplayer", GAMES / "tictactoe.kif", 10, 5)).text == "ready"
        first = server.post("(play m.seen nil)").text  # (mark 1 1): the first legal move
        server.post(f"(play m.seen ({first} noop))")
        server.post("(play m.seen (noop (mark 2 2)))")
        base = f"http://127.0.0.1:{server.port}"
        browse(base + "/", tmp_path / "profile", screenshot=tmp_path / "status.png")
        server.post("(stop m.seen ((mark 1 2) noop))")
        server.call(server.player.wait_idle())
        replay = browse(base + "/match/m.seen?step=2", tmp_path / "profile")
    board = replay.split('<table class="board">', 1)[1].split("</table>", 1)[0]
    shown = re.findall(r'class="cell[^"]*" title="([^"]*)"', board)
    assert shown == ["", "", "", "", "o", "", "x", "", ""]  # (mark 1 1) bottom left, (mark 2 2) the centre
    assert board.count('class="cell moved"') == 1
    png = (tmp_path / "status.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    assert "step 2 of 3" in replay and "&lsaquo; previous" not in replay  # rendered, not source
    assert "‹ previous" in replay and 'href="/match/m.seen?step=3"' in replay
    assert "legend" in replay and "<code>x</code>" in replay  # x and o are no colours: a legend names them
