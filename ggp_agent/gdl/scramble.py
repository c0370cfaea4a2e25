"""A game's rules under made-up names, as a public match server sends them.

Why: Tiltyard renames every symbol of a game to random words before each
match, so a player can lean on no name. A long run of such matches is also a
long run of games never seen before: new symbols, new Prolog modules, new
propnets. The soak (`referee/soak.py`) sends each match so renamed.

Kept as they are: GDL's keywords, numbers (goal values must stay numbers),
and variables. The renaming is one-to-one and seeded; this module knows
terms only.
"""

from __future__ import annotations

import random
from typing import Iterable

from .terms import KEYWORDS, Compound, Distinct, Literal, Not, Or, Rule, Symbol, Term, Variable

_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"


def scrambled(rules: Iterable[Rule], seed: int) -> tuple[Rule, ...]:
    """`rules` with every name but the keywords and numbers replaced, the same
    way everywhere (a rule set that was valid stays valid).

    >>> from .reader import parse_rules
    >>> [str(r) for r in scrambled(parse_rules("(role x) (<= (goal x 100) (true (cell 1 x)))"), 7)]
    ['(role lemadu)', '(<= (goal lemadu 100) (true (dirape 1 lemadu)))']
    """
    rules = tuple(rules)
    rng = random.Random(seed)
    names: dict[str, str] = {}
    used = set(KEYWORDS)

    def rename(name: str) -> str:
        if name in KEYWORDS or name.lstrip("-").isdigit():
            return name
        if name not in names:
            word = _word(rng)
            while word in used:
                word = _word(rng)
            used.add(word)
            names[name] = word
        return names[name]

    def term(item: Term) -> Term:
        if isinstance(item, Variable):
            return item
        if isinstance(item, Symbol):
            return Symbol(rename(item.name), item.parenthesized)
        return Compound(rename(item.functor), tuple(term(a) for a in item.args))

    def literal(item: Literal) -> Literal:
        if isinstance(item, Not):
            return Not(literal(item.literal))
        if isinstance(item, Distinct):
            return Distinct(term(item.left), term(item.right))
        if isinstance(item, Or):
            return Or(tuple(literal(d) for d in item.disjuncts))
        return term(item)

    return tuple(Rule(term(rule.head), tuple(literal(b) for b in rule.body)) for rule in rules)


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(3))
