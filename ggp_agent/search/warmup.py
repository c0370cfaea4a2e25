"""Warm the search kernels when the process starts, so that a START compiles nothing.

Numba compiles a kernel the first time it meets a new combination of argument
types, and loads it from its disk cache the first time it meets a known one.
Every game gives the kernels the same types (a game is data), so one small
game played through every path once (both runners, every rule, a root move,
a garbage collection) loads or compiles all of them; after that a new game's
START finds them in memory. The first run on a fresh install compiles (about
a minute on this machine); later runs only load the cache (a few seconds).
"""

from __future__ import annotations

import logging
import threading
import time

from ..gdl import load_game

log = logging.getLogger(__name__)

_warm = False
_warm_lock = threading.Lock()

#: Tic-tac-toe on a 2x2 board, two in a row wins: tiny, turn-taking, with noop,
#: terminal states and three goal values, so every path of the search runs.
WARMUP_GAME = """
(role x) (role o)
(init (cell 1 1 b)) (init (cell 1 2 b)) (init (cell 2 1 b)) (init (cell 2 2 b))
(init (control x))
(<= (legal ?p (mark ?m ?n)) (true (cell ?m ?n b)) (true (control ?p)))
(<= (legal x noop) (true (control o)))
(<= (legal o noop) (true (control x)))
(<= (next (cell ?m ?n ?p)) (does ?p (mark ?m ?n)))
(<= (next (cell ?m ?n ?c)) (true (cell ?m ?n ?c)) (does ?p (mark ?j ?k)) (distinct ?m ?j))
(<= (next (cell ?m ?n ?c)) (true (cell ?m ?n ?c)) (does ?p (mark ?j ?k)) (distinct ?n ?k))
(<= (next (control o)) (true (control x)))
(<= (next (control x)) (true (control o)))
(<= (row ?m ?p) (true (cell ?m 1 ?p)) (true (cell ?m 2 ?p)))
(<= (column ?n ?p) (true (cell 1 ?n ?p)) (true (cell 2 ?n ?p)))
(<= (line ?p) (row ?m ?p) (distinct ?p b))
(<= (line ?p) (column ?n ?p) (distinct ?p b))
(<= open (true (cell ?m ?n b)))
(<= (goal x 100) (line x))
(<= (goal x 50) (not (line x)) (not (line o)))
(<= (goal x 0) (line o))
(<= (goal o 100) (line o))
(<= (goal o 50) (not (line x)) (not (line o)))
(<= (goal o 0) (line x))
(<= terminal (line x))
(<= terminal (line o))
(<= terminal (not open))
"""


def warm_up(rules=("uct", "grave", "mcps"), engines=("propnet", "prolog")) -> float:
    """Run every search path once on a tiny game; returns the seconds it took."""
    from ..engines import make_state_machine
    from .driver import make_tree_search

    began = time.perf_counter()
    game = load_game(WARMUP_GAME)
    for engine in engines:
        machine = make_state_machine(engine, game)
        try:
            for rule in rules:
                _exercise(make_tree_search(rule, machine, 0, seed=1, memory_cap=4 << 20,
                                           options={"rho": 2, "amaf_alloc": 1}), machine)
        finally:
            machine.close()
    seconds = time.perf_counter() - began
    log.info("search kernels warm in %.1f s", seconds)
    return seconds


def ensure_warm() -> None:
    """`warm_up` once per process (servers, tournament workers)."""
    global _warm
    with _warm_lock:
        if not _warm:
            warm_up()
            _warm = True


def _exercise(search, machine) -> None:
    state = machine.initial_state()
    search.prepare(state)
    roles = range(len(machine.roles))
    while not machine.is_terminal(state):
        search.search(64)
        search.stats()
        joint = []
        for role in roles:
            moves = machine.legal_moves(state, role)
            move = search.best_move() if role == 0 else None
            joint.append(move if move in moves else moves[0])
        state = machine.next_state(state, joint)
        search.advance(joint, state)
        search.collect_now(state)
    search.collect_now(state, reset=True)
    search.search(8)
    search.stop()
