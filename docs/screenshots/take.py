"""Screenshots of the status page and of a replay, for the docs: real matches
of our agent (`ggp-agent serve`, one thread) against flat Monte Carlo, each page
taken by headless Chromium through Selenium (`tests/server/browser.py`: Debian's
chromium and chromium-driver, which `make test` installs), as a person would see it.

    .venv/bin/python docs/screenshots/take.py [GAME ...]

GAME is one of the names below (default: all); the corpus game needs
../shared/gdl-corpus (GGP_SHARED elsewhere). The PNGs land beside this file,
reduced to 64 colours so that they stay small.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.server.browser import chromium, missing_browser  # noqa: E402

SHARED = Path(os.environ.get("GGP_SHARED", REPO.parent / "shared"))
HERE = Path(__file__).resolve().parent

#: name: (the game's file, the move after which the live page is taken, the match's turn limit)
GAMES = {
    "connectfour": (REPO / "gdl_games" / "connectfour.kif", 6, None),
    "breakthrough": (REPO / "gdl_games" / "breakthrough_6x6.kif", 8, None),
    "go": (REPO / "gdl_games" / "go_7x7.kif", 12, None),
    "hex": (REPO / "gdl_games" / "hex_7x7.kif", 8, None),
    "checkers": (SHARED / "gdl-corpus" / "games" / "checkers.kif", 12, 30),
}


def status(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/status.json", timeout=10) as response:
        return json.loads(response.read())


def small_png(path: Path) -> None:
    """The screenshot in 64 colours (a page has few): a tenth of the bytes."""
    from PIL import Image

    image = Image.open(path).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    path.write_bytes(buffer.getvalue())


def shoot(url: str, target: Path, profile: Path, size: tuple[int, int]) -> None:
    with chromium(profile, *size) as browser:
        browser.get(url)
        browser.save_screenshot(str(target))
    small_png(target)
    print(f"{target.name}: {target.stat().st_size // 1024} KB")


def main(names: list[str]) -> int:
    problem = missing_browser()
    if problem:
        print(problem)
        return 1
    work = Path(tempfile.mkdtemp(prefix="screenshots-"))
    records = work / "records"
    serve = subprocess.Popen([sys.executable, "-m", "ggp_agent.cli", "serve", "--port", "0", "--threads", "1",
                              "--records", str(records), "--name", "ggp-agent"],
                             stdout=subprocess.PIPE, stderr=open(work / "serve.log", "w"), text=True)
    port = int(serve.stdout.readline().rsplit(":", 1)[1].strip().rstrip("/"))
    try:
        for name in names:
            game, live_after, max_turns = GAMES[name]
            match_id = f"shot.{name}.{int(time.time())}"
            command = [sys.executable, "-m", "ggp_agent.cli", "-q", "match", str(game), "--player",
                       f"127.0.0.1:{port}", "--player", "agent:search=mc,time=1,name=flat-mc", "--startclock", "10",
                       "--playclock", "5", "--records", str(records), "--match-id", match_id]
            command += ["--max-turns", str(max_turns)] if max_turns else []
            match = subprocess.Popen(command, stdout=subprocess.DEVNULL)
            while match.poll() is None:
                matches = status(port)["matches"]
                if matches and matches[0]["turn"] >= live_after:
                    break
                time.sleep(0.2)
            else:
                raise RuntimeError(f"{name}: the match ended before move {live_after}")
            shoot(f"http://127.0.0.1:{port}/", HERE / f"{name}-live.png", work / f"{name}-live", (1000, 720))
            match.wait(timeout=900)
            while status(port)["matches"]:
                time.sleep(0.2)
            time.sleep(1.0)  # the record is written after the STOP's reply
            shoot(f"http://127.0.0.1:{port}/match/{match_id}", HERE / f"{name}-replay.png", work / f"{name}-replay",
                  (1000, 900))
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or list(GAMES)))
