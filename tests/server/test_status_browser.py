"""The status page in a real browser, clicked through as an operator does:
headless Chromium, driven by Selenium, loads the pages from our server on
127.0.0.1. A match in progress is drawn with the opponent's last move marked
and its live part updates the board without a reload; a finished match's
replay steps forward and back; the list of recorded matches pages and
filters. Skipped, with the reason, where Chromium is not installed, and
failed instead under CI (`browser.require_browser`)."""

from __future__ import annotations

import re
import time

import pytest

from ..helpers import GAMES, ServerThread, start_message
from .browser import chromium, require_browser

pytestmark = pytest.mark.slow  # browser starts: 5 to 20 s each on a busy 2-core machine

#: The live board's cells in the page, top row first: what each holds and whether the last move marked it.
READ_BOARD = """
return Array.from(document.querySelectorAll('#live .cell'),
                  (c) => [c.getAttribute('title'), c.classList.contains('moved')]);
"""


@pytest.fixture
def browser(tmp_path, monkeypatch):
    """A Chromium session in a fresh profile. Selenium Manager, which would
    download a driver, must not run: the driver's path is handed to Selenium."""
    require_browser()
    from selenium.webdriver.common.selenium_manager import SeleniumManager

    def refuse(*args, **kwargs):
        raise AssertionError("Selenium Manager ran: Selenium was not handed chromedriver's path")

    monkeypatch.setattr(SeleniumManager, "binary_paths", refuse)
    with chromium(tmp_path / "profile") as driver:
        yield driver


def wait_until(browser, condition, seconds: float = 15):
    """`condition(browser)` once it holds (polled every half second)."""
    from selenium.webdriver.support.wait import WebDriverWait

    return WebDriverWait(browser, seconds, poll_frequency=0.5).until(condition)


def click_link(browser, text: str) -> None:
    """Click the link that reads `text`, and wait for the page it opens."""
    link = browser.find_element("link text", text)
    target = link.get_attribute("href")
    link.click()
    wait_until(browser, lambda b: b.current_url == target)


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


def replay_cells(page: str) -> tuple[list[str], int]:
    """A replay's board as the browser built it: what each cell holds, top row
    first, and how many cells the step's move marked."""
    board = page.split('<table class="board">', 1)[1].split("</table>", 1)[0]
    return re.findall(r'class="cell[^"]*" title="([^"]*)"', board), board.count('class="cell moved"')


def listed(browser) -> list[str]:
    """The match ids of the list page the browser shows, top to bottom."""
    return re.findall(r'href="/match/([^"?]+)">', browser.page_source)


@pytest.mark.parametrize("game, role, size, last_move, holds", [
    ("breakthrough_6x6", "white", 6, "(move b5 b4)", "black"),
    ("go_5x5", "black", 5, "(place c3)", "white"),
])
def test_breakthrough_and_go_draw_a_board_with_the_last_move_marked(browser, game, role, size, last_move, holds):
    """The opponent's last move is marked on the board the browser draws:
    the cell it played (and, in breakthrough, the cell it left)."""
    with ServerThread(name="browsed", search="legal") as server:
        assert server.post(start_message("m.seen", role, GAMES / f"{game}.kif", 10, 5)).text == "ready"
        ours = server.post("(play m.seen nil)").text
        assert server.post(f"(play m.seen ({ours} noop))").text == "noop"
        server.post(f"(play m.seen (noop {last_move}))")
        wait_for_moves(server, 2)
        browser.get(f"http://127.0.0.1:{server.port}/")
        board = browser.execute_script(READ_BOARD)
    assert len(board) == size * size
    target = re.findall(r"[a-z]\d", last_move)[-1]
    assert board[cell_index(target, size, size)] == [holds, True]
    marked = {k for k, (_, moved) in enumerate(board) if moved}
    played = {cell_index(cell, size, size) for cell in re.findall(r"[a-z]\d", last_move + " " + ours)}
    assert cell_index(target, size, size) in marked and marked <= played


def test_the_live_page_updates_its_board_without_a_reload_and_an_opened_panel_stays_open(browser):
    """The page's script swaps its live part in every two seconds: the
    opponent's move played meanwhile appears on the board and in the moves
    without a reload, and the search's "more" the operator opened stays open."""
    with ServerThread(name="live", search="legal") as server:
        assert server.post(start_message("m.live", "red", GAMES / "connectfour.kif", 10, 5)).text == "ready"
        ours = server.post("(play m.live nil)").text
        server.post(f"(play m.live ({ours} noop))")
        wait_for_moves(server, 1)
        browser.get(f"http://127.0.0.1:{server.port}/")
        before = browser.execute_script(READ_BOARD)
        browser.execute_script("window.notReloaded = true;")
        more = browser.find_element("css selector", "#live details.more")
        panel = more.get_attribute("id")
        more.find_element("tag name", "summary").click()  # the operator opens "more"
        assert more.get_attribute("open") is not None
        server.post("(play m.live (noop (drop 5)))")
        wait_until(browser, lambda b: "(drop 5)" in b.execute_script(
            "return document.querySelector('#live table.moves').textContent;"))
        seen = browser.execute_script("""
            const more = document.getElementById(arguments[0]);
            return [window.notReloaded === true, !!(more && more.open)];""", panel)
        after = browser.execute_script(READ_BOARD)
    assert seen == [True, True]  # no reload, the panel still open
    drop = cell_index("e1", 7, 6)  # column 5, the bottom row
    assert len(before) == len(after) == 42 and before[drop][0] == ""
    assert after[drop] == ["yellow", True] and [k for k, (_, moved) in enumerate(after) if moved] == [drop]
    others = [k for k in range(42) if k != drop]
    assert [after[k][0] for k in others] == [before[k][0] for k in others]  # nothing else changed


def test_a_finished_match_replay_steps_forward_and_back(browser, tmp_path):
    with ServerThread(name="browsed", search="legal") as server:
        assert server.post(start_message("m.seen", "xplayer", GAMES / "tictactoe.kif", 10, 5)).text == "ready"
        first = server.post("(play m.seen nil)").text  # (mark 1 1): the first legal move
        server.post(f"(play m.seen ({first} noop))")
        server.post("(play m.seen (noop (mark 2 2)))")
        base = f"http://127.0.0.1:{server.port}"
        browser.get(base + "/")
        assert browser.save_screenshot(str(tmp_path / "status.png"))
        server.post("(stop m.seen ((mark 1 2) noop))")
        server.call(server.player.wait_idle())
        browser.get(base + "/match/m.seen?step=2")
        replay = browser.page_source
        shown, moved = replay_cells(replay)
        assert shown == ["", "", "", "", "o", "", "x", "", ""]  # (mark 1 1) bottom left, (mark 2 2) the centre
        assert moved == 1
        png = (tmp_path / "status.png").read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 10_000
        assert "step 2 of 3" in replay and "&lsaquo; previous" not in replay  # rendered, not source
        assert "‹ previous" in replay and 'href="/match/m.seen?step=3"' in replay
        assert "legend" in replay and "<code>x</code>" in replay  # x and o are no colours: a legend names them

        click_link(browser, "next ›")
        later, moved = replay_cells(browser.page_source)
        assert "step 3 of 3" in browser.page_source and moved == 1
        added = [k for k, (now, then) in enumerate(zip(later, shown)) if now != then]
        assert len(added) == 1 and later[added[0]] == "x" and shown[added[0]] == ""  # (mark 1 2)

        click_link(browser, "‹ previous")
        assert "step 2 of 3" in browser.page_source and replay_cells(browser.page_source)[0] == shown
        click_link(browser, "‹ previous")
        earliest, moved = replay_cells(browser.page_source)
        assert "step 1 of 3" in browser.page_source and moved == 1
        assert earliest == ["", "", "", "", "", "", "x", "", ""]  # o's (mark 2 2) not yet played


def test_the_match_list_pages_and_filters_by_game(browser, tmp_path):
    """26 recorded matches, one of them connect four: the list shows 25 a
    page, newest first; the operator pages to the oldest and back, then
    filters the list down to the connect four match."""
    with ServerThread(name="listed", search="legal", record_dir=tmp_path) as server:
        for k in range(26):
            game = GAMES / ("connectfour.kif" if k == 0 else "tictactoe.kif")
            role = "red" if k == 0 else "xplayer"
            assert server.post(start_message(f"m.list{k:02d}", role, game, 10, 5)).text == "ready"
            assert server.post(f"(stop m.list{k:02d} nil)").text == "done"
            server.call(server.player.wait_idle())
        browser.get(f"http://127.0.0.1:{server.port}/")
        click_link(browser, "every match recorded")
        newest = listed(browser)
        assert "page 1 of 2" in browser.page_source and "26 match(es)" in browser.page_source
        assert newest == [f"m.list{k:02d}" for k in range(25, 0, -1)]

        click_link(browser, "older ›")
        assert "page 2 of 2" in browser.page_source and listed(browser) == ["m.list00"]
        click_link(browser, "‹ newer")
        assert "page 1 of 2" in browser.page_source and listed(browser) == newest

        from selenium.webdriver.support.select import Select

        games = Select(browser.find_element("name", "game"))
        connect_four = [option.text for option in games.options if option.text.startswith("red/yellow")]
        assert len(connect_four) == 1 and connect_four[0].endswith("(1)")
        games.select_by_visible_text(connect_four[0])
        shown = browser.current_url
        browser.find_element("css selector", "form.filter button").click()
        wait_until(browser, lambda b: b.current_url != shown)
        assert "game=" in browser.current_url and listed(browser) == ["m.list00"]
        assert "page 1 of 1" in browser.page_source
