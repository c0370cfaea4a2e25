"""Settings chosen at START by experiment: short games between the settings
the search would play with and each candidate that applies to the game.

What helps one game hurts another: a heuristic found in the rules, probes
at expansion (three times fewer iterations on AtariGo for what they buy),
playout policies. Measured head-to-head they settle it for the game at hand,
as Sancho settles its greedy rollouts and heuristics during meta-gaming. So
within the time the player gives (`trial_budget`, a share of the start
clock), the search plays quick games from the start of this game, the
settings it would use (the incumbent) against each candidate (`candidates`),
seats alternated, each side thinking the same short time per move
(`move_seconds`: about `GAMES_WANTED` games per candidate in its share of
the time), on as many threads as it has cores. A candidate replaces the
incumbent only where it wins beyond the noise: its score at least
0.5 + `MARGIN_SIGMAS` standard errors of a coin's (`beyond_noise`), over at
least `MIN_GAMES` games. Every trial and the choice are logged and kept in
the search's stats (the match record), with their margins.

The games are played by real searches of the same kind as the match's
(`make`), each on its own small arena, over the match's engine; they stop
when their share of the time is spent (a game in progress is finished at
most `overrun` later, else dropped).
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence

from ...reasoner.statemachine import State, StateMachine
from ..tree.params import SearchParams

log = logging.getLogger(__name__)

#: The share of the start clock trials may take, and the least worth starting.
TRIAL_SHARE = 0.3
MIN_TRIAL_SECONDS = 6.0
MAX_TRIAL_SECONDS = 60.0
#: Games a candidate should get in its share of the time; fewer cannot decide.
GAMES_WANTED = 16
MIN_GAMES = 8
#: A candidate wins beyond the noise at 0.5 + this many standard errors.
MARGIN_SIGMAS = 2.0
#: Bounds on the thinking time per move in a trial game, seconds.
MIN_MOVE_SECONDS = 0.03
MAX_MOVE_SECONDS = 0.25
#: Memory each trial search may hold, bytes.
TRIAL_MEMORY = 64 << 20


def trial_budget(start_clock: float, seconds_left: float) -> float:
    """Seconds the trials may take at a START of `start_clock` seconds with
    `seconds_left` before the START must be answered: a share of the clock,
    never more than what is left less a quarter of it (the search still
    needs to start), 0 when that is too short to decide anything.

    >>> trial_budget(60, 55), trial_budget(10, 9), trial_budget(240, 230)
    (18.0, 0.0, 60.0)
    """
    seconds = min(TRIAL_SHARE * start_clock, MAX_TRIAL_SECONDS, seconds_left - 0.25 * start_clock)
    return seconds if seconds >= MIN_TRIAL_SECONDS else 0.0


@dataclass(frozen=True)
class Candidate:
    """A change to the incumbent's settings (option names and values as a player spec gives them)."""

    name: str
    options: Mapping[str, object]


def candidates(params: SearchParams, heuristic_found: bool) -> list[Candidate]:
    """The candidates that apply to a search with `params` (its START choices
    made): the heuristic switched the other way where one was found, and
    MCPS's probes switched off."""
    found = []
    if heuristic_found:
        found.append(Candidate("heuristic off" if params.heuristic == "on" else "heuristic on",
                               {"heuristic": "off" if params.heuristic == "on" else "on"}))
    if params.rule == "mcps" and params.by_rule("probe"):
        found.append(Candidate("probes off", {"probe": False}))
    return found


def beyond_noise(points: float, games: int) -> bool:
    """Whether a score of `points` over `games` is beyond what a coin gives
    (MARGIN_SIGMAS standard errors above a half, at least MIN_GAMES games).

    >>> beyond_noise(17, 24), beyond_noise(16, 24), beyond_noise(7, 7)
    (True, False, False)
    """
    if games < MIN_GAMES:
        return False
    return points / games >= 0.5 + MARGIN_SIGMAS * 0.5 / math.sqrt(games)


@dataclass
class TrialResult:
    """A candidate's games against the incumbent."""

    candidate: Candidate
    games: int = 0
    points: float = 0.0
    move_seconds: float = 0.0
    kept: bool = False

    @property
    def score(self) -> Optional[float]:
        return self.points / self.games if self.games else None

    def describe(self) -> str:
        if not self.games:
            return f"{self.candidate.name}: no game finished"
        verdict = "kept" if self.kept else "not kept"
        return (f"{self.candidate.name} scored {self.points:g} of {self.games} ({self.score:.2f}) at "
                f"{self.move_seconds * 1000:.0f} ms a move: {verdict}")

    def to_json(self) -> dict:
        return {"candidate": self.candidate.name, "options": dict(self.candidate.options), "games": self.games,
                "points": self.points, "move_seconds": round(self.move_seconds, 4), "kept": self.kept}


#: make(params, role, seed) -> a prepared search for `role` at the trial's start
#: state (`search_for`, `best_move`, `advance`, `stop`), of the match's kind.
SearchMaker = Callable[[SearchParams, int, int], object]


def move_seconds(seconds: float, threads: int, n_candidates: int, game_length: float) -> float:
    """Thinking time per move for about GAMES_WANTED games per candidate.

    >>> round(move_seconds(18, 2, 2, 60), 4), round(move_seconds(60, 2, 2, 30), 4)
    (0.03, 0.125)
    """
    per_candidate = seconds * threads / max(1, n_candidates)
    per_move = per_candidate / (GAMES_WANTED * max(1.0, game_length))
    return min(MAX_MOVE_SECONDS, max(MIN_MOVE_SECONDS, per_move))


def play_game(machine: StateMachine, state: State, make: SearchMaker, params: Sequence[SearchParams],
              seconds: float, seed: int, deadline: float) -> Optional[list[float]]:
    """One game from `state`, role r played by a search with `params[r]`
    thinking `seconds` a move; each role's reward (goal / 100), or None when
    `deadline` passed first."""
    roles = len(machine.roles)
    searches = [make(params[r], r, seed * 31 + r) for r in range(roles)]
    rng = random.Random(seed)
    try:
        while not machine.is_terminal(state):
            if time.monotonic() > deadline:
                return None
            joint = []
            for r in range(roles):
                moves = machine.legal_moves(state, r)
                if len(moves) == 1:
                    joint.append(moves[0])
                    continue
                searches[r].run_for(seconds)
                move = searches[r].best_move()
                joint.append(move if move in moves else rng.choice(moves))
            state = machine.next_state(state, joint)
            for search in searches:
                search.advance(joint, state)
        return [g / 100.0 for g in machine.goal_values(state)]
    finally:
        for search in searches:
            search.stop()


def run_trials(machine: StateMachine, state: State, make: SearchMaker, incumbent: SearchParams,
               trials: Sequence[Candidate], seconds: float, threads: int, game_length: float,
               seed: int = 0) -> list[TrialResult]:
    """Each candidate against the incumbent in games from `state`, within
    `seconds` in all (shared evenly), on `threads` threads; the results."""
    results = [TrialResult(candidate) for candidate in trials]
    if not trials or seconds <= 0:
        return results
    roles = len(machine.roles)
    per_move = move_seconds(seconds, threads, len(trials), game_length)
    lock = threading.Lock()
    began = time.monotonic()
    for index, result in enumerate(results):
        result.move_seconds = per_move
        challenger = incumbent.with_options(result.candidate.options)
        stop_at = began + seconds * (index + 1) / len(results)
        counter = iter(range(10**6))

        def one_thread(thread: int) -> None:
            while time.monotonic() < stop_at:
                with lock:
                    game = next(counter)
                seat = game % roles
                params = [challenger if r == seat else incumbent for r in range(roles)]
                rewards = play_game(machine, state, make, params, per_move, seed + 1000 * index + game,
                                    stop_at + per_move * game_length)
                if rewards is None:
                    return
                others = max(rewards[r] for r in range(roles) if r != seat) if roles > 1 else 0.5
                point = 1.0 if rewards[seat] > others else 0.5 if rewards[seat] == others else 0.0
                with lock:
                    result.games += 1
                    result.points += point

        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="trial") as pool:
            list(pool.map(one_thread, range(threads)))
        result.kept = beyond_noise(result.points, result.games)
        log.info("trials: %s", result.describe())
    return results


def apply_trials(incumbent: SearchParams, results: Sequence[TrialResult]) -> tuple[SearchParams, str]:
    """The settings after the trials (the best kept candidate's, else the
    incumbent's) and a reason naming the choice and its margin."""
    kept = [r for r in results if r.kept]
    if not results:
        return incumbent, "no candidate applies"
    summary = "; ".join(r.describe() for r in results)
    if not kept:
        return incumbent, f"the incumbent stays ({summary})"
    best = max(kept, key=lambda r: r.score)
    return incumbent.with_options(best.candidate.options), f"{best.candidate.name} ({summary})"
