"""GDL validation: the checks that tell a playable game from a broken one.

Errors (the game is rejected, naming the rule): malformed heads, a relation or
function used with two arities, unsafe variables, no roles, disjunctions that
explode, `next` or `sees` in a rule body, `random` used as a relation.
Warnings (the game is still played): unstratified negation and breaches of the
recursion restriction, which real games commit (cubicup_3player) while staying
playable, and dependencies the GDL spec forbids but a reasoner survives.

GDL-II's `sees` is checked as `next` is: only rule heads define it, its body
may use `true` and `does`. Which dialect a game is in is `dialect.py`'s to say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .analysis import DependencyGraph, build_dependency_graph, sentence_of
from .dialect import SEES, Dialect, dialect_of, player_roles, random_role_index
from .errors import GdlValidationError
from .normalize import expand_disjunctions, is_positive_sentence
from .terms import (
    Compound, Distinct, Rule, Symbol, Term, Variable, is_ground, relation_key, variables,
)

#: The arity GDL fixes for each reserved relation.
KEYWORD_ARITY = {
    "role": 1, "init": 1, "true": 1, "does": 2, "next": 1, "legal": 2,
    "goal": 2, "terminal": 0, "base": 1, "input": 2, "sees": 2,
}

#: Relations the state machine queries with the role (first argument) bound.
_QUERIED_WITH_ROLE = {("legal", 2), ("goal", 2), SEES}

#: Relations a rule may not define.
_NOT_DEFINABLE = {"true", "does", "distinct", "not", "or"}

#: What a joint move leads to (the next state, each role's percepts): only rule
#: heads define them; no rule may ask for them in its body.
_HEAD_ONLY = {"next", "sees"}

#: Reserved words that are no relation at all (GDL-II's chance role).
_NOT_RELATIONS = {"random"}


@dataclass
class ValidatedGame:
    """A game that passed validation: its plain rules, their graph, the warnings."""

    rules: tuple[Rule, ...]
    plain_rules: tuple[Rule, ...]
    graph: DependencyGraph
    roles: tuple[Symbol | Compound, ...]
    warnings: list[str] = field(default_factory=list)

    @property
    def dialect(self) -> Dialect:
        """GDL, or GDL-II when the game has the role `random` or `sees` rules."""
        return dialect_of(self.roles, self.graph.depends_on)

    @property
    def random_role(self) -> Optional[int]:
        """The index in `roles` of the chance role `random`, or None."""
        return random_role_index(self.roles)

    @property
    def player_roles(self) -> tuple[int, ...]:
        """The indexes of the roles a player takes (all but `random`), in role order."""
        return player_roles(self.roles)

    @property
    def has_sees(self) -> bool:
        """True when some rule defines `sees` (what a role perceives after a move)."""
        return SEES in self.graph.depends_on


def validate(rules: tuple[Rule, ...]) -> ValidatedGame:
    """Check a parsed game; raise GdlValidationError on the first breaking rule."""
    pairs = expand_disjunctions(rules)
    plain = tuple(p for p, _ in pairs)
    origin = {p: o for p, o in pairs}
    warnings: list[str] = []

    for rule in plain:
        _check_head(rule, origin[rule])
        _check_reserved_in_body(rule, origin[rule])
    _check_arities(pairs)
    used = {relation_key(s) for r in plain for s in map(sentence_of, r.body) if s is not None}
    kept = []
    for rule in plain:
        head_key = relation_key(rule.head)
        if head_key[0] not in KEYWORD_ARITY and head_key not in used:
            try:
                _check_safety(rule, origin[rule])
            except GdlValidationError as error:
                warnings.append(f"ignored a rule for {head_key[0]}, which nothing uses: {error}")
                continue
        else:
            _check_safety(rule, origin[rule])
        kept.append(rule)
    plain = tuple(kept)

    roles = tuple(r.head.args[0] for r in plain if relation_key(r.head) == ("role", 1))
    if not roles:
        raise GdlValidationError("the game declares no role: it needs at least one (role NAME) fact")
    for rule in plain:
        if relation_key(rule.head) == ("role", 1) and (rule.body or not is_ground(rule.head)):
            raise GdlValidationError("roles must be ground facts", rule=str(origin[rule]))
    if len(set(roles)) != len(roles):
        raise GdlValidationError("a role is declared twice: " + " ".join(map(str, roles)))

    graph = build_dependency_graph(plain)
    for head, body in graph.negative_cycles:
        warnings.append(
            f"unstratified negation: {head[0]}/{head[1]} depends negatively on "
            f"{body[0]}/{body[1]} within a recursive cycle"
        )
    warnings.extend(_recursion_restriction_warnings(plain, origin, graph))
    warnings.extend(_dependency_warnings(graph))
    warnings.extend(_percept_warnings(plain, origin, roles))
    for key in (("terminal", 0), ("legal", 2), ("goal", 2)):
        if key not in graph.relations:
            warnings.append(f"the game defines no {key[0]} rule")
    return ValidatedGame(rules, plain, graph, roles, warnings)


def _check_head(rule: Rule, origin: Rule) -> None:
    head = rule.head
    name = head.name if isinstance(head, Symbol) else head.functor
    if name in _NOT_DEFINABLE:
        raise GdlValidationError(f"'{name}' cannot be defined by a rule or fact", rule=str(origin))
    if name == "<=":
        raise GdlValidationError("'<=' cannot be a relation name", rule=str(origin))
    if name in _NOT_RELATIONS:
        raise GdlValidationError(f"'{name}' is the GDL-II chance role, not a relation", rule=str(origin))


def _check_reserved_in_body(rule: Rule, origin: Rule) -> None:
    """`next` and `sees` say what a joint move leads to: a body may not ask for them
    (GDL and GDL-II both restrict them to heads); `random` is no relation."""
    for literal in rule.body:
        sentence = sentence_of(literal)
        if sentence is None:
            continue
        name = relation_key(sentence)[0]
        if name in _HEAD_ONLY:
            raise GdlValidationError(
                f"'{name}' may only be the head of a rule, not a condition in its body", rule=str(origin)
            )
        if name in _NOT_RELATIONS:
            raise GdlValidationError(f"'{name}' is the GDL-II chance role, not a relation", rule=str(origin))


def _check_arities(pairs) -> None:
    relation_arity: dict[str, tuple[int, Rule]] = {}
    function_arity: dict[str, tuple[int, Rule]] = {}

    def note(table, name, arity, rule, kind):
        known = table.get(name)
        if known is None:
            table[name] = (arity, rule)
        elif known[0] != arity:
            raise GdlValidationError(
                f"{kind} '{name}' is used with {known[0]} and with {arity} arguments "
                f"(first use: {known[1]})",
                rule=str(rule),
            )

    for plain, origin in pairs:
        sentences = [plain.head] + [s for s in map(sentence_of, plain.body) if s is not None]
        for sentence in sentences:
            name, arity = relation_key(sentence)
            expected = KEYWORD_ARITY.get(name)
            if expected is not None and expected != arity:
                raise GdlValidationError(
                    f"'{name}' takes {expected} arguments, not {arity}", rule=str(origin)
                )
            note(relation_arity, name, arity, origin, "relation")
            if isinstance(sentence, Compound):
                _note_functions(sentence.args, note, function_arity, origin)
        for literal in plain.body:
            if isinstance(literal, Distinct):
                _note_functions((literal.left, literal.right), note, function_arity, origin)


def _note_functions(args, note, table, origin) -> None:
    stack = list(args)
    while stack:
        term = stack.pop()
        if isinstance(term, Compound):
            note(table, term.functor, len(term.args), origin, "function")
            stack.extend(term.args)


def _check_safety(rule: Rule, origin: Rule) -> None:
    """Every variable must be bound by a positive body literal, or by the query.

    The state machine asks `legal` and `goal` for one role at a time, so a role
    variable in their first argument is bound by the caller (ggp-base's edge
    cases `test_case_3e`/`3f` rely on it).
    """
    bound = set()
    head_key = relation_key(rule.head)
    if head_key in _QUERIED_WITH_ROLE and isinstance(rule.head.args[0], Variable):
        bound.add(rule.head.args[0])
    for literal in rule.body:
        if is_positive_sentence(literal):
            bound.update(variables(literal))
    unsafe_in = []
    for variable in variables(rule.head):
        if variable not in bound:
            unsafe_in.append((variable, "the head"))
    for literal in rule.body:
        if not is_positive_sentence(literal):
            for variable in variables(literal):
                if variable not in bound:
                    unsafe_in.append((variable, str(literal)))
    if unsafe_in:
        variable, place = unsafe_in[0]
        raise GdlValidationError(
            f"unsafe variable {variable} in {place}: it occurs in no positive literal of the body",
            rule=str(origin),
        )


def _recursion_restriction_warnings(plain, origin, graph: DependencyGraph) -> list[str]:
    """GDL's recursion restriction: recursive calls must be grounded from outside the cycle."""
    found = []
    for rule in plain:
        head_key = relation_key(rule.head)
        if head_key not in graph.recursive:
            continue
        head_vars = set(variables(rule.head))
        outside = set()
        for literal in rule.body:
            if is_positive_sentence(literal) and not graph.same_component(relation_key(literal), head_key):
                outside.update(variables(literal))
        for literal in rule.body:
            sentence = sentence_of(literal)
            if sentence is None or not isinstance(sentence, Compound):
                continue
            if not graph.same_component(relation_key(sentence), head_key):
                continue
            for arg in sentence.args:
                if is_ground(arg) or (isinstance(arg, Variable) and arg in head_vars):
                    continue
                if all(v in outside for v in variables(arg)):
                    continue
                found.append(f"recursion restriction: argument {arg} of {sentence} in rule {origin[rule]}")
                break
    return found[:20]


def _percept_warnings(plain, origin, roles: tuple[Term, ...]) -> list[str]:
    """A `sees` rule for a ground first argument that is no role: nobody perceives it."""
    found = []
    for rule in plain:
        if relation_key(rule.head) == SEES:
            perceiver = rule.head.args[0]
            if is_ground(perceiver) and perceiver not in roles:
                found.append(f"{perceiver} is not a role, so nobody perceives it: {origin[rule]}")
    return found[:20]


def _dependency_warnings(graph: DependencyGraph) -> list[str]:
    found = []
    for key in (("role", 1), ("init", 1), ("base", 1), ("input", 2)):
        if key in graph.state_dependent:
            found.append(f"{key[0]} depends on true or does: it should be state-independent")
    for key in (("legal", 2), ("terminal", 0), ("goal", 2)):
        if key in graph.move_dependent:
            found.append(f"{key[0]} depends on does: it will be evaluated without moves")
    return found
