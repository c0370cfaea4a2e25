"""Inert fluents: those no move changes, whose `true` is a static fact.

Why: the relaxed model drops negations of state-dependent relations, so a
wall that blocks a move (`(not (true (wall ?x ?y north)))`) blocks nothing
there: in mummymaze the mummy and the explorer then walk off the 8 x 8 board
and over every number up to 50, and `direction-from` is asked for every pair
of those 2,601 positions. A fluent whose only `next` rules copy it
(`(<= (next (wall ?x ?y ?d)) (true (wall ?x ?y ?d)))`) holds in every
reachable state exactly when it holds initially: its `true` is `init`, a
static relation, whose negation the grounder keeps exactly. The network
then has no gate for it (its `next` is constant true where it holds).

A family is a fluent's function name and arity (or a constant); a `next`
rule with a variable head other than the copy `(<= (next ?x) (true ?x))`
makes every family changeable. This module must not know about Prolog or
tables.
"""

from __future__ import annotations

from typing import Optional

from ...gdl.analysis import sentence_of
from ...gdl.terms import Compound, Not, Rule, Symbol, Variable, relation_key

Family = tuple[str, int]


def family(term) -> Optional[Family]:
    """The family of a fluent term; None for a variable."""
    if isinstance(term, Compound):
        return (term.functor, len(term.args))
    if isinstance(term, Symbol):
        return (term.name, 0)
    return None


def inert_families(rules) -> frozenset:
    """The families whose every `next` rule copies the fluent unchanged."""
    copies: dict[Family, bool] = {}
    for rule in rules:
        if relation_key(rule.head) != ("next", 1):
            continue
        fluent = rule.head.args[0]
        is_copy = len(rule.body) == 1 and rule.body[0] == Compound("true", (fluent,))
        kind = family(fluent)
        if kind is None:
            if not is_copy:
                return frozenset()
            continue
        copies[kind] = copies.get(kind, True) and is_copy
    return frozenset(kind for kind, only_copies in copies.items() if only_copies)


def with_inert_fluents(rules) -> tuple[list[Rule], frozenset]:
    """The rules with `(true F)` read as `(init F)` for every fluent F of an
    inert family, and those families."""
    inert = inert_families(rules)
    if not inert:
        return list(rules), inert

    def read(literal):
        if isinstance(literal, Not):
            inner = read(literal.literal)
            return literal if inner is literal.literal else Not(inner)
        sentence = sentence_of(literal)
        if (sentence is literal and isinstance(literal, Compound) and relation_key(literal) == ("true", 1)
                and family(literal.args[0]) in inert):
            return Compound("init", literal.args)
        return literal

    result = []
    for rule in rules:
        body = tuple(read(literal) for literal in rule.body)
        result.append(rule if body == rule.body else Rule(rule.head, body))
    return result, inert
