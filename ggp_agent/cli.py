"""`ggp-agent`: the command line (serve, match, tournament, ...).

Each subcommand is a thin wrapper: parse arguments, call the library, print.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from .engines import ENGINES
from .gdl import GdlError, load_game
from .player import PLAYER_KINDS
from .reasoner.statemachine import ReasonerError
from .searchers import SEARCH_RULES


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="ggp-agent", description="A General Game Playing agent.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at debug level")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings and errors only")
    commands = parser.add_subparsers(dest="command", required=True)

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
    tournament.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
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
        try:
            await asyncio.Event().wait()
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
