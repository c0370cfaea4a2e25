"""The one set of builders that turn GDL data into Prolog terms (and read some back).

The Prolog engine builds its clauses and queries here (`prolog_machine.py`: a
game's rules and every query's arguments). Terms are built through the foreign interface as data, never
as source text, so a game's symbols cannot become Prolog syntax; every GDL
relation is called through its own predicate name (`compile.predicate_name`).

A *filler* is a function that fills one term reference; lists, compounds and
query arguments are built from fillers. Everything here runs on the Prolog
thread (`prolog_thread.PrologThread`).
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional, Sequence, Union

from ..gdl.terms import Term
from . import swipl
from .compile import goal_shape, relation_of, sentence_args

Filler = Callable[[int], None]
#: Puts a clause's head into a reference, sharing the clause's variable bindings.
HeadFiller = Callable[[int, dict], None]


# -- fillers ---------------------------------------------------------------------------


def var(ref: int) -> None:
    """A fresh variable (an output argument)."""
    swipl.api.put_variable(ref)


def atom(name: str) -> Filler:
    return lambda ref: swipl.api.put_atom(ref, swipl.atoms.atom(name))


def integer(value: int) -> Filler:
    return lambda ref: swipl.api.put_int64(ref, int(value))


def floating(value: float) -> Filler:
    return lambda ref: swipl.api.put_float(ref, float(value))


def term(value: Term) -> Filler:
    """A GDL term as data (its own bindings: no variables shared with anything)."""
    return lambda ref: swipl.put_term(ref, value, {})


def fill_list(fills: Iterable[Filler]) -> Filler:
    return lambda ref: swipl.put_list(ref, list(fills))


def term_list(values: Iterable[Term]) -> Filler:
    return fill_list(term(value) for value in values)


def compound(name: str, *args: Filler) -> Filler:
    return lambda ref: swipl.put_compound(ref, name, list(args))


def indicator(name: str, arity: int) -> Filler:
    """`Name/Arity`, a predicate indicator."""
    return compound("/", atom(name), integer(arity))


def read_term_list(ref: int) -> list[Term]:
    """A Prolog list of terms as GDL terms."""
    return [swipl.get_term(item) for item in swipl.get_list(ref)]


# -- sentences, goals, clauses ------------------------------------------------------------


def put_sentence(ref: int, sentence, bindings: dict) -> None:
    """A GDL sentence as a call of its relation's predicate."""
    name, arity = relation_of(sentence)
    api = swipl.api
    if arity == 0:
        api.put_atom(ref, swipl.atoms.atom(name))
        return
    args = api.new_term_refs(arity)
    for offset, arg in enumerate(sentence_args(sentence)):
        swipl.put_term(args + offset, arg, bindings)
    api.cons_functor_v(ref, swipl.atoms.functor(name, arity), args)


def _put_call(ref: int, sentence, bindings: dict, module: Optional[str]) -> None:
    if module is None:
        put_sentence(ref, sentence, bindings)
        return
    inner = swipl.api.new_term_ref()
    put_sentence(inner, sentence, bindings)
    swipl.put_compound(ref, ":", [atom(module), lambda r: swipl.api.put_term(r, inner)])


def put_goal(ref: int, literal, bindings: dict, module: Optional[str] = None) -> None:
    """A body literal as a goal: a call (in `module` when given), `\\+` for `not`,
    `\\==` for `distinct` and `==` for a negated `distinct`."""
    api = swipl.api
    shape = goal_shape(literal)
    kind = shape[0]
    if kind == "call":
        _put_call(ref, shape[1], bindings, module)
    elif kind == "not":
        inner = api.new_term_ref()
        _put_call(inner, shape[1], bindings, module)
        api.cons_functor_v(ref, swipl.atoms.functor("\\+", 1), inner)
    else:
        operator = "\\==" if kind == "distinct" else "=="
        pair = api.new_term_refs(2)
        swipl.put_term(pair, shape[1], bindings)
        swipl.put_term(pair + 1, shape[2], bindings)
        api.cons_functor_v(ref, swipl.atoms.functor(operator, 2), pair)


class Once(tuple):
    """A group of plan items run as `once(Conjunction)` (at most one answer)."""


#: One item of a clause body: (literal, module or None), or a `Once` of items.
PlanItem = Union[tuple, Once]


def put_clause(ref: int, put_head: HeadFiller, plan: Sequence[PlanItem]) -> None:
    """`Head :- Body` from a head filler and a body plan, or the fact `Head`
    when the plan is empty. Head and body share one set of variable bindings."""
    api = swipl.api
    bindings: dict = {}
    head_ref = api.new_term_ref()
    put_head(head_ref, bindings)
    if not plan:
        api.put_term(ref, head_ref)
        return
    body = api.new_term_ref()
    _put_plan(body, plan, bindings)
    swipl.put_rule(ref, head_ref, body)


def sentence_head(sentence) -> HeadFiller:
    """A head filler for a plain rule's head sentence."""
    return lambda ref, bindings: put_sentence(ref, sentence, bindings)


def _put_plan(ref: int, plan: Sequence[PlanItem], bindings: dict) -> None:
    api = swipl.api
    goal_refs = []
    for item in plan:
        goal = api.new_term_ref()
        if isinstance(item, Once):
            inner = api.new_term_ref()
            _put_plan(inner, item, bindings)
            api.cons_functor_v(goal, swipl.atoms.functor("once", 1), inner)
        else:
            literal, module = item
            put_goal(goal, literal, bindings, module)
        goal_refs.append(goal)
    swipl.put_conjunction(ref, goal_refs)
