"""The status page a person reads: a match's position drawn as a board, its
moves numbered, its live part served alone for the page's script, a finished
match replayed step by step from its record, and every recorded match listed
from the records folder. Real servers on 127.0.0.1; the HTML is read as text
here and rendered by a real browser in test_status_browser.py."""

from __future__ import annotations

import json
import re

from ggp_agent.player.config import PlayerConfig
from ggp_agent.player.player import Player
from ggp_agent.server.status_page import stalls_matter

from ..helpers import GAMES, ServerThread, raw_request, start_message


def get(server, path: str):
    return raw_request(server.port, f"GET {path} HTTP/1.0\r\n\r\n".encode("ascii"))


def board_of(page: str) -> str:
    return page.split("<table class=board>", 1)[1].split("</table>", 1)[0]


def cells(page: str) -> list[str]:
    """The board's cells, top row first, as what each one holds (its title)."""
    return re.findall(r"class='cell[^']*' title='([^']*)'", board_of(page))


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
        live = get(server, "/live").text
        status = json.loads(get(server, "/status.json").text)
    shown = cells(page)
    assert len(shown) == 42  # 7 columns x 6 rows
    assert shown[35:37] == ["red", "yellow"] and shown[28:30] == ["red", "yellow"] and shown[21] == ""
    assert board_of(page).count("class='cell moved'") == 1  # yellow's last drop, column 2 row 2
    assert "class='cell moved' title='yellow'><span class=piece style='background:#f5c400" in page
    assert "title='red'><span class=piece style='background:#d62728" in page  # named colours, no word on the disc
    assert "class=legend" not in page  # every piece says its colour: nothing to explain
    # alternating turns: one row per move, the waiting role's noop folded away
    assert "<th>role</th><th>move</th>" in page and "<td class=n>4.</td><td>yellow</td><td><code>(drop 2)" in page
    assert "noop" not in page.split("<table class=moves>", 1)[1].split("</table>", 1)[0]
    assert "Our move 5: <code>(drop 1)</code> from the search" in page  # our reply after move 4: move 5
    [match] = status["matches"]
    assert match["position"]["rows"][0] == "6" and match["position"]["columns"][-1] == "7"
    assert match["position"]["others"] == ["(control red)"] and match["state"] is None
    # the live part is the page's, alone, and the page fetches it with its script
    assert not live.startswith("<!DOCTYPE") and cells(live) == shown
    assert "<div id=live>" in page and 'fetch("/live"' in page and "http-equiv=\"refresh\"" in page  # noscript


def test_the_search_line_says_what_the_tree_kept_of_the_opponents_reply():
    """The figures line of a searching agent: after the opponent's reply, the
    share of the visits its subtree kept, its rank among our guesses, and
    how long the root change took."""
    with ServerThread(name="watched", think_time=0.3, threads=1) as server:
        play_connect_four(server, "m.reply", [3, 4])
        page = get(server, "/").text
        status = json.loads(get(server, "/status.json").text)
    stats = status["matches"][0]["last_search"]["stats"]
    assert stats["reply_found"] and stats["replies"][-1]["kept"] == stats["reply_kept"]
    assert re.search(r"reply kept [0-9.]+ of the visits \(our guess \d+ of 7\); root change [0-9.]+ s", page)


def test_one_token_cells_are_drawn_with_the_last_move_marked():
    """Breakthrough names its cells `a1`..`f6`: a 6x6 board, white at the
    bottom; our first move empties one cell and fills another."""
    with ServerThread(name="pawns", search="legal") as server:
        assert server.post(start_message("m.bt", "white", GAMES / "breakthrough_6x6.kif", 10, 5)).text == "ready"
        move = server.post("(play m.bt nil)").text
        server.post(f"(play m.bt ({move} noop))")
        page = get(server, "/").text
        server.post("(abort m.bt)")
    shown = cells(page)
    assert len(shown) == 36 and shown[:6] == ["black"] * 6
    assert board_of(page).count("class='cell moved'") == 2  # the pawn's cell before and after
    assert ">a</td>" in page and ">f</td>" in page and ">6</td>" in page
    assert "title='white'><span class=piece style='background:#f7f7f7" in page


def test_a_game_without_a_board_shows_its_state_as_text():
    game = "(role r) (init (at a)) (legal r (go b)) (<= (next (at b)) (does r (go b))) (<= terminal (true (at b))) (goal r 100)"
    with ServerThread(name="plain", search="legal") as server:
        assert server.post(f"(start m.plain r ({game}) 10 5)").text == "ready"
        page = get(server, "/").text
        status = json.loads(get(server, "/status.json").text)
        server.post("(abort m.plain)")
    assert "<table class=board>" not in page and "<pre class=state>(at a)</pre>" in page
    assert status["matches"][0]["state"] == "((at a))"


def test_stalls_show_only_when_one_comes_within_half_the_margin():
    timing = {"margin_now": 0.5}
    short = {"stalls": 36, "longest_s": 0.15, "report_over_s": 0.1,
             "last": {"at": "now", "seconds": 0.12, "garbage_collection_s": 0.1}}
    assert not stalls_matter(short, timing) and not stalls_matter({**short, "stalls": 0}, timing)
    assert stalls_matter({**short, "longest_s": 0.25}, timing)
    assert not stalls_matter({**short, "longest_s": 0.25}, {"margin_now": 1.0})
    with ServerThread(name="calm", search="legal") as server:
        page = get(server, "/").text
    assert "stalled" not in page


def test_a_finished_match_replays_step_by_step_from_its_record(tmp_path):
    with ServerThread(name="replayed", search="legal", record_dir=tmp_path) as server:
        play_connect_four(server, "m.replay", [2, 3])
        assert server.post("(stop m.replay (noop (drop 3)))").text == "done"
        server.call(server.player.wait_idle())
        listing = get(server, "/").text
        first = get(server, "/match/m.replay?step=1")
        last = get(server, "/match/m.replay")
        middle = get(server, "/match/m.replay?step=2").text
        as_json = get(server, "/match/m.replay?format=json")
    assert "href='/match/m.replay'>m.replay</a>" in listing and "<td class='result aborted'>" not in listing
    assert first.status == 200 and first.headers["content-type"].startswith("text/html")
    assert "step 1 of 4" in first.text and cells(first.text)[35] == "red"
    assert "next &rsaquo;</a>" in first.text and "href='/match/m.replay?step=2'" in first.text
    assert "step 4 of 4" in last.text and cells(last.text)[35:38] == ["red", "yellow", "yellow"]
    assert "<tr class=now><td class=n><a href='/match/m.replay?step=2'>2.</a>" in middle
    assert "Move 2: red <code>noop</code>, yellow <code>(drop 2)</code>" in middle
    # our role, the result in words (the game did not end: no goals), our turns, the record
    assert "We played <b>red</b> against yellow" in middle and "<b>stopped</b>" in middle
    assert "href='/match/m.replay?format=json'>The JSON record</a>" in middle
    assert "Ours: <code>(drop 1)</code>, search, " in first.text
    assert "2 turn(s) with only one legal move" in middle  # our noops, folded
    record = json.loads(as_json.text)
    assert as_json.headers["content-type"].startswith("application/json") and record["matchId"] == "m.replay"
    stored = json.loads(next(tmp_path.glob("*.player.json")).read_text())
    assert stored["board"]["relation"] == "cell" and len(stored["states"]) == 5 and stored["status"] == "stopped"
    # a player started afresh replays it, and lists it, from the records folder
    with ServerThread(Player(PlayerConfig(name="later", record_dir=tmp_path))) as later:
        again = get(later, "/match/m.replay?step=4")
        missing = get(later, "/match/m.nothing")
        wrong = get(later, "/match/m.replay?step=two")
        page = get(later, "/").text
    assert again.status == 200 and cells(again.text) == cells(last.text)
    assert missing.status == 404 and "no record" in missing.text
    assert wrong.status == 400 and "not a step number" in wrong.text
    assert "href='/match/m.replay'>m.replay</a>" in page


def test_the_match_list_reads_the_records_folder_newest_first_with_pages_and_filters(tmp_path):
    """Matches played to their end through our own controller, which writes
    its record beside ours: the list gives the result in words with the score
    ours first, the opponent's name, and pages and filters by game and result."""
    import asyncio

    from ggp_agent.gdl import load_game
    from ggp_agent.referee.controller import PlayerAddress
    from ggp_agent.referee.lineup import PlayerSpec, parse_player_spec, play_match

    with ServerThread(name="listed", search="legal", record_dir=tmp_path) as server:
        ours = PlayerSpec("listed", address=PlayerAddress("127.0.0.1", server.port))
        tictactoe, connect_four = load_game(GAMES / "tictactoe.kif"), load_game(GAMES / "connectfour.kif")
        played = []
        for k, (game, name) in enumerate([(tictactoe, "tictactoe")] * 3 + [(connect_four, "connectfour")]):
            seats = [ours, parse_player_spec("random")] if k % 2 == 0 else [parse_player_spec("random"), ours]
            record = asyncio.run(play_match(game, seats, 10, 1.0, match_id=f"m.list{k}", game_name=name,
                                            record_dir=tmp_path, seed=k))
            played.append(record)
            server.call(server.player.wait_idle())
        everything = get(server, "/matches").text
        paged = get(server, "/matches?page=2").text
        with_filter = get(server, "/matches?result=won").text
        hashes = re.findall(r"<option value='([0-9a-f]{12})'>tictactoe \(3\)", everything)
        by_game = get(server, f"/matches?game={hashes[0]}").text
        bad = get(server, "/matches?page=x")
        replay = get(server, "/match/m.list0").text
    listed = re.findall(r"href='/match/(m\.list\d)'>", everything)
    assert listed == ["m.list3", "m.list2", "m.list1", "m.list0"]  # newest first
    assert "listed: 4 match(es)" in everything and "page 1 of 1" in everything
    def ours(k):  # the seats alternate: our role is the first in even matches
        return k % 2

    def word(k):
        goals = played[k].goal_values
        mine, theirs = goals[ours(k)], goals[1 - ours(k)]
        return "won" if mine > theirs else "lost" if mine < theirs else "draw"

    row = everything.split("href='/match/m.list0'", 1)[0].rsplit("<tr>", 1)[1]
    goals = played[0].goal_values
    assert f"<td class='result {word(0)}'>{word(0)} {goals[0]}-{goals[1]}</td>" in row
    assert "<b>xplayer</b> against random (oplayer)" in row and "<td>tictactoe</td>" in row
    assert f"We played <b>xplayer</b> against random (oplayer):\n<b>{word(0)} {goals[0]}-{goals[1]}</b>" in replay
    wins = [f"m.list{k}" for k in range(4) if word(k) == "won"]
    assert re.findall(r"href='/match/(m\.list\d)'>", with_filter) == wins[::-1]
    assert len(re.findall(r"href='/match/m\.list\d'>", by_game)) == 3
    assert "page 1 of 1" in paged and bad.status == 400


def test_pages_of_the_list():
    from ggp_agent.player.record_index import select

    summaries = [{"match_id": f"m{k}", "rules_hash": "ab" if k % 3 else "cd", "game": "", "roles": ["x", "o"],
                  "board": "", "result": "won" if k % 2 else "lost", "start_time": 100 - k} for k in range(60)]
    page = select(summaries, page=3, per_page=25)
    assert (page.page, page.pages, page.total) == (3, 3, 60) and [r["match_id"] for r in page.rows] == \
        [f"m{k}" for k in range(50, 60)]
    assert select(summaries, page=9, per_page=25).page == 3  # past the end: the last page
    chosen = select(summaries, game="cd", result="lost", per_page=25)
    assert [r["match_id"] for r in chosen.rows] == [f"m{k}" for k in range(0, 60, 6)]
    assert chosen.games == [("ab", "x/o [ab]", 40), ("cd", "x/o [cd]", 20)]


def test_pieces_named_by_a_colour_need_no_legend_the_others_get_one():
    from ggp_agent.server.board_page import board_html

    position = {"columns": ["a", "b"], "rows": ["2", "1"], "cells": [["wk", "bp"], ["wp", "b"]], "changed": None,
                "empty": "b", "others": [], "pieces": ["bp", "wp"], "shift": [0.0, 0.0]}
    page = board_html(position)
    legend = page.split("class=legend>", 1)[1]
    assert [name for name in re.findall(r"<code>(\w+)</code>", legend)] == ["bp", "wp", "wk"]  # a king seen late too
    assert "title='b'" not in page and page.count("class='cell'") == 4
    named = board_html({**position, "cells": [["red 2", "blue 1"], ["", ""]], "pieces": ["blue 1", "red 2"]})
    assert "class=legend" not in named and ">2</span>" in named  # the health on a red disc
