"""The grounder: every ground rule instance the propnet needs.

The domain is the least model of a relaxed program: with `base`/`input` when
the game has them and they prove complete (init and next inside base, legal
inside input), else the fixpoint of `true <- init | next` and
`does <- legal`, with negation on state-dependent relations ignored
(`distinct` and negation of static relations still apply). Static relations
are computed exactly and vanish from the instances: a static literal that
holds is dropped, an instance with one that fails never appears.

How: the rules are rewritten so that a relation is computed only for the
arguments its callers ask about (`demand.py`), and the program is evaluated
bottom up over integer tables (`evaluate.py`, `relations.py`, terms as ids in
`term_store.py`), in numpy and numba rather than Prolog (docs/propnet.md,
"Where the time goes"). Then the rules of state-dependent relations are
factored (`rules.Factoring`) using the measured sizes of their literals,
and their instances enumerated against the model.

What comes out (`Grounding`): the atoms of the state-dependent relations,
numbered from 0, and each ground instance as integers (head atom, literal
count, literals `2 * atom + negated`); the atoms of `true`, `does`, `legal`,
`goal`, `terminal` and `next` as terms, and the static answers of those
relations and of `init` and `role`.

Grounding is bounded: a time limit over all of it (checked before every
join), a cap on atoms, one on instances and one on the rows of a join.
Giving up raises `GroundingError`, which says where (which relation or rule)
and why. This module must not build the network: it stops at integers.
"""

from __future__ import annotations

import itertools
import time
from typing import Optional

import numpy as np

from ...gdl.analysis import sentence_of
from ...gdl.normalize import is_positive_sentence
from ...gdl.terms import Compound, Not, Rule, Variable, parenthesized_names, relation_key
from ...gdl.validate import ValidatedGame
from .demand import demanded, with_demand
from .evaluate import GroundingError, Model, RelationTooLarge, Trial, Unstratified
from .program import Grounding
from .inert import with_inert_fluents
from .joins import MAX_ROWS
from .relations import view
from .rules import Estimates, Factoring, canonical, merge_alternatives, prepare_rules
from .term_store import TermStore

__all__ = ["Grounding", "GroundingError", "ground", "dynamic_relations", "DEFAULT_MAX_ATOMS", "DEFAULT_MAX_INSTANCES"]

#: Default caps: beyond these a propnet would not pay for itself anyway.
DEFAULT_MAX_ATOMS = 4_000_000
DEFAULT_MAX_INSTANCES = 6_000_000

#: Relations whose atoms the network builder needs as terms.
WANTED = (("true", 1), ("does", 2), ("legal", 2), ("goal", 2), ("terminal", 0), ("next", 1), ("init", 1), ("role", 1))

_STATE = {("true", 1), ("does", 2)}

#: Each component of the static relations is first computed whole, within
#: these atoms and this share of the time limit; past them it is computed
#: under demand (`demand.py`) with the state-dependent relations.
STATIC_TRIAL_ATOMS = 500_000
STATIC_TRIAL_SHARE = 0.1

#: The other relations are computed whole too, unless one passes this many
#: atoms (or a join of its rules passes its cap): that one is then computed
#: under demand and the model computed again, at most `DEMAND_RETRIES` times.
#: Demand first would cost more where callers bind arguments from independent
#: sources (chess's threats are asked for every attacker, king and ignored
#: square: millions of demands for a relation of 50,000 atoms).
WHOLE_CAP = 300_000
DEMAND_RETRIES = 6


def dynamic_relations(rules, base: frozenset = frozenset()) -> frozenset:
    """Relations whose truth depends on `true` or `does`, plus those two."""
    dependent = set(base) | _STATE
    heads: dict[tuple[str, int], list[set]] = {}
    for rule in rules:
        body = {relation_key(s) for s in map(sentence_of, rule.body) if s is not None}
        heads.setdefault(relation_key(rule.head), []).append(body)
    changed = True
    while changed:
        changed = False
        for head, bodies in heads.items():
            if head not in dependent and any(body & dependent for body in bodies):
                dependent.add(head)
                changed = True
    return frozenset(dependent)


def ground(
    game: ValidatedGame,
    rules: Optional[tuple[Rule, ...]] = None,
    time_limit: float = 10.0,
    max_atoms: int = DEFAULT_MAX_ATOMS,
    max_instances: int = DEFAULT_MAX_INSTANCES,
    use_base: bool = True,
    factor: bool = True,
    demand: bool = True,
) -> Grounding:
    """Ground the game's rules (or `rules`) within the given bounds."""
    rules = prepare_rules(game) if rules is None else rules
    rules, inert = with_inert_fluents(rules)
    has_base = any(relation_key(r.head) == ("base", 1) for r in rules) and any(
        relation_key(r.head) == ("input", 2) for r in rules
    )
    modes = ["base", "relaxed"] if use_base and has_base else ["relaxed"]
    started = time.perf_counter()
    notes: list[str] = []
    spelling = parenthesized_names(game.rules)
    profile: dict = {}
    for mode in modes:
        job = _Job(tuple(game.roles), mode, tuple(rules), started + time_limit, started, max_atoms, max_instances,
                   factor, demand, spelling)
        try:
            result = job.run()
        except _BaseIncomplete as incomplete:
            notes.append(f"base/input incomplete ({incomplete}): grounded by the relaxed fixpoint instead")
            _merge(profile, job.profile())
            continue
        except GroundingError as error:
            _merge(profile, job.profile())
            error.seconds = time.perf_counter() - started
            error.profile = _sorted(profile)
            raise
        except MemoryError:
            _merge(profile, job.profile())
            raise GroundingError("out of memory", "", time.perf_counter() - started, _sorted(profile)) from None
        _merge(profile, job.profile())
        result.notes = notes + result.notes
        result.seconds = time.perf_counter() - started
        result.profile = _sorted(profile)
        return result
    raise AssertionError("unreachable")  # pragma: no cover


class _BaseIncomplete(Exception):
    """base/input do not hold every state and move (the message says which)."""


def _merge(profile: dict, steps: dict) -> None:
    for step, (seconds, count) in steps.items():
        old = profile.get(step, (0.0, 0))
        profile[step] = (old[0] + seconds, old[1] + count)


def _sorted(profile: dict) -> tuple:
    return tuple(sorted(((step, s, c) for step, (s, c) in profile.items()), key=lambda item: -item[1]))


def _state_rules(mode: str) -> list[Rule]:
    x, p, m = Variable("?x"), Variable("?p"), Variable("?m")
    true, does = Compound("true", (x,)), Compound("does", (p, m))
    if mode == "base":
        return [Rule(true, (Compound("base", (x,)),)), Rule(does, (Compound("input", (p, m)),))]
    return [Rule(true, (Compound("init", (x,)),)), Rule(true, (Compound("next", (x,)),)),
            Rule(does, (Compound("legal", (p, m)),))]


class _Job:
    """One grounding in one mode."""

    def __init__(self, roles, mode, rules, deadline, started, max_atoms, max_instances, factor, demand,
                 spelling) -> None:
        self.roles, self.mode, self.rules = roles, mode, rules
        self.started, self.max_instances = started, max_instances
        self.factor, self.demand = factor, demand
        self.store = TermStore()
        self.store.parenthesized = spelling
        self.model = Model(self.store, deadline, max_atoms, MAX_ROWS)
        self.phases: dict = {}
        self.notes: list[str] = []

    def profile(self) -> dict:
        steps = {step: (s, c) for step, (s, c) in self.model.profile.items()}
        steps.update(self.phases)
        return steps

    def phase(self, name: str, began: float) -> None:
        old = self.phases.get(name, (0.0, 0))
        self.phases[name] = (old[0] + time.process_time() - began, 0)

    def run(self) -> Grounding:
        all_rules = list(self.rules) + _state_rules(self.mode)
        dynamic = dynamic_relations(all_rules)
        needed = relevant(all_rules)
        self._program(all_rules, dynamic, needed)
        model = self.model
        if self.mode == "base":
            problem = self._base_problem()
            if problem:
                raise _BaseIncomplete(problem)

        # -- factoring -----------------------------------------------------------------
        network_rules = [rule for rule in self.rules if relation_key(rule.head) in dynamic
                         and relation_key(rule.head) in needed]
        aux_rules: list[Rule] = []
        if self.factor and network_rules:
            began = time.process_time()
            estimates = Estimates(self._measure(network_rules))
            factoring = Factoring(estimates, lambda key: key not in dynamic)
            factored = []
            for rule in network_rules:
                factored.extend(factoring.factor(rule))
            aux_rules = factoring.aux_rules
            names = itertools.count(factoring.aux_count + 1)
            with_aux = dynamic_relations(list(self.rules) + aux_rules + _state_rules(self.mode))
            merged, alt_rules = merge_alternatives(aux_rules + factored, lambda key: key not in with_aux,
                                                   lambda: f"aux {next(names)}")
            aux_keys = {relation_key(rule.head) for rule in aux_rules}
            aux_rules = [rule for rule in merged if relation_key(rule.head) in aux_keys] + alt_rules
            network_rules = [rule for rule in merged if relation_key(rule.head) not in aux_keys]
            self.phase("factoring", began)
        if aux_rules:
            dynamic = dynamic_relations(list(self.rules) + aux_rules + _state_rules(self.mode))
            model.run(aux_rules, lambda rule: _relaxed(rule.body, dynamic), str)
        network_rules = [rule for rule in aux_rules + network_rules if relation_key(rule.head) in dynamic]

        # -- instances ------------------------------------------------------------------
        dense = self._numbering(dynamic)
        parts = []
        n_instances = 0
        for rule in network_rules:
            where = f"instances of rule {rule}"
            model.check_time(where)
            began = time.process_time()
            heads, literals = model.instances(rule, lambda key: key in dynamic, where)
            n_instances += len(heads)
            if n_instances > self.max_instances:
                raise GroundingError(f"too many instances (more than {self.max_instances})", where)
            parts.append(_flat(dense, heads, literals))
            step = model.profile[where]
            step[0] += time.process_time() - began
            step[1] += len(heads)
        instances = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        began = time.process_time()
        dynamic_atoms, static_atoms = self._wanted(dynamic, dense)
        self.phase("reading the atoms", began)
        return Grounding(
            roles=self.roles, mode=self.mode, n_atoms=int(dense.max(initial=-1)) + 1, instances=instances,
            n_instances=n_instances, dynamic_atoms=dynamic_atoms, static_atoms=static_atoms,
            seconds=time.perf_counter() - self.started, n_rules=len(network_rules), n_aux=len(aux_rules),
            notes=self.notes)

    def _program(self, all_rules: list[Rule], dynamic: frozenset, needed: set) -> None:
        """Compute the model: each relation whole where it stays small, under
        demand where it does not (the static ones tried first, one component
        at a time; the others by a run that starts again with one more
        relation under demand each time one grows too large), for the
        relations in `needed` (those the network's outputs depend on)."""
        all_rules = [rule for rule in all_rules if relation_key(rule.head) in needed]
        heads = {relation_key(rule.head) for rule in all_rules}
        asked: set = set()
        if self.demand:
            static = [rule for rule in all_rules if relation_key(rule.head) not in dynamic]
            trial = Trial(STATIC_TRIAL_ATOMS, STATIC_TRIAL_SHARE * (self.model.deadline - self.started))
            try:
                asked = self.model.run(static, lambda rule: rule.body, str, trial=trial)
            except Unstratified:  # raised before anything is computed
                asked = {relation_key(rule.head) for rule in static}
            done = {relation_key(rule.head) for rule in static} - asked
            if asked:
                names = sorted(f"{key[0]}/{key[1]}" for key in asked)
                self.notes.append(f"{len(names)} static relation(s) past the trial's bounds, computed with the "
                                  f"others (under demand unless wanted): {', '.join(names[:6])}"
                                  + (", ..." if len(names) > 6 else ""))
            all_rules = [rule for rule in all_rules if relation_key(rule.head) not in done]
        before = set(self.model.tables)
        attempts = [False, True] if self.demand else []
        retries = 0
        while True:
            negated_whole = attempts[0] if attempts else None
            if negated_whole is None or not asked:
                rules = all_rules
            else:
                began = time.process_time()
                rules = with_demand(all_rules, asked_whole(heads, asked), lambda key: key not in dynamic,
                                    negated_whole).rules
                self.phase("demand", began)
            watched = heads - set(WANTED) - asked
            if self.demand and retries < DEMAND_RETRIES:
                self.model.watch = (lambda key: key in watched, min(WHOLE_CAP, self.model.max_atoms // 4))
            try:
                self.model.run(rules, lambda rule: _relaxed(rule.body, dynamic), str,
                               lambda rule: demanded(relation_key(rule.head)) not in dynamic)
                return
            except Unstratified as error:
                if negated_whole is None or not asked:
                    raise GroundingError(f"unstratified: {error}") from None
                self.notes.append(f"demand {'without negated relations ' if negated_whole else ''}"
                                  f"left a negation in a recursion ({error})")
                attempts.pop(0)
            except RelationTooLarge as error:
                self.notes.append(f"{error.key[0]}/{error.key[1]} computed under demand: whole it passed "
                                  f"{self.model.watch[1]} atoms")
                asked.add(error.key)
                retries += 1
                self.model.forget(set(self.model.tables) - before)
            finally:
                self.model.watch = None

    def _base_problem(self) -> str:
        """Why base/input do not hold every state and move, or ''."""
        model = self.model
        for source, target, name in ((("init", 1), ("true", 1), "init_outside_base"),
                                     (("next", 1), ("true", 1), "next_outside_base"),
                                     (("legal", 2), ("does", 2), "legal_outside_input")):
            rows, _ = model.atoms_of(source)
            tag = self.store.symbol(("r",) + target)
            ids = self.store.chain(tag, [rows[:, i] for i in range(source[1])], len(rows), insert=False)
            outside = ~np.isin(ids, model.atoms_of(target)[1])
            if outside.any():
                args = ", ".join(str(self.store.term(int(a))) for a in rows[int(np.argmax(outside))])
                return f"{name}({args})"
        return ""

    def _measure(self, rules: list[Rule]) -> dict[str, list[int]]:
        """Count facts and distinct values per variable for every positive literal."""
        measured: dict[str, list[int]] = {}
        for rule in rules:
            for literal in rule.body:
                if not is_positive_sentence(literal):
                    continue
                key, order = canonical(literal)
                if key in measured:
                    continue
                table = self.model.table(relation_key(literal))
                args = literal.args if isinstance(literal, Compound) else ()
                found = view(self.store, table, args, 0, table.n)
                measured[key] = [found.n] + [found.distinct(v) if found.n else 0 for v in order]
        return measured

    def _numbering(self, dynamic: frozenset) -> np.ndarray:
        """Atom id -> number among the state-dependent atoms (-1 for others)."""
        dense = np.full(self.store.n_ids, -1, dtype=np.int64)
        number = 0
        for key in sorted(k for k in self.model.tables if k in dynamic):
            _, atoms = self.model.atoms_of(key)
            dense[atoms] = np.arange(number, number + len(atoms))
            number += len(atoms)
        return dense

    def _wanted(self, dynamic: frozenset, dense: np.ndarray) -> tuple[dict, dict]:
        """The wanted relations' atoms as argument terms: each distinct term
        read back once (amazons has 280,000 moves, each a legal and a does
        atom)."""
        dynamic_atoms: dict = {}
        static_atoms: dict = {}
        for key in WANTED:
            rows, atoms = self.model.atoms_of(key)
            columns = [self._terms(rows[:, i]) for i in range(key[1])]
            args = list(zip(*columns)) if columns else [()] * len(atoms)
            if key in dynamic:
                dynamic_atoms[key] = list(zip(dense[atoms].tolist(), args))
            else:
                static_atoms[key] = args
        return dynamic_atoms, static_atoms

    def _terms(self, ids: np.ndarray) -> list:
        distinct, index = np.unique(ids, return_inverse=True)
        terms = [self.store.term(term_id) for term_id in distinct.tolist()]
        return [terms[i] for i in index.tolist()]


def asked_whole(heads: set, asked: set) -> set:
    """The relations the demand rewriting asks with nothing bound: every one
    not computed under demand, and the wanted ones always, even when the
    static trial gave up on them (`asked`). A relation the rewriting asks
    neither whole nor from a caller gets no rules at all: `init`, which no
    rule reads when `true` comes from `base`, came out empty, and the
    network's initial state with it."""
    return (set(heads) - set(asked)) | set(WANTED)


def _relaxed(body, dynamic: frozenset) -> list:
    """The body without negations of state-dependent relations (the relaxed program)."""
    return [literal for literal in body
            if not (isinstance(literal, Not) and sentence_of(literal) is not None
                    and relation_key(sentence_of(literal)) in dynamic)]


def relevant(rules: list[Rule], outputs=WANTED) -> set:
    """The relations `outputs` depend on through `rules`, and those (the
    grounder's wanted relations by default; the lazy engine's programs
    ask for theirs)."""
    reads: dict = {}
    for rule in rules:
        body = reads.setdefault(relation_key(rule.head), set())
        body.update(relation_key(s) for s in map(sentence_of, rule.body) if s is not None)
    found = set(outputs)
    stack = list(found)
    while stack:
        for key in reads.get(stack.pop(), ()):
            if key not in found:
                found.add(key)
                stack.append(key)
    return found


def _flat(dense: np.ndarray, heads: np.ndarray, literals: list) -> np.ndarray:
    """Instances as head, literal count, literals (2 * number + negated), in one int64 array."""
    n = len(heads)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if (dense[heads] < 0).any():
        raise GroundingError("internal: an instance's head is not a state-dependent atom")
    codes = []
    for negated, ids in literals:
        if not negated and (dense[np.maximum(ids, 0)] < 0).any():
            raise GroundingError("internal: a positive literal is not a state-dependent atom")
        number = np.where(ids >= 0, dense[np.maximum(ids, 0)], -1)
        codes.append(np.where(number >= 0, 2 * number + int(negated), -1))
    matrix = np.full((n, 2 + len(codes)), -1, dtype=np.int64)
    matrix[:, 0] = dense[heads]
    for index, column in enumerate(codes):
        matrix[:, 2 + index] = column
    matrix[:, 1] = (matrix[:, 2:] >= 0).sum(axis=1)
    flat = matrix.ravel()
    return flat[flat >= 0]
