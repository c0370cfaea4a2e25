"""How a match scores and a player's results add up over a series: a seat's
score from the goals, each player's wins, draws, losses, errors and engines,
what an in-process player's search kept of its tree (`reuse_summary` over the
turns of its own records), and Wilson's interval on the winrate. The tournament and the paper's
experiment count with the same functions."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Sequence

from ..engines import serves
from ..search.driver.reuse import reuse_summary

#: z for a two-sided 95% interval.
_Z95 = 1.959963984540054


@dataclass
class PlayerSummary:
    """One player's results over the tournament."""

    label: str
    matches: int = 0
    score: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    goal_total: float = 0.0
    errors: int = 0
    #: the engine an in-process player was configured with (None: at an address)
    asked_engine: Optional[str] = None
    #: finished matches played on each engine (in-process players only)
    engines: dict[str, int] = field(default_factory=dict)
    #: the search's figures of each turn of its own records (in-process players only)
    turn_stats: list = field(default_factory=list)

    def other_engines(self) -> dict[str, int]:
        """Matches on an engine other than the one asked for ("auto" asks for a
        compiled engine and falls back to Prolog where none builds in time)."""
        if self.asked_engine is None:  # a remote player: its engine is its own
            return {}
        return {engine: count for engine, count in self.engines.items() if not serves(self.asked_engine, engine)}

    @property
    def winrate(self) -> float:
        return self.score / self.matches if self.matches else math.nan

    @property
    def mean_goal(self) -> float:
        return self.goal_total / self.matches if self.matches else math.nan

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.score, self.matches)

    def to_json(self) -> dict:
        low, high = self.interval()
        return {
            "player": self.label, "matches": self.matches, "wins": self.wins, "draws": self.draws,
            "losses": self.losses, "winrate": _round(self.winrate), "ci95": [_round(low), _round(high)],
            "meanGoal": _round(self.mean_goal), "errors": self.errors, "engines": dict(self.engines),
            **({"treeReuse": reuse_summary(self.turn_stats)} if self.turn_stats else {}),
        }


def wilson_interval(successes: float, trials: int, z: float = _Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (draws count as half a success).

    >>> [round(x, 3) for x in wilson_interval(10, 20)]
    [0.299, 0.701]
    """
    if trials <= 0:
        return (math.nan, math.nan)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def seat_scores(goals: Sequence[int]) -> list[float]:
    """Each seat's share of the match: beats = 1, ties = 1/2, over the other seats.

    >>> seat_scores([100, 0]), seat_scores([50, 50]), seat_scores([70])
    ([1.0, 0.0], [0.5, 0.5], [0.7])
    """
    if len(goals) == 1:
        return [goals[0] / 100]
    scores = []
    for i, mine in enumerate(goals):
        points = sum(1.0 if mine > other else 0.5 if mine == other else 0.0
                     for j, other in enumerate(goals) if j != i)
        scores.append(points / (len(goals) - 1))
    return scores


def tally(summaries: Sequence[PlayerSummary], seat_players: Sequence[int], goals: Sequence[int],
          errors: Sequence[int]) -> None:
    """Count one finished match in each player's summary (`seat_players[r]`: the
    player in seat r; a player in several seats scores their mean)."""
    scores = seat_scores(goals)
    for player, summary in enumerate(summaries):
        seats = [r for r, sitting in enumerate(seat_players) if sitting == player]
        if not seats:
            continue
        score = sum(scores[r] for r in seats) / len(seats)
        summary.matches += 1
        summary.score += score
        summary.goal_total += sum(goals[r] for r in seats) / len(seats)
        summary.errors += sum(errors[r] for r in seats)
        if score > 0.5:
            summary.wins += 1
        elif score < 0.5:
            summary.losses += 1
        else:
            summary.draws += 1


def count_engines(summaries: Sequence[PlayerSummary], seat_players: Sequence[int],
                  engines: Sequence[Optional[str]]) -> None:
    """Count one match's engine for each player that reported one (a player in
    several seats counts once per engine it used)."""
    for player, summary in enumerate(summaries):
        used = {engine for engine, sitting in zip(engines, seat_players) if sitting == player and engine}
        for engine in used:
            summary.engines[engine] = summary.engines.get(engine, 0) + 1


def _round(value: float) -> Optional[float]:
    return None if math.isnan(value) else round(value, 4)


__all__ = ["PlayerSummary", "count_engines", "seat_scores", "tally", "wilson_interval"]
