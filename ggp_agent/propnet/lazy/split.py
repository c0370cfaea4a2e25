"""Relations that negate themselves, split by the constants of their heads.

Why: the evaluator runs a program in strata, a relation at a time, and
`(<= (goal robot 100) (not (goal robot 0)))` makes `goal` negate itself
(futoshiki, hidato, queens, majorities): no order of relations computes it,
although no atom depends on its own negation. When every rule of such a
relation has a constant at the same arguments, each constant tuple is a
relation of its own (`goal robot 0` becomes `(goal 0) robot`), and the
negation reads one of them from another; a bridge rule per constant tuple
gives the relation back to its callers.

A literal of the split relation with a constant at those arguments reads
that part (or nothing: no rule makes it); a positive one with a variable
there is read from each part in turn, the variable replaced by the part's
constant. A negated one with a variable there cannot be read from parts:
the relation is then left whole. This module must not know about programs
or numba.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Optional

from ...gdl.analysis import sentence_of, strongly_connected_components
from ...gdl.normalize import is_positive_sentence
from ...gdl.terms import Compound, Not, Rule, Symbol, Variable, relation_key, substitute

RelationKey = tuple[str, int]


def split_self_negations(rules: list[Rule]) -> tuple[list[Rule], list[str]]:
    """The rules with each relation that negates its own component split by
    its heads' constants where that is possible (module docstring); notes."""
    notes = []
    for _ in range(8):
        target = _negated_in_recursion(rules)
        if target is None:
            break
        split = _split(rules, target)
        if split is None:
            break
        rules = split
        notes.append(f"{target[0]}/{target[1]} split by the constants of its heads (it negates itself)")
    return rules, notes


def _negated_in_recursion(rules: list[Rule]) -> Optional[RelationKey]:
    edges: dict = defaultdict(set)
    negative = []
    for rule in rules:
        head = relation_key(rule.head)
        for literal in rule.body:
            sentence = sentence_of(literal)
            if sentence is not None:
                edges[head].add(relation_key(sentence))
                if not is_positive_sentence(literal):
                    negative.append((head, relation_key(sentence)))
    heads = sorted(edges)
    components = strongly_connected_components(heads, lambda key: sorted(k for k in edges[key] if k in edges))
    component_of = {key: i for i, members in enumerate(components) for key in members}
    for head, body in negative:
        if component_of.get(body) == component_of.get(head):
            return body
    return None


def _split(rules: list[Rule], key: RelationKey) -> Optional[list[Rule]]:
    heads = [rule.head for rule in rules if relation_key(rule.head) == key]
    if key[1] == 0 or not heads:
        return None
    positions = [i for i in range(key[1]) if all(isinstance(head.args[i], Symbol) for head in heads)]
    if not positions:
        return None
    parts = sorted({tuple(head.args[i].name for i in positions) for head in heads})

    def part_name(constants: tuple) -> str:
        return f"({key[0]} {' '.join(constants)})"

    def part_literal(sentence: Compound, constants: tuple):
        rest = tuple(arg for i, arg in enumerate(sentence.args) if i not in positions)
        name = part_name(constants)
        return Compound(name, rest) if rest else Symbol(name)

    result: list[Rule] = []
    for rule in rules:
        variants = [(rule.head, [])]
        for literal in rule.body:
            sentence = sentence_of(literal)
            if sentence is None or relation_key(sentence) != key:
                variants = [(head, body + [literal]) for head, body in variants]
                continue
            at = [sentence.args[i] for i in positions]
            negated = not is_positive_sentence(literal)
            if all(isinstance(arg, Symbol) for arg in at):
                constants = tuple(arg.name for arg in at)
                if constants not in parts:  # no rule makes that part: false
                    variants = [] if not negated else variants
                    continue
                new = part_literal(sentence, constants)
                variants = [(head, body + [Not(new) if negated else new]) for head, body in variants]
                continue
            if negated or not all(isinstance(arg, (Symbol, Variable)) for arg in at):
                return None
            grown = []
            for head, body in variants:
                for constants in parts:
                    mapping: dict = {}
                    fits = True
                    for arg, constant in zip(at, constants):
                        if isinstance(arg, Symbol):
                            fits = fits and arg.name == constant
                        elif mapping.setdefault(arg, Symbol(constant)) != Symbol(constant):
                            fits = False
                    if not fits:
                        continue
                    grown.append((substitute(head, mapping), [substitute_literal(l, mapping) for l in body]
                                  + [part_literal(substitute(sentence, mapping), constants)]))
            variants = grown
        for head, body in variants:
            if relation_key(head) == key:
                head = part_literal(head, tuple(head.args[i].name for i in positions))
            result.append(Rule(head, tuple(body)))
    for constants in parts:
        names = [Variable(f"?split{i}") for i in range(key[1] - len(positions))]
        args, free = [], iter(names)
        for i in range(key[1]):
            args.append(Symbol(constants[positions.index(i)]) if i in positions else next(free))
        rest = tuple(names)
        part = Compound(part_name(constants), rest) if rest else Symbol(part_name(constants))
        result.append(Rule(Compound(key[0], tuple(args)), (part,)))
    return result


def substitute_literal(literal, mapping: dict):
    """A body literal with variables replaced (through `not`)."""
    if isinstance(literal, Not):
        return Not(substitute_literal(literal.literal, mapping))
    if isinstance(literal, Compound):
        return substitute(literal, mapping)
    if isinstance(literal, Symbol):
        return literal
    # distinct
    return type(literal)(substitute(literal.left, mapping), substitute(literal.right, mapping))
