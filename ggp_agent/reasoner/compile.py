"""GDL rules to Prolog clauses, as data, ready to be built through the FFI.

What this decides, so the Prolog side does not have to:
- every GDL relation `name/arity` becomes the predicate `'gdl:name'/arity`, so a
  game's `succ`, `is`, `halt` or `shell` means nothing to Prolog; object
  constants and function terms stay plain atoms and compounds (data, never called);
- body literals are ordered so each `not` and `distinct` runs as soon as all its
  variables are bound, and never before (positive literals keep the author's order);
- a positive literal of a derived relation whose variables earlier literals
  have all bound is called ground, and a ground atom is true or false however
  many proofs it has: it runs as `once`, so Prolog keeps no choice point for
  its other proofs (a game whose rules prove one atom many ways held them all,
  exponentially many);
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
    #: (head sentence, ordered body literals, which of them run as `once`)
    #: per plain rule
    clauses: tuple[tuple[object, tuple[Literal, ...], tuple[bool, ...]], ...]


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
    derived = frozenset(relation_key(rule.head) for rule in game.plain_rules if rule.body)
    clauses = tuple(
        (rule.head, body, pruned_calls(body, derived))
        for rule in game.plain_rules
        for body in [order_body(rule)]
    )
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


def pruned_calls(body: tuple[Literal, ...], derived: frozenset) -> tuple[bool, ...]:
    """For each literal of an ordered body, whether it runs as `once`: a call
    of a relation some rule derives (`derived`, relation keys), all of whose
    variables the positive literals before it bind.

    Such a call is ground (GDL facts are ground, so a variable a positive
    literal binds is ground), and its later proofs cannot bind anything: only
    its truth matters. Variables only the head holds do not count, because a
    caller may leave them free. Calls of facts and of `true` are left alone:
    indexing makes them deterministic already, and `once` would only cost.

    >>> from ggp_agent.gdl import parse_rules
    >>> rule = parse_rules("(<= (p ?x) (q ?y) (r ?y) (not (r ?y)) (t ?x ?y) (f ?y))")[0]
    >>> body = order_body(rule)  # q, (not (r ?y)), r, t, f
    >>> pruned_calls(body, frozenset({("r", 1), ("t", 2)}))
    (False, False, True, False, False)
    """
    bound: set[Variable] = set()
    pruned = []
    for literal in body:
        positive = is_positive_sentence(literal)
        names = set(variables(literal))
        pruned.append(positive and relation_key(literal) in derived and names <= bound)
        if positive:
            bound |= names
    return tuple(pruned)


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
