"""`ggp-agent`: the command line (serve, match, tournament, check, bench, replay).

Each subcommand is a thin wrapper: parse arguments, call the library, print.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from .engines import ENGINES, make_state_machine
from .gdl import GdlError, load_game
from .player import PLAYER_KINDS
from .reasoner.statemachine import ReasonerError
from .searchers import SEARCH_RULES


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="ggp-agent", description="A General Game Playing agent.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at debug level")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings and errors only")
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
    bench.set_defaults(run=run_bench)

    replay = commands.add_parser("replay", help="replay an oracle trace and compare every step")
    replay.add_argument("game", type=Path)
    replay.add_argument("trace", type=Path)
    replay.add_argument("--engine", default="prolog", choices=sorted(ENGINES))
    replay.add_argument("--max-walks", type=int, default=None)
    replay.add_argument("--time-limit", type=float, default=None, help="seconds per query (prolog engine)")
    replay.set_defaults(run=run_replay)

    serve = commands.add_parser("serve", help="serve the GGP protocol over HTTP")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1; 0.0.0.0 for a public match server)")
    serve.add_argument("--port", type=int, default=9147, help="port (default 9147; 0 picks a free one)")
    serve.add_argument("--name", default="ggp-agent", help="the name INFO reports")
    serve.add_argument("--player", default="agent", choices=sorted(PLAYER_KINDS),
                       help="agent (searches), random or legal (ggp-base's baselines)")
    serve.add_argument("--search", choices=SEARCH_RULES, help="search rule (overrides --player's)")
    serve.add_argument("--engine", default="prolog", choices=sorted(ENGINES))
    serve.add_argument("--max-matches", type=int, default=1, help="concurrent matches before START gets busy")
    serve.add_argument("--margin", type=float, default=0.5, help="seconds kept back from every clock")
    serve.add_argument("--think-time", type=float, default=None, help="cap on thinking per move, seconds")
    serve.add_argument("--records", type=Path, default=None, help="write the player's match records here")
    serve.add_argument("--max-body", type=int, default=None, help="largest message in bytes (default 4 MiB)")
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

    args = parser.parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.WARNING if args.quiet else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
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
    if args.json:
        print(json.dumps(report))
    return 0


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


def run_serve(args) -> int:
    from .player import Player, PlayerConfig
    from .server import DEFAULT_MAX_BODY, start_server

    config = PlayerConfig(
        name=args.name, search=args.search or PLAYER_KINDS[args.player], engine=args.engine,
        max_matches=args.max_matches, safety_margin=args.margin, think_time=args.think_time,
        record_dir=args.records,
    )

    async def serve() -> None:
        server = await start_server(Player(config), args.host, args.port, args.max_body or DEFAULT_MAX_BODY)
        # The first line on stdout is the address, for scripts that asked for port 0.
        print(f"serving {config.name} on http://{server.address}/", flush=True)
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
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
    from .tournament import ProgressBar, format_summary, run_tournament as run

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
        progress=None if args.no_progress else ProgressBar(),
    )
    print(format_summary(result))
    return 0 if not result.failures else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
