"""The grounder: every ground rule instance the propnet may need, through SWI-Prolog.

Why Prolog: the fixpoint over the game's relations is a tabled query, which SWI
computes in C far faster than a Python loop would, and the reasoner already
runs the game's rules safely there (terms built as data, one module per game,
every call on the Prolog thread under a time limit).

What comes out (`Grounding`): the atoms of the relations that depend on the
state, numbered from 0, and each ground instance of the rules for those
relations as integers (head atom, then literals `2 * atom + negated`). Static
relations are evaluated exactly and disappear from the instances: a static
literal that holds is dropped, an instance with one that fails never appears.
The atoms of `true`, `does`, `legal`, `goal`, `terminal` and `next` come back
as terms; static answers of those relations (and `init`, `role`) too.

The domain is the least model of a relaxed program (see `grounder.pl`): with
`base`/`input` when the game has them and they prove complete, else the
fixpoint of `true <- init | next` and `does <- legal` with negation on
state-dependent relations ignored. Grounding is bounded: a time limit (Prolog's
`call_with_time_limit`), a cap on atoms and one on instances; giving up raises
`GroundingError`, which says where (which relation or rule) and why.

This module must not build the network: it stops at integers.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from ..gdl.analysis import sentence_of
from ..gdl.normalize import is_positive_sentence
from ..gdl.terms import Compound, Distinct, Not, Rule, Symbol, Term, Variable, relation_key, variables
from ..gdl.validate import ValidatedGame
from ..reasoner import swipl
from ..reasoner.compile import order_body, predicate_name
from ..reasoner.prolog_query import call_predicate, consult_runtime
from ..reasoner.prolog_thread import PrologThread
from ..reasoner.statemachine import ReasonerError, ReasonerResourceError, ReasonerTimeout

GROUNDER_FILE = Path(__file__).with_name("grounder.pl")
_MODULE = "ggp_grounder"

#: Default caps: beyond these the propnet would not pay for itself anyway.
DEFAULT_MAX_ATOMS = 1_000_000
DEFAULT_MAX_INSTANCES = 2_000_000

#: Relations whose atoms the network builder needs as terms.
WANTED = (("true", 1), ("does", 2), ("legal", 2), ("goal", 2), ("terminal", 0), ("next", 1), ("init", 1), ("role", 1))

#: Relations every game's modules declare, defined or not.
_ALWAYS = {("role", 1), ("init", 1), ("legal", 2), ("next", 1), ("goal", 2), ("terminal", 0), ("base", 1), ("input", 2),
           ("true", 1), ("does", 2)}

_STATE = {("true", 1), ("does", 2)}

#: Relations whose first argument the state machine binds (a role) when it asks.
_ROLE_FIRST = {("legal", 2), ("goal", 2)}

_counter = itertools.count(1)
_loaded = False
_load_lock = threading.Lock()


class GroundingError(ReasonerError):
    """The grounder gave up: `where` names the relation or rule, `reason` why."""

    def __init__(self, reason: str, where: str = "", seconds: float = 0.0) -> None:
        self.reason = reason
        self.where = where
        self.seconds = seconds
        super().__init__(f"grounding gave up ({reason})" + (f" at {where}" if where else ""))


@dataclass
class Grounding:
    """The ground program of a game's state-dependent part."""

    roles: tuple[Term, ...]
    #: "base" (the game's base/input were complete) or "relaxed" (a fixpoint)
    mode: str
    n_atoms: int
    #: flat int64: per instance head, literal count, literals (2 * atom + negated)
    instances: np.ndarray
    n_instances: int
    #: relation -> [(atom id, argument terms)] for state-dependent wanted relations
    dynamic_atoms: dict[tuple[str, int], list[tuple[int, tuple[Term, ...]]]]
    #: relation -> [argument terms] for static wanted relations (exact answers)
    static_atoms: dict[tuple[str, int], list[tuple[Term, ...]]]
    #: relations that depend on the state (their atoms are the numbered ones)
    dynamic_relations: frozenset
    seconds: float
    notes: list[str] = field(default_factory=list)

    def atoms_of(self, relation: tuple[str, int]) -> tuple[list, list]:
        """(dynamic (id, args) pairs, static args) of a wanted relation."""
        return self.dynamic_atoms.get(relation, []), self.static_atoms.get(relation, [])


def dynamic_relations(rules: tuple[Rule, ...], game: ValidatedGame) -> frozenset:
    """Relations whose truth depends on `true` or `does`, plus those two."""
    dependent = set(game.graph.state_dependent) | _STATE
    # Rules made by a rewriting pass (auxiliary relations) are not in the game's
    # graph: close the set over the rules themselves.
    changed = True
    while changed:
        changed = False
        for rule in rules:
            head = relation_key(rule.head)
            if head in dependent:
                continue
            for literal in rule.body:
                sentence = sentence_of(literal)
                if sentence is not None and relation_key(sentence) in dependent:
                    dependent.add(head)
                    changed = True
                    break
    return frozenset(dependent)


def ground(
    game: ValidatedGame,
    rules: Optional[tuple[Rule, ...]] = None,
    time_limit: float = 10.0,
    max_atoms: int = DEFAULT_MAX_ATOMS,
    max_instances: int = DEFAULT_MAX_INSTANCES,
    use_base: bool = True,
) -> Grounding:
    """Ground `rules` (default: the game's plain rules) within the given bounds."""
    rules = game.plain_rules if rules is None else rules
    dynamic = dynamic_relations(rules, game)
    relations = set(_ALWAYS)
    for rule in rules:
        relations.add(relation_key(rule.head))
        for literal in rule.body:
            sentence = sentence_of(literal)
            if sentence is not None:
                relations.add(relation_key(sentence))
    has_base = any(relation_key(r.head) == ("base", 1) for r in rules) and any(
        relation_key(r.head) == ("input", 2) for r in rules
    )
    mode = "base" if use_base and has_base else "relaxed"
    number = next(_counter)
    plan = _Plan(
        relaxed_module=f"ggp_ground_{number}_r",
        facts_module=f"ggp_ground_{number}_f",
        relations=sorted(relations),
        dynamic=dynamic,
        rules=rules,
    )
    started = time.perf_counter()
    thread = PrologThread.instance()
    try:
        return thread.call(_run, plan, game, mode, time_limit, max_atoms, max_instances, started)
    finally:
        thread.call(_destroy, plan)


@dataclass
class _Plan:
    relaxed_module: str
    facts_module: str
    relations: list
    dynamic: frozenset
    rules: tuple


# -- everything below runs on the Prolog thread --------------------------------


def _ensure_loaded() -> None:
    global _loaded
    with _load_lock:
        if not _loaded:
            consult_runtime(GROUNDER_FILE)
            _loaded = True


def _atom(name: str):
    return lambda ref: swipl.api.put_atom(ref, swipl.atoms.atom(name))


def _int(value: int):
    return lambda ref: swipl.api.put_int64(ref, int(value))


def _indicator(name: str, arity: int):
    return lambda ref: swipl.put_compound(ref, "/", [_atom(predicate_name(name)), _int(arity)])


def _run(plan: _Plan, game: ValidatedGame, mode: str, time_limit: float, max_atoms: int, max_instances: int,
         started: float) -> Grounding:
    _ensure_loaded()
    indicators = [_indicator(name, arity) for name, arity in plan.relations]
    r, f = plan.relaxed_module, plan.facts_module

    def put_list(fills):
        return lambda ref: swipl.put_list(ref, fills)

    call_predicate(_MODULE, "ground_create", [_atom(r), put_list(indicators), put_list(indicators)])
    call_predicate(_MODULE, "ground_create", [_atom(f), put_list(indicators + [
        lambda ref: swipl.put_compound(ref, "/", [_atom("$inst"), _int(3)])]), put_list([])])
    n_rules = 0
    for rule in plan.rules:
        _add_clause(r, lambda ref, rule=rule: _put_relaxed_clause(ref, rule, plan.dynamic))
        if relation_key(rule.head) in plan.dynamic:
            n_rules += 1
            _add_clause(f, lambda ref, rule=rule, index=n_rules: _put_instance_clause(ref, rule, index, plan.dynamic))

    kinds = [
        lambda ref, key=key: swipl.put_compound(
            ref, "-", [_indicator(*key), _atom("state" if key in plan.dynamic else "static")])
        for key in plan.relations
    ]
    remaining = time_limit - (time.perf_counter() - started)
    if remaining <= 0:
        raise GroundingError("time limit", "loading the rules", time.perf_counter() - started)
    limits = lambda ref: swipl.put_compound(ref, "limits", [_int(max_atoms), _int(max_instances), _int(n_rules)])
    wanted = [_indicator(*key) for key in WANTED]
    try:
        result = call_predicate(
            _MODULE, "ground_run",
            [_atom(r), _atom(f), _atom(mode), put_list(kinds), put_list(wanted), limits, lambda ref: swipl.api.put_variable(ref)],
            remaining,
            lambda refs: _read_result(refs + 6, plan),
        )
    except ReasonerError as error:
        seconds = time.perf_counter() - started
        where = _progress(plan)
        if isinstance(error, ReasonerTimeout):
            raise GroundingError("time limit", where, seconds) from None
        if isinstance(error, ReasonerResourceError):
            raise GroundingError("Prolog ran out of memory", where, seconds) from None
        text = str(error)
        reason = text.split("ggp_ground(", 1)[1].rsplit(")", 1)[0] if "ggp_ground(" in text else text
        raise GroundingError(reason, where, seconds) from None
    if result is False:
        raise GroundingError("the grounding query failed", _progress(plan), time.perf_counter() - started)
    mode_used, n_atoms, n_instances, text, dynamic_atoms, static_atoms, notes = result
    instances = np.fromstring(text, dtype=np.int64, sep=" ") if text.strip() else np.zeros(0, dtype=np.int64)
    return Grounding(
        roles=tuple(game.roles),
        mode=mode_used,
        n_atoms=n_atoms,
        instances=instances,
        n_instances=n_instances,
        dynamic_atoms=dynamic_atoms,
        static_atoms=static_atoms,
        dynamic_relations=plan.dynamic,
        seconds=time.perf_counter() - started,
        notes=notes,
    )


def _progress(plan: _Plan) -> str:
    try:
        where = call_predicate(_MODULE, "ground_progress", [lambda ref: swipl.api.put_variable(ref)],
                               read=lambda refs: swipl.get_text(refs))
    except ReasonerError:
        return "unknown"
    text = str(where)
    if text.startswith("rule(") and text[5:-1].isdigit():
        index = int(text[5:-1])
        dynamic_rules = [rule for rule in plan.rules if relation_key(rule.head) in plan.dynamic]
        if 0 < index <= len(dynamic_rules):
            return f"instances of rule {dynamic_rules[index - 1]}"
    return text.replace("gdl:", "")


def _destroy(plan: _Plan) -> None:
    if not _loaded:
        return
    for module in (plan.relaxed_module, plan.facts_module):
        try:
            call_predicate(_MODULE, "ground_destroy", [_atom(module)])
        except ReasonerError:  # pragma: no cover - best effort
            pass


def _read_result(ref: int, plan: _Plan):
    api = swipl.api
    args = api.new_term_refs(6)
    for index in range(6):
        api.get_arg(index + 1, ref, args + index)
    mode = swipl.get_text(args)
    n_atoms = swipl.get_int(args + 1)
    n_instances = swipl.get_int(args + 2)
    text = swipl.get_text(args + 3)
    dynamic_atoms: dict = {}
    static_atoms: dict = {}
    for item in swipl.get_list(args + 4):
        kind = _functor_name(item)
        indicator = api.new_term_ref()
        api.get_arg(1, item, indicator)
        key = _indicator_key(indicator)
        payload = api.new_term_ref()
        api.get_arg(2, item, payload)
        if kind == "dyn":
            pairs = []
            for pair in swipl.get_list(payload):
                left = api.new_term_ref()
                right = api.new_term_ref()
                api.get_arg(1, pair, left)
                api.get_arg(2, pair, right)
                pairs.append((swipl.get_int(left), tuple(swipl.get_term(a) for a in swipl.get_list(right))))
            dynamic_atoms[key] = pairs
        else:
            static_atoms[key] = [tuple(swipl.get_term(a) for a in swipl.get_list(args_ref))
                                 for args_ref in swipl.get_list(payload)]
    notes = [swipl.get_text(item).replace("gdl:", "") for item in swipl.get_list(args + 5)]
    if notes:
        notes = [f"base/input incomplete ({note}): grounded by the relaxed fixpoint instead" for note in notes]
    return mode, n_atoms, n_instances, text, dynamic_atoms, static_atoms, notes


def _functor_name(ref: int) -> str:
    name = swipl.atom_t()
    arity = swipl.c_size_t()
    swipl.api.get_name_arity(ref, swipl.byref(name), swipl.byref(arity))
    return swipl.atoms.name(name.value)


def _indicator_key(ref: int) -> tuple[str, int]:
    api = swipl.api
    name_ref = api.new_term_ref()
    arity_ref = api.new_term_ref()
    api.get_arg(1, ref, name_ref)
    api.get_arg(2, ref, arity_ref)
    name = swipl.get_text(name_ref)
    return name[len(predicate_name("")):], swipl.get_int(arity_ref)


def _add_clause(module: str, fill) -> None:
    api = swipl.api
    frame = api.open_foreign_frame()
    try:
        clause = api.new_term_ref()
        fill(clause)
        call_predicate(_MODULE, "ground_add_clause", [_atom(module), lambda ref: api.put_term(ref, clause)])
    finally:
        api.discard_foreign_frame(frame)


def _role_prefix(rule: Rule) -> list:
    """`(role ?r)` for a legal/goal rule whose role variable only the caller binds."""
    head = rule.head
    if relation_key(head) in _ROLE_FIRST and isinstance(head.args[0], Variable):
        bound = {v for lit in rule.body if is_positive_sentence(lit) for v in variables(lit)}
        if head.args[0] not in bound:
            return [Compound("role", (head.args[0],))]
    return []


def _put_relaxed_clause(ref: int, rule: Rule, dynamic: frozenset) -> None:
    """The rule for R: exact when its head is static, without negations of
    state-dependent relations when not."""
    relaxed = relation_key(rule.head) in dynamic
    goals = []
    for literal in _role_prefix(rule) + list(order_body(rule)):
        if relaxed and isinstance(literal, Not) and not isinstance(literal.literal, Distinct):
            if relation_key(sentence_of(literal)) in dynamic:
                continue
        goals.append(literal)
    _put_clause(ref, _put_sentence_fill(rule.head), goals)


def _put_instance_clause(ref: int, rule: Rule, index: int, dynamic: frozenset) -> None:
    """`'$inst'(Index, Head, Literals) :- Body` for F."""
    goals = []
    literals = []  # (negated, sentence)
    for literal in _role_prefix(rule) + list(order_body(rule)):
        sentence = sentence_of(literal)
        if sentence is not None and relation_key(sentence) in dynamic:
            if isinstance(literal, Not):
                literals.append((True, sentence))
                continue
            literals.append((False, sentence))
        goals.append(literal)

    def head(ref, bindings):
        def put_literals(list_ref):
            swipl.put_list(list_ref, [
                (lambda r, neg=neg, s=s: swipl.put_compound(r, "n" if neg else "p", [lambda a: _put_sentence(a, s, bindings)]))
                for neg, s in literals
            ])
        swipl.put_compound(ref, "$inst", [_int(index), lambda a: _put_sentence(a, rule.head, bindings), put_literals])

    _put_clause(ref, head, goals)


def _put_sentence_fill(sentence):
    return lambda ref, bindings: _put_sentence(ref, sentence, bindings)


def _put_clause(ref: int, put_head, goals: list) -> None:
    api = swipl.api
    bindings: dict = {}
    head_ref = api.new_term_ref()
    put_head(head_ref, bindings)
    if not goals:
        api.put_term(ref, head_ref)
        return
    goal_refs = []
    for literal in goals:
        goal = api.new_term_ref()
        _put_goal(goal, literal, bindings)
        goal_refs.append(goal)
    body = api.new_term_ref()
    api.put_term(body, goal_refs[-1])
    comma = swipl.atoms.functor(",", 2)
    for goal in reversed(goal_refs[:-1]):
        pair = api.new_term_refs(2)
        api.put_term(pair, goal)
        api.put_term(pair + 1, body)
        api.cons_functor_v(body, comma, pair)
    pair = api.new_term_refs(2)
    api.put_term(pair, head_ref)
    api.put_term(pair + 1, body)
    api.cons_functor_v(ref, swipl.atoms.functor(":-", 2), pair)


def _put_sentence(ref: int, sentence, bindings: dict) -> None:
    api = swipl.api
    name, arity = relation_key(sentence)
    if arity == 0:
        api.put_atom(ref, swipl.atoms.atom(predicate_name(name)))
        return
    args = api.new_term_refs(arity)
    for offset, arg in enumerate(sentence.args):
        swipl.put_term(args + offset, arg, bindings)
    api.cons_functor_v(ref, swipl.atoms.functor(predicate_name(name), arity), args)


def _put_goal(ref: int, literal, bindings: dict) -> None:
    api = swipl.api
    if isinstance(literal, (Symbol, Compound)):
        _put_sentence(ref, literal, bindings)
        return
    if isinstance(literal, Distinct) or (isinstance(literal, Not) and isinstance(literal.literal, Distinct)):
        pair_of = literal if isinstance(literal, Distinct) else literal.literal
        operator = "\\==" if isinstance(literal, Distinct) else "=="
        pair = api.new_term_refs(2)
        swipl.put_term(pair, pair_of.left, bindings)
        swipl.put_term(pair + 1, pair_of.right, bindings)
        api.cons_functor_v(ref, swipl.atoms.functor(operator, 2), pair)
        return
    inner = api.new_term_ref()
    _put_sentence(inner, sentence_of(literal), bindings)
    api.cons_functor_v(ref, swipl.atoms.functor("\\+", 1), inner)
