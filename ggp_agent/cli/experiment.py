"""The `experiment` subcommand: the MCPS paper's experiment (MCPS against GRAVE) in one command."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..engines import ENGINES
from .errors import CommandError

#: The experiments `ggp-agent experiment` knows.
EXPERIMENTS = ("mcps-vs-grave",)


def register(commands: argparse._SubParsersAction) -> None:
    experiment = commands.add_parser(
        "experiment", help="the MCPS paper's experiment: MCPS against GRAVE, its tables beside ours",
        description="Play MCPS against GRAVE in every cell (game, board size, seconds per move), seats "
                    "alternated, equal time per move, no pondering, rho and window as in the paper; append "
                    "each finished match to its cell's file under --out (a rerun continues where the last "
                    "stopped), then write summary.json and tables.md (the paper's figure beside ours).",
    )
    experiment.add_argument("name", choices=EXPERIMENTS)
    experiment.add_argument("--games", default="hex,go,atarigo,nogo,wargame",
                            help="comma-separated; GAME at size N is LIBRARY/GAME_NxN.kif (a missing file is "
                                 "reported and skipped)")
    experiment.add_argument("--sizes", default="5,7,9", help="board sizes, comma-separated")
    experiment.add_argument("--budgets", default="0.25,0.5,1,2", help="seconds per move, comma-separated")
    experiment.add_argument("--matches", type=int, default=800, help="matches per cell (the paper: 800)")
    experiment.add_argument("--library", type=Path, default=Path("gdl_games"), help="directory of the games")
    experiment.add_argument("--out", type=Path, default=Path("results/mcps-vs-grave"),
                            help="results directory (a rerun with the same one resumes)")
    experiment.add_argument("--workers", type=int, default=None, help="local worker processes (default: one per core)")
    experiment.add_argument("--cluster", default=None, metavar="ADDRESS",
                            help="run on a Dask cluster, e.g. tcp://127.0.0.1:8786")
    experiment.add_argument("--rho", type=int, default=None, help="reference threshold (default: the paper's 30)")
    experiment.add_argument("--window", type=int, default=None,
                            help="MCPS's permutation window in playouts (default: the paper's 10000)")
    experiment.add_argument("--search-option", action="append", default=[], metavar="KEY=VALUE",
                            help="a search constant for both players, e.g. codes=effects (repeatable)")
    experiment.add_argument("--startclock", type=float, default=10.0)
    experiment.add_argument("--engine", default="prolog", choices=sorted(ENGINES), help="the controller's reasoner")
    experiment.add_argument("--seed", type=int, default=0)
    experiment.add_argument("--report-only", action="store_true",
                            help="play nothing: write the tables from the matches finished so far "
                                 "(safe while a run is going on)")
    experiment.add_argument("--no-progress", action="store_true")
    experiment.set_defaults(run=run_experiment)


def _listed(text: str, read, what: str) -> tuple:
    try:
        values = tuple(read(item.strip()) for item in text.split(",") if item.strip())
    except ValueError:
        raise CommandError(f"--{what}: {text!r} is not a comma-separated list of numbers") from None
    if not values:
        raise CommandError(f"--{what} is empty")
    return values


def _plan(args):
    from ..referee.experiment import PAPER_RHO, PAPER_WINDOW, ExperimentPlan

    sizes = _listed(args.sizes, int, "sizes")
    budgets = _listed(args.budgets, float, "budgets")
    if any(size < 2 for size in sizes) or any(not budget > 0 for budget in budgets):
        raise CommandError("sizes must be at least 2 and budgets positive")
    if args.matches < 1:
        raise CommandError("--matches must be at least 1")
    plan = ExperimentPlan(
        games=_listed(args.games, str, "games"), sizes=sizes, budgets=budgets, matches=args.matches,
        library=args.library, start_clock=args.startclock,
        rho=PAPER_RHO if args.rho is None else args.rho,
        window=PAPER_WINDOW if args.window is None else args.window,
        search_options=tuple(args.search_option), engine=args.engine, seed=args.seed,
    )
    try:
        plan.player_specs(budgets[0])
    except ValueError as error:
        raise CommandError(str(error)) from None
    return plan


def run_experiment(args) -> int:
    from ..referee.experiment import ExperimentError, format_result, progress_bar, run_experiment as run

    plan = _plan(args)
    try:
        result = run(plan, args.out, workers=args.workers, cluster=args.cluster,
                     progress=None if args.no_progress else progress_bar(), play=not args.report_only)
    except ExperimentError as error:
        raise CommandError(str(error), 1) from None
    print(format_result(result))
    return 0 if not result.failures else 1
