"""Headless Chromium for the status page's tests: a page's DOM or a
screenshot from the command line, and a page driven through chromedriver's
W3C WebDriver protocol (plain HTTP and JSON on 127.0.0.1: no client library)
to read the DOM a script changed and to click. Skips, with the reason, where
Debian's `chromium` or `chromium-driver` is not installed."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any, Optional

import pytest

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

#: Chromium's flags for a quiet headless run that sends nothing anywhere.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

needs_browser = pytest.mark.skipif(BROWSER is None, reason="no headless browser: chromium is not installed")
needs_driver = pytest.mark.skipif(BROWSER is None or DRIVER is None,
                                  reason="chromium and chromium-driver are not installed")


def browse(url: str, profile: Path, *, screenshot: Optional[Path] = None, size: str = "1100,800") -> str:
    """The DOM Chromium built for `url` (or, with `screenshot`, a PNG written there)."""
    command = [BROWSER, *FLAGS, f"--user-data-dir={profile}", f"--window-size={size}"]
    command += [f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
    done = subprocess.run(command + [url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class DrivenBrowser:
    """One Chromium session through chromedriver, stopped on exit."""

    def __init__(self, profile: Path) -> None:
        self.port = _free_port()
        self.profile = profile
        self.process: Optional[subprocess.Popen] = None
        self.session = ""

    def __enter__(self) -> "DrivenBrowser":
        self.process = subprocess.Popen([DRIVER, f"--port={self.port}", "--allowed-ips=127.0.0.1"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                if self._call("GET", "/status").get("ready"):
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "chromedriver did not start"
            time.sleep(0.2)
        options = {"binary": BROWSER, "args": FLAGS + [f"--user-data-dir={self.profile}", "--window-size=1100,800"]}
        created = self._call("POST", "/session", {"capabilities": {"alwaysMatch": {"goog:chromeOptions": options}}})
        self.session = created["sessionId"]
        return self

    def __exit__(self, *exc) -> None:
        try:
            if self.session:
                self._call("DELETE", f"/session/{self.session}")
        finally:
            self.process.terminate()
            self.process.wait(timeout=10)

    def _call(self, method: str, path: str, body: Optional[dict] = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read() or b"null")["value"]

    def open(self, url: str) -> None:
        self._call("POST", f"/session/{self.session}/url", {"url": url})

    def run(self, script: str, *args: Any) -> Any:
        """The value of a function body run in the page (`arguments` holds `args`)."""
        return self._call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})
