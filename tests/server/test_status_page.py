"""The status page a person reads: a match's position drawn as a board, its
moves numbered per role, a finished match replayed step by step from its
record. Real servers on 127.0.0.1; the HTML is read as text here and rendered
by a real browser in test_status_browser.py."""

from __future__ import annotations

import json
import re

from ggp_agent.player.config import PlayerConfig
from ggp_agent.player.player import Player

from ..helpers import GAMES, ServerThread, raw_request, start_message


def get(server, path: str):
    return raw_request(server.port, f"GET {path} HTTP/1.0\r\n\r\n".encode("ascii"))


def cells(page: str) -> list[str]:
    """The board's cells, top row first, as the text each one shows."""
    board = page.split("<table class=board>", 1)[1].split("</table>", 1)[0]
    return [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td class='cell[^']*'>(.*?)</td>", board)]


def play_connect_four(server, match_id: str, columns: list[int]) -> list[str]:
    """Red is our player (it answers the legal player's first move); yellow drops into `columns`."""
    assert server.post(start_message(match_id, "red", GAMES / "connectfour.kif", 10, 5)).text == "ready"
    ours, last = [], "nil"
    for column in columns:
        ours.append(server.post(f"(play {match_id} {last})").text)
        server.post(f"(play {match_id} ({ours[-1]} noop))")
        last = f"(noop (drop {column}))"
    return ours


def test_a_match_in_progress_is_drawn_as_a_board_beside_its_numbered_moves():
    with ServerThread(name="watched", search="legal") as server:
        ours = play_connect_four(server, "m.board", [2, 2])
        assert ours == ["(drop 1)", "(drop 1)"]  # the legal player's first legal move
        server.post("(play m.board (noop (drop 2)))")
        page = get(server, "/").text
        status = json.loads(get(server, "/status.json").text)
    shown = cells(page)
    assert len(shown) == 42  # 7 columns x 6 rows
    bottom = shown[35:]
    assert bottom[:2] == ["red", "yellow"] and shown[28:30] == ["red", "yellow"] and shown[21] == ""
    assert page.count("class='cell moved'") == 1  # yellow's last drop, column 2 row 2
    assert shown.index("yellow") == 29 and "class='cell moved'><span" in page
    assert "<th>red</th><th>yellow</th>" in page and "<td class=n>4.</td>" in page
    [match] = status["matches"]
    assert match["position"]["rows"][0] == "6" and match["position"]["columns"][-1] == "7"
    assert match["position"]["others"] == ["(control red)"]


def test_a_game_without_a_board_says_so_and_lists_its_moves():
    game = "(role r) (init (at a)) (legal r (go b)) (<= (next (at b)) (does r (go b))) (<= terminal (true (at b))) (goal r 100)"
    with ServerThread(name="plain", search="legal") as server:
        assert server.post(f"(start m.plain r ({game}) 10 5)").text == "ready"
        page = get(server, "/").text
        server.post("(abort m.plain)")
    assert "No board found in this game's fluents" in page and "<table class=board>" not in page


def test_a_finished_match_replays_step_by_step_from_its_record(tmp_path):
    with ServerThread(name="replayed", search="legal", record_dir=tmp_path) as server:
        play_connect_four(server, "m.replay", [2, 3])
        assert server.post("(stop m.replay (noop (drop 3)))").text == "done"
        server.call(server.player.wait_idle())
        listing = get(server, "/").text
        first = get(server, "/match/m.replay?step=1")
        last = get(server, "/match/m.replay")
        middle = get(server, "/match/m.replay?step=2").text
    assert "href='/match/m.replay'>m.replay</a>" in listing
    assert first.status == 200 and first.headers["content-type"].startswith("text/html")
    assert "step 1 of 4" in first.text and cells(first.text)[35] == "red"
    assert "next &rsaquo;</a>" in first.text and "href='/match/m.replay?step=2'" in first.text
    assert "step 4 of 4" in last.text and cells(last.text)[35:38] == ["red", "yellow", "yellow"]
    assert "<tr class=now><td class=n><a href='/match/m.replay?step=2'>2.</a>" in middle
    assert "Last move: red <code>noop</code>, yellow <code>(drop 2)</code>" in middle
    record = json.loads(next(tmp_path.glob("*.player.json")).read_text())
    assert record["board"]["relation"] == "cell" and len(record["states"]) == 5
    # a player started afresh replays it from the records folder
    with ServerThread(Player(PlayerConfig(name="later", record_dir=tmp_path))) as later:
        again = get(later, "/match/m.replay?step=4")
        missing = get(later, "/match/m.nothing")
        wrong = get(later, "/match/m.replay?step=two")
    assert again.status == 200 and cells(again.text) == cells(last.text)
    assert missing.status == 404 and "no record" in missing.text
    assert wrong.status == 400 and "not a step number" in wrong.text
