"""Rules as the grounder gets them: safe to ground, and factored to stay small.

Why: the size of the ground network is set by the shape of the rules, not by
the game. A frame rule such as

    (<= (next (cell ?x ?y ?s)) (true (cell ?x ?y ?s)) (does ?p (move ?x1 ?y1 ?x2 ?y2))
        (distinctCell ?x ?y ?x1 ?y1) (distinctCell ?x ?y ?x2 ?y2))

has one ground instance per cell, piece and move (tens of thousands of AND
gates), although what it says per cell is "some move leaves this cell alone".
Factoring splits off the literals that mention variables the head does not
need into an auxiliary relation over the variables they share with the rest:

    (<= (aux ?x ?y) (does ?p (move ?x1 ?y1 ?x2 ?y2)) (distinctCell ...) (distinctCell ...))
    (<= (next (cell ?x ?y ?s)) (true (cell ?x ?y ?s)) (aux ?x ?y))

which is the same relation, one OR per cell. Whether a split pays is decided
by estimated instance counts (the textbook join-size estimate from each
literal's number of facts and distinct values per variable, measured on the
relaxed model by the grounder); a split is kept when it cuts the estimate by
a third. Identical auxiliary rules are shared.

After factoring, rules that differ in one literal only are merged over an
auxiliary relation holding the alternatives (`merge_alternatives`).

`with_role_domain` also gives a `legal`/`goal` rule whose role variable only
the caller binds (edge case `test_case_3e`) the body literal `(role ?r)`, so
every instance is ground. This module must not know about Prolog or the network.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Optional, Union

from ...gdl.normalize import is_positive_sentence
from ...gdl.terms import (
    Compound, Distinct, Literal, Not, Rule, Symbol, Term, Variable, relation_key, substitute, variables,
)
from ...gdl.validate import ValidatedGame

_ROLE_FIRST = {("legal", 2), ("goal", 2)}

#: Auxiliary relations are named "aux N": no KIF symbol holds a space, so the
#: name cannot meet a game's relation.
AUX_PREFIX = "aux "

#: A split must bring the estimated instance count below this share of the original.
_GAIN = 0.67

#: Rules estimated below this many instances are left alone.
_SMALL = 32.0

#: A split whose auxiliary relation is estimated below this share of the
#: rule's instances is kept even when the estimate sees no gain in the rest:
#: the estimate takes each variable's values as independent, so projecting
#: out a variable one value decides (racer's velocity `?dx`, one per
#: `?ndx` in a state, three over the game) looks free of gain, while the
#: rest's real instances can only shrink by it.
_CHEAP = 0.25

Sentence = Union[Symbol, Compound]


def prepare_rules(game: ValidatedGame) -> tuple[Rule, ...]:
    """The game's plain rules, every variable bound by the body."""
    return tuple(with_role_domain(rule) for rule in game.plain_rules)


def with_role_domain(rule: Rule) -> Rule:
    head = rule.head
    if relation_key(head) in _ROLE_FIRST and isinstance(head.args[0], Variable):
        bound = {v for literal in rule.body if is_positive_sentence(literal) for v in variables(literal)}
        if head.args[0] not in bound:
            return Rule(head, (Compound("role", (head.args[0],)),) + rule.body)
    return rule


def canonical(sentence: Sentence) -> tuple[str, list[Variable]]:
    """The sentence's text with variables renamed by first occurrence, and those variables.

    Two literals with the same key match the same facts, so one measurement
    serves both.
    """
    order: list[Variable] = []
    index: dict[Variable, int] = {}

    def text(term: Term) -> str:
        if isinstance(term, Variable):
            if term not in index:
                index[term] = len(order)
                order.append(term)
            return f"?_{index[term]}"
        if isinstance(term, Symbol):
            return term.name
        return "(" + term.functor + " " + " ".join(text(a) for a in term.args) + ")"

    return text(sentence), order


@dataclass
class Measure:
    """How many facts match a literal, and how many values each of its variables takes."""

    size: float
    domains: dict[Variable, float]


class Estimates:
    """Join-size estimates from measured literal statistics.

    `measured` maps a canonical key to [count, distinct values of variable 0, 1, ...].
    """

    def __init__(self, measured: dict[str, list[int]]) -> None:
        self.measured = measured
        self.aux: dict[Sentence, Measure] = {}

    def measure(self, literal: Sentence) -> Measure:
        known = self.aux.get(literal)
        if known is not None:
            return known
        key, order = canonical(literal)
        row = self.measured.get(key)
        if row is None:  # not measured (should not happen): assume it filters nothing
            return Measure(1.0, {v: 1.0 for v in order})
        return Measure(float(row[0]), {v: float(max(1, d)) for v, d in zip(order, row[1:])})

    def instances(self, body: list[Literal]) -> float:
        """Estimated solutions of a conjunction (negations and distinct ignored)."""
        size = 1.0
        seen: dict[Variable, list[float]] = defaultdict(list)
        for literal in body:
            if not is_positive_sentence(literal):
                continue
            measure = self.measure(literal)
            size *= measure.size
            for variable, domain in measure.domains.items():
                seen[variable].append(domain)
        for domains in seen.values():
            if len(domains) > 1:
                domains.sort()
                for domain in domains[1:]:
                    size /= domain
        return size

    def domains(self, body: list[Literal]) -> dict[Variable, float]:
        found: dict[Variable, float] = {}
        for literal in body:
            if is_positive_sentence(literal):
                for variable, domain in self.measure(literal).domains.items():
                    found[variable] = min(domain, found.get(variable, domain))
        return found


class Factoring:
    """Splits rules into smaller ones through auxiliary relations (module docstring)."""

    def __init__(self, estimates: Estimates, is_static: Callable[[tuple[str, int]], bool]) -> None:
        self.estimates = estimates
        self.is_static = is_static
        self.aux_rules: list[Rule] = []
        self._shared: dict[str, Sentence] = {}
        self._names = itertools.count(1)
        self.aux_count = 0

    def factor(self, rule: Rule) -> list[Rule]:
        """The rule as one or more rules (auxiliary ones go to `aux_rules` first)."""
        return self._factor(rule.head, list(rule.body))

    def _factor(self, head: Sentence, body: list[Literal]) -> list[Rule]:
        estimates = self.estimates
        cost = estimates.instances(body)
        if cost < _SMALL:
            return [Rule(head, tuple(body))]
        head_vars = set(variables(head))
        literal_vars = [set(variables(literal)) for literal in body]
        best = None
        for eliminate in _candidates(head_vars, literal_vars, body):
            split = self._split(head_vars, body, literal_vars, eliminate)
            if split is None:
                continue
            part, rest, keep, first = split
            aux_cost = estimates.instances(part)
            if aux_cost <= 0:
                continue
            domains = estimates.domains(part)
            aux_size = min(aux_cost, _product(domains.get(v, 1.0) for v in keep))
            aux_head: Sentence = Compound("aux ?", tuple(keep)) if keep else Symbol("aux ?")
            estimates.aux[aux_head] = Measure(aux_size, {v: domains.get(v, 1.0) for v in keep})
            new_cost = aux_cost + estimates.instances(rest + [aux_head])
            del estimates.aux[aux_head]
            pays = new_cost < _GAIN * cost or aux_cost < _CHEAP * cost
            if pays and (best is None or new_cost < best[0]):
                best = (new_cost, part, rest, keep, first, aux_size, domains)
        if best is None:
            return [Rule(head, tuple(body))]
        _, part, rest, keep, first, aux_size, domains = best
        aux_head = self._aux_head(part, keep)
        self.estimates.aux[aux_head] = Measure(aux_size, {v: domains.get(v, 1.0) for v in keep})
        rest_body = list(rest)
        rest_body.insert(min(first, len(rest_body)), aux_head)
        return self._factor(head, rest_body)

    def _split(self, head_vars, body, literal_vars, eliminate):
        """The literals with a variable of `eliminate`, the others, the variables
        they share, and where the first literal moved was; None when the split
        is not safe or eliminates nothing."""
        inside = [i for i, vs in enumerate(literal_vars) if vs & eliminate]
        if len(inside) == len(body):
            return None
        inside_set = set(inside)
        part = [body[i] for i in inside]
        rest = [body[i] for i in range(len(body)) if i not in inside_set]
        rest_vars = set().union(*(literal_vars[i] for i in range(len(body)) if i not in inside_set))
        part_vars = set().union(*(literal_vars[i] for i in inside))
        bound = set()
        for literal in part:
            if is_positive_sentence(literal):
                bound.update(variables(literal))
        keep = [v for v in _ordered_variables(part) if v in head_vars or v in rest_vars]
        needed = set(keep)
        for literal in part:
            if not is_positive_sentence(literal):
                needed.update(variables(literal))
        missing = needed - bound
        if missing:
            # Static literals may be repeated freely: copy those that bind what is missing.
            for literal in rest:
                if not missing:
                    break
                if is_positive_sentence(literal) and self.is_static(relation_key(literal)):
                    found = set(variables(literal)) & missing
                    if found:
                        part.append(literal)
                        bound.update(variables(literal))
                        missing -= found
            if missing:
                return None
            part_vars = set().union(*(set(variables(l)) for l in part))
            keep = [v for v in _ordered_variables(part) if v in head_vars or v in rest_vars]
        if len(keep) >= len(part_vars):
            return None  # nothing eliminated
        return part, rest, keep, inside[0]

    def _aux_head(self, part: list[Literal], keep: list[Variable]) -> Sentence:
        key_head: Sentence = Compound("aux", tuple(keep)) if keep else Symbol("aux")
        key = _rule_key(key_head, part)
        shared = self._shared.get(key)
        if shared is not None:
            # the same rule up to variable names: reuse its relation
            name = shared.name if isinstance(shared, Symbol) else shared.functor
            return Compound(name, tuple(keep)) if keep else Symbol(name)
        self.aux_count += 1
        name = f"{AUX_PREFIX}{next(self._names)}"
        head: Sentence = Compound(name, tuple(keep)) if keep else Symbol(name)
        self._shared[key] = head
        self.aux_rules.extend(self._factor(head, part))
        return head


#: Rules with at most this many variables the head does not need also try
#: eliminating each pair of them that shares a literal.
_PAIRS_UP_TO = 24


def _candidates(head_vars, literal_vars, body) -> list[frozenset]:
    """Variable sets to eliminate: each variable the head does not need alone,
    each pair of them that meet in a literal (a sum of two guesses, `(sum ?n1
    ?n2 ?s1)`, needs both gone for the sum alone to remain), and each
    connected group of them (variables linked by sharing a literal)."""
    free = [v for v in _ordered_variables(body) if v not in head_vars]
    candidates = [frozenset([v]) for v in free]
    if len(free) <= _PAIRS_UP_TO:
        pairs = set()
        for vs in literal_vars:
            local = sorted((v for v in vs if v not in head_vars), key=free.index)
            pairs.update(frozenset((a, b)) for i, a in enumerate(local) for b in local[i + 1:])
        candidates.extend(sorted(pairs, key=lambda pair: sorted(free.index(v) for v in pair)))
    sets = _DisjointSets(free)
    for vs in literal_vars:
        sets.join([v for v in vs if v in sets])
    groups: dict = {}
    for v in free:
        groups.setdefault(sets.find(v), set()).add(v)
    for group in groups.values():
        if len(group) > 1:
            candidates.append(frozenset(group))
    return candidates


class _DisjointSets:
    """Variables grouped by the literals they share (union-find with path halving)."""

    def __init__(self, items) -> None:
        self._parent: dict = {item: item for item in items}

    def __contains__(self, item) -> bool:
        return item in self._parent

    def add(self, items) -> None:
        for item in items:
            self._parent.setdefault(item, item)

    def find(self, item):
        parent = self._parent
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def join(self, items) -> None:
        """Put all of `items` (each already added) in one set."""
        for other in items[1:]:
            self._parent[self.find(other)] = self.find(items[0])


def _ordered_variables(body) -> list[Variable]:
    seen: dict[Variable, None] = {}
    for literal in body:
        for variable in variables(literal):
            seen.setdefault(variable, None)
    return list(seen)


def _product(values) -> float:
    result = 1.0
    for value in values:
        result *= value
    return result


def _rule_key(head: Sentence, body: list[Literal]) -> str:
    """A rule's text with variables renamed by first occurrence (head first)."""
    names: dict[Variable, str] = {}

    def rename(term):
        if isinstance(term, Variable):
            return names.setdefault(term, f"?_{len(names)}")
        if isinstance(term, Compound):
            return "(" + term.functor + " " + " ".join(rename(a) for a in term.args) + ")"
        if isinstance(term, Symbol):
            return term.name
        if isinstance(term, Not):
            return "(not " + rename(term.literal) + ")"
        if isinstance(term, Distinct):
            return "(distinct " + rename(term.left) + " " + rename(term.right) + ")"
        raise TypeError(term)

    return rename(head) + " :- " + " ".join(rename(l) for l in body)


def merge_alternatives(rules: list[Rule], is_static: Callable[[tuple[str, int]], bool],
                       new_name: Callable[[], str]) -> tuple[list[Rule], list[Rule]]:
    """Rules that differ in one literal only become one rule over an auxiliary
    relation holding both alternatives.

    `(<= H C... L1)` and `(<= H C... L2)`, where every variable is the head's
    and L1, L2 are positive sentences over the same variables, say
    `(<= H C... (alt V))` with `(<= (alt V) L1)` and `(<= (alt V) L2)`: one AND
    over an OR instead of an OR over two ANDs, and the OR is shared wherever
    the same alternatives meet (the corpus' hex: the OR of a cell's two ways of
    joining a group serves all 81 group ids). Returns (rules, new alt rules);
    the alt rules' relations must be computed after the rules they read.
    """
    groups: dict[tuple, list[tuple[int, str, Literal]]] = {}
    plain: list[Optional[Rule]] = list(rules)
    for index, rule in enumerate(rules):
        head_vars = set(variables(rule.head))
        if not rule.body or any(not set(variables(l)) <= head_vars for l in rule.body):
            continue
        if is_static(relation_key(rule.head)):
            continue
        texts = [_rule_key(rule.head, [literal]).split(" :- ", 1)[1] for literal in rule.body]
        head_text = _rule_key(rule.head, [])
        canon = {v: i for i, v in enumerate(_ordered_variables([rule.head]))}
        for position, literal in enumerate(rule.body):
            if not is_positive_sentence(literal) or is_static(relation_key(literal)):
                continue
            rest = tuple(sorted(texts[:position] + texts[position + 1:]))
            names = tuple(sorted(canon[v] for v in set(variables(literal))))
            groups.setdefault((head_text, rest, names), []).append((index, literal))
    merged: list[Rule] = []
    alt_rules: list[Rule] = []
    used: set[int] = set()
    for (head_text, rest, names), members in sorted(groups.items(), key=lambda item: -len(item[1])):
        members = [(i, l) for i, l in members if i not in used]
        if len(members) < 2:
            continue
        first_index, first_literal = members[0]
        rule = rules[first_index]
        keep = [v for v in _ordered_variables([first_literal])]
        name = new_name()
        alt_head: Sentence = Compound(name, tuple(keep)) if keep else Symbol(name)
        for index, literal in members:
            used.add(index)
            plain[index] = None
            # the alternatives name the head's variables as the first rule does
            mapping = dict(zip(variables(rules[index].head), variables(rule.head)))
            alt_rules.append(Rule(alt_head, (substitute(literal, mapping),)))
        body = [l for l in rule.body if l is not first_literal] + [alt_head]
        merged.append(Rule(rule.head, tuple(body)))
    return [r for r in plain if r is not None] + merged, alt_rules
