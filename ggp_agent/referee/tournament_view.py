"""What a person sees of a tournament: the progress bar while it runs and the
result table at the end (`ggp-agent tournament`, `ggp-agent experiment`)."""

from __future__ import annotations

import sys
from typing import Callable, Optional, TextIO

from .tournament import TournamentResult, short_label


def progress_bar(stream: TextIO = sys.stderr) -> Callable[[int, int, TournamentResult], None]:
    """A `progress` callback for `run_tournament`: tqdm's bar over the matches (made
    at the first call, the tournament's start), then the first player's winrate so
    far and its 95% interval."""
    from tqdm import tqdm

    bar: Optional[tqdm] = None

    def update(done: int, total: int, result: TournamentResult) -> None:
        nonlocal bar
        if bar is None:
            # A match takes seconds: show every one (tqdm's default skips updates 0.1 s apart).
            bar = tqdm(total=total, file=stream, unit="match", dynamic_ncols=True, mininterval=0, miniters=1)
        first = result.summaries[0] if result.summaries else None
        if first is not None and first.matches:
            low, high = first.interval()
            bar.set_postfix_str(f"{short_label(first.label, 20)} {first.winrate:.2f} [{low:.2f}, {high:.2f}]",
                                refresh=False)
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def format_summary(result: TournamentResult) -> str:
    """The result table a person reads at the end of `ggp-agent tournament`."""
    lines = [f"{result.game_name}: {result.games} matches on {result.backend} in {result.seconds:.1f} s"]
    for summary in result.summaries:
        low, high = summary.interval()
        lines.append(
            f"  {summary.label:<36} winrate {summary.winrate:.3f}  95% [{low:.3f}, {high:.3f}]  "
            f"W/D/L {summary.wins}/{summary.draws}/{summary.losses}  mean goal {summary.mean_goal:.1f}  "
            f"errors {summary.errors}"
        )
    lines.extend(reuse_lines(result))
    lines.extend(engine_warnings(result))
    aborted = [row for row in result.rows if row.get("aborted")]
    if aborted:
        lines.append(f"  {len(aborted)} match(es) aborted, scored for nobody: {aborted[0]['abortReason']}")
    if result.failures:
        lines.append(f"  {len(result.failures)} match(es) failed: {result.failures[0]['failure']}")
    for kind, path in result.files.items():
        lines.append(f"  {kind}: {path}")
    return "\n".join(lines)


def reuse_lines(result: TournamentResult) -> list[str]:
    """A line for each in-process player whose search met the opponents'
    replies: what its tree kept of them, and its root changes on its own clock
    (`search/driver/reuse.py`)."""
    lines = []
    for summary in result.summaries:
        reuse = summary.to_json().get("treeReuse")
        if not reuse or not reuse["replies"]:
            continue
        clock = (f"; root change on its clock p95 {reuse['root_change_p95_s']:.3f} s, max "
                 f"{reuse['root_change_max_s']:.3f} s" if reuse["root_change_p95_s"] is not None else "")
        lines.append(f"  {short_label(summary.label)}: {reuse['replies']} replies, found {reuse['found']:.3f}, "
                     f"kept >= 0.001 {reuse['kept_from_0.001']:.3f}, among its top 3 {reuse['top3']:.3f}, "
                     f"mean kept {reuse['kept_mean']:.3f}{clock}")
    return lines


def engine_warnings(result: TournamentResult) -> list[str]:
    """A line for each player that played matches on another engine than it
    asked for: an "auto" player falls back to Prolog where its propnet does not
    build within its share of the start clock, and those matches measure a
    player a hundred times slower."""
    lines = []
    for summary in result.summaries:
        other = summary.other_engines()
        if other:
            counts = ", ".join(f"{count} on {engine}" for engine, count in sorted(other.items()))
            lines.append(f"  warning: {summary.label} played {counts} of {summary.matches} matches, not on "
                         f"the engine it asked for ({summary.asked_engine}): give its propnet more time "
                         f"with a longer --startclock (now {result.start_clock:g} s)")
    return lines


__all__ = ["engine_warnings", "format_summary", "progress_bar", "reuse_lines"]
