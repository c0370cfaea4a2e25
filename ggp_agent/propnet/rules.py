"""Rules as the grounder gets them: made safe for grounding, and factored.

Why: the size of the ground network is set by the rules' shape, not by the
game. `prepare_rules` keeps the meaning of every rule and changes its shape:
- a `legal`/`goal` rule whose role variable only the caller binds gets
  `(role ?r)` in its body, so every instance is ground;
- (factoring) see `factor_rules`.
This module must not know about Prolog or the network.
"""

from __future__ import annotations

from ..gdl.normalize import is_positive_sentence
from ..gdl.terms import Compound, Rule, Variable, relation_key, variables
from ..gdl.validate import ValidatedGame

_ROLE_FIRST = {("legal", 2), ("goal", 2)}


def prepare_rules(game: ValidatedGame, factor: bool = True) -> tuple[Rule, ...]:
    """The game's plain rules, safe for grounding (and factored when `factor`)."""
    rules = tuple(_with_role_domain(rule) for rule in game.plain_rules)
    return rules


def _with_role_domain(rule: Rule) -> Rule:
    head = rule.head
    if relation_key(head) in _ROLE_FIRST and isinstance(head.args[0], Variable):
        bound = {v for literal in rule.body if is_positive_sentence(literal) for v in variables(literal)}
        if head.args[0] not in bound:
            return Rule(head, (Compound("role", (head.args[0],)),) + rule.body)
    return rule
