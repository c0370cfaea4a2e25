"""The aiohttp app that speaks GGP over HTTP: transport, CORS, status page, logging.

What arrives: a game manager POSTs one message to `/` (ggp-base's GameServer uses
HTTP/1.0 and `Content-Type: text/acl`; the ggp.org browser controller sends no
Content-Type at all), or a browser GETs `/<url-encoded message>` after an OPTIONS
preflight. Every reply carries `Content-type: text/acl` and the CORS headers that
ggp-base's players send. `GET /` with no message is a status page for people
(`GET /live` its part that changes, which the page fetches); `GET /status.json`
is the same as data; `GET /matches` lists the recorded matches; `GET
/match/<id>?step=N` replays a finished match from its record (`?format=json`:
the record).

Failures never take the server down: a malformed message gets HTTP 400 with a
one-line reason, a body over the size limit gets 413, and both are logged. The
handlers are thin; game logic lives in `player.Player`, parsing in
`player.protocol`, the page in `status_page.py`.
Parsing a large START goes to a thread so the event loop keeps answering INFO.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
import urllib.parse
from dataclasses import dataclass

from aiohttp import web

from ..player.player import CLOSE_GRACE_S, Player
from ..player.protocol import ProtocolError, parse_message
from . import stall_watch
from ..player.record_index import PER_PAGE, select
from .match_list import match_list_page
from .replay_page import replay_page
from .status_page import live_html, status_page

log = logging.getLogger(__name__)

#: Largest message accepted, in bytes. Real games' rules stay under 100 KB.
DEFAULT_MAX_BODY = 4 * 1024 * 1024

#: Seconds the server waits, once the player is closed, for handlers still
#: writing their replies before it closes their connections.
HANDLER_SHUTDOWN_S = 0.5

#: Messages longer than this are parsed in a worker thread, not on the event loop.
_PARSE_INLINE_LIMIT = 8192

#: The headers ggp-base's players put on every reply.
CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Allow-Age": "86400",
}

PLAYER_KEY = web.AppKey("player", Player)
#: `GET /match/<url-quoted match id>?step=N` replays a finished match.
REPLAY_PREFIX = "match/"
MAX_BODY_KEY = web.AppKey("max_body", int)
STALLS_KEY = web.AppKey("stalls", stall_watch.StallWatch)


def _reply(text: str, status: int = 200, content_type: str = "text/acl") -> web.Response:
    headers = {"Content-Type": content_type, **CORS_HEADERS}
    return web.Response(body=text.encode("utf-8"), status=status, headers=headers)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def make_app(player: Player, max_body: int = DEFAULT_MAX_BODY) -> web.Application:
    """The GGP app for `player`; bodies over `max_body` bytes are refused with 413."""
    app = web.Application(client_max_size=max_body + 1)
    app[PLAYER_KEY] = player
    app[MAX_BODY_KEY] = max_body
    app.router.add_route("OPTIONS", "/{tail:.*}", _options)
    app.router.add_route("POST", "/{tail:.*}", _post)
    app.router.add_route("GET", "/{tail:.*}", _get)
    app.cleanup_ctx.append(_watch_stalls)
    return app


async def _watch_stalls(app: web.Application):
    """The process's stall watch, held while the app runs (see `stall_watch`)."""
    app[STALLS_KEY] = stall_watch.acquire()
    yield
    stall_watch.release()


def _status(app: web.Application) -> dict:
    """The player's snapshot and the process's stalls, for the status page and status.json."""
    return {**app[PLAYER_KEY].status(), "stalls": app[STALLS_KEY].snapshot()}


async def _options(request: web.Request) -> web.Response:
    return _reply("")


async def _post(request: web.Request) -> web.Response:
    received = time.monotonic()
    limit = request.app[MAX_BODY_KEY]
    if request.content_length is not None and request.content_length > limit:
        return _refuse_size(request, request.content_length, limit)
    body = bytearray()
    while True:
        chunk = await request.content.read(65536)
        if not chunk:
            break
        body.extend(chunk)
        if len(body) > limit:
            return _refuse_size(request, len(body), limit)
    return await _dispatch(request, bytes(body).decode("utf-8", errors="replace"), received)


async def _get(request: web.Request) -> web.Response:
    received = time.monotonic()
    raw = request.raw_path.lstrip("/")
    path, _, query = raw.partition("?")
    if path in ("", "index.html", "live"):  # the page, or its live part (the page's script fetches it)
        status = _status(request.app)
        finished = await _off_loop(request.app[PLAYER_KEY].finished_summaries)
        page = live_html(status, finished) if path == "live" else status_page(status, finished)
        return _reply(page, content_type="text/html")
    if path == "status.json":
        return _reply(json.dumps(_status(request.app), indent=1), content_type="application/json")
    if path == "matches":
        return await _match_list(request, query)
    if raw == "favicon.ico":
        return web.Response(status=404, headers=CORS_HEADERS)
    if raw.startswith(REPLAY_PREFIX):  # no GGP message starts so: messages are lists
        return await _replay(request, raw)
    return await _dispatch(request, urllib.parse.unquote(raw), received)


async def _off_loop(function, *args):
    """Run a call that reads files in a thread: the event loop keeps answering PLAY and INFO."""
    return await asyncio.get_running_loop().run_in_executor(None, function, *args)


def _query_value(query: dict, key: str) -> str:
    return (query.get(key) or [""])[-1]


async def _match_list(request: web.Request, query_text: str) -> web.Response:
    """`GET /matches?game=HASH&result=won&page=N`: the recorded matches, newest first."""
    query = urllib.parse.parse_qs(query_text)
    try:
        page = int(_query_value(query, "page") or 1)
    except ValueError:
        return _reply(f"not a page number: {_query_value(query, 'page')!r}", status=400, content_type="text/plain")
    player = request.app[PLAYER_KEY]
    game, result = _query_value(query, "game"), _query_value(query, "result")
    listing = select(await _off_loop(player.finished_summaries), game, result, page, PER_PAGE)
    return _reply(match_list_page(player.name, listing, game, result, player.records_problem),
                  content_type="text/html")


async def _replay(request: web.Request, raw: str) -> web.Response:
    """`GET /match/<id>?step=N`: a finished match's replay page, from its
    record; `?format=json`: the record itself."""
    quoted, _, query_text = raw[len(REPLAY_PREFIX):].partition("?")
    match_id = urllib.parse.unquote(quoted)
    query = urllib.parse.parse_qs(query_text)
    steps = query.get("step", [])
    try:
        step = int(steps[-1]) if steps else None
    except ValueError:
        return _reply(f"not a step number: {steps[-1]!r}", status=400, content_type="text/plain")
    record = await _off_loop(request.app[PLAYER_KEY].finished_record, match_id)
    if record is None:
        return _reply(f"no record of a finished match {match_id!r} here", status=404, content_type="text/plain")
    if _query_value(query, "format") == "json":
        return _reply(json.dumps(record.to_json(), indent=1), content_type="application/json")
    beside = await _off_loop(request.app[PLAYER_KEY].controller_view, match_id)
    return _reply(replay_page(record, step, beside), content_type="text/html")


def _refuse_size(request: web.Request, size: int, limit: int) -> web.Response:
    reason = f"message too large: {size} bytes or more, the limit is {limit}"
    log.warning("refused a request from %s: %s", request.remote, reason)
    response = _reply(reason, status=413)
    response.force_close()
    return response


async def _dispatch(request: web.Request, text: str, received: float) -> web.StreamResponse:
    player = request.app[PLAYER_KEY]
    try:
        if len(text) > _PARSE_INLINE_LIMIT:
            message = await asyncio.get_running_loop().run_in_executor(None, parse_message, text)
        else:
            message = parse_message(text)
        reply = await player.handle(message, received)
    except ProtocolError as error:
        reason = _one_line(str(error))
        log.warning("bad message from %s: %s", request.remote, reason)
        return _reply(reason, status=400)
    except Exception as error:  # a bug of ours: answer, log, keep serving
        log.exception("error while handling a message from %s", request.remote)
        return _reply(_one_line(f"internal error: {type(error).__name__}: {error}"), status=500)
    return await _send(request, _reply(reply), message, player)


async def _send(request: web.Request, response: web.Response, message, player: Player) -> web.StreamResponse:
    """Write the reply now, and tell the player when it went out or that it could not.

    The player measures its lateness against the moment the bytes reach the
    socket, not the moment it chose the move; and a manager that closed the
    connection before reading (a dropped reply) is worth a line in the log.
    """
    delivered = True
    try:
        transport = request.transport
        if transport is None or transport.is_closing():
            raise ConnectionResetError("the connection is closed")
        await response.prepare(request)
        await response.write_eof()
    except (ConnectionError, RuntimeError) as error:  # aiohttp raises either on a closed transport
        delivered = False
        log.debug("reply to %s not delivered: %s", request.remote, error)
    player.reply_sent(message, time.monotonic(), delivered)
    return response


@dataclass
class RunningServer:
    """A server started by `start_server`: its address, and how to stop it."""

    runner: web.AppRunner
    player: Player
    host: str
    port: int

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def stop(self, grace: float = CLOSE_GRACE_S) -> None:
        """Stop within about `grace` seconds, whatever the clocks: stop
        accepting connections, let every PLAY in flight answer at once with
        the best move known, abort the matches and write their records
        (`Player.close`), then close the connections left."""
        for site in list(self.runner.sites):
            await site.stop()
        await self.player.close(grace)
        await self.runner.cleanup()


async def start_server(
    player: Player, host: str = "127.0.0.1", port: int = 0, max_body: int = DEFAULT_MAX_BODY
) -> RunningServer:
    """Serve `player` on host:port (port 0 picks a free one) until `.stop()`.

    The access log is off: the player logs one line per message itself. Long
    GET lines (a browser's START) are allowed up to the body limit.
    """
    app = make_app(player, max_body)
    runner = web.AppRunner(
        app, access_log=None, handle_signals=False, shutdown_timeout=HANDLER_SHUTDOWN_S,
        max_line_size=max_body, max_field_size=65536,
    )
    await runner.setup()
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        await runner.cleanup()
        raise
    site = web.SockSite(runner, sock)
    await site.start()
    bound_port = sock.getsockname()[1]
    return RunningServer(runner, player, host, bound_port)


__all__ = ["CORS_HEADERS", "DEFAULT_MAX_BODY", "RunningServer", "make_app", "start_server"]
