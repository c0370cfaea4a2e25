"""States of a game met in random playouts, and what its relations hold there.

Why: the join order of each rule (`program.py`) is chosen from expected
sizes, and the initial state says little about a typical one (sudoku's is
empty: nine marks a row look free there). So the build plays a few random
playouts with the programs it compiled first, keeps some of the states it
met and what the `legal` and `next` programs derived there, and compiles
the programs again with those sizes (`sizes.SampledSizes`).

Sampling is bounded: a time budget, and a budget of tuples per evaluation
far below the engine's own (a first order can be very bad: it must not
cost the build). When it runs out, what was met so far is used.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np

from ...reasoner.statemachine import ReasonerError
from . import game_kernels as gk
from .evaluator import Evaluator

#: Tuples one sampled evaluation may make.
SAMPLE_WORK = 300_000

#: Playouts sampled, and states met in all.
PLAYOUTS = 4
STEPS = 400


@dataclass
class ViewStats:
    """A view's rows per evaluation and distinct values per cell, summed."""

    evaluations: int = 0
    rows: float = 0.0
    distinct: list = field(default_factory=list)

    def add(self, cells: np.ndarray) -> None:
        self.evaluations += 1
        self.rows += len(cells)
        if not self.distinct:
            self.distinct = [0.0] * cells.shape[1]
        for column in range(cells.shape[1]):
            self.distinct[column] += len(np.unique(cells[:, column])) if len(cells) else 0


@dataclass
class Sample:
    """States met (fluent ids) and each view's statistics, by `program.view_key`."""

    states: list = field(default_factory=list)
    views: dict = field(default_factory=dict)
    #: rows each view needed room for, by `program.view_key`
    rows: dict = field(default_factory=dict)
    seconds: float = 0.0


def sample(programs: dict, store, role_ids: np.ndarray, init_ids: np.ndarray, max_states: int,
           seconds: float, seed: int = 0) -> Sample:
    """Random playouts from the initial state (module docstring): at most
    `PLAYOUTS` of them and `STEPS` steps in all, so that the states and the
    orders made from them do not depend on the machine's load, unless
    `seconds` run out first."""
    started = time.perf_counter()
    deadline = started + seconds
    legal = Evaluator(programs["legal"], store, work_budget=SAMPLE_WORK)
    step = Evaluator(programs["next"], store, work_budget=SAMPLE_WORK)
    rng = random.Random(seed)
    found = Sample()
    met: list = []
    moves = np.full(max(1, len(role_ids)), -1, dtype=np.int32)
    buffer = np.zeros(64, dtype=np.int32)
    try:
        for _ in range(PLAYOUTS):
            if time.perf_counter() > deadline or len(met) >= STEPS:
                break
            state = init_ids.copy()
            for _ in range(STEPS - len(met)):
                if time.perf_counter() > deadline:
                    break
                tables = legal.evaluate(store, state, len(state), role_ids, moves)
                met.append(state)
                _measure(found.views, legal, tables)
                if gk.output_count(legal.compiled.program, tables, 1) > 0:
                    break
                count = int(gk.output_count(legal.compiled.program, tables, 0))
                if count > len(buffer):
                    buffer = np.zeros(2 * count, dtype=np.int32)
                for role in range(len(role_ids)):
                    n = gk.legal_of(legal.compiled.program, tables, role_ids, role, buffer)
                    moves[role] = buffer[rng.randrange(n)] if n else -1
                tables = step.evaluate(store, state, len(state), role_ids, moves)
                _measure(found.views, step, tables)
                n = int(gk.output_count(step.compiled.program, tables, 0))
                state = np.array([gk.output_cell(step.compiled.program, tables, 0, row, 0) for row in range(n)],
                                 dtype=np.int32)
    except ReasonerError:
        pass  # a first join order too bad to sample with: keep what was met
    for evaluator in (legal, step):
        for v, key in enumerate(evaluator.compiled.views):
            found.rows[key] = max(found.rows.get(key, 0), int(evaluator.caps[v]))
    if len(met) > max_states:
        met = [met[i] for i in sorted(rng.sample(range(len(met)), max_states))]
    found.states = met
    found.seconds = time.perf_counter() - started
    return found


def _measure(views: dict, evaluator: Evaluator, tables) -> None:
    program = evaluator.compiled.program
    for v, key in enumerate(evaluator.compiled.views):
        if program.rel_static[program.view_rel[v]]:
            continue
        n, width = int(tables.view_n[v]), int(program.view_width[v])
        base = int(tables.view_base[v])
        cells = tables.cells[base: base + n * max(width, 1)].reshape(n, max(width, 1))[:, :width]
        views.setdefault(key, ViewStats()).add(cells)
