"""`DeterminizedSearch`: Ensemble Determinization MCTS, the search of a GDL-II match.

A GDL-II player cannot see the state. Each turn the player hands its belief
(`belief.Belief`) to `observe`; this search takes up to T states from it (each
distinct state once, weighted by its share of the belief) and searches each as
a game of perfect information with an ordinary tree search (`TreeSearch`:
MCPS, GRAVE or UCT, the same kernels as every other game). In every tree the
chance role `random` is a chance node (uniform, `select.py`), so the future
dice are sampled while the past ones are the determinization's. At the
deadline the trees' root statistics for our moves become one move by the
ensemble's rule (`ensemble.decide`: visits, score, voting or borda).

Between turns the number of trees may change by the margin rule
(`ensemble.next_tree_count`), and within a turn the iterations go to the trees
uniformly (round robin) or by across-tree UCB, which forces the ensemble's
most promising root move in every tree (`arena.C_FORCE_EDGE`). A tree whose
root is proven (the solver settles small determinizations quickly) goes on
through the root moves it has not proven yet, so that it gives the ensemble a
value for every move, not only for the one that settled it. With T = 1 this
is the single-determinization baseline.

The trees are kept across turns (their arenas are allocated once, each with
1/`max_trees` of the memory cap) and each new determinization becomes its
tree's root through the transposition table, so a state a tree already holds
keeps its statistics. One worker thread runs every tree in short batches;
`best_move` reads the trees between batches.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import replace
from typing import Optional, Sequence

from ...gdl.terms import Term
from ...reasoner.statemachine import State, StateMachine
from ..contract.belief import Belief
from ..contract.interface import Search
from ..driver.tree_search import TreeSearch
from ..driver.worker import SearchWorker
from ..tree.arena import C_FORCE_EDGE, C_INTERRUPT, C_ITERATIONS, C_ROOT, DEFAULT_MEMORY_CAP, EXPANDED, PROVEN, TERMINAL
from ..tree.params import SearchParams
from ..tree.root import best_edge
from .ensemble import Decision, EnsembleParams, TreeRoot, decide, next_tree_count, ucb_move

log = logging.getLogger(__name__)

#: Seconds one step of the worker aims to take (how long a root change or a
#: `best_move` may wait for it).
STEP_SECONDS = 0.01


class DeterminizedSearch(Search):
    """ED-MCTS for one role of one GDL-II match (see the module docstring)."""

    def __init__(
        self,
        machine: StateMachine,
        role_index: int,
        *,
        params: SearchParams = SearchParams(),
        ensemble: EnsembleParams = EnsembleParams(),
        seed: Optional[int] = None,
        memory_cap: Optional[int] = None,
        ponder: bool = True,
        clock_seconds: Optional[float] = None,
        start_seconds: Optional[float] = None,
        name: str = "",
        trial_seconds: float = 0.0,
    ) -> None:
        # `trial_seconds` is accepted and unused: START's trials (`driver/trials.py`)
        # play games of perfect information, which a GDL-II match is not.
        self.machine = machine
        self.role = role_index
        self.params = params
        self.ensemble = ensemble
        self.rule = params.rule
        self.ponder = ponder
        self.name = name or f"ed-{params.rule}-role{role_index}"
        self._seed = seed if seed is not None else time.perf_counter_ns() & 0xFFFFFFFF
        self._rng = random.Random(self._seed)
        self._tree_cap = (memory_cap or DEFAULT_MEMORY_CAP) // ensemble.max_trees
        self._clock_seconds = clock_seconds
        #: what each tree's START decisions may take (`start_choices.start_budget`)
        self._start_seconds = start_seconds
        self._trees: list[TreeSearch] = []
        self._active: list[tuple[TreeSearch, float]] = []
        self._legal: tuple[Term, ...] = ()
        self._codes: dict[int, Term] = {}
        self._count = ensemble.trees
        self._margins: list[int] = []
        self._lock = threading.Lock()
        #: set while another thread waits for the lock (the worker steps aside:
        #: a lock is not fair, and the worker would take it back at once)
        self._want_lock = threading.Event()
        self._worker = SearchWorker(f"search-{self.name}", self._step, self._record_error)
        self._thinking = True
        self._held = False
        self._turn = 0
        self._recorded_turn = -1
        self._batches: dict[int, int] = {}
        self._think_seconds = 0.0
        self._published: Optional[Term] = None
        self._published_stats: dict = {"rule": self.rule, "iterations": 0}
        self._last: Optional[Decision] = None
        self._errors = 0
        self._last_error: Optional[str] = None

    # -- the Search interface ----------------------------------------------------------

    def start(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self._reset([(state, 1.0)], legal_moves)
        self._worker.start()

    def advance(self, joint_move: Optional[Sequence[Term]], state: State,
                legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        """A state known exactly (a GDL-II game played with the GDL messages): one tree."""
        self._reset([(state, 1.0)], legal_moves)

    def observe(self, belief: Belief, legal_moves: tuple[Term, ...]) -> None:
        """T determinizations from the belief, each its tree's new root."""
        self._reset(belief.determinizations(self._count, self._rng), legal_moves)

    def hold(self) -> None:
        """A message arrived: the trees are about an old turn; think no more until
        told (a batch in flight stops at its next iteration)."""
        self._held = True
        for tree, _ in self._active:
            tree.hold()
            tree.arena.counters[C_INTERRUPT] = 1  # cleared by the tree's next root change

    def best_move(self) -> Optional[Term]:
        self._want_lock.set()
        acquired = self._lock.acquire(timeout=0.1)
        self._want_lock.clear()
        if acquired:
            try:
                move = self._decide(record=True)
                stats = self._stats_locked()
            finally:
                self._lock.release()
        else:
            move, stats = self._published, dict(self._published_stats)
        if not self.ponder:
            self._thinking = False
        log.info("search %s: move %s trees=%s next_trees=%s iterations=%s (%.0f/s) margin=%s weights=%s",
                 self.name, move, stats.get("trees"), stats.get("next_trees"), stats.get("iterations"),
                 stats.get("iterations_per_s", 0.0), stats.get("margin"), stats.get("weights"))
        return move

    def stop(self) -> None:
        self._held = True
        self._worker.stop()
        for tree in self._trees:
            tree.stop()

    def stats(self) -> dict:
        if self._lock.acquire(blocking=False):
            try:
                return self._stats_locked()
            finally:
                self._lock.release()
        return dict(self._published_stats)

    # -- turns --------------------------------------------------------------------------

    def _reset(self, samples: Sequence[tuple[State, float]], legal_moves: Optional[tuple[Term, ...]]) -> None:
        """New roots: one tree per determinization (with its weight)."""
        self._held = True
        self._want_lock.set()
        with self._lock:
            self._want_lock.clear()
            first = samples[0][0]
            legal = tuple(legal_moves) if legal_moves is not None else (
                () if self.machine.is_terminal(first) else tuple(self.machine.legal_moves(first, self.role)))
            self._turn += 1
            self._legal = legal
            self._codes = {code: move for move in legal
                           if (code := self.machine.move_codes.get(self.role, move)) is not None}
            active = []
            for index, (state, weight) in enumerate(samples):
                while len(self._trees) <= index:
                    self._trees.append(self._new_tree(len(self._trees)))
                tree = self._trees[index]
                if tree.arena is None:
                    if index > 0:  # the first tree measured the START choices: the others adopt them
                        tree.adopt_settings(*self._trees[0].decided_settings())
                    tree.prepare(state, legal)
                else:
                    tree.advance(None, state, legal)
                active.append((tree, weight))
            self._active = active
            self._think_seconds = 0.0
            self._batches = {}
            self._last = None
            self._published = None
            self._thinking = self.ponder or len(legal) > 1
            self._held = False
        self._worker.wake()

    def _new_tree(self, index: int) -> TreeSearch:
        # One leaf at a time (batch=1): the ensemble steps its trees in small
        # batches of its own, and the lanes know no chance role or forced edge.
        return TreeSearch(self.machine, self.role, params=self.params, seed=self._seed + 7919 * (index + 1),
                          memory_cap=self._tree_cap, ponder=True, clock_seconds=self._clock_seconds,
                          start_seconds=self._start_seconds, batch=1, name=f"{self.name}-t{index}")

    # -- the worker ----------------------------------------------------------------------

    def _step(self) -> bool:
        """One batch: the least-searched tree (uniform), or the ensemble's UCB move
        forced in every tree (ucb). False when there is nothing to think about."""
        if self._held:
            return False
        if self._want_lock.is_set():
            time.sleep(0.0002)
            return True
        with self._lock:
            if self._held or not self._thinking or not self._active:
                return False
            live = [tree for tree, _ in self._active if not _settled(tree, self.role)]
            if not live:
                return False
            began = time.perf_counter()
            if self.ensemble.allocation == "ucb" and len(live) > 1 and len(self._codes) > 1:
                self._ucb_step(live)
            else:
                tree = min(live, key=lambda t: int(t.arena.counters[C_ITERATIONS]))
                tree.search(0)  # a pending collection first: it renumbers the edges
                edge = _unproven_edge(tree, self.role) if tree.root_done() else -1
                self._timed(tree, edge, self._batch_of(tree))
            self._think_seconds += time.perf_counter() - began
            self._published = self._decide(record=False)
            self._published_stats = self._stats_locked()
        return True

    def _ucb_step(self, live: list[TreeSearch]) -> int:
        """Across-tree UCB: force the ensemble's UCB move at every tree's root for
        a few iterations. First, trees whose root has no edges yet get one
        iteration, then every tree tries each of its root moves once (the
        ensemble's sums would count a move tried in one tree as tried in all)."""
        fresh = [tree for tree in live if not _expanded_root(tree)]
        if fresh:
            return sum(tree.search(1) for tree in fresh)
        untried = [(tree, edge) for tree in live if (edge := _untried_edge(tree, self.role)) >= 0]
        if untried:
            return sum(_forced_search(tree, edge, 1) for tree, edge in untried)
        weights = dict((id(tree), weight) for tree, weight in self._active)
        visits = {code: 0.0 for code in self._codes}
        values = {code: 0.0 for code in self._codes}
        for tree in live:
            tree.search(0)  # a pending collection first: it renumbers the edges
            weight = weights[id(tree)] * len(self._active)
            for code, n, w, _ in _root_edges(tree, self.role):
                if code in visits:
                    visits[code] += weight * n
                    values[code] += weight * w
        move = ucb_move(visits, values, self.ensemble.ucb_c)
        ran = 0
        for tree in live:
            edge = _edge_of(tree, self.role, move)
            if edge >= 0:
                ran += self._timed(tree, edge, max(1, self._batch_of(tree) // len(live)))
        return ran

    def _batch_of(self, tree: TreeSearch) -> int:
        return self._batches.get(id(tree), 8)

    def _timed(self, tree: TreeSearch, edge: int, iterations: int) -> int:
        """Run `iterations` (through root edge `edge` when it is one) and size the
        tree's next batch to take about STEP_SECONDS, at most twice this one (a
        settled tree's iterations are nearly free and would promise a rate an
        unsettled one cannot keep). Batch sizes start small at every new turn."""
        began = time.perf_counter()
        ran = _forced_search(tree, edge, iterations)
        if ran > 0:
            rate = ran / max(time.perf_counter() - began, 1e-6)
            self._batches[id(tree)] = max(1, min(20_000, 2 * iterations, int(rate * STEP_SECONDS)))
        return ran

    def _record_error(self, error: Exception) -> None:
        self._errors += 1
        self._last_error = f"{type(error).__name__}: {error}"[:300]

    # -- the decision -------------------------------------------------------------------

    def _decide(self, record: bool) -> Optional[Term]:
        """The ensemble's move now; with `record`, the turn's margin feeds the
        dynamic number of trees (once per turn, for a full ensemble)."""
        if len(self._legal) <= 1:
            return self._legal[0] if self._legal else None
        roots = [root for tree, weight in self._active if (root := self._tree_root(tree, weight)) is not None]
        if not roots:
            return None
        decision = decide(roots, self.ensemble.aggregate)
        self._last = decision
        if record and self._recorded_turn != self._turn and len(self._active) == self._count >= 2:
            self._recorded_turn = self._turn
            self._margins.append(decision.margin)
            count = next_tree_count(self._count, self._margins, self.ensemble)
            if count != self._count:
                log.info("search %s: %d trees from the next turn on (margins %s)", self.name, count,
                         self._margins[-self.ensemble.streak:])
                self._count = count
                self._margins = []
        return self._codes.get(decision.move)

    def _tree_root(self, tree: TreeSearch, weight: float) -> Optional[TreeRoot]:
        """One tree's root statistics for our legal moves (a proven root gives all
        its visits to its proven move; a proven child's value is its goal)."""
        A = tree.arena
        if not _expanded_root(tree):
            return None
        visits: dict[int, float] = {}
        values: dict[int, float] = {}
        for code, n, w, child in _root_edges(tree, self.role):
            if code not in self._codes:
                continue
            visits[code] = float(n)
            if child >= 0 and A.node_flags[child] & PROVEN:
                values[code] = A.node_goals[child, self.role] / 100.0
            elif n:
                values[code] = w / n
        if not visits:
            return None
        best = int(A.edge_code[best_edge(A, self.role)])
        if best not in visits:
            best = max(visits, key=lambda code: (visits[code], values[code]))
        root = int(A.counters[C_ROOT])
        if A.node_flags[root] & PROVEN:
            total = max(1.0, sum(visits.values()))
            visits = {code: (total if code == best else 0.0) for code in visits}
        return TreeRoot(weight, visits, values, best)

    def _stats_locked(self) -> dict:
        iterations = sum(int(tree.arena.counters[C_ITERATIONS]) for tree, _ in self._active)
        figures = {
            "rule": f"ed-{self.rule}",
            "trees": len(self._active),
            "next_trees": self._count,
            "aggregate": self.ensemble.aggregate,
            "allocation": self.ensemble.allocation,
            "iterations": iterations,
            "playouts": iterations,
            "iterations_per_s": round(iterations / self._think_seconds, 1) if self._think_seconds > 0 else 0.0,
            "weights": [round(weight, 3) for _, weight in self._active][:16],
            "errors": self._errors,
        }
        decision = self._last
        if decision is not None and decision.move in self._codes:
            figures["move"] = str(self._codes[decision.move])
            figures["margin"] = decision.margin
            ranked = sorted(decision.totals.items(), key=lambda item: -item[1])[:5]
            figures["top_moves"] = [{"move": str(self._codes.get(code, code)), "total": round(total, 3)}
                                    for code, total in ranked]
        if self._last_error:
            figures["last_error"] = self._last_error
        return figures


def _forced_search(tree: TreeSearch, edge: int, iterations: int) -> int:
    """`iterations` iterations of the tree, through root edge `edge` when it is one."""
    if edge < 0:
        return tree.search(iterations)
    tree.arena.counters[C_FORCE_EDGE] = edge
    try:
        return tree.search(iterations)
    finally:
        tree.arena.counters[C_FORCE_EDGE] = -1


def _unproven_edge(tree: TreeSearch, role: int) -> int:
    """The least visited of `role`'s root edges whose child is not proven, or -1."""
    A = tree.arena
    if not _expanded_root(tree):
        return -1
    root = int(A.counters[C_ROOT])
    best, best_n = -1, None
    for edge in range(int(A.node_edges[root, role]), int(A.node_edges[root, role + 1])):
        child = int(A.edge_child[edge])
        if child >= 0 and A.node_flags[child] & PROVEN:
            continue
        if best_n is None or A.edge_n[edge] < best_n:
            best, best_n = edge, int(A.edge_n[edge])
    return best


def _untried_edge(tree: TreeSearch, role: int) -> int:
    """The first of `role`'s root edges never visited, or -1."""
    A = tree.arena
    root = int(A.counters[C_ROOT])
    for edge in range(int(A.node_edges[root, role]), int(A.node_edges[root, role + 1])):
        if A.edge_n[edge] == 0:
            return edge
    return -1


def _settled(tree: TreeSearch, role: int) -> bool:
    """Nothing left to learn about our root moves: a terminal root, or a proven
    one where every move of ours leads to a proven child (its exact value).
    A proven root's other moves are still searched (forced), so that every
    tree gives the ensemble a value for every move."""
    if not tree.root_done():
        return False
    A = tree.arena
    if A.node_flags[int(A.counters[C_ROOT])] & TERMINAL:
        return True
    return _unproven_edge(tree, role) < 0


def _expanded_root(tree: TreeSearch) -> bool:
    A = tree.arena
    root = int(A.counters[C_ROOT])
    return root >= 0 and bool(A.node_flags[root] & EXPANDED)


def _root_edges(tree: TreeSearch, role: int):
    """(code, visits, value sum, child) of each of `role`'s edges at the tree's root."""
    A = tree.arena
    root = int(A.counters[C_ROOT])
    lo, hi = int(A.node_edges[root, role]), int(A.node_edges[root, role + 1])
    return zip(A.edge_code[lo:hi].tolist(), A.edge_n[lo:hi].tolist(), A.edge_w[lo:hi].tolist(),
               A.edge_child[lo:hi].tolist())


def _edge_of(tree: TreeSearch, role: int, code: int) -> int:
    """The root edge of `role` with move code `code`, or -1."""
    A = tree.arena
    root = int(A.counters[C_ROOT])
    for edge in range(int(A.node_edges[root, role]), int(A.node_edges[root, role + 1])):
        if int(A.edge_code[edge]) == code:
            return edge
    return -1


def make_determinized_search(rule: str, machine: StateMachine, role_index: int, *, seed: Optional[int] = None,
                             options: Optional[dict] = None, ensemble_options: Optional[dict] = None,
                             **settings) -> DeterminizedSearch:
    """A `DeterminizedSearch` over trees of the named rule; `options` set
    `SearchParams`, `ensemble_options` `EnsembleParams` (text values converted),
    `settings` go to the search (ponder, memory_cap, clock_seconds, start_seconds)."""
    params = replace(SearchParams(), rule=rule)
    if options:
        params = params.with_options(options)
    ensemble = EnsembleParams().with_options(ensemble_options or {})
    return DeterminizedSearch(machine, role_index, params=params, ensemble=ensemble, seed=seed, **settings)
