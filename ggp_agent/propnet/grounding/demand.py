"""Demand: each relation computed only for the arguments its callers ask about.

Why: the grounder computes relations bottom up, and a relation whose callers
always bind some arguments would otherwise be computed for every value of
them. Chinese checkers' goal asks `(count h1 h2 i1 red ?payoff)` of a
`count` that holds for every triple of cells (760,000 answers for three);
mummymaze's `direction-from` holds for every pair of cells (6.5 million);
the arithmetic of gt_two_thirds (`absDiff`, `sum`) for every pair of numbers
up to 600. This is the magic-sets rewriting of deductive databases:

- each relation a rule body calls gets an *adornment*, which of its
  arguments are bound there (constants, or variables the head's bound
  arguments and the literals before it bind; the order of those literals is
  a sideways-information-passing order: most bound first);
- a *demand* relation per adorned relation holds the bound arguments asked
  for: `(demand q bf X) :- (demand p b.. H), L1, ..., Li-1` for the i-th
  literal `(q X ?y)` of a rule of p;
- the rules of q are guarded by its demand: `q(..) :- (demand q bf X), body`.

The relations the network needs whole (`true`, `does`, `legal`, `next`,
`goal`, `terminal`, `init`, `role`) are asked with nothing bound and keep their
rules as they are, and so does any relation some caller asks with nothing
bound, or in too many ways, and any relation of facts only (demand would
only copy them). A negated literal makes demand too (its
relation must be known wherever the rule asks), from its rule's positive
literals only. Every answer a demanded relation gets is complete (each rule
instance that derives it had its body demanded), which is all the grounder
needs: instances whose head was never demanded are never asked for.

Demand relations are named "demand NAME/ARITY ADORNMENT": no KIF symbol holds
a space. This module must not know about Prolog, tables or the network.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ...gdl.analysis import sentence_of
from ...gdl.normalize import is_positive_sentence
from ...gdl.terms import Compound, Distinct, Not, Rule, Symbol, relation_key, variables

DEMAND_PREFIX = "demand "

#: The relations of the state and the moves.
_STATE = {("true", 1), ("does", 2)}

#: Adornments one relation may get before it is computed whole instead.
MAX_ADORNMENTS = 4

Adornment = Optional[tuple[bool, ...]]  # None: nothing bound


@dataclass
class Demanded:
    """The rewritten program and what the rewriting did."""

    rules: list[Rule]
    #: relations computed under demand, with their adornments
    adorned: dict[tuple[str, int], set]
    #: relations computed whole
    whole: frozenset


#: Where a demand rule's body comes from (`with_demand`'s `demand_from`).
FROM_ALL, FROM_NEGATION_PREFIX, FROM_BASES = "all", "negation prefix", "bases"


def with_demand(rules: list[Rule], wanted: set, is_static: Callable[[tuple[str, int]], bool],
                negated_whole: bool = False, demand_from: str = FROM_ALL) -> Demanded:
    """The rules rewritten so that each relation is computed only where it is
    asked (module docstring). `wanted` relations are asked whole; with
    `negated_whole` so is every static relation a rule negates (its demand
    would depend on the rule's own relation, which may break
    stratification).

    `demand_from` says which literals before a call make its demand: all of
    them (`FROM_ALL`, the tightest demand); for a negated call, the shortest
    prefix that binds its variables (`FROM_NEGATION_PREFIX`); for every call,
    the literals of the state, the moves and the static relations that bind
    what it asks, derived ones only where those do not (`FROM_BASES`). A
    demand asked wider depends on fewer relations, so fewer programs have a
    negation inside a recursion: chess's stalemate negates `in_check` beside
    `stuck`, and `stuck` reads `legal`, which negates `in_check` too (a cycle
    when the demand for `in_check` reads `stuck`); crissrace asks `stuck` of
    four cells, each demand reading the `stuck` before it, and `stuck`
    negates what that demand guards."""
    by_head: dict[tuple[str, int], list[Rule]] = {}
    for rule in rules:
        by_head.setdefault(relation_key(rule.head), []).append(rule)
    whole = set(wanted) | {key for key, defining in by_head.items() if all(not r.body for r in defining)}
    while True:
        adorned, grown = _reach(by_head, whole, is_static, negated_whole)
        if not grown:
            break
        whole |= grown
    result: list[Rule] = []
    for key in sorted(whole, key=str):
        for rule in by_head.get(key, []):
            result.extend(_rewritten(rule, None, whole, is_static, negated_whole, demand_from))
    for key in sorted(adorned, key=str):
        for adornment in sorted(adorned[key]):
            for rule in by_head.get(key, []):
                result.extend(_rewritten(rule, adornment, whole, is_static, negated_whole, demand_from))
    return Demanded(result, adorned, frozenset(whole))


def demanded(key: tuple[str, int]) -> tuple[str, int]:
    """The relation a demand relation asks about; any other relation itself."""
    if not key[0].startswith(DEMAND_PREFIX):
        return key
    name, arity = key[0][len(DEMAND_PREFIX):].rsplit(" ", 1)[0].rsplit("/", 1)
    return (name, int(arity))


def _reach(by_head, whole: set, is_static, negated_whole) -> tuple[dict, set]:
    """The adornments reached from the relations asked whole, and the
    relations found to be asked whole (or in too many ways) on the way."""
    adorned: dict[tuple[str, int], set] = {}
    grown: set = set()
    stack: list[tuple[tuple[str, int], Adornment]] = [(key, None) for key in whole]
    seen: set = set()
    while stack:
        item = stack.pop()
        if item in seen:
            continue
        seen.add(item)
        key, adornment = item
        for rule in by_head.get(key, []):
            for literal, asked, _ in _calls(rule, adornment, is_static, negated_whole):
                callee = relation_key(literal)
                if callee in whole or callee in grown:
                    continue
                if asked is None:
                    grown.add(callee)
                    continue
                ways = adorned.setdefault(callee, set())
                ways.add(asked)
                if len(ways) > MAX_ADORNMENTS:
                    grown.add(callee)
                    continue
                stack.append((callee, asked))
    for key in grown:
        adorned.pop(key, None)
    return adorned, grown


def sips_order(rule: Rule, bound: set) -> list:
    """The rule's positive literals in the order bindings pass: the rule's
    own order (its author's, usually generators first), each literal whose
    arguments are all bound moved up to where they are (a test costs nothing
    and makes the demand after it smaller)."""
    remaining = [l for l in rule.body if is_positive_sentence(l)]
    bound = set(bound)
    ordered = []
    while remaining:
        ready = [i for i, l in enumerate(remaining) if set(variables(l)) <= bound]
        chosen = remaining.pop(ready[0] if ready else 0)
        ordered.append(chosen)
        bound.update(variables(chosen))
    return ordered


def _head_bound(rule: Rule, adornment: Adornment) -> set:
    if adornment is None or isinstance(rule.head, Symbol):
        return set()
    bound: set = set()
    for arg, is_bound in zip(rule.head.args, adornment):
        if is_bound:
            bound.update(variables(arg))
    return bound


def _adornment(literal, bound: set) -> Adornment:
    if isinstance(literal, Symbol):
        return None
    flags = tuple(set(variables(arg)) <= bound for arg in literal.args)
    return flags if any(flags) else None


def _calls(rule: Rule, adornment: Adornment, is_static, negated_whole):
    """(sentence, adornment, positive) for each relation literal of the
    rule, in SIPS order, negated ones last."""
    bound = _head_bound(rule, adornment)
    for literal in sips_order(rule, bound):
        yield literal, _adornment(literal, bound), True
        bound.update(variables(literal))
    for literal in rule.body:
        if isinstance(literal, Not) and not isinstance(literal.literal, Distinct):
            sentence = sentence_of(literal)
            whole = negated_whole and is_static(relation_key(sentence))
            yield sentence, None if whole else _adornment(sentence, bound), False


def demand_literal(sentence, adornment: tuple[bool, ...]):
    """The demand relation's literal for `sentence` asked with `adornment`."""
    name = DEMAND_PREFIX + f"{sentence.functor}/{len(sentence.args)} " + "".join("b" if b else "f" for b in adornment)
    return Compound(name, tuple(arg for arg, b in zip(sentence.args, adornment) if b))


def _rewritten(rule: Rule, adornment: Adornment, whole: set, is_static, negated_whole,
               demand_from: str = FROM_ALL) -> list[Rule]:
    """The rule guarded by its head's demand, and the demand rules of its body."""
    guard = [] if adornment is None else [demand_literal(rule.head, adornment)]
    result = [Rule(rule.head, tuple(guard) + rule.body)]
    before: list = list(guard)
    tests = [l for l in rule.body if isinstance(l, Distinct)]
    bound = _head_bound(rule, adornment)
    for literal, asked, positive in _calls(rule, adornment, is_static, negated_whole):
        callee = relation_key(literal)
        if asked is not None and callee not in whole:
            prefix, prefix_bound = before, bound
            if demand_from == FROM_BASES:
                prefix, prefix_bound = _binding_bases(before, _asked_variables(literal, asked), is_static)
            elif not positive and demand_from == FROM_NEGATION_PREFIX:
                prefix, prefix_bound = _binding_prefix(before, set(variables(literal)))
            body = prefix + [t for t in tests if set(variables(t)) <= prefix_bound]
            result.append(Rule(demand_literal(literal, asked), tuple(body)))
        if positive:  # it binds what follows
            before.append(literal)
            bound.update(variables(literal))
    return result


def _binding_prefix(before: list, wanted: set) -> tuple[list, set]:
    """The shortest prefix of `before` (a guard, then positive literals) that
    binds `wanted`, and what it binds."""
    bound: set = set()
    for count, literal in enumerate(before):
        if wanted <= bound:
            return before[:count], bound
        bound.update(variables(literal))
    return before, bound


def _asked_variables(literal, asked: tuple[bool, ...]) -> set:
    return {v for arg, is_bound in zip(literal.args, asked) if is_bound for v in variables(arg)}


def _binding_bases(before: list, wanted: set, is_static) -> tuple[list, set]:
    """The literals of `before` that bind `wanted`: each literal of the state,
    the moves, a static or a demand relation that binds something still
    unbound, then derived ones for what those leave; in their order, and
    what they bind."""
    chosen: set = set()
    bound: set = set()
    for bases_only in (True, False):
        for index, literal in enumerate(before):
            if wanted <= bound:
                break
            key = relation_key(literal)
            base = key in _STATE or is_static(key) or key[0].startswith(DEMAND_PREFIX)
            if index in chosen or (bases_only and not base):
                continue
            if set(variables(literal)) & (wanted - bound):
                chosen.add(index)
                bound.update(variables(literal))
    return [literal for index, literal in enumerate(before) if index in chosen], bound
