"""Tree parallelism: several threads searching one tree on their own lanes.

`SharedTreeSearch` is a `TreeSearch` with one worker thread and one
`LaneRunner` (lanes, lane slots, random generator) per thread, all on one
arena. The lane steps of the threads run in parallel; every touch of the
tree (a descent, an attach, a backup, virtual losses) is made holding the
tree's spin lock (`lane_paths.take_tree`), once per lane step and thread.
Virtual losses keep the threads' leaves apart as they keep a batch's. A
root change, a collection or a read of the whole tree takes every worker's
lock (`_AllLocks`), so it waits for the threads' current batches to stop.

Root parallelism (`root_parallel.RootParallelSearch`) is the alternative; which
one the agent uses was measured at equal time (docs/experiments.md).
"""

from __future__ import annotations

import threading
import time
from functools import partial
from typing import Optional

from ...gdl.terms import Term
from ...reasoner.statemachine import State, StateMachine
from ..driver.tree_search import TreeSearch
from ..driver.worker import SearchWorker
from ..runners.lane_runner import LaneRunner, choose_runner
from ..runners.lane_paths import free_tree, take_tree
from ..tree import iteration


class _AllLocks:
    """Every worker's lock, taken in order (and given back in reverse)."""

    def __init__(self, locks: list) -> None:
        self.locks = locks

    def acquire(self, blocking: bool = True) -> bool:
        taken = []
        for lock in self.locks:
            if not lock.acquire(blocking):
                for held in reversed(taken):
                    held.release()
                return False
            taken.append(lock)
        return True

    def release(self) -> None:
        for lock in reversed(self.locks):
            lock.release()

    def __enter__(self) -> "_AllLocks":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class SharedTreeSearch(TreeSearch):
    """One tree searched by `threads` threads (see the module docstring)."""

    def __init__(self, machine: StateMachine, role_index: int, *, threads: int, **settings) -> None:
        super().__init__(machine, role_index, **settings)
        if not isinstance(self._runner, LaneRunner):
            raise ValueError("a shared tree needs the lanes (a propnet, batch above 1)")
        self._runner.shared = True
        batch = settings.get("batch")
        self._lane_runners = [self._runner] + [
            choose_runner(machine, self._seed + 7919 * k, self.params, batch, shared=True)
            for k in range(1, threads)]
        self._worker_locks = [threading.Lock() for _ in self._lane_runners]
        self._lock = _AllLocks(self._worker_locks)
        self._workers = [SearchWorker(f"search-{self.name}-t{k}", partial(self._step_of, k), self._record_error)
                         for k in range(threads)]
        self._worker = self._workers[0]

    def start(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self.prepare(state, legal_moves)
        for worker in self._workers:
            worker.start()

    def _wake(self) -> None:
        for worker in self._workers:
            worker.wake()

    def stop(self) -> None:
        self._interrupt()
        for worker in self._workers:
            worker.stop()

    def stats(self) -> dict:
        figures = super().stats()
        figures["threads"] = len(self._workers)
        figures["parallel"] = "tree"
        return figures

    def _runners(self) -> list:
        return list(self._lane_runners)

    def _step(self) -> bool:
        return self._step_of(0)

    def _step_of(self, k: int) -> bool:
        """Worker k's batch on its own lanes; the tree is shared."""
        if self._want_lock.is_set():  # a root change or a hold waits for every lock
            time.sleep(0.0002)
            return True
        if self._collect_pending:
            with self._lock:
                self._collect_if_pending()
            return True
        with self._worker_locks[k]:
            A = self.arena
            take_tree(A)
            try:
                done = iteration.root_done(A, self._packed)
            finally:
                free_tree(A)
            if done:
                self._decided = True
            if not self._thinking or done:
                return False
            if self._run_batch(self._lane_runners[k], 1 / len(self._workers)) == 0:
                return False
            take_tree(A)
            try:
                self._publish_locked()
            finally:
                free_tree(A)
        return True
