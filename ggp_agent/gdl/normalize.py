"""Rules without `or`: each rule with disjunctions becomes several plain rules.

Every later stage (validator, Prolog compiler, grounder) then sees conjunctions of
sentences, `not` and `distinct` only, so `or` is handled once, here. `(not (or a b))`
becomes `(not a) (not b)` (De Morgan), which is exact under negation as failure.
"""

from __future__ import annotations

from itertools import product

from .errors import GdlValidationError
from .terms import Distinct, Literal, Not, Or, Rule

#: Most plain rules one rule may expand into before we call it hostile.
MAX_EXPANSION = 10_000

_Conjunction = tuple[Literal, ...]


def _alternatives(literal: Literal, negated: bool) -> list[_Conjunction]:
    """The literal (or its negation) as a disjunction of conjunctions."""
    if isinstance(literal, Or):
        if not negated:
            result: list[_Conjunction] = []
            for disjunct in literal.disjuncts:
                result.extend(_alternatives(disjunct, False))
            return result
        # not (a or b) == (not a) and (not b)
        parts = [_alternatives(d, True) for d in literal.disjuncts]
        return _conjoin(parts)
    if isinstance(literal, Not):
        # Double negation cancels: (not (not p)) is p for the safe rules we accept.
        return _alternatives(literal.literal, not negated)
    # sentence or distinct
    return [(Not(literal),)] if negated else [(literal,)]


def _conjoin(parts: list[list[_Conjunction]]) -> list[_Conjunction]:
    size = 1
    for part in parts:
        size *= max(1, len(part))
        if size > MAX_EXPANSION:
            raise GdlValidationError(
                f"disjunctions expand to more than {MAX_EXPANSION} rules"
            )
    return [tuple(lit for conj in combo for lit in conj) for combo in product(*parts)]


def expand_disjunctions(rules: tuple[Rule, ...]) -> tuple[tuple[Rule, Rule], ...]:
    """Each plain rule paired with the rule it came from (for error messages)."""
    result: list[tuple[Rule, Rule]] = []
    for rule in rules:
        if not any(_contains_or(lit) for lit in rule.body):
            result.append((rule, rule))
            continue
        try:
            bodies = _conjoin([_alternatives(lit, False) for lit in rule.body])
        except GdlValidationError as error:
            error.rule = str(rule)
            raise
        result.extend((Rule(rule.head, body), rule) for body in bodies)
    return tuple(result)


def _contains_or(literal: Literal) -> bool:
    while isinstance(literal, Not):
        literal = literal.literal
    return isinstance(literal, Or)


def is_positive_sentence(literal: Literal) -> bool:
    """True for a plain relation sentence (the literals that bind variables)."""
    return not isinstance(literal, (Not, Distinct, Or))
