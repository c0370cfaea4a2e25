"""`ggp-agent`: the command line (serve, match, tournament, check, bench, replay,
warmup, ping).

Each subcommand is a thin wrapper: parse arguments, call the library, print.
Every `serve` option also has an environment variable (`GGP_PORT`, `GGP_NAME`,
...; see SERVE_ENVIRONMENT), so a container is configured without a command line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import logging.handlers
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Optional, Sequence

from .engines import ENGINES, make_state_machine
from .gdl import GdlError, load_game
from .numba_cache import use_readable_cache
from .player import PLAYER_KINDS
from .reasoner.statemachine import ReasonerError
from .searchers import SEARCH_RULES

log = logging.getLogger(__name__)

#: `serve` options and the environment variables that give their defaults.
SERVE_ENVIRONMENT = {
    "host": "GGP_HOST", "port": "GGP_PORT", "name": "GGP_NAME", "player": "GGP_PLAYER",
    "search": "GGP_SEARCH", "engine": "GGP_ENGINE", "max_matches": "GGP_MAX_MATCHES",
    "margin": "GGP_MARGIN", "think_time": "GGP_THINK_TIME", "records": "GGP_RECORDS",
    "max_body": "GGP_MAX_BODY", "log_file": "GGP_LOG_FILE", "warmup": "GGP_WARMUP",
    "ponder": "GGP_PONDER", "memory": "GGP_MEMORY", "search_options": "GGP_SEARCH_OPTIONS",
}


def _env(option: str, default):
    """The default of a `serve` option: its environment variable when set."""
    value = os.environ.get(SERVE_ENVIRONMENT[option], "")
    return value if value != "" else default


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="ggp-agent", description="A General Game Playing agent.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at debug level")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings and errors only")
    parser.set_defaults(uses_numba=True)
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("check", help="parse, validate and play one random match of a game")
    check.add_argument("game", type=Path)
    check.add_argument("--engine", default="prolog", choices=sorted(ENGINES))
    check.add_argument("--seed", type=int, default=None)
    check.set_defaults(run=run_check)

    bench = commands.add_parser("bench", help="random playouts per second of an engine on a game")
    bench.add_argument("game", type=Path)
    bench.add_argument("--engine", default="prolog", choices=sorted(ENGINES))
    bench.add_argument("--seconds", type=float, default=5.0)
    bench.add_argument("--json", action="store_true", help="end with one JSON object on the last line")
    bench.add_argument("--search", default=None, metavar="RULES",
                       help="also the tree searches, e.g. uct,grave,mcps: iterations/s from the opening")
    bench.add_argument("--repeats", type=int, default=3, help="searches per rule (--search)")
    bench.add_argument("--budgets", default=None, metavar="SECONDS",
                       help="with --search: self-play at these seconds per move, e.g. 0.25,1 "
                            "(iterations/s, playout length, new-leaf depth per move, as the MCPS appendix)")
    bench.add_argument("--games", type=int, default=2, help="self-play games per rule and budget")
    bench.set_defaults(run=run_bench)

    replay = commands.add_parser("replay", help="replay an oracle trace and compare every step")
    replay.add_argument("game", type=Path)
    replay.add_argument("trace", type=Path)
    replay.add_argument("--engine", default="prolog", choices=sorted(ENGINES))
    replay.add_argument("--max-walks", type=int, default=None)
    replay.add_argument("--time-limit", type=float, default=None, help="seconds per query (prolog engine)")
    replay.set_defaults(run=run_replay)

    serve = commands.add_parser(
        "serve", help="serve the GGP protocol over HTTP",
        description="Serve the GGP protocol over HTTP. Every option's default can be set "
                    "by the environment variable named in its help.")
    serve.add_argument("--host", default=_env("host", "127.0.0.1"),
                       help="address to listen on (default 127.0.0.1; 0.0.0.0 for a public match server) [GGP_HOST]")
    serve.add_argument("--port", type=int, default=_env("port", 9147),
                       help="port (default 9147; 0 picks a free one) [GGP_PORT]")
    serve.add_argument("--name", default=_env("name", "ggp-agent"), help="the name INFO reports [GGP_NAME]")
    serve.add_argument("--player", default=_env("player", "agent"), choices=sorted(PLAYER_KINDS),
                       help="agent (searches), random or legal (ggp-base's baselines) [GGP_PLAYER]")
    serve.add_argument("--search", default=_env("search", None), choices=SEARCH_RULES,
                       help="search rule (overrides --player's; default mcps) [GGP_SEARCH]")
    serve.add_argument("--search-option", dest="search_options", action="append", metavar="KEY=VALUE",
                       default=[o for o in (_env("search_options", "") or "").split(",") if o],
                       help="a constant of the tree searches, e.g. codes=effects or c=0.7; repeatable "
                            "[GGP_SEARCH_OPTIONS, comma-separated]")
    serve.add_argument("--no-ponder", dest="ponder", action="store_false",
                       default=_env("ponder", "1") not in ("0", "no", "false"),
                       help="think only on our own turns [GGP_PONDER=0]")
    serve.add_argument("--memory", type=float, default=_env("memory", None), metavar="MB",
                       help="cap on one search's arena, MB (default: 1 GiB, at most a quarter of free memory) [GGP_MEMORY]")
    serve.add_argument("--engine", default=_env("engine", "auto"), choices=sorted(ENGINES),
                       help="the player's reasoner; auto: a propnet when the game grounds in time, else Prolog [GGP_ENGINE]")
    serve.add_argument("--max-matches", type=int, default=_env("max_matches", 1),
                       help="concurrent matches before START gets busy [GGP_MAX_MATCHES]")
    serve.add_argument("--margin", type=float, default=_env("margin", 0.5),
                       help="seconds kept back from every clock at least; grows with measured lateness [GGP_MARGIN]")
    serve.add_argument("--think-time", type=float, default=_env("think_time", None),
                       help="cap on thinking per move, seconds [GGP_THINK_TIME]")
    serve.add_argument("--records", type=Path, default=_env("records", None),
                       help="write the player's match records here [GGP_RECORDS]")
    serve.add_argument("--max-body", type=int, default=_env("max_body", None),
                       help="largest message in bytes (default 4 MiB) [GGP_MAX_BODY]")
    serve.add_argument("--log-file", type=Path, default=_env("log_file", None),
                       help="also log to this file, rotated at 10 MiB, 5 kept [GGP_LOG_FILE]")
    serve.add_argument("--no-warmup", dest="warmup", action="store_false",
                       default=_env("warmup", "1") not in ("0", "no", "false"),
                       help="do not load the numba kernels and Prolog at start-up [GGP_WARMUP=0]")
    serve.set_defaults(run=run_serve)

    match = commands.add_parser("match", help="run one match over HTTP between GGP players")
    match.add_argument("game", type=Path)
    match.add_argument("--player", action="append", required=True, metavar="SPEC",
                       help="HOST:PORT or an in-process player (agent, random, legal, "
                            "agent:search=mc,time=0.5); once per role, in role order")
    match.add_argument("--startclock", type=float, default=10.0)
    match.add_argument("--playclock", type=float, default=2.0)
    match.add_argument("--records", type=Path, default=Path("records"), help="directory for the record")
    match.add_argument("--match-id", default=None)
    match.add_argument("--seed", type=int, default=None, help="seed of the substitute moves")
    match.add_argument("--engine", default="prolog", choices=sorted(ENGINES), help="the controller's reasoner")
    match.add_argument("--json", action="store_true", help="print the record as JSON")
    match.set_defaults(run=run_match)

    tournament = commands.add_parser("tournament", help="many matches between players, in parallel")
    tournament.add_argument("game", type=Path)
    tournament.add_argument("--players", nargs="+", required=True, metavar="SPEC",
                            help="HOST:PORT or in-process specs (agent:time=0.5, random, legal)")
    tournament.add_argument("--games", type=int, default=20)
    tournament.add_argument("--startclock", type=float, default=10.0)
    tournament.add_argument("--playclock", type=float, default=2.0)
    tournament.add_argument("--workers", type=int, default=None,
                            help="worker processes (default: one per core; 1 when a player is HOST:PORT)")
    tournament.add_argument("--cluster", default=None, metavar="ADDRESS",
                            help="run on a Dask cluster, e.g. tcp://127.0.0.1:8786")
    tournament.add_argument("--out", type=Path, default=None, help="output directory")
    tournament.add_argument("--seed", type=int, default=0)
    tournament.add_argument("--engine", default="prolog", choices=sorted(ENGINES))
    tournament.add_argument("--no-progress", action="store_true")
    tournament.set_defaults(run=run_tournament)

    warmup = commands.add_parser("warmup", help="load or compile every numba kernel and start Prolog, then exit")
    warmup.set_defaults(run=run_warmup)

    ping = commands.add_parser("ping", help="send (info) to a player and print its reply (a health check)")
    ping.add_argument("address", nargs="?", default=f"127.0.0.1:{os.environ.get('GGP_PORT') or 9147}",
                      help="HOST:PORT (default 127.0.0.1 and GGP_PORT, else 9147)")
    ping.add_argument("--timeout", type=float, default=2.5, help="seconds to wait (Tiltyard waits 2.5)")
    ping.set_defaults(run=run_ping, uses_numba=False)  # the health check: every 30 s, no kernel

    args = parser.parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.WARNING if args.quiet else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if getattr(args, "log_file", None):
        handler = logging.handlers.RotatingFileHandler(args.log_file, maxBytes=10 << 20, backupCount=5)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.getLogger().addHandler(handler)
    if args.uses_numba:
        use_readable_cache()  # before anything imports numba
    return args.run(args)


def _load(path: Path):
    try:
        return load_game(path)
    except OSError as error:
        raise SystemExit(f"error: cannot read {path}: {error.strerror}") from None


def run_check(args) -> int:
    try:
        game = load_game(args.game)
    except OSError as error:
        print(f"error: cannot read {args.game}: {error.strerror}", file=sys.stderr)
        return 2
    except GdlError as error:
        print(f"error: {args.game}: {error}", file=sys.stderr)
        return 1
    for warning in game.warnings:
        print(f"warning: {warning}")
    try:
        machine = make_state_machine(args.engine, game)
        try:
            print(f"roles: {' '.join(map(str, machine.roles))}")
            state = machine.initial_state()
            print(f"initial state: {len(state)} fluents")
            for index, role in enumerate(machine.roles):
                moves = machine.legal_moves(state, index)
                shown = " ".join(map(str, moves[:8])) + (" ..." if len(moves) > 8 else "")
                print(f"legal moves of {role}: {len(moves)}: {shown}")
            if any(not machine.legal_moves(state, i) for i in range(len(machine.roles))) and not machine.is_terminal(state):
                print("error: a role has no legal move in the initial state", file=sys.stderr)
                return 1
            goals, steps, final = _random_match(machine, state, args.seed)
            ending = "terminal" if final else "cut at the step limit"
            print(f"random match: {steps} joint moves, {ending}, goals: {' '.join(map(str, goals))}")
        finally:
            machine.close()
    except ReasonerError as error:
        print(f"error: {args.game}: {error}", file=sys.stderr)
        return 1
    return 0


def _random_match(machine, state, seed):
    if hasattr(machine, "random_playout"):
        return machine.random_playout(state, seed=seed)
    import random

    rng = random.Random(seed)
    steps = 0
    while not machine.is_terminal(state) and steps < 1000:
        joint = [rng.choice(machine.legal_moves(state, i)) for i in range(len(machine.roles))]
        state = machine.next_state(state, joint)
        steps += 1
    return machine.goal_values(state), steps, machine.is_terminal(state)


def run_bench(args) -> int:
    game = _load(args.game)
    started = time.perf_counter()
    machine = make_state_machine(args.engine, game)
    build_s = time.perf_counter() - started
    try:
        report = {"engine": args.engine, "game": args.game.stem, "build_s": round(build_s, 3)}
        report.update(machine.bench(args.seconds) if hasattr(machine, "bench") else _bench_prolog(machine, args.seconds))
    finally:
        machine.close()
    print(f"{report['game']} on {report['engine']}: {report['playouts_per_s']:.1f} playouts/s, "
          f"{report['state_updates_per_s']:.1f} state updates/s "
          f"({report['playouts']} playouts in {report['seconds']:.2f} s, build {report['build_s']:.2f} s)")
    if "gates" in report:
        strategies = ", ".join(f"{name} {rate:.1f}/s" for name, rate in report["strategies"].items())
        print(f"propnet: {report['propositions']} propositions, {report['gates']} gates; "
              f"playouts by strategy: {strategies} (best: {report['strategy']})")
    if args.search:
        report["search"] = _bench_search(args, game)
    if args.json:
        print(json.dumps(report))
    return 0


def _bench_search(args, game) -> dict:
    from .search.bench import bench_opening, bench_selfplay
    from .search.params import RULES
    from .search.warmup import ensure_warm

    rules = [rule.strip() for rule in args.search.split(",") if rule.strip()]
    unknown = [rule for rule in rules if rule not in RULES]
    if unknown:
        raise SystemExit(f"error: unknown search rule(s) {', '.join(unknown)}; known: {', '.join(RULES)}")
    ensure_warm()
    machine = make_state_machine(args.engine, game)
    try:
        found = {"opening": bench_opening(machine, rules, args.seconds, repeats=args.repeats)}
        for row in found["opening"]:
            print(f"  {row['rule']:>5} from the opening: {row['iterations_per_s']:.0f} iterations/s "
                  f"(per search {', '.join(f'{r:.0f}' for r in row['rates'])}), playout {row['mean_playout']} "
                  f"moves, new leaves at depth {row['mean_leaf_depth']}, {row['max_nodes']} nodes")
        if args.budgets:
            found["selfplay"] = []
            for budget in (float(b) for b in args.budgets.split(",")):
                for row in bench_selfplay(machine, rules, budget, games=args.games):
                    found["selfplay"].append(row)
                    print(f"  {row['rule']:>5} self-play at {budget:g} s/move over {row['moves']} moves: "
                          f"{row['iterations_per_s']:.0f} iterations/s, playout {row['mean_playout']} moves, "
                          f"new leaves at depth {row['mean_leaf_depth']}")
    finally:
        machine.close()
    return found


def _bench_prolog(machine, seconds: float) -> dict:
    machine.bench_playouts(min(0.2, seconds))  # warm up (first-call indexing)
    started = time.process_time()
    playouts, steps = machine.bench_playouts(seconds)
    elapsed = max(time.process_time() - started, 1e-9)
    return {
        "playouts": playouts,
        "state_updates": steps,
        "seconds": round(elapsed, 3),
        "playouts_per_s": round(playouts / elapsed, 2),
        "state_updates_per_s": round(steps / elapsed, 2),
    }


def run_replay(args) -> int:
    from .replay import replay

    try:
        game = load_game(args.game)
        options = {"query_time_limit": args.time_limit} if args.time_limit else {}
        machine = make_state_machine(args.engine, game, **options)
    except GdlError as error:
        print(f"error: {args.game}: {error}", file=sys.stderr)
        return 2
    except ReasonerError as error:
        print(f"error: the {args.engine} engine failed on {args.game}: {error}", file=sys.stderr)
        return 2
    try:
        result = replay(machine, args.trace, args.max_walks)
    finally:
        machine.close()
    for note in result.notes:
        print(f"note: {note}")
    summary = f"{result.steps_agreed} steps and {result.terminals_agreed} terminal states agree"
    if result.failure:
        print(f"{summary}; then the engine failed: {result.failure}")
    elif result.difference:
        print(f"{summary}; first difference:\n{result.difference}")
    else:
        print(f"all agree: {summary}")
    return result.exit_code


def _search_options(items: list[str]) -> tuple[tuple[str, str], ...]:
    """`KEY=VALUE` items as the player's search options; ValueError names a bad one."""
    from .search.params import checked_option

    options = []
    for item in items:
        key, equals, value = item.partition("=")
        if not equals:
            raise ValueError(f"search option {item!r}: expected KEY=VALUE")
        options.append(checked_option(key, value))
    return tuple(options)


def run_serve(args) -> int:
    from .player import Player, PlayerConfig
    from .records import records_folder_problem
    from .server import DEFAULT_MAX_BODY, start_server

    try:
        search_options = _search_options(args.search_options)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    config = PlayerConfig(
        name=args.name, search=args.search or PLAYER_KINDS[args.player], engine=args.engine,
        search_options=search_options,
        max_matches=args.max_matches, safety_margin=args.margin, think_time=args.think_time,
        record_dir=args.records, ponder=args.ponder,
        memory_cap=None if args.memory is None else int(float(args.memory) * 2**20),
    )

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
            from .warmup import warm_up

            # A daemon thread, not the loop's executor: a SIGTERM during a cold
            # compile (a minute) must not wait for it to finish.
            threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
        for signal_number in (signal.SIGINT, signal.SIGTERM):  # docker stop, Ctrl-C: abort and record
            loop.add_signal_handler(signal_number, stopping.set)
        try:
            await stopping.wait()
        finally:
            await server.stop()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    except OSError as error:
        print(f"error: cannot listen on {args.host}:{args.port}: {error.strerror}", file=sys.stderr)
        return 2
    return 0


def run_warmup(args) -> int:
    from .numba_cache import cache_description
    from .warmup import warm_up

    steps = warm_up()
    for step in steps:
        detail = f": {step.detail}" if step.detail else ""
        print(f"{step.part}: {step.status} ({step.seconds:.2f} s){detail}")
    print(f"numba: {sum(step.compiled for step in steps)} functions compiled, the others loaded from the cache")
    print(f"numba cache: {cache_description()}")
    return 1 if any(step.status == "failed" for step in steps) else 0


def run_ping(args) -> int:
    import urllib.error
    import urllib.request

    from .protocol import ProtocolError, parse_info_reply

    url = f"http://{args.address}/"
    request = urllib.request.Request(url, data=b"(info)", headers={"Content-Type": "text/acl"})
    try:
        with urllib.request.urlopen(request, timeout=args.timeout) as response:
            text = response.read(4096).decode("utf-8", errors="replace").strip()
    except (urllib.error.URLError, OSError) as error:
        print(f"error: no reply from {args.address}: {getattr(error, 'reason', error)}", file=sys.stderr)
        return 1
    print(text)
    try:
        fields = parse_info_reply(text)
    except ProtocolError as error:
        print(f"error: not an INFO reply: {error}", file=sys.stderr)
        return 1
    return 0 if fields.get("status") in ("available", "busy") else 1


def run_match(args) -> int:
    from .controller import format_result
    from .lineup import parse_player_spec, play_match

    try:
        seats = [parse_player_spec(text) for text in args.player]
        game = load_game(args.game)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot read {args.game}: {error.strerror}", file=sys.stderr)
        return 2
    except GdlError as error:
        print(f"error: {args.game}: {error}", file=sys.stderr)
        return 2
    if len(seats) != len(game.roles):
        print(f"error: {args.game.name} has {len(game.roles)} roles "
              f"({' '.join(map(str, game.roles))}); give one --player per role", file=sys.stderr)
        return 2
    try:
        record = asyncio.run(play_match(
            game, seats, args.startclock, args.playclock, match_id=args.match_id,
            game_name=args.game.stem, record_dir=args.records, seed=args.seed, engine=args.engine,
        ))
    except ReasonerError as error:
        print(f"error: the {args.engine} engine failed on {args.game}: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(record.to_json(), indent=1))
    print(format_result(record))
    return 0 if record.is_completed else 1


def run_tournament(args) -> int:
    from .lineup import parse_player_spec
    from .tournament import format_summary, progress_bar, run_tournament as run

    try:
        for text in args.players:
            parse_player_spec(text)
        roles = len(load_game(args.game).roles)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (OSError, GdlError) as error:
        print(f"error: {args.game}: {error}", file=sys.stderr)
        return 2
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    if len(args.players) < 2 and roles > 1:
        print("error: a tournament needs at least two players", file=sys.stderr)
        return 2
    out = args.out or Path("results") / f"tournament-{args.game.stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    result = run(
        args.game, args.players, args.games, args.startclock, args.playclock, out,
        workers=args.workers, cluster=args.cluster, seed=args.seed, engine=args.engine,
        progress=None if args.no_progress else progress_bar(),
    )
    print(format_summary(result))
    return 0 if not result.failures else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
