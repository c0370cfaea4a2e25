"""GDL rules to Prolog clauses, as data, ready to be built through the FFI.

What this decides, so the Prolog side does not have to:
- every GDL relation `name/arity` becomes the predicate `'gdl:name'/arity`, so a
  game's `succ`, `is`, `halt` or `shell` means nothing to Prolog; object
  constants and function terms stay plain atoms and compounds (data, never called);
- body literals are ordered so each `not` and `distinct` runs as soon as all its
  variables are bound, and never before (positive literals keep the author's order);
- relations on a positive cycle are tabled (SLD would loop on cyclic data), and
  those that depend on the state have their tables dropped when it changes.
This module must not import the foreign interface: it produces plain tuples.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..gdl.analysis import sentence_of
from ..gdl.normalize import is_positive_sentence
from ..gdl.terms import Distinct, Literal, Not, Rule, Symbol, Variable, relation_key, variables
from ..gdl.validate import ValidatedGame

#: Prefix of every predicate that stands for a GDL relation.
RELATION_PREFIX = "gdl:"


def predicate_name(relation: str) -> str:
    """The Prolog predicate name of a GDL relation name."""
    return RELATION_PREFIX + relation


@dataclass(frozen=True)
class CompiledGame:
    """Everything the loader asserts into a game's module."""

    roles: tuple
    #: (predicate name, arity) for every relation the rules mention
    relations: tuple[tuple[str, int], ...]
    #: (predicate name, arity, depends on the state)
    tabled: tuple[tuple[str, int, bool], ...]
    #: (head sentence, ordered body literals) per plain rule
    clauses: tuple[tuple[object, tuple[Literal, ...]], ...]


def compile_game(game: ValidatedGame) -> CompiledGame:
    """Plan the Prolog program for a validated game."""
    graph = game.graph
    relation_keys = (set(graph.relations) | _ALWAYS_DECLARED) - _BUILT_IN
    relations = tuple(sorted((predicate_name(name), arity) for name, arity in relation_keys))
    tabled = tuple(
        sorted(
            (predicate_name(name), arity, (name, arity) in graph.state_dependent)
            for name, arity in graph.positively_recursive
        )
    )
    clauses = tuple((rule.head, order_body(rule)) for rule in game.plain_rules)
    return CompiledGame(game.roles, relations, tabled, clauses)


#: Relations the runtime declares itself (the state and the moves).
_BUILT_IN = {("true", 1), ("does", 2)}

#: Relations the runtime queries: declared even when no rule defines them, so
#: that a game without, say, `init` rules has an empty initial state, not an error.
_ALWAYS_DECLARED = {
    ("role", 1), ("init", 1), ("legal", 2), ("next", 1), ("goal", 2),
    ("terminal", 0), ("base", 1), ("input", 2), ("sees", 2),
}


def order_body(rule: Rule) -> tuple[Literal, ...]:
    """Body literals with each negative or `distinct` literal moved to the
    earliest point where all of its variables are bound."""
    bound: set[Variable] = set()
    pending = [lit for lit in rule.body if not is_positive_sentence(lit)]
    ordered: list[Literal] = []

    def release() -> None:
        for literal in list(pending):
            if all(v in bound for v in variables(literal)):
                ordered.append(literal)
                pending.remove(literal)

    release()
    for literal in rule.body:
        if is_positive_sentence(literal):
            ordered.append(literal)
            bound.update(variables(literal))
            release()
    # Literals whose variables only the head binds (a role variable in `legal`,
    # `goal` or `sees`, which the state machine binds when it asks) run last, after the
    # caller's bindings; anything else unsafe was rejected by validation.
    ordered.extend(pending)
    return tuple(ordered)


def goal_shape(literal: Literal) -> tuple:
    """A literal as ('call', sentence) / ('not', sentence) / ('distinct', a, b) /
    ('same', a, b) (a negated distinct)."""
    if isinstance(literal, Distinct):
        return ("distinct", literal.left, literal.right)
    if isinstance(literal, Not):
        inner = literal.literal
        if isinstance(inner, Distinct):
            return ("same", inner.left, inner.right)
        return ("not", sentence_of(inner))
    return ("call", literal)


def relation_of(sentence) -> tuple[str, int]:
    """The predicate (name, arity) a sentence calls."""
    name, arity = relation_key(sentence)
    return predicate_name(name), arity


def sentence_args(sentence) -> tuple:
    """The arguments of a sentence (none for a 0-ary one)."""
    return () if isinstance(sentence, Symbol) else sentence.args
