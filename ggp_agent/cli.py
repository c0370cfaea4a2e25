"""`ggp-agent`: the command line (serve, check, bench, replay, ...).

Each subcommand is a thin wrapper: parse arguments, call the library, print.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from .engines import ENGINES, make_state_machine
from .gdl import GdlError, load_game
from .reasoner.statemachine import ReasonerError


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="ggp-agent", description="A General Game Playing agent.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at debug level")
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
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=9147)
    serve.add_argument("--name", default="ggp-agent")
    serve.set_defaults(run=run_serve)

    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
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
    """Until the protocol server lands: a server that answers (info) only."""
    from aiohttp import web

    async def handle(request: web.Request) -> web.Response:
        body = (await request.text()).strip().lower()
        if body.replace(" ", "") == "(info)":
            return web.Response(text=f"((name {args.name}) (status available))", content_type="text/acl")
        return web.Response(status=400, text="only (info) is served yet")

    app = web.Application()
    app.router.add_post("/", handle)
    web.run_app(app, host=args.host, port=args.port)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
