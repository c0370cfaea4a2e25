"""What several test modules share: where things are, real servers, raw HTTP, small games.

Paths: the project's games, and `../shared` (real GDL games, oracle traces,
protocol captures), which exists on the developers' machines and in CI but not
in a user's clone: tests that need it skip (`shared_path`).

Servers: every server here listens on 127.0.0.1 on a free port and is stopped
by the test that started it; nothing talks to any other address.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from ggp_agent.player.config import PlayerConfig
from ggp_agent.player.player import Player
from ggp_agent.search.tree.iteration import expand
from ggp_agent.server.app import start_server

REPO = Path(__file__).resolve().parents[1]
GAMES = REPO / "gdl_games"
TICTACTOE = GAMES / "tictactoe.kif"
#: ../shared next to the repository; GGP_SHARED points elsewhere (a git
#: worktree lives in another folder than the clone it belongs to).
SHARED = Path(os.environ.get("GGP_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "gdl-corpus"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or a skip when that folder is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared holds external test data)")
    return path


def corpus_games() -> list[str]:
    """Names of the corpus games (empty when ../shared is absent)."""
    folder = CORPUS / "games"
    return sorted(p.stem for p in folder.glob("*.kif")) if folder.exists() else []


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


def hold_the_gil(seconds: float) -> None:
    """Stop every Python thread of the process for `seconds`, as a long
    garbage collection or C call would: libc's usleep through `ctypes.PyDLL`
    keeps the GIL while it sleeps."""
    ctypes.PyDLL(None).usleep(int(seconds * 1e6))


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

    Its log goes to `log_path` (nowhere without one); `env` adds environment
    variables (e.g. small Prolog limits); the process is stopped (SIGTERM, then
    SIGKILL) on exit.
    """

    def __init__(self, *arguments: str, log_path: Optional[Path] = None, env: Optional[dict] = None,
                 cwd: Optional[Path] = None):
        self.log_path = log_path
        self._log = open(log_path, "w", encoding="utf-8") if log_path else subprocess.DEVNULL
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
        if self.log_path is None:
            return "(no log kept)"
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self.log_path is not None:
            self._log.close()
        return self.process.returncode

    def __enter__(self) -> "ServeProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# -- small games several test modules play ------------------------------------------


def prolog_syntax_game(marker: str) -> str:
    """A game whose symbols are Prolog built-ins and Prolog syntax."""
    return f"""
    (role 'o''neil')
    (role halt)
    (succ 1 2) (succ 2 3)
    (<= (is ?x ?y) (succ ?x ?y))
    (<= (length ?x) (succ ?x ?y))
    (init (step 1))
    (init (shell touch {marker}))
    (init (:- (assertz (pwned)) true))
    (<= (legal 'o''neil' (call ?x)) (true (step ?x)))
    (<= (legal 'o''neil' (a,b "c" [] {{}} |)) (true (step ?x)))
    (<= (legal halt (consult {marker})) (true (step ?x)) (length ?x))
    (<= (legal halt halt) (true (step ?x)))
    (<= (next (step ?y)) (true (step ?x)) (is ?x ?y))
    (<= (next (shell ?a ?b)) (true (shell ?a ?b)))
    (<= (next (:- ?a ?b)) (true (:- ?a ?b)))
    (<= shell (true (step 3)))
    (<= terminal shell)
    (<= (goal ?r 100) (role ?r))
    """


#: Left recursion over a cycle: SLD resolution would loop; tabling must not.
LEFT_RECURSION = """
(role r)
(edge a b) (edge b c) (edge c a)
(<= (path ?x ?y) (path ?x ?z) (edge ?z ?y))
(<= (path ?x ?y) (edge ?x ?y))
(init (at a))
(<= (legal r (go ?y)) (true (at ?x)) (path ?x ?y))
(<= (next (at ?y)) (does r (go ?y)))
(<= (next done) (true (at c)))
(<= terminal (true done))
(goal r 100)
"""


#: cells 1..5 in a line, adjacency both ways; the player toggles one cell a
#: move; `connected` when cell 5 is reachable from cell 1 over cells that are
#: on. `reach` is recursive over the state, so the ground network has a cycle.
REACH = """
(role r)
(cell 1) (cell 2) (cell 3) (cell 4) (cell 5)
(adj 1 2) (adj 2 3) (adj 3 4) (adj 4 5)
(<= (link ?x ?y) (adj ?x ?y))
(<= (link ?x ?y) (adj ?y ?x))
(init (on 1)) (init (on 2)) (init (on 3)) (init (on 4))
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(<= (legal r (toggle ?x)) (cell ?x))
(<= (next (on ?x)) (true (on ?x)) (not (does r (toggle ?x))))
(<= (next (on ?x)) (cell ?x) (not (true (on ?x))) (does r (toggle ?x)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= (reach 1) (true (on 1)))
(<= (reach ?y) (reach ?x) (link ?x ?y) (true (on ?y)))
(<= connected (reach 5))
(<= terminal (true (step 8)))
(<= (goal r 100) connected)
(<= (goal r 0) (not connected))
"""

#: four stones in groups named by a leader, each its own at first; a move
#: merges one group into another, relabelling every member (AtariGo's
#: bookkeeping in miniature): `next (group ?x ?g2)` joins a fluent with
#: `switch`, a gate after the moves.
JOIN = """
(role p)
(stone 1) (stone 2) (stone 3) (stone 4)
(init (group 1 1)) (init (group 2 2)) (init (group 3 3)) (init (group 4 4))
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (leader ?g) (true (group ?g ?g)))
(<= (legal p (merge ?a ?b)) (leader ?a) (leader ?b) (distinct ?a ?b))
(<= (legal p wait) (true (step ?n)))
(<= (switch ?g1 ?g2) (does p (merge ?g1 ?g2)) (true (group ?g2 ?g2)))
(<= (affected ?g) (switch ?g ?h))
(<= (next (group ?x ?g2)) (true (group ?x ?g1)) (switch ?g1 ?g2))
(<= (next (group ?x ?g)) (true (group ?x ?g)) (not (affected ?g)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= terminal (true (step 4)))
(<= (goal p 100) (true (group 1 4)) (true (group 2 4)))
(<= (goal p 0) (not (true (group 1 4))))
(<= (goal p 0) (not (true (group 2 4))))
"""


# -- read-only folders, as `docker run --read-only` makes them ----------------------------


def read_only_command(paths: "list[Path]", command: "list[str]") -> "list[str]":
    """`command` run with each of `paths` mounted read-only, as `docker run --read-only` does.

    A bind mount made read-only in a private user and mount namespace
    (`unshare`): no privilege needed, nothing outside the child changes, and
    root cannot write there either (permission bits would not stop root).
    """
    import shlex

    mounts = "".join(f"mount --bind {shlex.quote(str(p))} {shlex.quote(str(p))} && "
                     f"mount -o remount,bind,ro {shlex.quote(str(p))} && " for p in paths)
    return ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", mounts + 'exec "$@"', "sh", *command]


def require_read_only_mounts(folder: Path) -> None:
    """Skip the calling test where user namespaces (hence `read_only_command`) are not allowed."""
    import shutil
    import subprocess

    import pytest

    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed")
    probe = subprocess.run(read_only_command([folder], ["touch", str(folder / "probe")]),
                           capture_output=True, text=True, timeout=30)
    if "Read-only file system" not in probe.stderr:
        pytest.skip(f"no read-only mount in a user namespace here: {probe.stderr.strip()[:200]}")


def empty_folders(parent: Path, *names: str) -> list[Path]:
    """New empty folders `names` under `parent`, e.g. the home and /tmp of
    a read-only run, which the tests then find still empty."""
    made = [parent / name for name in names]
    for folder in made:
        folder.mkdir()
    return made


#: Four doors for `me`; three are traps that end the game at once, me 0. The
#: fourth leads to twenty turns taken in turn (`you` first), each a pick of
#: left or right that is remembered; the parity of the lefts decides.
DOORS = """
(role me) (role you)
(init start) (init (count 0)) (init (parity even))
(door 1) (door 2) (door 3) (door 4) (trap 1) (trap 2) (trap 3) (side left) (side right)
""" + " ".join(f"(succ {n} {n + 1})" for n in range(20)) + """
(<= (legal me (open ?d)) (true start) (door ?d))
(<= (legal you noop) (true start))
(<= (legal ?r (pick ?x)) (true (control ?r)) (side ?x))
(<= (legal ?r noop) (role ?r) (not (true start)) (not (true (control ?r))))
(<= (next trapped) (does me (open ?d)) (trap ?d))
(<= (next (control you)) (true start))
(<= (next (control you)) (true (control me)))
(<= (next (control me)) (true (control you)))
(<= (next (count ?n)) (true (count ?m)) (succ ?m ?n) (not (true start)))
(<= (next (count 0)) (true start))
(<= left (does ?r (pick left)))
(<= (next (parity odd)) (true (parity even)) left)
(<= (next (parity even)) (true (parity odd)) left)
(<= (next (parity ?p)) (true (parity ?p)) (not left))
(<= (next (chose ?n ?x)) (true (count ?n)) (does ?r (pick ?x)))
(<= (next (chose ?n ?x)) (true (chose ?n ?x)))
(<= terminal (true trapped))
(<= terminal (true (count 20)))
(<= (goal me 0) (true trapped))
(<= (goal you 100) (true trapped))
(<= (goal me 100) (not (true trapped)) (true (parity even)))
(<= (goal you 0) (not (true trapped)) (true (parity even)))
(<= (goal me 0) (not (true trapped)) (true (parity odd)))
(<= (goal you 100) (not (true trapped)) (true (parity odd)))
"""


def give_edges(A, node: int, codes_by_role: list[list[int]]) -> None:
    """Give `node` of a hand-made arena one edge per code, role after role
    (as `iteration.expand` does from the legal moves)."""
    flat = [c for codes in codes_by_role for c in codes]
    A.legal[: len(flat)] = flat
    A.legal_count[:] = [len(codes) for codes in codes_by_role]
    assert expand(A, node) == 1
