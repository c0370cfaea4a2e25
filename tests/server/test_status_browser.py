"""The status page and a replay rendered by a real browser: headless Chromium
loads them from our server on 127.0.0.1, and we read back the DOM it built and
a screenshot it took. Skipped, with the reason, where no Chromium is installed
(Debian: `apt-get install chromium`)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from ..helpers import GAMES, ServerThread, start_message

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [pytest.mark.skipif(BROWSER is None, reason="no headless browser: chromium is not installed"),
              pytest.mark.slow]  # three browser starts: 15 to 20 s on a busy 2-core machine


def browse(url: str, profile, *, screenshot=None) -> str:
    """The DOM Chromium built for `url` (or, with `screenshot`, a PNG written there)."""
    command = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
               "--window-size=1100,800"]
    command += [f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
    done = subprocess.run(command + [url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_browser_draws_the_board_and_steps_through_a_replay(tmp_path):
    with ServerThread(name="browsed", search="legal") as server:
        assert server.post(start_message("m.seen", "xplayer", GAMES / "tictactoe.kif", 10, 5)).text == "ready"
        first = server.post("(play m.seen nil)").text  # (mark 1 1): the first legal move
        server.post(f"(play m.seen ({first} noop))")
        server.post("(play m.seen (noop (mark 2 2)))")
        base = f"http://127.0.0.1:{server.port}"
        live = browse(base + "/", tmp_path / "profile")
        browse(base + "/", tmp_path / "profile", screenshot=tmp_path / "status.png")
        server.post("(stop m.seen ((mark 1 2) noop))")
        server.call(server.player.wait_idle())
        replay = browse(base + "/match/m.seen?step=2", tmp_path / "profile")
    board = live.split('<table class="board">', 1)[1].split("</table>", 1)[0]
    shown = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r'<td class="cell[^"]*">(.*?)</td>', board)]
    assert shown == ["", "", "", "", "o", "", "x", "", ""]  # (mark 1 1) bottom left, (mark 2 2) the centre
    assert board.count('class="cell moved"') == 1
    png = (tmp_path / "status.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    assert "step 2 of 3" in replay and "&lsaquo; previous" not in replay  # rendered, not source
    assert "‹ previous" in replay and 'href="/match/m.seen?step=3"' in replay
