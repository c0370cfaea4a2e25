"""A game's rules made into the lazy engine's three programs.

Why lazy: some games' ground network is too large to build (chess's threats
are asked for every attacker, king and ignored square; sudoku's goal joins
nine marks of every row in 9^9 ways; laikLee_hex's paths remember the cells
they visited), although what one state needs of those relations is small.
So nothing state-dependent is grounded: every state's relations are computed
from its true fluents when it is met, and only what is asked for
(`demand.py`'s magic sets, applied to the whole program).

What is computed once: the static relations (no `true`, no `does` upstream),
exactly, each component whole within `STATIC_TRIAL_ATOMS` atoms and its
share of the time; one that passes them (a relation of all lists of cells)
is evaluated per state with the others, under demand. Fluents no move
changes are read as `init` (`inert.py`).

Three programs, each with what it reads and writes (`PROGRAMS`): `legal`
(the legal moves and `terminal`, asked at every step), `next` (the next
state, from the state and a joint move) and `goal` (asked at the end). Each
is rewritten under demand with its outputs, `true`, `does` and the
precomputed static relations asked whole; when that leaves a negation in a
recursion, the negated static relations are asked whole, then nothing is
under demand. This module must not know about numba's kernels.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ...gdl.terms import Rule, Term, parenthesized_names, relation_key
from ...gdl.validate import ValidatedGame
from ...reasoner.statemachine import ReasonerError
from ..grounding.demand import FROM_BASES, FROM_NEGATION_PREFIX, with_demand
from ..grounding.evaluate import Model, Trial, Unstratified as ModelUnstratified
from ..grounding.grounder import dynamic_relations, relevant
from ..grounding.inert import with_inert_fluents
from ..grounding.rules import prepare_rules
from ..grounding.term_store import TermStore
from .layout import Program
from .program import Sizes, Unstratified, compile_program, kept_rows, term_id
from .sampling import sample
from .sizes import InitialSizes, SampledSizes
from .split import split_self_negations

#: Static components are computed whole within these atoms and this share of
#: the time (at most STATIC_TRIAL_S seconds): past them a component is
#: evaluated per state, under demand.
STATIC_TRIAL_ATOMS = 1_000_000
STATIC_TRIAL_SHARE = 0.1
STATIC_TRIAL_S = 3.0

#: Static relations computed whole before the others, off trial.
WHOLE = (("init", 1), ("role", 1))

#: The states sampled for the join orders (`sampling.py`), and the time it may take.
SAMPLED_STATES = 32
SAMPLE_SECONDS = 2.0
SAMPLE_SHARE = 0.1

TRUE, DOES = ("true", 1), ("does", 2)

#: Each program's inputs and outputs, by name (the kernels read them by position).
PROGRAMS = {
    "legal": ((TRUE,), (("legal", 2), ("terminal", 0))),
    "next": ((TRUE, DOES), (("next", 1),)),
    "goal": ((TRUE,), (("goal", 2),)),
}


class LazyUnavailable(ReasonerError):
    """The rules cannot be made into programs within the bounds (the message says why)."""


@dataclass
class CompiledProgram:
    """One program, its relations by number, and the static tuples it loads."""

    program: Program
    keys: list
    #: (relation key, shape) of each view (`program.view_key`)
    views: list
    kept: list  # (relation number, rows)
    demand: str  # how demand was applied


@dataclass
class LazyGame:
    """Everything the lazy engine needs of a game, built once."""

    roles: tuple[Term, ...]
    store: TermStore
    programs: dict[str, CompiledProgram]
    role_ids: np.ndarray
    init_ids: np.ndarray
    #: goal value of each term id that is a number 0..100 (else -1), for ids made at build time
    values: np.ndarray
    #: rows each view needed in the sampled states, by view key (tables start with that room)
    rows: dict
    seconds: float
    notes: list[str] = field(default_factory=list)
    #: the opening check's figures (`machine/opening.py`), once it passed
    checked: dict = field(default_factory=dict)


def build_lazy(game: ValidatedGame, time_limit: float = 60.0, sizes: Sizes = None) -> LazyGame:
    """The game's programs (module docstring); LazyUnavailable when they cannot be made."""
    try:
        return _build(game, time_limit, sizes)
    except LazyUnavailable:
        raise
    except (ReasonerError, ValueError, RecursionError) as error:
        raise LazyUnavailable(f"{type(error).__name__}: {error}") from error


def _build(game: ValidatedGame, time_limit: float, sizes: Sizes) -> LazyGame:
    started = time.perf_counter()
    deadline = started + time_limit
    rules, _ = with_inert_fluents(prepare_rules(game))
    rules, notes = split_self_negations(rules)
    store = TermStore()
    store.parenthesized = parenthesized_names(game.rules)
    dynamic = dynamic_relations(rules)
    model = Model(store, deadline, STATIC_TRIAL_ATOMS * 4, STATIC_TRIAL_ATOMS)
    static_rules = [rule for rule in rules if relation_key(rule.head) not in dynamic]
    needed = relevant(static_rules, WHOLE)
    try:
        # the initial state and the roles whole, whatever they cost (within the
        # time limit); every other static component on trial
        model.run([rule for rule in static_rules if relation_key(rule.head) in needed], lambda rule: rule.body, str)
        asked = model.run([rule for rule in static_rules if relation_key(rule.head) not in needed],
                          lambda rule: rule.body, str,
                          trial=Trial(STATIC_TRIAL_ATOMS, min(STATIC_TRIAL_S, STATIC_TRIAL_SHARE * time_limit)))
    except ModelUnstratified as error:
        raise LazyUnavailable(f"unstratified static rules: {error}") from None
    except ReasonerError as error:
        raise LazyUnavailable(f"static relations: {error}") from None
    if asked:
        notes.append("static relations evaluated per state under demand: "
                     + ", ".join(f"{k[0]}/{k[1]}" for k in sorted(asked)))
    computed = {relation_key(rule.head) for rule in static_rules} - asked
    runtime = [rule for rule in rules if relation_key(rule.head) in dynamic or relation_key(rule.head) in asked]
    init_rows, _ = model.atoms_of(("init", 1))
    init_ids = np.unique(init_rows[:, 0]).astype(np.int32) if len(init_rows) else np.zeros(0, dtype=np.int32)
    role_ids = np.array([term_id(store, role) for role in game.roles], dtype=np.int32)

    def compiled(sizes: Sizes) -> dict:
        programs = {}
        for name, (inputs, outputs) in PROGRAMS.items():
            if time.perf_counter() > deadline:
                raise LazyUnavailable(f"time limit while compiling the {name} program")
            programs[name] = _program(runtime, outputs, inputs, computed, dynamic, model, store, sizes)
        return programs

    programs = compiled(sizes or InitialSizes(store, model, init_ids, len(game.roles)))
    rows: dict = {}
    if sizes is None:
        budget = min(SAMPLE_SECONDS, SAMPLE_SHARE * max(0.0, deadline - time.perf_counter()))
        found = sample(programs, store, role_ids, init_ids, SAMPLED_STATES, budget)
        notes.append(f"join orders from {len(found.states)} states met in {found.seconds:.2f} s of random playouts")
        programs = compiled(SampledSizes(store, model, init_ids, len(game.roles), found))
        rows = found.rows
    notes.extend(f"{name}: {program.demand}" for name, program in programs.items())
    values = np.full(store.n_ids, -1, dtype=np.int16)
    for number in range(101):
        found = store.known_symbol(("c", str(number)))
        if found is not None:
            values[found] = number
    return LazyGame(tuple(game.roles), store, programs, role_ids, init_ids, values, rows,
                    time.perf_counter() - started, notes)


def _program(runtime: list[Rule], outputs, inputs, computed: set, dynamic: frozenset, model: Model,
             store: TermStore, sizes: Sizes) -> CompiledProgram:
    needed = relevant(runtime, outputs)
    rules = [rule for rule in runtime if relation_key(rule.head) in needed]
    kept_keys = sorted(key for key in needed if key in computed)
    whole = set(outputs) | set(inputs) | set(kept_keys)
    attempts = (("demand", False, FROM_NEGATION_PREFIX), ("demand from the state", False, FROM_BASES),
                ("demand from the state, negated static relations whole", True, FROM_BASES),
                ("no demand", None, ""))
    failures = []
    for label, negated_whole, demand_from in attempts:
        rewritten = rules if negated_whole is None else with_demand(
            rules, whole, lambda key: key not in dynamic, negated_whole, demand_from).rules
        try:
            program, keys, views = compile_program(rewritten, store, frozenset(kept_keys), sizes, inputs, outputs)
        except Unstratified as error:
            failures.append(f"{label}: {error}")
            continue
        kept = []
        for number, key in enumerate(keys):
            if key in computed:
                rows, _ = model.atoms_of(key)
                kept.append((number, kept_rows(rows, key[1])))
        return CompiledProgram(program, keys, views, kept, label)
    raise LazyUnavailable("; ".join(failures))
