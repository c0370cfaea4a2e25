"""`TreeSearch`: UCT, GRAVE or MCPS behind the player's `Search` interface.

The player starts the search at START (its decisions and its arena: `start_setup.py`),
tells it each joint move the manager reports, asks for the best move at its
deadline, and stops it at STOP. Here:

- a worker thread runs batches of iterations (`runners/serial.py`, `runners/lane_runner.py`),
  numba calls without the GIL over a propnet, sized to take about
  `batch_seconds`, so a root change or a stop waits at most that long;
- the arena is sized at START from a memory cap, free memory and the clocks
  (`arena.plan_capacity`) and never grows; when a pool fills the search keeps
  going on the tree it has, and once the arena is more than half full the
  worker collects what the root no longer reaches, off our clock
  (`root_change.py` says when; the root change itself stays quick);
- tree reuse (`root_change.py`): the root moves to the child of the reported
  joint move when the tree holds it (else to the state's node, found by its
  hash, or a new one), and MCPS keeps only the window playouts with the
  moves played; each root change is recorded (`reuse.RootChange`: how the
  root was found, the share of the search kept, the rank of the opponents'
  reply, the time it held the search up), and the stats give the turn's;
- pondering (`ponder`, the default): the worker thinks whenever the game is
  on; off, only from a root change where our role has a choice until the
  player asks for the move (fair experiments);
- `best_move` and `stats` never wait on the worker (the tree between batches, else what
  the last batch or root change published); `answer_ready` reads a flag set after each
  batch and at a root change: the root is done (terminal, proven), our role has at
  most one move, or every move but one is a proven loss (`root.move_decided`);
- `stop` interrupts the batch in progress (over a shared engine, the iteration at
  its next engine call), so a shutdown waits one batch at most.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from typing import Optional, Sequence

from ...gdl.terms import Term
from ...reasoner.statemachine import State, StateMachine
from ..choices.heuristic_choice import Heuristic
from ..contract.interface import Search
from ..runners.lane_runner import choose_runner
from ..tree import iteration
from ..tree.arena import C_INTERRUPT, C_OUR_ROLE, C_ROOT, C_ROOT_STEP, Arena, arena_bytes
from ..tree.params import EFFECT_CODINGS, P_SOLVER, SearchParams
from ..tree.root import move_decided, played_edge
from ..tree.select import role_best_goal
from .prior_fitting import PriorFitting
from .start_setup import StartSetup, new_search_arena
from .trials import TRIAL_MEMORY
from .figures import answer_summary, arena_figures, kept_share, root_figures
from .reuse import FOUND_NEW, RootChange, TurnChanges
from .root_change import (collect_tree, collection_due, collection_due_after_answer, joint_codes, node_after,
                          others_choose, reply_at_root)
from .votes import offered_moves, tree_votes
from .worker import SearchWorker

log = logging.getLogger(__name__)


class TreeSearch(Search):
    """A numba tree search (UCT, GRAVE or MCPS) for one role of one match."""

    def __init__(
        self,
        machine: StateMachine,
        role_index: int,
        *,
        params: SearchParams = SearchParams(),
        seed: Optional[int] = None,
        memory_cap: Optional[int] = None,
        ponder: bool = True,
        clock_seconds: Optional[float] = None, start_seconds: Optional[float] = None,
        batch_seconds: float = 0.01,
        batch: Optional[int] = None, name: str = "", trial_seconds: float = 0.0,
    ) -> None:
        self.machine = machine
        self.role = role_index
        self.params = params
        self.rule = params.rule
        self.ponder = ponder
        self.memory_cap = memory_cap
        self.clock_seconds = clock_seconds
        self.start_seconds = start_seconds
        #: what START's trials may take (`trials.py`; 0: none)
        self.trial_seconds = trial_seconds
        self.batch_seconds = batch_seconds
        self._batch_setting = batch
        self.name = name or f"{params.rule}-role{role_index}"
        self._seed = seed if seed is not None else time.perf_counter_ns() & 0xFFFFFFFF
        self._runner = choose_runner(machine, self._seed, params, batch)
        if params.codes in EFFECT_CODINGS and not self._runner.supports_effects:
            log.info("search %s: effect codes need a propnet; using move codes", self.name)
            params = replace(params, codes="moves")
            self.params = params
        self._packed = params.pack()
        self.arena: Optional[Arena] = None
        self._lock = threading.Lock()
        self._want_lock = threading.Event()
        self._worker = SearchWorker(f"search-{self.name}", self._step, self._record_error)
        self._thinking = True
        self._published: Optional[Term] = None
        self._decided = False
        self._published_stats: dict = {"rule": self.rule, "iterations": 0}
        self._published_votes: list = []
        self._batch = 8
        self._stats_at = 0.0
        self._collect_pending = False
        self._think_seconds = 0.0
        self._total_iterations = 0
        self._collections = 0
        self._tree_kept: Optional[float] = None  # at the last root change (`figures.kept_share`)
        self._changes = TurnChanges()  # the root changes of this turn and the last answered one (`reuse.py`)
        self._change_open = False  # no batch yet since the last root change (a collection then counts in it)
        self._others_choose = False  # another role chooses at the root too (a collection may follow our answer)
        self._errors = 0
        self._last_error: Optional[str] = None
        self._our_choices = 0
        self._fitting: Optional[PriorFitting] = None  # priors="fitted" (set at prepare)
        #: what START decides (settings left at "auto", the heuristic, trials) and why
        self._setup = StartSetup.configured(params)

    # -- the Search interface ----------------------------------------------------------

    def start(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        """Size the arena, make the root, start the worker thread."""
        self.prepare(state, legal_moves)
        self._worker.start()

    def prepare(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        """Size the arena and make the root, without a worker thread (`search`,
        `run_for` and `best_move` then work in the caller's thread)."""
        runner = self._runner
        terminal = self.machine.is_terminal(state)
        self.params = self._setup.decide(self.name, runner, self.machine, state, terminal, self.start_seconds,
                                         self.trial_seconds, self._trial_player(state), self._seed)
        self._packed = self.params.pack()
        self._fitting = PriorFitting() if self.params.priors == "fitted" else None
        legal = [0 if terminal else len(runner.legal_codes(state, r)) for r in range(runner.n_roles)]
        self.capacity, self.arena = new_search_arena(runner, self.params, self.machine, legal, self.memory_cap,
                                                     self.clock_seconds)
        runner.prepare_arena(self.arena)
        self._setup.fill_arena(self.arena, runner, state, self.start_seconds, self.name)
        root = runner.root_node(self.arena, self._packed, state)
        if root < 0:
            raise RuntimeError("the arena cannot hold even the root")
        iteration.set_root(self.arena, self._packed, root)
        self.arena.counters[C_OUR_ROLE] = self.role  # the reply floor's "other roles" (`reply_floor.py`)
        self._our_choices = 0 if terminal else legal[self.role]
        self._others_choose = any(n > 1 for r, n in enumerate(legal) if r != self.role)
        self._thinking = self.ponder or self._our_choices > 1
        self._decided = self._decided_locked()
        log.debug("search %s: %s (%.0f MB ceiling), %s", self.name, self.capacity.describe(),
                  arena_bytes(self.arena) / 2**20, type(runner).__name__)

    def _trial_player(self, state: State):
        """How START's trials make a player: a small search of this kind at `state`."""
        def make(params: SearchParams, role: int, seed: int, heuristic: Optional[Heuristic]) -> "TreeSearch":
            search = TreeSearch(self.machine, role, params=params, seed=seed, memory_cap=TRIAL_MEMORY,
                                ponder=False, batch=self._batch_setting, name=f"trial-role{role}")
            search.adopt_settings({}, {}, heuristic)
            search.prepare(state)
            return search
        return make

    def decided_settings(self) -> tuple[dict[str, str], dict[str, str], Optional[Heuristic]]:
        """START's decisions, why, and the heuristic found: for another tree of the match to adopt."""
        return self._setup.decided()

    def adopt_settings(self, values: dict[str, str], reasons: dict[str, str],
                       heuristic: Optional[Heuristic] = None) -> None:
        """Before `prepare`: another tree's decisions (the trees agree; START measures once)."""
        self._setup.adopt(values, reasons, heuristic)
        self.params = self._setup.params
        self._packed = self.params.pack()

    def hold(self) -> None:
        """The player needs the engine now: leave it alone until `advance` (an
        iteration over a shared engine stops at its next engine call)."""
        if self._runner.shares_engine:
            self._runner.held = True
            self._interrupt()

    def advance(self, joint_move: Optional[Sequence[Term]], state: State,
                legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        """Move the root by the joint move the match played (tree reuse); with
        no joint move (a determinization of a GDL-II match), to the state's node."""
        runner = self._runner
        A = self.arena
        began = time.perf_counter()
        runner.held = True
        self._interrupt()
        with self._lock:
            waited = time.perf_counter() - began
            self._resume()
            runner.held = False
            for each in self._runners():
                each.forget_inflight(A)  # lanes out belong to the old root
                each.think_until(None)
            terminal = self.machine.is_terminal(state)
            our = len(legal_moves) if legal_moves is not None else (
                0 if terminal else len(runner.legal_codes(state, self.role)))
            P = self._packed
            old_visits = int(A.node_visits[int(A.counters[C_ROOT])])
            codes = joint_codes(runner, joint_move)
            reply = reply_at_root(A, self.role, codes, self._our_choices)
            child, found_by = node_after(A, P, self.params, runner, codes, state)
            A.counters[C_ROOT_STEP] += joint_move is not None  # the probes' depth gate counts from the start
            if child >= 0:
                iteration.set_root(A, P, child)
            else:  # no room even for the new root: start afresh now
                self._collect(child, state)
            offered = None if legal_moves is None else offered_moves(A, self.role, runner.move_of)
            if offered is not None and set(offered) != set(legal_moves):
                log.error("search %s: the root found by its %s (node %d) offers %d moves, %d of them among our "
                          "%d legal ones (e.g. %s); starting a fresh tree at the new state", self.name, found_by,
                          child, len(offered), len(set(offered) & set(legal_moves)), len(legal_moves), offered[:1])
                self._collect(-1, state)
                found_by = FOUND_NEW
            self._tree_kept = kept_share(old_visits, int(A.node_visits[int(A.counters[C_ROOT])]))
            self._others_choose = our > 1 and not terminal and others_choose(runner, state, self.role)
            # by the worker, not here (the player waits), and off our clock (`root_change.py`)
            self._collect_pending = collection_due(A, self.params, our_turn=our > 1)
            iteration.reset_counters(A)
            self._think_seconds = 0.0
            self._our_choices = our
            self._thinking = self.ponder or our > 1
            self._published = self._best_move_locked()
            self._published_votes = self._votes_locked()
            self._decided = self._decided_locked()
            change = RootChange(found_by, self._tree_kept, *reply, seconds=0.0, our_turn=our > 1)
            self._changes.add(change)
            self._change_open = True
            self._published_stats = self._stats_locked()  # the new root's, again after the next batch
            self._stats_at = 0.0
            if self._collect_pending and not self._worker.running:  # no worker: collect now, off the clock
                self._collect_if_pending()
        change.seconds += time.perf_counter() - began
        if change.seconds > 0.1:
            log.warning("search %s: the root change took %.3f s (%.3f s waiting for the worker)",
                        self.name, change.seconds, waited)
        self._wake()

    def best_move(self) -> Optional[Term]:
        """The move to play now (and the figures logged once per answer)."""
        if self._lock.acquire(blocking=False):
            try:
                move = self._best_move_locked()
                stats = self._stats_locked()
            finally:
                self._lock.release()
        else:
            move, stats = self._published, dict(self._published_stats)
        self.answered()
        log.info("search %s: move %s %s", self.name, move, answer_summary(stats))
        return move

    def answered(self) -> None:
        """The move is taken: the turn's root changes are its figures now, and a
        full enough tree at a simultaneous root is collected (`root_change.py`).
        Without pondering, no thinking until the next root change. With it, the
        search goes on with no deadline (the lanes stop starting iterations at
        `think_until`, and the worker would wait out the opponents' time)."""
        self._changes.answered()
        if self.arena is not None and collection_due_after_answer(self.arena, self.params, self._others_choose):
            self._collect_pending = True
            if not self._worker.running:
                with self._lock:
                    self._collect_if_pending()
        if not self.ponder:
            self._thinking = False
        else:
            for each in self._runners():
                each.think_until(None)
        self._wake()

    def root_votes(self) -> list:
        """Our role's root edges as `votes.RootVote`s: from the tree between
        batches, else as published after the last batch (never waits)."""
        if self._lock.acquire(blocking=False):
            try:
                return self._votes_locked()
            finally:
                self._lock.release()
        return list(self._published_votes)

    def best_goal(self) -> int:
        """The best goal our role can get (what a proven win is worth)."""
        return 100 if self.arena is None else int(role_best_goal(self.arena, self.role))

    def think_until(self, deadline: Optional[float]) -> None:
        """The player asks for the move at `deadline` (time.monotonic()): the
        lanes start no iteration that could not end by then."""
        for each in self._runners():
            each.think_until(deadline)
    def answer_ready(self) -> bool:
        """True when more thinking cannot change the move (a flag: never waits)."""
        return self._decided

    def stop(self) -> None:
        self._runner.held = True  # an iteration over a shared engine ends at its next call
        self._interrupt()
        self._worker.stop()

    def root_done(self) -> bool:
        """True when searching the root can teach nothing (terminal or proven)."""
        return bool(iteration.root_done(self.arena, self._packed))

    def stats(self) -> dict:
        if self._lock.acquire(blocking=False):
            try:
                return self._stats_locked()
            finally:
                self._lock.release()
        return dict(self._published_stats)

    # -- beyond the interface -----------------------------------------------------------

    def search(self, iterations: int) -> int:
        """Run `iterations` iterations in the caller's thread (no worker: tests,
        benchmarks, the fixed-iteration checks). Returns how many ran."""
        return self._run_here(iterations, None)

    def run_for(self, seconds: float) -> int:
        """Search for `seconds` in the caller's thread; returns the iterations."""
        return self._run_here(None, time.perf_counter() + seconds)

    def _run_here(self, iterations: Optional[int], deadline: Optional[float]) -> int:
        done = 0
        with self._lock:
            self._collect_if_pending()
            self._change_open = False
            while (iterations is None or done < iterations) and (deadline is None or time.perf_counter() < deadline):
                began = time.perf_counter()
                ran = self._runner.run(self.arena, self._packed,
                                       self._batch if iterations is None else min(4096, iterations - done))
                if deadline is not None:
                    self._adapt(ran, time.perf_counter() - began)
                self._fit_priors()
                done += ran
                if ran == 0:
                    break
            self._total_iterations += done
            self._publish_locked()
        return done

    def _collect_if_pending(self) -> None:
        if self._collect_pending:
            self._collect(int(self.arena.counters[C_ROOT]), None)
            self._collect_pending = False

    def collect_now(self, state: State, reset: bool = False) -> None:
        """Collect garbage now (or, with `reset`, start a fresh tree at `state`)."""
        with self._lock:
            self._collect(-1 if reset else int(self.arena.counters[C_ROOT]), state)

    # -- the worker ----------------------------------------------------------------------

    def _step(self) -> bool:
        """One batch of iterations (the worker's step); False when there is
        nothing to think about (not pondering, or a root that is done)."""
        if self._want_lock.is_set():  # a root change or a hold waits for the lock
            time.sleep(0.0002)
            return True
        with self._lock:
            if self._collect_pending:
                self._collect_if_pending()
                return True
            if iteration.root_done(self.arena, self._packed):
                self._decided = True
                return False
            if not self._thinking:
                return False
            if self._run_batch(self._runner) == 0:
                return False
            self._publish_locked()
        return True

    def _run_batch(self, runner, share: float = 1.0) -> int:
        """One batch on `runner`, counted (`share`: this thread's part of the think time). 0:
        none could start before the deadline; the worker then waits, not spins on the GIL."""
        began = time.perf_counter()
        self._change_open = False
        ran = runner.run(self.arena, self._packed, self._batch)
        elapsed = time.perf_counter() - began
        self._think_seconds += elapsed * share
        self._total_iterations += ran
        self._adapt(ran, elapsed)
        self._fit_priors()
        return ran

    def _fit_priors(self) -> None:
        if self._fitting is not None:
            self._fitting.update(self.arena, self._packed)

    def _publish_locked(self) -> None:
        """After a batch: what the player reads without waiting (the move, the
        root votes, whether the move is decided, now and then the figures)."""
        self._published = self._best_move_locked()
        self._published_votes = self._votes_locked()
        decided = self._decided_locked()
        now = time.perf_counter()
        # the figures are for logs (keep the GIL free), but a decision is
        # published with the figures of the tree that made it
        if now - self._stats_at > 0.1 or (decided and not self._decided):
            self._published_stats = self._stats_locked()
            self._stats_at = now
        self._decided = decided

    def _runners(self) -> list:
        """Every runner searching this tree (one; `shared_tree.SharedTreeSearch` has one per thread)."""
        return [self._runner]

    def _record_error(self, error: Exception) -> None:
        self._errors += 1
        self._last_error = f"{type(error).__name__}: {error}"[:300]

    def _wake(self) -> None:
        """Cut the worker's idle wait short (a new root, a move taken while pondering)."""
        self._worker.wake()

    def _interrupt(self) -> None:
        """Make the running batch stop at its next iteration and keep the worker
        off the lock until `_resume` (root changes, holds, stop)."""
        self._want_lock.set()
        if self.arena is not None:
            self.arena.counters[C_INTERRUPT] = 1

    def _resume(self) -> None:
        self._want_lock.clear()
        if self.arena is not None:
            self.arena.counters[C_INTERRUPT] = 0

    def _adapt(self, ran: int, elapsed: float) -> None:
        """Size the next batch to take about `batch_seconds`, growing at most
        twofold (iterations that end on proven nodes are fast and would
        otherwise promise a rate the next position cannot keep)."""
        if ran <= 0:
            return
        rate = ran / max(elapsed, 1e-6)
        target = int(min(20_000, max(1, rate * self.batch_seconds)))
        self._batch = min(target, 2 * self._batch)

    def _collect(self, root: int, state: Optional[State]) -> None:
        took = collect_tree(self.arena, self._packed, self._runners(), root, state, self.name)
        self._collections += 1
        if self._change_open and self._changes.last is not None:  # it held the new root's search up
            self._changes.last.seconds += took

    def _votes_locked(self) -> list:
        if self.arena is None or self._our_choices == 0:
            return []
        return tree_votes(self.arena, self.role, self._runner.move_of)

    def _decided_locked(self) -> bool:
        """Whether the move to play is settled (see `answer_ready`): never before
        a move is published, since `best_move` reads it while a batch runs."""
        if self.arena is None:
            return False
        if self._our_choices <= 1:
            return True
        return self._published is not None and bool(move_decided(self.arena, self.role, self._packed[P_SOLVER] != 0.0))

    def _best_move_locked(self) -> Optional[Term]:
        A = self.arena
        if A is None or self._our_choices == 0:
            return None
        edge = int(played_edge(A, self._packed, self.role, self._runner.rng))
        if edge < 0:
            return None
        return self._runner.move_of(int(A.edge_code[edge]))

    def _stats_locked(self) -> dict:
        A = self.arena
        if A is None:
            return {"rule": self.rule, "iterations": 0}
        figures = {
            "rule": self.rule,
            **self._setup.figures(),
            **(self._fitting.figures() if self._fitting is not None else {}),
            **arena_figures(A),
            "total_iterations": self._total_iterations,
            "collections": self._collections,
            "tree_kept": self._tree_kept,
            **self._changes.figures(),
            "lane_collisions": sum(each.collisions() for each in self._runners()),
            "errors": self._errors,
        }
        seconds = self._think_seconds
        figures["iterations_per_s"] = round(figures["iterations"] / seconds, 1) if seconds > 0 else 0.0
        if self._last_error:
            figures["last_error"] = self._last_error
        if self._our_choices > 0:
            figures.update(root_figures(A, self.role, self.params.rho, self._runner.move_of))
        else:
            figures["top_moves"] = []
        return figures

