"""What each root change kept of the search, and the same added up over turns.

Why: the thinking a search did before the opponent moved (on our clock below
the opponent's node, on the opponent's clock when pondering) serves only if
the reply it plays is in the tree with a subtree of some weight, and a root
change that holds the search up on our clock spends our thinking time. Each
root change says (`RootChange`):

- how the new root was found: by the joint move's child, by the state's hash
  (a transposition), or not at all (a new node);
- `kept`: the share of the old root's visits the new root holds;
- whether another role chose at the old root (the opponent's reply), and
  then the rank of the move it played among its moves there by visits
  (1: our most visited guess) and how many it had;
- `seconds`: from the root change's call until the search could search the
  new root, a collection made before its first batch included, and whether
  our role chooses at the new root (the time was then on our clock).

A turn's figures (`turn_figures`, in `Search.stats()`) are the root changes
since our previous answer; `reuse_summary` adds up any number of turns (a
match's record, a tournament seat, a self-play bench) with one rule.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Iterable, Optional

#: How the new root was found (`root_change.node_after`).
FOUND_BY_MOVE = "joint move"
FOUND_BY_STATE = "state"
FOUND_NEW = "new"

#: A reply "kept" in the summaries when its subtree held at least this share
#: of the old root's visits (issue 50's bar).
KEPT_FROM = 0.001
#: A reply "foreseen" when it was among this many most visited replies.
FORESEEN_RANK = 3


@dataclass
class RootChange:
    """One root change (see the module docstring)."""

    found: str
    kept: Optional[float]
    reply: bool
    rank: Optional[int]
    replies: int
    seconds: float
    our_turn: bool

    def to_json(self) -> dict:
        figures = asdict(self)
        figures["seconds"] = round(self.seconds, 4)
        return figures


def turn_figures(changes: list[RootChange]) -> dict:
    """The figures of one turn from its root changes (the changes since our
    previous answer): every reply as a list, and the last reply and the last
    root change as flat figures for a line of text."""
    replies = [change for change in changes if change.reply]
    figures: dict = {"replies": [{"found": c.found != FOUND_NEW, "kept": c.kept, "rank": c.rank,
                                  "moves": c.replies} for c in replies]}
    if replies:
        last = replies[-1]
        figures.update(reply_found=last.found != FOUND_NEW, reply_kept=last.kept, reply_rank=last.rank,
                       reply_moves=last.replies)
    if changes:
        figures["root_change_s"] = round(changes[-1].seconds, 4)
        figures["root_change_on_our_clock"] = changes[-1].our_turn
    return figures


def reuse_summary(turns: Iterable[dict]) -> dict:
    """Tree reuse over turns (each a `Search.stats()` as a turn's record keeps
    it): the opponents' replies met, the share found in the tree, kept with
    at least KEPT_FROM of the visits, among our FORESEEN_RANK most visited
    replies, the mean share kept; and the root changes on our clock (their
    95th percentile and the longest, in seconds)."""
    replies: list[dict] = []
    clock: list[float] = []
    for stats in turns:
        if not isinstance(stats, dict):
            continue
        replies.extend(r for r in stats.get("replies") or () if isinstance(r, dict))
        if stats.get("root_change_on_our_clock") and stats.get("root_change_s") is not None:
            clock.append(float(stats["root_change_s"]))
    count = len(replies)
    kept = [float(r["kept"]) if r.get("kept") is not None else 0.0 for r in replies]
    return {
        "replies": count,
        "found": _share(sum(1 for r in replies if r.get("found")), count),
        "kept_from_0.001": _share(sum(1 for k in kept if k >= KEPT_FROM), count),
        "top3": _share(sum(1 for r in replies if r.get("rank") is not None and r["rank"] <= FORESEEN_RANK), count),
        "kept_mean": round(sum(kept) / count, 4) if count else None,
        "root_changes_on_our_clock": len(clock),
        "root_change_p95_s": round(percentile(clock, 95), 4) if clock else None,
        "root_change_max_s": round(max(clock), 4) if clock else None,
    }


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile by the nearest rank (no interpolation: a figure one
    root change actually took).

    >>> percentile([0.01, 0.02, 0.03, 0.5], 95), percentile([1.0], 50)
    (0.5, 1.0)
    """
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return ordered[rank - 1]


def _share(part: int, whole: int) -> Optional[float]:
    return round(part / whole, 4) if whole else None


class TurnChanges:
    """A search's root changes since our last answer, and those of the turn
    it last answered (what a turn's record and the status page show)."""

    def __init__(self) -> None:
        self.pending: list[RootChange] = []
        self.answered_turn: list[RootChange] = []

    @property
    def last(self) -> Optional[RootChange]:
        """The latest root change (None before the first)."""
        return self.pending[-1] if self.pending else (self.answered_turn[-1] if self.answered_turn else None)

    def add(self, change: RootChange) -> None:
        self.pending.append(change)

    def answered(self) -> None:
        """Our move is taken: the changes since the last answer are its turn's
        (a second call with no change between keeps them: root parallelism
        answers for every tree, and a tree may answer again as the fallback)."""
        if self.pending:
            self.answered_turn, self.pending = self.pending, []

    def figures(self) -> dict:
        """`turn_figures` of the turn in progress, else of the last answered one."""
        return turn_figures(self.pending or self.answered_turn)
