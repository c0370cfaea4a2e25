"""Search benchmarks: iterations per second, playout length, depth of new leaves.

Two measurements, both single-threaded in the caller's thread (no pondering,
no server), CPU time of the process:

- `bench_opening`: each rule searches the initial position for a while, from
  an empty tree: iterations/s and the tree it builds.
- `bench_selfplay`: each rule plays whole games against itself at a fixed time
  per move, with tree reuse, and the per-move figures are averaged over every
  move of every game: what the MCPS paper's appendix tables report (playouts
  per second, moves per playout from the new leaf, tree depth of new leaves).

Speed claims go here and into docs/experiments.md, never into timed tests.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Optional, Sequence

from ..reasoner.statemachine import StateMachine
from .arena import C_ITERATIONS, C_LEAF_DEPTH, C_LEAVES, C_NODES, C_ROLLOUT_STEPS, C_ROLLOUTS
from .tree_search import make_tree_search


@dataclass
class SearchFigures:
    """Sums over searches, averaged on demand."""

    rule: str
    codes: str = "auto"
    seconds: float = 0.0
    iterations: int = 0
    rollouts: int = 0
    rollout_steps: int = 0
    leaves: int = 0
    leaf_depth: int = 0
    moves: int = 0
    nodes: list = field(default_factory=list)
    rates: list = field(default_factory=list)

    def add(self, search, seconds: float) -> None:
        self.codes = f"{search.params.codes} ({search.stats()['codes_reason']})"
        c = search.arena.counters
        self.seconds += seconds
        self.iterations += int(c[C_ITERATIONS])
        self.rollouts += int(c[C_ROLLOUTS])
        self.rollout_steps += int(c[C_ROLLOUT_STEPS])
        self.leaves += int(c[C_LEAVES])
        self.leaf_depth += int(c[C_LEAF_DEPTH])
        self.moves += 1
        self.nodes.append(int(c[C_NODES]))
        if seconds > 0:
            self.rates.append(int(c[C_ITERATIONS]) / seconds)

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "codes": self.codes,
            "iterations_per_s": round(self.iterations / self.seconds, 1) if self.seconds else None,
            "iterations_per_s_median_move": round(statistics.median(self.rates), 1) if self.rates else None,
            "mean_playout": round(self.rollout_steps / self.rollouts, 2) if self.rollouts else None,
            "mean_leaf_depth": round(self.leaf_depth / self.leaves, 2) if self.leaves else None,
            "moves": self.moves,
            "iterations": self.iterations,
            "max_nodes": max(self.nodes) if self.nodes else 0,
        }


def _timed(search, seconds: float) -> float:
    began = time.process_time()
    search.run_for(seconds)
    return time.process_time() - began


def bench_opening(machine: StateMachine, rules: Sequence[str], seconds: float, repeats: int = 3,
                  seed: int = 1, memory_cap: Optional[int] = None, codes: Sequence[str] = ("auto",)) -> list[dict]:
    """Each rule searches the initial position `repeats` times for `seconds`,
    once per coding in `codes` (so that codings compare in the same run)."""
    results = []
    state = machine.initial_state()
    role = next((r for r in range(len(machine.roles)) if len(machine.legal_moves(state, r)) > 1), 0)
    for rule, coding in ((rule, coding) for rule in rules for coding in codes):
        figures = SearchFigures(rule)
        for repeat in range(repeats):
            search = make_tree_search(rule, machine, role, seed=seed + repeat, memory_cap=memory_cap,
                                      options={"codes": coding})
            search.prepare(state)
            figures.add(search, _timed(search, seconds))
        row = figures.to_json()
        row["repeats"] = repeats
        row["rates"] = [round(r, 1) for r in figures.rates]
        results.append(row)
    return results


def bench_selfplay(machine: StateMachine, rules: Sequence[str], budget: float, games: int = 2,
                   seed: int = 1, memory_cap: Optional[int] = None) -> list[dict]:
    """Each rule plays `games` games against itself at `budget` seconds a move."""
    results = []
    roles = range(len(machine.roles))
    for rule in rules:
        figures = SearchFigures(rule)
        rng = random.Random(seed)
        for game in range(games):
            state = machine.initial_state()
            searches = [make_tree_search(rule, machine, role, seed=seed * 100 + game * 10 + role,
                                         memory_cap=memory_cap) for role in roles]
            for search in searches:
                search.prepare(state)
            while not machine.is_terminal(state):
                joint = []
                for role in roles:
                    moves = machine.legal_moves(state, role)
                    if len(moves) == 1:
                        joint.append(moves[0])
                        continue
                    search = searches[role]
                    figures.add(search, _timed(search, budget))
                    move = search.best_move()
                    joint.append(move if move in moves else rng.choice(moves))
                state = machine.next_state(state, joint)
                for search in searches:
                    search.advance(joint, state)
        row = figures.to_json()
        row.update(games=games, budget=budget)
        results.append(row)
    return results
