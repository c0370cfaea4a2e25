"""Helpers for the protocol tests: a real server in a background thread, raw HTTP;
and the loader of the `gdl_games/` scripts.

Every server here listens on 127.0.0.1 on a free port and is stopped by the test
that started it; nothing talks to any other address.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import socket
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ggp_agent.player import Player, PlayerConfig
from ggp_agent.server import start_server

REPO = Path(__file__).resolve().parents[1]
GAMES = REPO / "gdl_games"
TICTACTOE = GAMES / "tictactoe.kif"
#: ../shared next to the repository (absent in a user's clone: tests skip);
#: GGP_SHARED points elsewhere (as in conftest.py).
SHARED = Path(os.environ.get("GGP_SHARED", REPO.parent / "shared"))


def load_games_script(name: str):
    """Import a script of `gdl_games/` (`generate`, `measure`): they are scripts,
    not a package, so they are loaded from their files."""
    spec = importlib.util.spec_from_file_location(f"gdl_games_{name}", GAMES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class ServerThread:
    """A real GGP server (our Player) on 127.0.0.1 in its own thread and event loop."""

    def __init__(self, player: Optional[Player] = None, max_body: Optional[int] = None, **config):
        self.player_arg = player
        self.config = config
        self.max_body = max_body
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="test-server", daemon=True)
        self.server = None

    def __enter__(self) -> "ServerThread":
        self.thread.start()

        async def start():
            player = self.player_arg or Player(PlayerConfig(**self.config))
            options = {} if self.max_body is None else {"max_body": self.max_body}
            return await start_server(player, "127.0.0.1", 0, **options)

        self.server = self.call(start())
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.call(self.server.stop(), timeout=30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            self.loop.close()

    def call(self, coroutine, timeout: float = 60):
        """Run a coroutine on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def player(self) -> Player:
        return self.server.player

    @property
    def address(self) -> str:
        return self.server.address

    def post(self, message: str, timeout: float = 30) -> "RawResponse":
        """POST a message as ggp-base's GameServer does (HTTP/1.0, text/acl)."""
        body = message.encode("utf-8")
        head = (
            "POST / HTTP/1.0\r\nAccept: text/delim\r\nHost: localhost\r\nSender: GAMESERVER\r\n"
            f"Receiver: 127.0.0.1:{self.port}\r\nContent-Type: text/acl\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode("ascii")
        return raw_request(self.port, head + body, timeout)


@dataclass
class RawResponse:
    version: str
    status: int
    reason: str
    headers: dict  # lower-case names
    raw_headers: list
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


def raw_request(port: int, data: bytes, timeout: float = 30) -> RawResponse:
    """Send raw bytes to 127.0.0.1:port and read one HTTP response."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        return read_response(sock)


def read_response(sock: socket.socket) -> RawResponse:
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"connection closed before the headers: {buffer!r}")
        buffer += chunk
    head, _, rest = buffer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    version, status, reason = (lines[0].split(" ", 2) + [""])[:3]
    raw_headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:]]
    headers = {name.lower(): value for name, value in raw_headers}
    length = headers.get("content-length")
    if length is not None:
        while len(rest) < int(length):
            chunk = sock.recv(65536)
            if not chunk:
                break
            rest += chunk
        body = rest[: int(length)]
    else:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            rest += chunk
        body = rest
    return RawResponse(version, int(status), reason, headers, raw_headers, body)


def start_message(match_id: str, role: str, game: Path = TICTACTOE, start_clock: float = 10,
                  play_clock: float = 2) -> str:
    """A START as ggp-base sends it: the rules wrapped in one more pair of parentheses."""
    rules = game.read_text(encoding="utf-8")
    return f"(START {match_id} {role} ({rules}\n) {start_clock:g} {play_clock:g})"


class ServeProcess:
    """`ggp-agent serve` as a child process on 127.0.0.1 (a port of its own choosing).

    Its log goes to `log_path`; `env` adds environment variables (e.g. small
    Prolog limits); the process is stopped (SIGTERM, then SIGKILL) on exit.
    """

    def __init__(self, *arguments: str, log_path: Path, env: Optional[dict] = None, cwd: Optional[Path] = None):
        import subprocess
        import sys

        self.log_path = log_path
        self._log = open(log_path, "w", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ggp_agent.cli", "serve", "--host", "127.0.0.1", "--port", "0", *arguments],
            stdout=subprocess.PIPE, stderr=self._log, text=True,
            env={**os.environ, **(env or {})}, cwd=cwd,
        )
        line = self.process.stdout.readline()
        if not line.startswith("serving "):
            self.stop()
            raise RuntimeError(f"ggp-agent serve did not start: {line!r}; log: {self.log()}")
        self.address = line.split("http://", 1)[1].strip().rstrip("/")
        self.port = int(self.address.rsplit(":", 1)[1])

    def post(self, message: str, timeout: float = 30) -> "RawResponse":
        body = message.encode("utf-8")
        head = (f"POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {len(body)}\r\n\r\n").encode("ascii")
        return raw_request(self.port, head + body, timeout)

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> int:
        import subprocess

        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._log.close()
        return self.process.returncode

    def __enter__(self) -> "ServeProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
