"""The process's one warm-up: start Prolog and load every numba kernel before the first START.

Numba compiles a kernel the first time it meets a combination of argument
types and caches the result on disk (`NUMBA_CACHE_DIR`, else `__pycache__`
next to the sources); SWI-Prolog starts and loads our runtime the first time a
game is compiled. Every game gives the kernels the same types (a game is data),
so one tiny game played through every entry point once (the three engines,
the propnet's benchmark strategies, every search rule, a root move, a garbage
collection) loads or compiles all of them: after that a new game's START
finds them in memory. The Docker image runs this at build time, so the kernels
are compiled into the image; `ggp-agent serve` and the tournament's players run
it when they start. The first run on a fresh install compiles (a minute or two
on a 2-core machine); later runs only load the cache (a few seconds).
"""

from __future__ import annotations

import enum
import importlib
import logging
import pkgutil
import threading
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Callable

from numba.core.registry import CPUDispatcher

from ..engines import make_state_machine
from ..gdl import ValidatedGame, load_game
from ..propnet.jit.decorators import KERNEL_FOLDERS, dispatchers
from ..propnet.jit.numba_cache import counting_compilations
from ..propnet.machine.compiled import COMPILED
from ..propnet.network.sparse_plan import planned
from ..reasoner.statemachine import StateMachine
from .registry import make_tree_search
from .registry import make_search
from .tree.params import PARALLEL, RULES

log = logging.getLogger(__name__)

#: Tic-tac-toe on a 2x2 board, two in a row wins: tiny, turn-taking, with noop,
#: terminal states and three goal values, so every path of the search runs;
#: `touches` is recursive over the state, so the propnet has a cyclic
#: component and Prolog a tabled relation.
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
(<= (touches ?m ?p) (true (cell ?m 1 ?p)) (distinct ?p b))
(<= (touches ?m ?p) (touches ?k ?p) (true (cell ?m ?k ?p)))
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

_warm = False
_warm_lock = threading.Lock()


class WarmUpStatus(enum.Enum):
    OK = "ok"
    FAILED = "failed"


@dataclass(frozen=True)
class WarmUpStep:
    """What one engine's part of the warm-up did; `compiled` counts the functions
    numba compiled meanwhile (0 when its cache served, as it should after the
    first run)."""

    part: str
    status: WarmUpStatus
    seconds: float
    detail: str = ""
    compiled: int = 0


#: The warm-up's builds may take this long: on a fresh install they include
#: compiling the kernels they call (the lazy engine's, a minute on this
#: machine under load), which a START's budget need not allow for.
BUILD_SECONDS = 900.0


def warm_up() -> list[WarmUpStep]:
    """Run the tiny game through each engine and every search rule; never raises
    (a failed part is reported and logged, and the server still serves)."""
    game = load_game(WARMUP_GAME)
    steps = [_timed(engine, lambda engine=engine: _exercise_engine(engine, game))
             for engine in ("prolog", "propnet", "lazy")]
    for step in steps:
        level = logging.ERROR if step.status is WarmUpStatus.FAILED else logging.INFO
        log.log(level, "warm-up %s: %s in %.2f s, %d numba functions compiled%s", step.part, step.status.value,
                step.seconds, step.compiled, f" ({step.detail})" if step.detail else "")
    return steps


def ensure_warm() -> None:
    """`warm_up` once per process (servers, tournament workers)."""
    global _warm
    with _warm_lock:
        if not _warm:
            warm_up()
            _warm = True


def kernel_modules() -> tuple[ModuleType, ...]:
    """Every module of the rooms that hold kernels (the propnet's and the
    search's) that defines one: found by walking them, so that a module
    added later is loaded by the warm-up and counted by the tests."""
    found = []
    for folder in KERNEL_FOLDERS:
        for info in pkgutil.walk_packages([str(folder)], prefix=f"ggp_agent.{folder.name}."):
            module = importlib.import_module(info.name)
            if dispatchers(module):
                found.append(module)
    return tuple(found)


def all_kernels() -> dict[str, CPUDispatcher]:
    """Every numba kernel of the project, by qualified name."""
    return dispatchers(*kernel_modules())


def _timed(part: str, function: Callable[[], object]) -> WarmUpStep:
    began = time.perf_counter()
    with counting_compilations() as compiled:
        try:
            function()
        except Exception as error:  # noqa: BLE001 - reported; the server still serves
            return WarmUpStep(part, WarmUpStatus.FAILED, time.perf_counter() - began,
                              f"{type(error).__name__}: {error}"[:300], len(compiled))
    return WarmUpStep(part, WarmUpStatus.OK, time.perf_counter() - began, compiled=len(compiled))


def _exercise_engine(engine: str, game: ValidatedGame) -> None:
    """Every helper of the engine's state machine once, then every search rule over it."""
    with make_state_machine(engine, game, time_limit=BUILD_SECONDS) as machine:
        state = machine.initial_state()
        machine.legal_codes(state, 0)
        machine.next_info(state, [machine.legal_moves(state, 0)[0], machine.legal_moves(state, 1)[0]])
        machine.random_playout(state, max_steps=20, seed=1)
        machine.bounded_playout(state, 10, 0.05)
        machine.bench(0.0, max_steps=20)
        for rule in RULES:
            _exercise_search(rule, machine)
        for parallel in PARALLEL:
            _exercise_threads(parallel, machine)
    if engine == "propnet":
        _exercise_sparse_plan(game)


def _exercise_sparse_plan(game: ValidatedGame) -> None:
    """The sparse pass's plan, forced on the tiny game (too small to get one
    by itself): its kernels run only for big networks, which a START must
    not wait to compile."""
    compiled, _ = COMPILED.get(game, 30.0)
    planned(compiled.network, min_gates=0, share=1.0)


def _exercise_threads(parallel: str, machine: StateMachine) -> None:
    """Two threads' search (one tree each, or one shared tree: the kernels a
    shared tree calls from Python), their workers started and stopped."""
    search = make_search("mcps", machine, 0, seed=1, threads=2, parallel=parallel, memory_cap=8 << 20,
                         options={"rho": 2, "amaf_alloc": 1})
    state = machine.initial_state()
    search.start(state, tuple(machine.legal_moves(state, 0)))
    search.think_until(time.monotonic() + 0.05)
    time.sleep(0.05)
    search.best_move()
    search.stats()
    search.stop()


def _exercise_search(rule: str, machine: StateMachine) -> None:
    """A whole game of the tiny game against itself, with root moves and collections."""
    options = {"rho": 2, "amaf_alloc": 1, **({"priors": "fitted"} if rule == "mcps" else {})}
    search = make_tree_search(rule, machine, 0, seed=1, memory_cap=4 << 20, options=options)
    state = machine.initial_state()
    search.prepare(state)
    # a root change without a joint move (GDL-II's determinizations): MCPS
    # clears its window here, as after a root it had not expanded in a match
    search.advance(None, state)
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
