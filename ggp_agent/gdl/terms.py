"""Immutable GDL terms, literals and rules.

Everything downstream (validator, Prolog compiler, grounder, protocol) works on
these values, so they are small, hashable and print back as canonical KIF: one
space between tokens, none inside parentheses, symbols in the case of the rules
(`(cell 1 1 b)`, `noop`), which is the form match servers and the oracle traces use.

A 0-ary relation written `(open2)` and one written `open2` are the same sentence:
the reader makes both a `Symbol`, equal and with one hash, but the first prints
as `(open2)`, as the rules write it (ggp-base keeps `(f)` apart from `f`, so a
move the rules write `(noop)` must go back to the manager as `(noop)`); the
engines restore that spelling on the terms they hand back
(`parenthesized_names`). This module must not know about Prolog.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Union

#: GDL's reserved words. They are case-insensitive; the reader lowercases them.
KEYWORDS = frozenset(
    {
        "role", "init", "true", "does", "next", "legal", "goal", "terminal",
        "base", "input", "distinct", "not", "or", "<=", "sees", "random",
    }
)


@dataclass(frozen=True, slots=True)
class Symbol:
    """An object constant, or the name of a 0-ary relation (`terminal`).

    `parenthesized` says the rules write it `(name)`: it prints so, and is
    otherwise the same symbol (equality and hashing ignore it).

    >>> Symbol("noop", parenthesized=True) == Symbol("noop"), str(Symbol("noop", parenthesized=True))
    (True, '(noop)')
    """

    name: str
    parenthesized: bool = field(default=False, compare=False, repr=False)

    def __str__(self) -> str:
        return f"({self.name})" if self.parenthesized else self.name


@dataclass(frozen=True, slots=True)
class Variable:
    """A variable; `name` keeps the leading `?` so it prints as written."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Compound:
    """A function term or a relation sentence: `(cell 1 1 b)`; never empty."""

    functor: str
    args: tuple["Term", ...]

    def __str__(self) -> str:
        return "(" + self.functor + " " + " ".join(map(str, self.args)) + ")"


Term = Union[Symbol, Variable, Compound]


@dataclass(frozen=True, slots=True)
class Not:
    """Negation as failure of one literal."""

    literal: "Literal"

    def __str__(self) -> str:
        return f"(not {self.literal})"


@dataclass(frozen=True, slots=True)
class Distinct:
    """`(distinct a b)`: true when the two terms, once bound, are not identical."""

    left: Term
    right: Term

    def __str__(self) -> str:
        return f"(distinct {self.left} {self.right})"


@dataclass(frozen=True, slots=True)
class Or:
    """A disjunction in a rule body; may nest."""

    disjuncts: tuple["Literal", ...]

    def __str__(self) -> str:
        return "(or " + " ".join(map(str, self.disjuncts)) + ")"


#: A body literal: a relation sentence (Symbol or Compound), or a connective.
Literal = Union[Symbol, Compound, Not, Distinct, Or]


@dataclass(frozen=True, slots=True)
class Rule:
    """`(<= head body...)`; a fact is a rule with an empty body."""

    head: Union[Symbol, Compound]
    body: tuple[Literal, ...] = ()

    def __str__(self) -> str:
        if not self.body:
            return str(self.head)
        return "(<= " + str(self.head) + " " + " ".join(map(str, self.body)) + ")"


def relation_key(sentence: Union[Symbol, Compound]) -> tuple[str, int]:
    """The (name, arity) a sentence belongs to."""
    if isinstance(sentence, Symbol):
        return (sentence.name, 0)
    return (sentence.functor, len(sentence.args))


def variables(item: Union[Term, Literal]) -> Iterator[Variable]:
    """Every variable occurrence in a term or literal, left to right.

    Iterative, so a pathological term cannot exhaust Python's recursion limit.
    """
    stack: list = [item]
    while stack:
        node = stack.pop()
        if isinstance(node, Variable):
            yield node
        elif isinstance(node, Compound):
            stack.extend(reversed(node.args))
        elif isinstance(node, Not):
            stack.append(node.literal)
        elif isinstance(node, Distinct):
            stack.append(node.right)
            stack.append(node.left)
        elif isinstance(node, Or):
            stack.extend(reversed(node.disjuncts))


def is_ground(term: Term) -> bool:
    """True when the term holds no variable."""
    return next(variables(term), None) is None


def substitute(term: Term, bindings: dict[Variable, Term]) -> Term:
    """The term with bound variables replaced (one level: bindings are not chased)."""
    if isinstance(term, Variable):
        return bindings.get(term, term)
    if isinstance(term, Compound):
        return Compound(term.functor, tuple(substitute(a, bindings) for a in term.args))
    return term


def parenthesized_names(rules: Iterable["Rule"]) -> frozenset[str]:
    """The constants the rules write as `(name)` where a term stands (an argument
    of a sentence or of a function term), not as a sentence of their own: the
    engines give the terms they read back this spelling."""
    found: set[str] = set()
    terms: list = []
    sentences: list = []
    for rule in rules:
        sentences.append(rule.head)
        sentences.extend(rule.body)
    while sentences:
        literal = sentences.pop()
        if isinstance(literal, Compound):
            terms.extend(literal.args)
        elif isinstance(literal, Not):
            sentences.append(literal.literal)
        elif isinstance(literal, Or):
            sentences.extend(literal.disjuncts)
        elif isinstance(literal, Distinct):
            terms.extend((literal.left, literal.right))
    while terms:
        term = terms.pop()
        if isinstance(term, Compound):
            terms.extend(term.args)
        elif isinstance(term, Symbol) and term.parenthesized:
            found.add(term.name)
    return frozenset(found)
