"""The errors a game description can raise: one base class callers catch."""

from __future__ import annotations

from typing import Optional

#: How much of an offending rule an error message quotes.
RULE_QUOTE_LIMIT = 300


class GdlError(Exception):
    """A game description that cannot be played; says which rule and why."""

    def __init__(self, reason: str, rule: Optional[str] = None, line: Optional[int] = None):
        super().__init__(reason)
        self.reason = reason
        self.rule = rule
        self.line = line

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        text = f"{where}{self.reason}"
        if self.rule:
            quoted = self.rule if len(self.rule) <= RULE_QUOTE_LIMIT else self.rule[:RULE_QUOTE_LIMIT] + "..."
            text += f"\n  in rule: {quoted}"
        return text


class GdlSyntaxError(GdlError):
    """The text is not well-formed KIF, or a form is not a GDL rule."""


class GdlValidationError(GdlError):
    """Well-formed rules that break a GDL restriction (arity, safety, stratification)."""
