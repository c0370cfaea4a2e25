"""Search benchmarks: iterations per second, playout length, depth of new leaves.

Three measurements (no server):

- `bench_opening`: each rule searches the initial position for a while, from
  an empty tree, in the caller's thread, CPU time of the process:
  iterations/s and the tree it builds.
- `bench_threads`: each rule and thread count searches the initial position
  as a player's search does (worker threads, pondering), and the same run
  measures the propnet's random playouts on 256 lanes and by change
  propagation (`propnet_rates`), so that the ratios are taken side by side:
  iterations per second of wall time and of CPU time (on a shared machine
  the threads may not get a core each; the CPU figure says what they did
  with what they got), and the cores they used.
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
from typing import Mapping, Optional, Sequence

from ..propnet.machine.bench import bench_net
from ..propnet.machine.state_machine import PropnetStateMachine
from ..reasoner.statemachine import StateMachine
from .registry import make_tree_search
from .registry import make_search
from .tree.arena import C_ITERATIONS, C_LEAF_DEPTH, C_LEAVES, C_NODES, C_ROLLOUT_STEPS, C_ROLLOUTS


@dataclass
class SearchFigures:
    """Sums over searches, averaged on demand."""

    rule: str
    codes: str = "auto"
    priors: str = "auto"
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
        stats = search.stats()
        self.codes = f"{search.params.codes} ({stats['codes_reason']})"
        self.priors = f"{search.params.priors} ({stats['priors_reason']})"
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
            "priors": self.priors,
            "iterations_per_s": round(self.iterations / self.seconds, 1) if self.seconds else None,
            "iterations_per_s_median_move": round(statistics.median(self.rates), 1) if self.rates else None,
            "mean_playout": round(self.rollout_steps / self.rollouts, 2) if self.rollouts else None,
            "mean_leaf_depth": round(self.leaf_depth / self.leaves, 2) if self.leaves else None,
            "iterations_per_leaf": round(self.iterations / self.leaves, 2) if self.leaves else None,
            "moves": self.moves,
            "iterations": self.iterations,
            "max_nodes": max(self.nodes) if self.nodes else 0,
        }


def _timed(search, seconds: float) -> float:
    began = time.process_time()
    search.run_for(seconds)
    return time.process_time() - began


def opening_chooser(machine: StateMachine, state) -> int:
    """The role a benchmark searches for at `state`: the first with a choice
    (0 when none has), so that the search has moves to weigh."""
    return next((r for r in range(len(machine.roles)) if len(machine.legal_moves(state, r)) > 1), 0)


def bench_opening(machine: StateMachine, rules: Sequence[str], seconds: float, repeats: int = 3,
                  seed: int = 1, memory_cap: Optional[int] = None, codes: Sequence[str] = ("auto",),
                  options: Optional[Mapping[str, str]] = None) -> list[dict]:
    """Each rule searches the initial position `repeats` times for `seconds`,
    once per coding in `codes` (so that codings compare in the same run),
    with the search `options` besides."""
    results = []
    state = machine.initial_state()
    role = opening_chooser(machine, state)
    for rule, coding in ((rule, coding) for rule in rules for coding in codes):
        figures = SearchFigures(rule)
        for repeat in range(repeats):
            search = make_tree_search(rule, machine, role, seed=seed + repeat, memory_cap=memory_cap,
                                      options={**(options or {}), "codes": coding})
            search.prepare(state)
            figures.add(search, _timed(search, seconds))
        row = figures.to_json()
        row["repeats"] = repeats
        row["rates"] = [round(r, 1) for r in figures.rates]
        results.append(row)
    return results


def bench_selfplay(machine: StateMachine, rules: Sequence[str], budget: float, games: int = 2,
                   seed: int = 1, memory_cap: Optional[int] = None,
                   options: Optional[Mapping[str, str]] = None) -> list[dict]:
    """Each rule plays `games` games against itself at `budget` seconds a move."""
    results = []
    roles = range(len(machine.roles))
    for rule in rules:
        figures = SearchFigures(rule)
        rng = random.Random(seed)
        for game in range(games):
            state = machine.initial_state()
            searches = [make_tree_search(rule, machine, role, seed=seed * 100 + game * 10 + role,
                                         memory_cap=memory_cap, options=options) for role in roles]
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


def propnet_rates(machine: StateMachine, seconds: float) -> dict:
    """Random playouts per second on 256 lanes and by change propagation (CPU
    time), empty for an engine that is not a propnet."""
    if not isinstance(machine, PropnetStateMachine):
        return {}
    return dict(bench_net(machine.net, seconds, 1000, strategies=("lanes", "propagate"))["strategies"])


def _searched(machine: StateMachine, rule: str, threads: int, seconds: float, seed: int,
              batch: Optional[int], memory_cap: Optional[int], options: Optional[Mapping[str, str]]) -> dict:
    """One search of the initial position as a player runs it (worker threads,
    pondering) for `seconds` after a warm second: its rates and figures."""
    state = machine.initial_state()
    role = opening_chooser(machine, state)
    search = make_search(rule, machine, role, seed=seed, threads=threads, batch=batch, ponder=True,
                         memory_cap=memory_cap, options=options)
    search.start(state, tuple(machine.legal_moves(state, role)))
    try:
        time.sleep(min(1.0, seconds))
        before = search.stats().get("total_iterations", 0)
        wall, cpu = time.perf_counter(), time.process_time()
        time.sleep(seconds)
        stats = search.stats()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        search.stop()
    done = stats.get("total_iterations", 0) - before
    return {
        "rule": rule, "threads": threads, "batch": batch,
        "iterations_per_s": round(done / wall, 1),
        "iterations_per_cpu_s": round(done / cpu, 1) if cpu > 0 else None,
        "cores_used": round(cpu / wall, 2),
        "mean_playout": stats.get("mean_playout"),
        "mean_leaf_depth": stats.get("mean_leaf_depth"),
        "nodes": stats.get("nodes"),
    }


def bench_threads(machine: StateMachine, rules: Sequence[str], threads: Sequence[int], seconds: float,
                  seed: int = 1, single_leaf: bool = False, memory_cap: Optional[int] = None,
                  options: Optional[Mapping[str, str]] = None) -> dict:
    """Each rule at each thread count from the opening (and, with
    `single_leaf`, one leaf at a time on one thread: the search before the
    lanes), between two measurements of the propnet's own random playouts."""
    before = propnet_rates(machine, seconds)
    rows = []
    for rule in rules:
        for count in threads:
            rows.append(_searched(machine, rule, count, seconds, seed, None, memory_cap, options))
        if single_leaf:
            rows.append(_searched(machine, rule, 1, seconds, seed, 1, memory_cap, options))
    after = propnet_rates(machine, seconds)
    rates = {name: round((before[name] + after[name]) / 2, 1) for name in before}
    lanes = rates.get("lanes")
    one = {row["rule"]: row for row in rows if row["threads"] == 1 and row["batch"] is None}
    for row in rows:
        if lanes:
            row["per_cpu_s_to_lanes"] = round(row["iterations_per_cpu_s"] / lanes, 3)
        base = one.get(row["rule"])
        if base is not None and row is not base and base["iterations_per_s"]:
            row["wall_to_one_thread"] = round(row["iterations_per_s"] / base["iterations_per_s"], 3)
    return {"propnet_playouts_per_s": rates, "searches": rows}
