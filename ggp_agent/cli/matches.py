"""Subcommands that referee matches: match (one, over HTTP), tournament (many,
in parallel) and soak (many, back to back, against one `serve` process)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Optional

from ..engines import ENGINES
from ..reasoner.statemachine import ReasonerError
from .errors import CommandError, read_game


def register(commands: argparse._SubParsersAction) -> None:
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
    match.add_argument("--max-turns", type=int, default=None, metavar="N",
                       help="abort the match if it has not ended after N turns (a game that never ends)")
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
    tournament.add_argument("--max-turns", type=int, default=None, metavar="N",
                            help="abort a match that has not ended after N turns; it scores for nobody")
    tournament.add_argument("--grace", type=float, default=None, metavar="S",
                            help="seconds past a clock a reply is still taken (default 1, as ggp-base's server; "
                                 "Tiltyard waits 5)")
    tournament.add_argument("--no-progress", action="store_true")
    tournament.add_argument("--resume", action="store_true",
                            help="go on with the tournament in --out: matches with a record there are not played again")
    tournament.set_defaults(run=run_tournament)

    soak = commands.add_parser("soak", help="many matches back to back against one `ggp-agent serve` process: "
                                            "memory, errors, records")
    soak.add_argument("--matches", type=int, default=500)
    soak.add_argument("--games", default=None, metavar="KIF,KIF",
                      help="games played in turn (default: five of ./gdl_games, boards of every kind)")
    soak.add_argument("--opponent", default="random:engine=prolog", metavar="SPEC",
                      help="the in-process player the agent meets (random or legal)")
    soak.add_argument("--startclock", type=float, default=5.0)
    soak.add_argument("--playclock", type=float, default=1.0)
    soak.add_argument("--abandon-every", type=int, default=25, metavar="N",
                      help="walk away from every Nth match after 3 turns, with no STOP (0: never)")
    soak.add_argument("--report-every", type=int, default=50, metavar="N")
    soak.add_argument("--no-scramble", dest="scramble", action="store_false",
                      help="send the games under their own names (by default every match is renamed, as Tiltyard does)")
    soak.add_argument("--seed", type=int, default=1)
    soak.add_argument("--out", type=Path, default=None, help="output folder (soak.json, serve.log, records/)")
    soak.add_argument("--serve-arg", dest="serve_args", action="append", default=[], metavar="ARG",
                      help="an argument for the agent's `serve` (repeatable), e.g. --serve-arg=--threads=1")
    soak.set_defaults(run=run_soak, uses_numba=False)


def _seats(texts: list[str]) -> list:
    """Every player spec read, or a CommandError naming the bad one."""
    from ..referee.lineup import parse_player_spec

    try:
        return [parse_player_spec(text) for text in texts]
    except ValueError as error:
        raise CommandError(str(error)) from None


def _check_max_turns(max_turns: Optional[int]) -> None:
    if max_turns is not None and max_turns < 1:
        raise CommandError(f"--max-turns must be at least 1 (got {max_turns})")


def run_match(args) -> int:
    from ..referee.controller import format_result
    from ..referee.lineup import play_match

    seats = _seats(args.player)
    _check_max_turns(args.max_turns)
    game = read_game(args.game)
    if len(seats) != len(game.player_roles):
        roles = " ".join(str(game.roles[r]) for r in game.player_roles)
        raise CommandError(f"{args.game.name} has {len(game.player_roles)} player roles ({roles}); "
                           "give one --player per role (the controller plays random)")
    try:
        record = asyncio.run(play_match(
            game, seats, args.startclock, args.playclock, match_id=args.match_id,
            game_name=args.game.stem, record_dir=args.records, seed=args.seed, engine=args.engine,
            max_turns=args.max_turns,
        ))
    except ReasonerError as error:
        raise CommandError(f"the {args.engine} engine failed on {args.game}: {error}", 1) from None
    if args.json:
        print(json.dumps(record.to_json(), indent=1))
    print(format_result(record))
    return 0 if record.is_completed else 1


def run_tournament(args) -> int:
    from ..referee.tournament import run_tournament as run
    from ..referee.tournament_view import format_summary, progress_bar

    _seats(args.players)
    roles = len(read_game(args.game).player_roles)
    if args.games < 1:
        raise CommandError("--games must be at least 1")
    if len(args.players) < 2 and roles > 1:
        raise CommandError("a tournament needs at least two players")
    _check_max_turns(args.max_turns)
    if args.grace is not None and not args.grace >= 0:
        raise CommandError(f"--grace must be a number of seconds, at least 0 (got {args.grace})")
    if args.resume and args.out is None:
        raise CommandError("--resume needs --out (the tournament's folder)")
    out = args.out or Path("results") / f"tournament-{args.game.stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    result = run(
        args.game, args.players, args.games, args.startclock, args.playclock, out,
        workers=args.workers, cluster=args.cluster, seed=args.seed, engine=args.engine,
        progress=None if args.no_progress else progress_bar(), resume=args.resume, max_turns=args.max_turns,
        grace=args.grace,
    )
    print(format_summary(result))
    return 0 if not result.failures else 1


def run_soak(args) -> int:
    from ..referee.soak import DEFAULT_GAMES, SoakPlan, run_soak as run, summary_lines

    if args.matches < 1 or args.report_every < 1 or args.abandon_every < 0:
        raise CommandError("--matches and --report-every must be at least 1, --abandon-every at least 0")
    if args.games:
        games = tuple(Path(text) for text in args.games.split(","))
    else:
        folder = Path("gdl_games")  # run from the repository, as `experiment` is
        games = tuple(folder / f"{name}.kif" for name in DEFAULT_GAMES)
    for path in games:
        read_game(path)  # a missing or broken game stops the soak before it starts
    out = args.out or Path("results") / f"soak-{time.strftime('%Y%m%d-%H%M%S')}"
    plan = SoakPlan(out=out, matches=args.matches, games=games, opponent=args.opponent,
                    start_clock=args.startclock, play_clock=args.playclock, abandon_every=args.abandon_every,
                    report_every=args.report_every, scramble=args.scramble, seed=args.seed,
                    serve_args=tuple(args.serve_args))
    # this process runs the controller and the opponent: their lines would bury the
    # soak's own (the agent's log is OUT/serve.log); the opponent's stalls are not the agent's
    if not args.verbose:
        logging.getLogger("ggp_agent").setLevel(logging.WARNING)
    logging.getLogger("ggp_agent.server.stall_watch").setLevel(logging.ERROR)
    print(f"soak: {plan.matches} matches against `ggp-agent serve`, output in {out}", flush=True)
    report = asyncio.run(run(plan, say=lambda line: print(line, flush=True)))
    for line in summary_lines(report):
        print(line)
    return 0 if report.clean else 1
