"""GDL front end: KIF text to immutable terms, rules without `or`, validation.

Knows nothing of Prolog or numba; everything downstream starts from `load_game`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Union

from .dialect import RANDOM_ROLE, Dialect
from .errors import GdlError, GdlSyntaxError, GdlValidationError
from .reader import parse_rules, parse_term, parse_term_list, read_forms, rules_from_sexps
from .terms import (
    KEYWORDS, Compound, Distinct, Literal, Not, Or, Rule, Symbol, Term, Variable,
    is_ground, parenthesized_names, relation_key, substitute, variables,
)
from .validate import ValidatedGame, validate


def load_game(source: Union[str, Path, tuple[Rule, ...]]) -> ValidatedGame:
    """Parse (when given text or a path) and validate a game description."""
    if isinstance(source, Path):
        source = source.read_text(encoding="utf-8", errors="replace")
    rules = parse_rules(source) if isinstance(source, str) else source
    return validate(rules)


__all__ = [
    "KEYWORDS", "RANDOM_ROLE", "Compound", "Dialect", "Distinct", "GdlError", "GdlSyntaxError", "GdlValidationError",
    "Literal", "Not", "Or", "Rule", "Symbol", "Term", "ValidatedGame", "Variable",
    "is_ground", "load_game", "parenthesized_names", "parse_rules", "parse_term", "parse_term_list", "read_forms",
    "relation_key", "rules_from_sexps", "substitute", "validate", "variables",
]
