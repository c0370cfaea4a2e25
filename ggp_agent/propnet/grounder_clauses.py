"""The grounder's Prolog side as data: the clauses it loads and the answers it reads.

`grounder.py` decides what to ground and in which order; this module builds
the clauses of its three programs (the relaxed program R, the semi-naive rounds
of recursive components, the instance clauses of F) with the reasoner's term
builders (`reasoner/prolog_terms.py`), and reads the result of a grounding back
without leaving a term reference per element on Prolog's stack. Everything
here runs on the Prolog thread.
"""

from __future__ import annotations

import time
from typing import Callable, Optional

from ..gdl.analysis import sentence_of
from ..gdl.terms import Distinct, Not, Rule, relation_key
from ..reasoner import prolog_terms as pt
from ..reasoner import swipl
from ..reasoner.compile import order_body, predicate_name
from .rules import answer_plan, join_order


def relaxed_body(rule: Rule, dynamic: frozenset) -> list:
    """The rule's body for R: all of it when its head is static; without the
    negations of state-dependent relations when not."""
    relaxed = relation_key(rule.head) in dynamic
    body = []
    for literal in rule.body:
        if relaxed and isinstance(literal, Not) and not isinstance(literal.literal, Distinct):
            if relation_key(sentence_of(literal)) in dynamic:
                continue
        body.append(literal)
    return body


def negative_inside(rules, members, dynamic) -> bool:
    """Whether a rule of the component negates a relation of the component (as R keeps it)."""
    members = set(members)
    for rule in rules:
        if relation_key(rule.head) in members:
            for literal in relaxed_body(rule, dynamic):
                if isinstance(literal, Not) and not isinstance(literal.literal, Distinct):
                    if relation_key(sentence_of(literal)) in members:
                        return True
    return False


def relation_indicator(key: tuple[str, int]) -> pt.Filler:
    """The predicate indicator of a GDL relation (name, arity)."""
    name, arity = key
    return pt.indicator(predicate_name(name), arity)


def put_plain_clause(ref: int, head, body: list, facts_module: str, local, is_static) -> None:
    """`Head :- Body` for R: goals read F's facts, except those on relations of
    the head's own (tabled) component."""
    def module(literal, first):
        sentence = sentence_of(literal)
        if sentence is None or (local and local(relation_key(sentence))):
            return None
        return facts_module

    plan = _with_modules(answer_plan(head, body, is_static), module)
    pt.put_clause(ref, pt.sentence_head(head), plan)


def put_tagged_clause(ref: int, tag: str, component: int, head, body: list, facts_module: str,
                      delta_module: Optional[str], is_static) -> None:
    """`Tag(Component, Head) :- Body` for a semi-naive component; with a delta
    module, the body's first literal reads the previous round's new facts."""
    def module(literal, first):
        if sentence_of(literal) is None:
            return None
        return delta_module if first and delta_module is not None else facts_module

    plan = _with_modules(answer_plan(head, body, is_static, keep_first=delta_module is not None), module)

    def put_head(head_ref, bindings):
        swipl.put_compound(head_ref, tag, [pt.integer(component), lambda a: pt.put_sentence(a, head, bindings)])

    pt.put_clause(ref, put_head, plan)


def _with_modules(plan: list, module: Callable) -> list:
    """`rules.answer_plan`'s items as `prolog_terms` plan items, each goal in its module."""
    result = []
    for item in plan:
        if item[0] == "once":
            result.append(pt.Once(_with_modules(item[1], module)))
        else:
            result.append((item[1], module(item[1], item[2])))
    return result


def put_instance_clause(ref: int, rule: Rule, index: int, dynamic: frozenset, estimates) -> None:
    """`'$inst'(Index, Head, Literals) :- Body` for F."""
    goals = []
    literals = []  # (negated, sentence)
    ordered = join_order(list(rule.body), lambda key: key not in dynamic, estimates)
    for literal in order_body(Rule(rule.head, tuple(ordered))):
        sentence = sentence_of(literal)
        if sentence is not None and relation_key(sentence) in dynamic:
            if isinstance(literal, Not):
                literals.append((True, sentence))
                continue
            literals.append((False, sentence))
        goals.append(literal)

    def head(head_ref, bindings):
        def put_literals(list_ref):
            swipl.put_list(list_ref, [
                (lambda r, neg=neg, s=s: swipl.put_compound(r, "n" if neg else "p",
                                                            [lambda a: pt.put_sentence(a, s, bindings)]))
                for neg, s in literals
            ])
        swipl.put_compound(head_ref, "$inst", [pt.integer(index), lambda a: pt.put_sentence(a, rule.head, bindings),
                                                put_literals])

    pt.put_clause(ref, head, [(goal, None) for goal in goals])


def put_pattern(ref: int, literal, order) -> None:
    """`pattern(Goal, Vars)`: a literal and its variables in `order` (for measuring)."""
    bindings: dict = {}
    goal = swipl.api.new_term_ref()
    pt.put_sentence(goal, literal, bindings)
    swipl.put_compound(ref, "pattern", [
        lambda r: swipl.api.put_term(r, goal),
        lambda r: swipl.put_list(r, [lambda x, v=v: swipl.api.put_term(x, bindings[v]) for v in order]),
    ])


# -- reading answers ------------------------------------------------------------------


def iterate(ref: int):
    """The elements of a Prolog list, one term reference reused for each.

    Reading a big answer must not leave a term reference per element on
    Prolog's local stack: outside a query it cannot grow, and an overflow
    there is fatal to the process. Each element is read inside its own
    foreign frame, freed before the next.
    """
    api = swipl.api
    tail = api.new_term_ref()
    head = api.new_term_ref()
    api.put_term(tail, ref)
    while api.get_list(tail, head, tail):
        frame = api.open_foreign_frame()
        try:
            yield head
        finally:
            api.discard_foreign_frame(frame)


def read_result(ref: int, deadline: float, on_time_out: Callable[[str], Exception]):
    """`result(NAtoms, NInstances, Text, Atoms)` as Python values; `on_time_out`
    makes the error raised when reading outlives `deadline`."""
    api = swipl.api
    args = api.new_term_refs(4)
    for index in range(4):
        api.get_arg(index + 1, ref, args + index)
    n_atoms = swipl.get_int(args)
    n_instances = swipl.get_int(args + 1)
    text = swipl.get_text(args + 2)
    dynamic_atoms: dict = {}
    static_atoms: dict = {}
    item_refs = api.new_term_refs(2)
    for item in iterate(args + 3):
        kind = _functor_name(item)
        api.get_arg(1, item, item_refs)
        key = _indicator_key(item_refs)
        api.get_arg(2, item, item_refs + 1)
        found = []
        pair_refs = api.new_term_refs(2)
        for count, element in enumerate(iterate(item_refs + 1)):
            if count & 1023 == 1023 and time.perf_counter() > deadline:
                raise on_time_out(f"reading the atoms of {key[0]}/{key[1]}")
            if kind == "dyn":
                api.get_arg(1, element, pair_refs)
                api.get_arg(2, element, pair_refs + 1)
                found.append((swipl.get_int(pair_refs), _read_args(pair_refs + 1)))
            else:
                found.append(_read_args(element))
        (dynamic_atoms if kind == "dyn" else static_atoms)[key] = found
    return n_atoms, n_instances, text, dynamic_atoms, static_atoms


def _read_args(ref: int) -> tuple:
    return tuple(swipl.get_term(a) for a in swipl.get_list(ref))


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
