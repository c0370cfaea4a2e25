"""Subcommands that look at a game: check, bench, replay, survey."""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from pathlib import Path

from ..engines import ENGINES, make_state_machine
from ..gdl import Dialect
from ..reasoner.percepts import random_match_percept_counts
from ..reasoner.statemachine import ReasonerError
from .errors import CommandError, read_game


def register(commands: argparse._SubParsersAction) -> None:
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
    bench.add_argument("--codes", default="auto", metavar="CODINGS",
                       help="with --search: the codings to bench side by side, e.g. moves,effects,auto")
    bench.add_argument("--budgets", default=None, metavar="SECONDS",
                       help="with --search: self-play at these seconds per move, e.g. 0.25,1 "
                            "(iterations/s, playout length, new-leaf depth per move, as the MCPS appendix)")
    bench.add_argument("--games", type=int, default=2, help="self-play games per rule and budget")
    bench.add_argument("--threads", default=None, metavar="COUNTS",
                       help="with --search: also search as a player does at these thread counts, e.g. 1,2, "
                            "between two measurements of the propnet's lanes and change propagation")
    bench.add_argument("--single-leaf", action="store_true",
                       help="with --threads: also each rule one leaf at a time on one thread (batch=1)")
    bench.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="with --search: a search setting for every rule, e.g. leaf_playouts=8 (repeatable)")
    bench.set_defaults(run=run_bench)

    replay = commands.add_parser("replay", help="replay an oracle trace and compare every step")
    replay.add_argument("game", type=Path)
    replay.add_argument("trace", type=Path)
    replay.add_argument("--engine", default="prolog", choices=sorted(ENGINES))
    replay.add_argument("--max-walks", type=int, default=None)
    replay.add_argument("--time-limit", type=float, default=None, help="seconds per query (prolog engine)")
    replay.set_defaults(run=run_replay)

    survey = commands.add_parser("survey", help="which games get a propnet within a budget, and how fast")
    survey.add_argument("games", nargs="*", type=Path, help="KIF files")
    survey.add_argument("--corpus", type=Path, default=None, help="also every *.kif in this folder")
    survey.add_argument("--budget", type=float, default=10.0, help="seconds per build (default 10)")
    survey.add_argument("--json", type=Path, help="also write one JSON object per game here")
    survey.add_argument("--all", action="store_true", help="list every game, not only those that fall back")
    survey.set_defaults(run=run_survey)


def run_check(args) -> int:
    game = read_game(args.game, invalid_exit=1)
    for warning in game.warnings:
        print(f"warning: {warning}")
    try:
        with make_state_machine(args.engine, game) as machine:
            print(f"roles: {' '.join(map(str, machine.roles))}")
            print(f"dialect: {_dialect_text(game)}")
            state = machine.initial_state()
            print(f"initial state: {len(state)} fluents")
            for index, role in enumerate(machine.roles):
                moves = machine.legal_moves(state, index)
                shown = " ".join(map(str, moves[:8])) + (" ..." if len(moves) > 8 else "")
                print(f"legal moves of {role}: {len(moves)}: {shown}")
            stuck = [role for i, role in enumerate(machine.roles) if not machine.legal_moves(state, i)]
            if stuck and not machine.is_terminal(state):
                print(f"error: role {stuck[0]} has no legal move in the initial state (a broken game)",
                      file=sys.stderr)
                return 1
            goals, steps, terminal = machine.random_playout(state, seed=args.seed)
            ending = "terminal" if terminal else "cut at the step limit"
            print(f"random match: {steps} joint moves, {ending}, goals: {' '.join(map(str, goals))}")
            if game.dialect is Dialect.GDL_II:
                counts = random_match_percept_counts(machine, state, random.Random(args.seed))
                shown = ", ".join(f"{role} {count}" for role, count in zip(machine.roles, counts))
                print(f"percepts in a random match: {shown}")
    except ReasonerError as error:
        raise CommandError(f"{args.game}: {error}", 1) from None
    return 0


def _dialect_text(game) -> str:
    chance = [] if game.random_role is None else [f"chance role {game.roles[game.random_role]}"]
    sees = ["sees rules" if game.has_sees else "no sees rules: no role perceives anything"]
    return "GDL" if game.dialect is Dialect.GDL else f"{game.dialect.value} ({'; '.join(chance + sees)})"


def run_bench(args) -> int:
    game = read_game(args.game)
    # Loaded (or, after a source edit, compiled) before the clock starts: the
    # build figure is the game's own, not numba's once-per-install work.
    from ..search.warmup import ensure_warm
    ensure_warm()
    started = time.perf_counter()
    with make_state_machine(args.engine, game) as machine:
        build_s = time.perf_counter() - started
        report = {"engine": args.engine, "engine_used": machine.engine_name, "game": args.game.stem,
                  "build_s": round(build_s, 3)}
        report.update(machine.bench(args.seconds))
    used = "" if report["engine_used"] == args.engine else f" ({report['engine_used']})"
    print(f"{report['game']} on {report['engine']}{used}: {report['playouts_per_s']:.1f} playouts/s, "
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
    from ..search.bench import bench_opening, bench_selfplay, bench_threads
    from ..search.registry import checked_options
    from ..search.tree.params import RULES
    from ..search.warmup import ensure_warm

    rules = [rule.strip() for rule in args.search.split(",") if rule.strip()]
    unknown = [rule for rule in rules if rule not in RULES]
    if unknown:
        raise SystemExit(f"error: unknown search rule(s) {', '.join(unknown)}; known: {', '.join(RULES)}")
    try:
        options = dict(checked_options(args.option))
    except ValueError as error:
        raise SystemExit(f"error: --option: {error}") from None
    ensure_warm()
    with make_state_machine(args.engine, game) as machine:
        if args.threads:
            counts = [int(count) for count in args.threads.split(",") if count.strip()]
            found = {"threads": bench_threads(machine, rules, counts, args.seconds, single_leaf=args.single_leaf,
                                              options=options)}
            rates = found["threads"]["propnet_playouts_per_s"]
            if rates:
                print(f"  propnet in the same run: {rates['lanes']:.0f} random playouts/s on 256 lanes, "
                      f"{rates['propagate']:.0f} by change propagation (CPU time)")
            for row in found["threads"]["searches"]:
                label = f"{row['rule']:>5} threads={row['threads']}" + (" batch=1" if row["batch"] == 1 else "")
                ratios = "".join(
                    f", {row[key]:.2f}x {name}" for key, name in (("per_cpu_s_to_lanes", "the lanes (per CPU s)"),
                                                                  ("wall_to_one_thread", "one thread (wall)"))
                    if key in row)
                print(f"  {label}: {row['iterations_per_s']:.0f} iterations/s ({row['iterations_per_cpu_s']:.0f} "
                      f"per CPU s, {row['cores_used']:.2f} cores used), playout {row['mean_playout']} moves, "
                      f"new leaves at depth {row['mean_leaf_depth']}{ratios}")
            return found
        codes = [coding.strip() for coding in args.codes.split(",") if coding.strip()]
        found = {"opening": bench_opening(machine, rules, args.seconds, repeats=args.repeats, codes=codes,
                                          options=options)}
        for row in found["opening"]:
            print(f"  {row['rule']:>5} from the opening, {row['codes']}, {row['priors']} priors: "
                  f"{row['iterations_per_s']:.0f} iterations/s "
                  f"(per search {', '.join(f'{r:.0f}' for r in row['rates'])}), playout {row['mean_playout']} "
                  f"moves, new leaves at depth {row['mean_leaf_depth']}, {row['iterations_per_leaf']} iterations "
                  f"per new leaf, {row['max_nodes']} nodes")
        if args.budgets:
            found["selfplay"] = []
            for budget in (float(b) for b in args.budgets.split(",")):
                for row in bench_selfplay(machine, rules, budget, games=args.games, options=options):
                    found["selfplay"].append(row)
                    reuse = row["tree_reuse"]
                    print(f"  {row['rule']:>5} self-play at {budget:g} s/move over {row['moves']} moves: "
                          f"{row['iterations_per_s']:.0f} iterations/s, playout {row['mean_playout']} moves, "
                          f"new leaves at depth {row['mean_leaf_depth']}; {reuse['replies']} replies, found "
                          f"{reuse['found']}, kept >= 0.001 {reuse['kept_from_0.001']}, among the top 3 "
                          f"{reuse['top3']}, mean kept {reuse['kept_mean']}, root change p95 "
                          f"{reuse['root_change_p95_s']} s")
    return found


def run_replay(args) -> int:
    from ..reasoner.replay import replay

    game = read_game(args.game)
    options = {"query_time_limit": args.time_limit} if args.time_limit else {}
    try:
        machine = make_state_machine(args.engine, game, **options)
    except ReasonerError as error:
        raise CommandError(f"the {args.engine} engine failed on {args.game}: {error}") from None
    with machine:
        result = replay(machine, args.trace, args.max_walks)
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


def run_survey(args) -> int:
    from ..propnet.survey import survey_game
    from ..search.warmup import ensure_warm

    paths = list(args.games) + (sorted(args.corpus.glob("*.kif")) if args.corpus else [])
    if not paths:
        raise CommandError("name the games (KIF files) or a --corpus folder")
    ensure_warm()  # the kernels loaded, so that no build pays for a compilation
    rows = []
    out = open(args.json, "w", encoding="utf-8") if args.json else None
    try:
        for path in paths:
            row = survey_game(path, args.budget)
            rows.append(row)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()
            print(f"{row['game']}: " + (f"built in {row['wall_s']} s ({row['cpu_s']} s CPU), {row['gates']} gates"
                                        if row["built"] else f"falls back after {row['wall_s']} s: {row['reason']}"
                                        + (f"; the lazy engine built in {row['lazy_s']} s" if row.get("lazy") else
                                           f"; no lazy engine: {row.get('lazy_reason')}")),
                  file=sys.stderr, flush=True)
            gc.collect()
    finally:
        if out:
            out.close()
    built = [r for r in rows if r["built"]]
    print("| game | result | wall s | CPU s | size or reason |")
    print("|---|---|---|---|---|")
    for row in rows:
        if row["built"] and not args.all:
            continue
        detail = (f"{row['propositions']} propositions, {row['gates']} gates" if row["built"]
                  else row["reason"].replace("|", "/")[:160]
                  + (f"; lazy engine in {row['lazy_s']} s" if row.get("lazy") else ""))
        result = "propnet" if row["built"] else "lazy" if row.get("lazy") else "Prolog"
        print(f"| {row['game']} | {result} | {row['wall_s']} | {row['cpu_s']} | {detail} |")
    median = sorted(r["wall_s"] for r in built)[len(built) // 2] if built else 0
    lazy = [r for r in rows if not r["built"] and r.get("lazy")]
    print(f"\n{len(built)} of {len(rows)} games ({100 * len(built) / len(rows):.0f}%) get a propnet within "
          f"{args.budget:g} s; median build {median} s; {len(lazy)} more get the lazy engine")
    return 0
