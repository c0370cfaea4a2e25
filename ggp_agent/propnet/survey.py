"""Which games get a propnet within a budget, and how long each build takes.

Why: the agent gives the propnet a share of the start clock and falls back to
Prolog past it; this survey says for which games that happens, why, and what
the build costs (wall and CPU seconds: on a loaded machine the wall clock says
more about the neighbours than about us). Run:

    python -m ggp_agent.propnet.survey                      # the corpus, 10 s budget
    python -m ggp_agent.propnet.survey --budget 10 --json out.jsonl GAME.kif ...

It prints a Markdown table of the games that fall back (and, with --all, of
every game) and a summary line.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Optional

from ..gdl import GdlError, load_game
from .machine import PropnetStateMachine, PropnetUnavailable, warm_up

#: ../shared next to the repository (GGP_SHARED overrides, as for the tests)
DEFAULT_CORPUS = Path(os.environ.get("GGP_SHARED", Path(__file__).resolve().parents[3] / "shared")) / "gdl-corpus" / "games"


def survey_game(path: Path, budget: float) -> dict:
    """Build one game's propnet within `budget` seconds; what happened."""
    row: dict = {"game": path.stem}
    try:
        game = load_game(path)
    except GdlError as error:
        return dict(row, built=False, wall_s=0.0, cpu_s=0.0, reason=f"invalid GDL: {error}")
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        machine = PropnetStateMachine(game, time_limit=budget)
    except PropnetUnavailable as error:
        return dict(row, built=False, wall_s=round(time.perf_counter() - wall, 2),
                    cpu_s=round(time.process_time() - cpu, 2), reason=error.reason)
    row.update(
        built=True,
        wall_s=round(time.perf_counter() - wall, 2),
        cpu_s=round(time.process_time() - cpu, 2),
        mode=machine.stats["mode"],
        propositions=machine.stats["propositions"],
        gates=machine.stats["gates"],
        edges=machine.stats["edges"],
        grounding_s=machine.stats["grounding_s"],
    )
    return row


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ggp_agent.propnet.survey", description=__doc__.split("\n")[0])
    parser.add_argument("games", nargs="*", type=Path, help="KIF files (default: every corpus game)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per build (default 10)")
    parser.add_argument("--json", type=Path, help="also write one JSON object per game here")
    parser.add_argument("--all", action="store_true", help="list every game, not only those that fall back")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    paths = args.games or sorted(args.corpus.glob("*.kif"))
    if not paths:
        print(f"no games found (corpus {args.corpus})", file=sys.stderr)
        return 2
    warm_up()
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
                                        if row["built"] else f"falls back after {row['wall_s']} s: {row['reason']}"),
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
                  else row["reason"].replace("|", "/")[:160])
        print(f"| {row['game']} | {'propnet' if row['built'] else 'Prolog'} | {row['wall_s']} | {row['cpu_s']} | {detail} |")
    print(f"\n{len(built)} of {len(rows)} games ({100 * len(built) / len(rows):.0f}%) get a propnet within "
          f"{args.budget:g} s; median build {sorted(r['wall_s'] for r in built)[len(built) // 2] if built else 0} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
