"""A Datalog program evaluated bottom up over integer tables: the grounder's engine.

`Model` holds a table per relation (`relations.Table`) and computes a
program's least model one strongly connected component at a time,
dependencies first; a recursive component by semi-naive rounds (each round
joins one recursive literal against the atoms the round before found, the
others against all). A rule's body is solved by `solve`: its positive
literals joined one at a time, next the one expected to make the fewest rows
(a literal whose variables are all bound is a lookup of atom ids), each join
projected on the variables still needed (so a group of literals the head
does not need is an existence test, not a product), the negations and
`distinct` applied as soon as their variables are bound.

`instances` enumerates a rule's ground instances against the finished model:
the head and the literals of state-dependent relations as atom ids, the
static literals checked and dropped.

Bounded: caps on atoms and on the rows of a join (`relations.MAX_ROWS`), a
deadline checked before every join; giving up raises `GroundingError`
saying where. This module must not know which relations the network wants
or how rules were rewritten.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from ...gdl.analysis import sentence_of, strongly_connected_components
from ...gdl.normalize import is_positive_sentence
from ...gdl.terms import Distinct, Not, Rule, Symbol, relation_key, variables
from ...reasoner.statemachine import ReasonerError
from .joins import Bindings, JoinTooLarge, View, join
from .relations import Table, build, build_chain, member, view
from .term_store import TermStore


class GroundingError(ReasonerError):
    """The grounder gave up: `where` names the relation or rule, `reason` says why."""

    def __init__(self, reason: str, where: str = "", seconds: float = 0.0, profile: tuple = ()) -> None:
        self.reason = reason
        self.where = where
        self.seconds = seconds
        #: (step, CPU seconds, answers or instances) of the grounding until it gave up
        self.profile = profile
        super().__init__(f"grounding gave up ({reason})" + (f" at {where}" if where else ""))


class Unstratified(Exception):
    """A negation inside a recursive component of the program as evaluated."""


class TooLarge(Exception):
    """A component passed the bounds of a trial (`Model.run`'s `trial`)."""


class RelationTooLarge(Exception):
    """A watched relation (`Model.watch`) passed its cap."""

    def __init__(self, key: tuple[str, int]) -> None:
        self.key = key
        super().__init__(f"{key[0]}/{key[1]}")


@dataclass(frozen=True)
class Trial:
    """Bounds on each component of a tentative run: atoms and seconds."""

    atoms: int
    seconds: float


def relation_tag_key(key: tuple[str, int]) -> tuple:
    return ("r", key[0], key[1])


class Model:
    """The tables of one grounding and the bounds it runs under."""

    def __init__(self, store: TermStore, deadline: float, max_atoms: int, max_rows: int) -> None:
        self.store = store
        self.deadline = deadline
        self.max_atoms = max_atoms
        self.max_rows = max_rows
        self.tables: dict[tuple[str, int], Table] = {}
        self.in_model = np.zeros(1024, dtype=bool)
        self.in_delta = np.zeros(1024, dtype=bool)
        self.n_atoms = 0
        #: step -> [CPU seconds, answers or instances]
        self.profile: dict[str, list] = defaultdict(lambda: [0.0, 0])
        #: views of the last round's rows, by (literal, rows); views of whole
        #: tables by literal, and their projections by (literal, variables):
        #: those grow with their tables
        self._deltas_seen: dict = {}
        self._full: dict = {}
        self._projected: dict = {}
        #: the bounds of the component under way in a trial: (atoms left, deadline)
        self._trial: Optional[list] = None
        #: each literal's variables, asked for in every join order tried; kept
        #: for this grounding only (a cache for the process would keep every
        #: game's terms a server has seen)
        self._names: dict = {}
        #: relations with a cap of their own: (which, atoms)
        self.watch: Optional[tuple[Callable, int]] = None

    def names(self, literal) -> frozenset:
        """The variables of a literal (literals are immutable: kept once computed)."""
        found = self._names.get(literal)
        if found is None:
            found = self._names[literal] = frozenset(variables(literal))
        return found

    # -- tables ----------------------------------------------------------------------

    def table(self, key: tuple[str, int]) -> Table:
        found = self.tables.get(key)
        if found is None:
            found = self.tables[key] = Table.empty(key, self.store.symbol(relation_tag_key(key)))
        return found

    def _flags(self) -> None:
        size = self.store.n_ids
        if size > len(self.in_model):
            grown = max(size, 2 * len(self.in_model))
            self.in_model = np.concatenate([self.in_model, np.zeros(grown - len(self.in_model), dtype=bool)])
            self.in_delta = np.concatenate([self.in_delta, np.zeros(grown - len(self.in_delta), dtype=bool)])

    def add(self, key: tuple[str, int], rows: np.ndarray, atoms: np.ndarray, where: str) -> int:
        """Add the atoms not yet in the model (once each); how many were new."""
        self._flags()
        fresh = ~self.in_model[atoms]
        atoms, rows = atoms[fresh], rows[fresh]
        atoms, first = np.unique(atoms, return_index=True)
        rows = rows[first]
        if len(atoms) == 0:
            return 0
        if self.watch is not None and self.watch[0](key) and self.table(key).n + len(atoms) > self.watch[1]:
            raise RelationTooLarge(key)
        if self._trial is not None:
            self._trial[0] -= len(atoms)
            if self._trial[0] < 0:
                raise TooLarge(where)
        self.n_atoms += len(atoms)
        if self.n_atoms > self.max_atoms:
            raise GroundingError(f"too many atoms (more than {self.max_atoms})", where)
        self.in_model[atoms] = True
        self.table(key).add(rows, atoms)
        return len(atoms)

    def atoms_of(self, key: tuple[str, int]) -> tuple[np.ndarray, np.ndarray]:
        table = self.tables.get(key)
        if table is None:
            return np.zeros((0, key[1]), dtype=np.int32), np.zeros(0, dtype=np.int32)
        return table.rows[: table.n], table.atoms[: table.n]

    def holds(self, sentence, columns: dict, n: int) -> np.ndarray:
        """Per row of bindings, whether the sentence's atom is in the model."""
        return member(self.in_model, self.atom_ids(sentence, columns, n, insert=False))

    def atom_ids(self, sentence, columns: dict, n: int, insert: bool) -> np.ndarray:
        key = relation_key(sentence)
        args = () if isinstance(sentence, Symbol) else sentence.args
        return build_chain(self.store, relation_tag_key(key), args, columns, n, insert)

    def check_time(self, where: str) -> None:
        now = time.perf_counter()
        if now > self.deadline:
            raise GroundingError("time limit", where)
        if self._trial is not None and now > self._trial[1]:
            raise TooLarge(where)

    def forget(self, keys) -> None:
        """Drop the tables of `keys` (a trial that went too far)."""
        for key in keys:
            table = self.tables.pop(key, None)
            if table is not None:
                self.in_model[table.atoms[: table.n]] = False
                self.n_atoms -= table.n
        self._full.clear()
        self._projected.clear()
        self._deltas_seen.clear()

    # -- solving a body -------------------------------------------------------------

    def solve(self, head, joins: list, tests: list, keep: set, where: str, delta: Optional[int] = None) -> Bindings:
        """The bindings of the variables of `head` and `keep` that satisfy the
        positive literals `joins` (the one at index `delta` over the last
        round's atoms only) and the `tests` (negations, `distinct`)."""
        wanted_always = (self.names(head) | keep) if head is not None else set(keep)
        bindings = Bindings.unit()
        remaining = list(range(len(joins)))
        pending = list(tests)
        while True:
            pending, bindings = self._tests(pending, bindings)
            if bindings.n == 0 or not remaining:
                break
            self.check_time(where)
            index = delta if delta in remaining else self._next(joins, remaining, bindings)
            remaining.remove(index)
            needed = set(wanted_always)
            for other in remaining:
                needed |= self.names(joins[other])
            for test in pending:
                needed |= self.names(test)
            literal = joins[index]
            bound = bindings.columns.keys()
            try:
                if self.names(literal) <= bound:
                    flags = self.in_delta if index == delta else self.in_model
                    ids = self.atom_ids(literal, bindings.columns, bindings.n, insert=False)
                    bindings = bindings.where(member(flags, ids))
                else:
                    found = self._view(literal, index == delta)
                    kept = tuple(v for v in found.columns if v in bound or v in needed)
                    if len(kept) < len(found.columns):
                        found = self._projection(literal, found, kept, index == delta)
                    new = [v for v in kept if v not in bound]
                    bindings = join(self.store, bindings, found, new, self.max_rows)
            except JoinTooLarge as error:
                if self._trial is not None:
                    raise TooLarge(where) from None
                if head is not None and self.watch is not None and self.watch[0](relation_key(head)):
                    raise RelationTooLarge(relation_key(head)) from None
                raise GroundingError(f"too many rows (a join of {error.rows})", where) from None
            bindings = bindings.keep(needed)
        unbound = (wanted_always.union(*(set(variables(t)) for t in pending)) - set(bindings.columns)
                   if bindings.n else set())
        if unbound:
            raise GroundingError(f"unsafe rule: {', '.join(sorted(map(str, unbound)))} never bound", where)
        return bindings

    def _next(self, joins, remaining, bindings: Bindings) -> int:
        """The literal expected to make the fewest rows (one whose variables
        are all bound first: a lookup)."""
        best, best_cost = remaining[0], None
        bound = bindings.columns.keys()
        for index in remaining:
            literal = joins[index]
            variables_here = self.names(literal)
            if variables_here <= bound:
                return index
            found = self._view(literal, False)
            expected = float(bindings.n) * found.n
            for variable in variables_here & bound:
                expected /= found.distinct(variable)
            cost = (expected, len(variables_here - bound))
            if best_cost is None or cost < best_cost:
                best, best_cost = index, cost
        return best

    def _view(self, literal, delta: bool) -> View:
        """The literal's view of its table (of the last round's rows when `delta`)."""
        table = self.table(relation_key(literal))
        args = () if isinstance(literal, Symbol) else literal.args
        if delta:
            cache_key = (literal, table.delta)
            found = self._deltas_seen.get(cache_key)
            if found is None:
                found = self._deltas_seen[cache_key] = view(self.store, table, args, *table.delta)
            return found
        found = self._full.get(literal)
        if found is None:
            found = view(self.store, table, args, 0, table.n)
        elif found.covered < table.n:
            found = found.extended(self.store, view(self.store, table, args, found.covered, table.n))
        self._full[literal] = found
        return found

    def _projection(self, literal, full: View, kept: tuple, delta: bool) -> View:
        """`full` on the variables `kept` only, each combination once."""
        if delta:
            return full.projected(self.store, kept)
        found = self._projected.get((literal, kept))
        if found is None:
            found = full.projected(self.store, kept)
        elif found.covered < full.covered:
            table = self.table(relation_key(literal))
            args = () if isinstance(literal, Symbol) else literal.args
            found = found.projected_more(self.store, view(self.store, table, args, found.covered, full.covered), kept)
        self._projected[(literal, kept)] = found
        return found

    def _tests(self, pending: list, bindings: Bindings) -> tuple[list, Bindings]:
        """Apply the tests whose variables are bound; the others stay pending."""
        left = []
        for test in pending:
            if bindings.n == 0 or not self.names(test) <= bindings.columns.keys():
                left.append(test)
                continue
            negated = isinstance(test, Not)
            inner = test.literal if negated else test
            if isinstance(inner, Distinct):
                a = build(self.store, inner.left, bindings.columns, bindings.n, insert=True)
                b = build(self.store, inner.right, bindings.columns, bindings.n, insert=True)
                bindings = bindings.where((a == b) if negated else (a != b))
            else:
                holds = self.holds(sentence_of(test), bindings.columns, bindings.n)
                bindings = bindings.where(~holds)
        return left, bindings

    # -- answers ----------------------------------------------------------------------

    def answers(self, rule: Rule, body: list, where: str, delta: Optional[int] = None):
        """(rows, atom ids) of the heads the rule derives (duplicates possible)."""
        joins = [l for l in body if is_positive_sentence(l)]
        tests = [l for l in body if not is_positive_sentence(l)]
        bindings = self.solve(rule.head, joins, tests, set(), where, delta)
        head = rule.head
        if bindings.n == 0:
            arity = 0 if isinstance(head, Symbol) else len(head.args)
            return np.zeros((0, arity), dtype=np.int32), np.zeros(0, dtype=np.int32)
        if isinstance(head, Symbol):
            count = min(bindings.n, 1)
            return np.zeros((count, 0), dtype=np.int32), np.full(count, self.store.symbol(relation_tag_key((head.name, 0))),
                                                                 dtype=np.int32)
        columns = [build(self.store, arg, bindings.columns, bindings.n, insert=True) for arg in head.args]
        rows = np.stack(columns, axis=1) if columns else np.zeros((bindings.n, 0), dtype=np.int32)
        atoms = self.store.chain(self.store.symbol(relation_tag_key(relation_key(head))), columns, bindings.n)
        return rows, atoms

    def run(self, rules: list[Rule], body_of: Callable[[Rule], list], name: Callable[[Rule], str],
            inner: Callable[[Rule], bool] = lambda rule: False, trial: Optional[Trial] = None) -> set:
        """Compute every relation the rules define, component by component
        (`body_of` gives the body a rule is evaluated with; `inner` says
        which rules run to their fixpoint first in a component: `_component`).
        With a `trial`, a component that passes its bounds is dropped, with
        every one that reads it: returns the relations dropped."""
        relations: set = set()
        edges: dict = defaultdict(set)
        negative: list = []
        for rule in rules:
            head = relation_key(rule.head)
            relations.add(head)
            for literal in body_of(rule):
                sentence = sentence_of(literal)
                if sentence is None:
                    continue
                relations.add(relation_key(sentence))
                edges[head].add(relation_key(sentence))
                if not is_positive_sentence(literal):
                    negative.append((head, relation_key(sentence)))
        components = strongly_connected_components(sorted(relations), lambda key: sorted(edges[key]))
        component_of = {key: i for i, members in enumerate(components) for key in members}
        for head, body in negative:
            if component_of[head] == component_of[body]:
                raise Unstratified(f"{head[0]}/{head[1]} negates {body[0]}/{body[1]} in its own recursion")
        by_component: dict = defaultdict(list)
        for rule in rules:
            by_component[component_of[relation_key(rule.head)]].append(rule)
        dropped: set = set()
        for index, members in enumerate(components):
            if not by_component[index]:
                continue
            if trial is None:
                self._component(set(members), by_component[index], body_of, name, inner)
                continue
            if any(edges[key] & dropped for key in members):
                dropped.update(members)
                continue
            self._trial = [trial.atoms, time.perf_counter() + trial.seconds]
            try:
                self._component(set(members), by_component[index], body_of, name, inner)
            except TooLarge:
                self.forget(members)
                dropped.update(members)
            finally:
                self._trial = None
        return dropped

    def _component(self, members: set, rules: list[Rule], body_of, name, inner) -> None:
        """A component's least model. A recursive one by semi-naive rounds,
        each rule's delta being what was found since the rule last ran;
        with rules of two kinds (`inner`: the static relations and their
        demand), the inner ones run to their fixpoint between two rounds of
        the others, so that a deep static recursion (a sum by successor, a
        few hundred rounds) does not run the state's rules at every round."""
        started = time.process_time()
        try:
            bodies = [body_of(rule) for rule in rules]
            positives = [[l for l in body if is_positive_sentence(l)] for body in bodies]
            recursive = [[i for i, l in enumerate(joins) if relation_key(l) in members] for joins in positives]
            start = {key: self.table(key).n for key in members}
            self._round(rules, bodies, [None] * len(rules), name)
            everything = list(range(len(rules)))
            kinds = [[r for r in everything if inner(rules[r])], [r for r in everything if not inner(rules[r])]]
            groups = [group for group in kinds if group] if all(kinds) else [everything]
            last = [dict(start) for _ in groups]
            ran = True
            while ran:
                ran = False
                for number, group in enumerate(groups):
                    while True:
                        ranges = {key: (last[number][key], self.table(key).n) for key in members}
                        jobs = [(r, p) for r in group for p in recursive[r]
                                if ranges[relation_key(positives[r][p])][1] > ranges[relation_key(positives[r][p])][0]]
                        if not jobs:
                            break
                        ran = True
                        for key in members:
                            self.table(key).delta = ranges[key]
                            last[number][key] = ranges[key][1]
                        self._deltas(members, True)
                        try:
                            self._round([rules[r] for r, _ in jobs], [bodies[r] for r, _ in jobs],
                                        [p for _, p in jobs], name)
                        finally:
                            self._deltas(members, False)
                        if number == len(groups) - 1 and len(groups) > 1:
                            break  # one round of the outer rules, then the inner ones again
        finally:
            largest = max(sorted(members), key=lambda key: (not key[0].startswith("demand "), self.table(key).n))
            step = self.profile[f"answers({largest[0]}/{largest[1]})"]
            step[0] += time.process_time() - started
            step[1] += sum(self.table(key).n for key in members)
            self._deltas_seen.clear()

    def _round(self, rules, bodies, deltas, name) -> int:
        """One round: every rule (with its delta literal), then the new atoms added."""
        new: dict = defaultdict(list)
        for rule, body, delta in zip(rules, bodies, deltas):
            where = name(rule)
            self.check_time(where)
            rows, atoms = self.answers(rule, body, where, delta)
            if len(atoms):
                new[relation_key(rule.head)].append((rows, atoms))
        added = 0
        for key, parts in new.items():
            added += self.add(key, np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                              f"answers({key[0]}/{key[1]})")
        self._deltas_seen.clear()
        return added

    def _deltas(self, members: set, value: bool) -> None:
        """Mark (or unmark) the atoms of the members' deltas."""
        self._flags()
        for key in members:
            table = self.table(key)
            self.in_delta[table.atoms[table.delta[0]: table.delta[1]]] = value

    # -- instances ----------------------------------------------------------------------

    def instances(self, rule: Rule, is_state: Callable, where: str) -> tuple[np.ndarray, list]:
        """(head atom ids, [(negated, atom ids) per state literal]) of the
        rule's instances whose head is in the model; an atom id is -1 for a
        negated literal that no state makes true."""
        joins = [l for l in rule.body if is_positive_sentence(l)]
        tests = [l for l in rule.body if not is_positive_sentence(l) and not _state_negation(l, is_state)]
        recorded = [l for l in rule.body if (is_positive_sentence(l) and is_state(relation_key(l)))
                    or _state_negation(l, is_state)]
        keep = set().union(*(set(variables(l)) for l in recorded)) if recorded else set()
        bindings = self.solve(rule.head, joins, tests, keep, where)
        if bindings.n == 0:
            return np.zeros(0, dtype=np.int32), [(not is_positive_sentence(l), np.zeros(0, dtype=np.int32))
                                                 for l in recorded]
        heads = self.atom_ids(rule.head, bindings.columns, bindings.n, insert=False)
        inside = member(self.in_model, heads)
        literals = []
        for literal in recorded:
            negated = not is_positive_sentence(literal)
            ids = self.atom_ids(sentence_of(literal), bindings.columns, bindings.n, insert=False)
            ids = np.where(member(self.in_model, ids), ids, -1)
            literals.append((negated, ids[inside]))
        return heads[inside], literals


def _state_negation(literal, is_state) -> bool:
    return isinstance(literal, Not) and not isinstance(literal.literal, Distinct) and is_state(
        relation_key(sentence_of(literal)))
