"""Subcommands that run the agent: serve, warmup, ping.

Every `serve` option also has an environment variable (`GGP_PORT`, `GGP_NAME`,
...; see SERVE_ENVIRONMENT), so a container is configured without a command line.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

from ..cores import parse_cores, pin_this_process
from ..engines import ENGINES
from ..player.config import PLAYER_KINDS
from ..search.tree.params import PARALLEL, SEARCH_RULES
from ..search.tree.settings import parse_flag
from .errors import CommandError

log = logging.getLogger(__name__)

#: `serve` options and the environment variables that give their defaults.
SERVE_ENVIRONMENT = {
    "host": "GGP_HOST", "port": "GGP_PORT", "name": "GGP_NAME", "player": "GGP_PLAYER",
    "search": "GGP_SEARCH", "engine": "GGP_ENGINE", "max_matches": "GGP_MAX_MATCHES",
    "margin": "GGP_MARGIN", "think_time": "GGP_THINK_TIME", "records": "GGP_RECORDS",
    "max_body": "GGP_MAX_BODY", "log_file": "GGP_LOG_FILE", "warmup": "GGP_WARMUP",
    "ponder": "GGP_PONDER", "memory": "GGP_MEMORY", "search_options": "GGP_SEARCH_OPTIONS",
    "threads": "GGP_THREADS", "parallel": "GGP_PARALLEL", "cpus": "GGP_CPUS",
    "abandon_grace": "GGP_ABANDON_GRACE",
}


#: The `serve` options that take one of a few names, and the names.
SERVE_CHOICES = {"player": tuple(sorted(PLAYER_KINDS)), "search": SEARCH_RULES, "engine": tuple(sorted(ENGINES)),
                 "parallel": PARALLEL}


def _env(option: str, default):
    """The default of a `serve` option: its environment variable when set."""
    value = os.environ.get(SERVE_ENVIRONMENT[option], "")
    return value if value != "" else default


def _env_flag(option: str, default: bool) -> bool:
    """An on/off `serve` option's default from its environment variable."""
    value = _env(option, None)
    if value is None:
        return default
    try:
        return parse_flag(value)
    except ValueError as error:
        raise SystemExit(f"error: {SERVE_ENVIRONMENT[option]}: {error}") from None


def register(commands: argparse._SubParsersAction) -> None:
    serve = commands.add_parser(
        "serve", help="serve the GGP protocol over HTTP",
        description="Serve the GGP protocol over HTTP. Every option's default can be set "
                    "by the environment variable named in its help.")
    serve.add_argument("--host", default=_env("host", "127.0.0.1"),
                       help="address to listen on (default 127.0.0.1; 0.0.0.0 for a public match server) [GGP_HOST]")
    serve.add_argument("--port", type=int, default=_env("port", 9147),
                       help="port (default 9147; 0 picks a free one) [GGP_PORT]")
    serve.add_argument("--name", default=_env("name", "ggp-agent"), help="the name INFO reports [GGP_NAME]")
    serve.add_argument("--player", default=_env("player", "agent"), choices=SERVE_CHOICES["player"],
                       help="agent (searches), random or legal (ggp-base's baselines) [GGP_PLAYER]")
    serve.add_argument("--search", default=_env("search", None), choices=SERVE_CHOICES["search"],
                       help="search rule (overrides --player's; default mcps) [GGP_SEARCH]")
    serve.add_argument("--search-option", dest="search_options", action="append", metavar="KEY=VALUE",
                       default=[o for o in (_env("search_options", "") or "").split(",") if o],
                       help="a constant of the tree searches, e.g. codes=effects or c=0.7; repeatable "
                            "[GGP_SEARCH_OPTIONS, comma-separated]")
    serve.add_argument("--no-ponder", dest="ponder", action="store_false", default=_env_flag("ponder", True),
                       help="think only on our own turns [GGP_PONDER=0]")
    serve.add_argument("--threads", type=int, default=_env("threads", None), metavar="N",
                       help="cores a search uses (default: every core; a game on Prolog uses one) [GGP_THREADS]")
    serve.add_argument("--cpus", default=_env("cpus", None), metavar="LIST",
                       help="keep the whole server on these cores, as `taskset -c` names them (0, 0,1, 2-3); "
                            "its search then takes one thread per core unless --threads says otherwise; "
                            "for a fair match beside another player pinned to other cores [GGP_CPUS]")
    serve.add_argument("--parallel", default=_env("parallel", "root"), choices=SERVE_CHOICES["parallel"],
                       help="how several threads search: root, a tree each merged at the root (default); tree, "
                            "one tree shared by the threads on the propnet's lanes [GGP_PARALLEL]")
    serve.add_argument("--memory", type=float, default=_env("memory", None), metavar="MB",
                       help="cap on one search's arena, MB (default: 1 GiB, at most a quarter of free memory) [GGP_MEMORY]")
    serve.add_argument("--engine", default=_env("engine", "auto"), choices=SERVE_CHOICES["engine"],
                       help="the player's reasoner; auto: a propnet when the game grounds in time, else Prolog [GGP_ENGINE]")
    serve.add_argument("--max-matches", type=int, default=_env("max_matches", 1),
                       help="concurrent matches before START gets busy [GGP_MAX_MATCHES]")
    serve.add_argument("--margin", type=float, default=_env("margin", 0.5),
                       help="seconds kept back from every clock at least; grows with measured lateness [GGP_MARGIN]")
    serve.add_argument("--think-time", type=float, default=_env("think_time", None),
                       help="cap on thinking per move, seconds [GGP_THINK_TIME]")
    serve.add_argument("--abandon-grace", type=float, default=_env("abandon_grace", 60.0), metavar="S",
                       help="a match without a message for twice its longer clock and S seconds more is "
                            "abandoned: freed and recorded (default 60) [GGP_ABANDON_GRACE]")
    serve.add_argument("--records", type=Path, default=_env("records", None),
                       help="write the player's match records here [GGP_RECORDS]")
    serve.add_argument("--max-body", type=int, default=_env("max_body", None),
                       help="largest message in bytes (default 4 MiB) [GGP_MAX_BODY]")
    serve.add_argument("--log-file", type=Path, default=_env("log_file", None),
                       help="also log to this file, rotated at 10 MiB, 5 kept [GGP_LOG_FILE]")
    serve.add_argument("--no-warmup", dest="warmup", action="store_false", default=_env_flag("warmup", True),
                       help="do not load the numba kernels and Prolog at start-up [GGP_WARMUP=0]")
    serve.set_defaults(run=run_serve)

    warmup = commands.add_parser("warmup", help="load or compile every numba kernel and start Prolog, then exit")
    warmup.set_defaults(run=run_warmup)

    ping = commands.add_parser("ping", help="send (info) to a player and print its reply (a health check)")
    ping.add_argument("address", nargs="?", default=f"127.0.0.1:{os.environ.get('GGP_PORT') or 9147}",
                      help="HOST:PORT (default 127.0.0.1 and GGP_PORT, else 9147)")
    ping.add_argument("--timeout", type=float, default=2.5, help="seconds to wait (Tiltyard waits 2.5)")
    ping.set_defaults(run=run_ping, uses_numba=False)  # the health check: every 30 s, no kernel


def _check_environment_choices(args) -> None:
    """argparse checks a choice given on the command line, not a default, so a
    value from the environment (`GGP_SEARCH=sideways`) is checked here: the
    server must refuse it at start, not at the first START of a match."""
    for option, choices in SERVE_CHOICES.items():
        value = getattr(args, option)
        if value is not None and value not in choices:
            raise CommandError(f"{SERVE_ENVIRONMENT[option]}={value}: expected one of {', '.join(choices)}")


def run_serve(args) -> int:
    from ..player.config import PlayerConfig
    from ..player.player import Player
    from ..player.records import records_folder_problem
    from ..search.registry import checked_options
    from ..search.warmup import warm_up
    from ..server.app import DEFAULT_MAX_BODY, start_server

    _check_environment_choices(args)
    try:
        search_options = checked_options(args.search_options)
        cpus = None if args.cpus is None else parse_cores(args.cpus)
    except ValueError as error:
        raise CommandError(str(error)) from None
    if cpus is not None:  # every later thread inherits it
        pin_this_process(cpus)
    config = PlayerConfig(
        name=args.name, search=args.search or PLAYER_KINDS[args.player], engine=args.engine,
        search_options=search_options,
        max_matches=args.max_matches, safety_margin=args.margin, think_time=args.think_time,
        record_dir=args.records, ponder=args.ponder,
        memory_cap=None if args.memory is None else int(float(args.memory) * 2**20),
        threads=None if args.threads is None else int(args.threads), parallel=args.parallel, cpus=cpus,
        abandon_grace=float(args.abandon_grace),
    )
    if config.threads is not None and config.threads < 1:
        raise CommandError(f"--threads {config.threads}: a search needs at least one thread")

    records_problem = records_folder_problem(args.records)
    if records_problem:  # the agent still plays: a record is worth less than a match
        log.error(records_problem)

    async def serve() -> None:
        player = Player(config, records_problem=records_problem)
        server = await start_server(player, args.host, args.port, args.max_body or DEFAULT_MAX_BODY)
        # The first line on stdout is the address, for scripts that asked for port 0.
        print(f"serving {config.name} on http://{server.address}/", flush=True)
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        if args.warmup:  # INFO is answered meanwhile; a START waits for the kernels it needs anyway
            # A daemon thread, not the loop's executor: a SIGTERM during a cold
            # compile (a minute) must not wait for it to finish.
            threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
        for signal_number in (signal.SIGINT, signal.SIGTERM):  # docker stop, Ctrl-C: answer, abort, record
            loop.add_signal_handler(signal_number, _on_signal, signal_number, stopping, server.player)
        try:
            await stopping.wait()
        finally:
            await server.stop()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    except OSError as error:
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {error.strerror}") from None
    _exit_without_teardown()
    return 0  # not reached


def _on_signal(number: int, stopping: asyncio.Event, player) -> None:
    """SIGTERM or SIGINT: wake the waiting replies now (they answer at once),
    then let `serve` stop the server."""
    log.info("%s received: stopping", signal.Signals(number).name)
    player.begin_shutdown()
    stopping.set()


def _exit_without_teardown() -> None:
    """End the process now, status 0, once the server has stopped.

    Everything worth keeping (the replies, the records, the log) is written by
    then. The interpreter's own teardown would add most of a second (numba's
    and SWI-Prolog's modules; measured 0.7 s) and would wait for any compile
    or engine step the shutdown left behind in a pool thread, however long:
    a container's stop must not depend on either.
    """
    lingering = [t.name for t in threading.enumerate()
                 if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    if lingering:
        log.info("exiting; left behind: thread(s) %s", ", ".join(lingering))
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def run_warmup(args) -> int:
    from ..propnet.jit.numba_cache import cache_description
    from ..search.warmup import WarmUpStatus, warm_up

    steps = warm_up()
    for step in steps:
        detail = f": {step.detail}" if step.detail else ""
        print(f"{step.part}: {step.status.value} ({step.seconds:.2f} s){detail}")
    print(f"numba: {sum(step.compiled for step in steps)} functions compiled, the others loaded from the cache")
    print(f"numba cache: {cache_description()}")
    return 1 if any(step.status is WarmUpStatus.FAILED for step in steps) else 0


def run_ping(args) -> int:
    from ..player.protocol import ProtocolError, parse_info_reply

    url = f"http://{args.address}/"
    request = urllib.request.Request(url, data=b"(info)", headers={"Content-Type": "text/acl"})
    try:
        with urllib.request.urlopen(request, timeout=args.timeout) as response:
            text = response.read(4096).decode("utf-8", errors="replace").strip()
    except urllib.error.URLError as error:
        print(f"error: no reply from {args.address}: {error.reason}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"error: no reply from {args.address}: {error}", file=sys.stderr)
        return 1
    print(text)
    try:
        fields = parse_info_reply(text)
    except ProtocolError as error:
        print(f"error: not an INFO reply: {error}", file=sys.stderr)
        return 1
    return 0 if fields.get("status") in ("available", "busy") else 1
