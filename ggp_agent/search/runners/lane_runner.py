"""`LaneRunner`: search iterations on the propnet's 256 lanes, as many leaves at once as fit.

A `PropnetRunner` whose batches run on the lanes (`lane_search.lane_search`):
each lane carries one iteration, so a batch is the lanes out at once. How
many may be out (`lanes_out`):

- the tree's age: at most a quarter of the root's visits (a young tree's
  statistics say little, and leaves chosen together are chosen blind to each
  other's results), at most `max_batch` (256, or the player's `batch=`);
- the time left: when the player has said when it will ask for the move
  (`think_until`), no new lane starts that could not finish before then
  (a lane's latency is measured as the search goes, in the searching
  thread's CPU time: on a loaded machine the thread is set aside now and
  then, and wall time would count that against the lanes; a latency
  inflated so once shut every lane out for the rest of a match, whose
  moves then came from a handful of iterations or none);
- one leaf: while that bound is 1, the iterations run one at a time by change
  propagation (the `PropnetRunner` kernel), which is faster for a single
  leaf and what a tiny tree needs (tic-tac-toe's forced wins); and when no
  lane could end before the move is asked for and none is out, the time
  left goes to single leaves too (`NEAR_DEADLINE_LEAVES` at a call), each
  of them one playout long, not a lane's wait for the slowest of 256.

Effect codes run on the lanes too: a lane records its chooser's effect code
at every step of its playout (`lane_effects.record_effects`), and an edge
learns its effect code when a lane first computes its child
(`table.learn_effect`).
"""

from __future__ import annotations

import time
from typing import Optional

import numpy as np

from ...propnet.network.arrays import new_lanes
from ...propnet.kernels.lane_gates import LANES
from ...propnet.machine.state_machine import PropnetStateMachine
from ...reasoner.statemachine import StateMachine
from ..tree.arena import C_INTERRUPT, C_ROOT, Arena
from ..tree.iteration import root_done
from ..tree.params import SearchParams
from .lane_search import forget_inflight, free_tree, keep_legal, lane_search, take_tree
from .lane_slots import S_COLLISIONS, S_INFLIGHT, new_slots
from .serial import PropnetRunner, make_runner

#: A quarter of the root's visits may be out at once (see the module docstring).
ROOT_VISITS_PER_LANE = 4
#: Single leaves per kernel call when no lane could end before the deadline:
#: few, so that the time left is checked between them.
NEAR_DEADLINE_LEAVES = 4


def lanes_out(root_visits: int, max_batch: int, seconds_left: Optional[float], latency: float) -> int:
    """How many lanes may be out at once (see the module docstring); 0: start
    no new one.

    >>> lanes_out(0, 256, None, 0.0), lanes_out(100, 256, None, 0.0), lanes_out(10**6, 256, None, 0.0)
    (1, 25, 256)
    >>> lanes_out(10**6, 256, 0.001, 0.01), lanes_out(10**6, 1, None, 0.0)
    (0, 1)
    """
    if seconds_left is not None and seconds_left < latency:
        return 0
    return max(1, min(max_batch, root_visits // ROOT_VISITS_PER_LANE))


class LaneRunner(PropnetRunner):
    """Iterations on the lanes (see the module docstring)."""

    def __init__(self, machine: PropnetStateMachine, seed: int, max_depth: int, max_rollout: int,
                 max_batch: int = LANES, shared: bool = False) -> None:
        super().__init__(machine, seed)
        #: other threads search the same tree (`shared_tree.py`): touch it holding it
        self.shared = shared
        self.lanes = new_lanes(self.net)
        self.slots = new_slots(self.n_roles, self.n_words, max_depth, max_rollout)
        self.max_batch = max(1, min(LANES, int(max_batch)))
        self.deadline: Optional[float] = None
        #: seconds from a lane's start to its backup, measured (an average)
        self.latency = 0.0

    @property
    def legal_words(self) -> int:
        return (int(self.net.n_codes) + 63) // 64

    def root_node(self, A: Arena, P: np.ndarray, state) -> int:
        node = super().root_node(A, P, state)
        if node >= 0:
            keep_legal(A, self.net, self.work, node)  # the root's state is the one loaded
        return node

    def think_until(self, deadline: Optional[float]) -> None:
        self.deadline = deadline

    def forget_inflight(self, A: Arena) -> None:
        forget_inflight(A, self.slots)

    def collisions(self) -> int:
        """Descents that chose an edge whose child another lane was computing, since the search began."""
        return int(self.slots.counters[S_COLLISIONS])

    def run(self, A: Arena, P: np.ndarray, n: int) -> int:
        """Up to n iterations; the batch is decided again as the tree grows
        (a call of the lane kernel at a time, each at most the batch while it
        is below `max_batch`)."""
        done = 0
        while done < n:
            seconds_left = None if self.deadline is None else self.deadline - time.monotonic()
            root_visits = int(A.node_visits[int(A.counters[C_ROOT])])
            out = lanes_out(root_visits, self.max_batch, seconds_left, self.latency)
            flying = int(self.slots.counters[S_INFLIGHT])
            if out == 1 and flying == 0:
                # one leaf at a time until the tree is old enough for two lanes
                ran = self._one_at_a_time(A, P, min(n - done, max(1, 2 * ROOT_VISITS_PER_LANE - root_visits)))
            elif out == 0 and flying == 0:
                if seconds_left is None or seconds_left <= 0.0:
                    break
                # no lane could end in time: single leaves until the move is asked for
                ran = self._one_at_a_time(A, P, min(n - done, NEAR_DEADLINE_LEAVES))
            else:
                budget = n - done if out >= self.max_batch else min(n - done, max(out, 1))
                began = time.thread_time()
                ran = int(lane_search(A, P, self.net, self.lanes, self.slots, self.work, self.rng, budget, out,
                                      1 if self.shared else 0))
                if ran > 0:
                    lanes = max(1, out, flying)
                    latency = (time.thread_time() - began) * lanes / ran
                    self.latency = latency if self.latency == 0.0 else 0.8 * self.latency + 0.2 * latency
            done += ran
            if ran == 0 or A.counters[C_INTERRUPT] != 0 or root_done(A, P):
                break
        return done

    def _one_at_a_time(self, A: Arena, P: np.ndarray, n: int) -> int:
        if not self.shared:
            return super().run(A, P, n)
        take_tree(A)  # the whole call holds the shared tree
        try:
            return super().run(A, P, n)
        finally:
            free_tree(A)


def choose_runner(machine: StateMachine, seed: int, params: SearchParams, batch: Optional[int],
                  shared: bool = False):
    """The lanes' runner for a propnet (unless `batch` is 1: one leaf at a
    time, the search as it was before the lanes), else `serial.make_runner`
    (the single-leaf propnet kernel, or Prolog). `shared`: several threads
    search one tree (lanes only)."""
    if isinstance(machine, PropnetStateMachine) and (batch is None or batch > 1):
        return LaneRunner(machine, seed, params.max_depth, params.max_rollout,
                          max_batch=LANES if batch is None else batch, shared=shared)
    return make_runner(machine, seed, params.max_rollout)
