"""Calling our Prolog runtime from the Prolog thread: one goal, one answer.

Every call goes through `ggp_runtime:run/2`, which applies the per-query time
limit, and comes back as Python values or as one of the reasoner's errors. A
foreign frame around each call frees the term references it made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from . import swipl
from .statemachine import ReasonerError, ReasonerResourceError, ReasonerTimeout, no_legal_move_error

#: Longest error text we keep from a Prolog exception (resource errors carry
#: whole stack dumps).
_EXCEPTION_TEXT_LIMIT = 500

Filler = Callable[[int], None]


def consult_runtime(path: Path) -> None:
    """Load our own Prolog library (fixed source shipped with the package)."""
    api = swipl.api
    frame = api.open_foreign_frame()
    try:
        arg = api.new_term_ref()
        api.put_atom(arg, swipl.atoms.atom(str(path)))
        consult = api.predicate(b"consult", 1, b"user")
        query = api.open_query(None, swipl.PL_Q_NODEBUG | swipl.PL_Q_CATCH_EXCEPTION, consult, arg)
        try:
            if not api.next_solution(query):
                exception = api.exception(query)
                detail = swipl.get_text(exception) if exception else "it failed"
                raise ReasonerError(f"cannot load the Prolog runtime {path}: {detail}")
        finally:
            api.cut_query(query)
    finally:
        api.discard_foreign_frame(frame)


def call_predicate(
    module: str,
    name: str,
    args: list[Filler],
    time_limit: float = 0.0,
    read: Optional[Callable[[int], object]] = None,
) -> object:
    """Run `module:name(args...)` once under `time_limit` seconds (0: no limit).

    `read` receives the reference of the argument vector after success and
    returns the result; the call returns False when the goal fails.
    """
    api = swipl.api
    frame = api.open_foreign_frame()
    try:
        goal_args = api.new_term_refs(len(args))
        for offset, fill in enumerate(args):
            fill(goal_args + offset)
        goal = api.new_term_ref()
        if args:
            api.cons_functor_v(goal, swipl.atoms.functor(name, len(args)), goal_args)
        else:
            api.put_atom(goal, swipl.atoms.atom(name))
        qualified = api.new_term_ref()
        swipl.put_compound(
            qualified, ":", [lambda r: api.put_atom(r, swipl.atoms.atom(module)), lambda r: api.put_term(r, goal)]
        )
        run_args = api.new_term_refs(2)
        api.put_float(run_args, float(time_limit))
        api.put_term(run_args + 1, qualified)
        query = api.open_query(None, swipl.PL_Q_NODEBUG | swipl.PL_Q_CATCH_EXCEPTION, _run_predicate(), run_args)
        try:
            succeeded = api.next_solution(query)
            if not succeeded:
                exception = api.exception(query)
                if exception:
                    raise _reasoner_error(exception)
                return False
            if read is None:
                return True
            try:
                return read(goal_args)
            except swipl.TermTooDeep as error:
                raise ReasonerResourceError(f"{error}: the game builds terms without bound") from None
        finally:
            api.cut_query(query)
    finally:
        api.discard_foreign_frame(frame)


_run_predicate_handle = None


def _run_predicate():
    global _run_predicate_handle
    if _run_predicate_handle is None:
        _run_predicate_handle = swipl.api.predicate(b"run", 2, b"ggp_runtime")
    return _run_predicate_handle


def _reasoner_error(exception_ref: int) -> ReasonerError:
    """A Prolog exception as one of the reasoner's errors, in plain words where
    our runtime threw it on purpose (`no_legal_move`)."""
    dead_end = _no_legal_move(exception_ref)
    if dead_end is not None:
        return dead_end
    text = swipl.get_text(exception_ref)
    if len(text) > _EXCEPTION_TEXT_LIMIT:
        text = text[:_EXCEPTION_TEXT_LIMIT] + "..."
    if text.startswith("time_limit_exceeded"):
        return ReasonerTimeout("a Prolog query ran past its time limit")
    if "resource_error" in text:
        return ReasonerResourceError(f"Prolog ran out of a bounded resource: {text}")
    return ReasonerError(f"Prolog raised: {text}")


def _no_legal_move(exception_ref: int) -> Optional[ReasonerError]:
    """`error(no_legal_move(Role, Step, Fluents), _)` from the runtime's playouts
    as a NoLegalMoveError that names the role, the step and the state; else None."""
    api = swipl.api
    formal = api.new_term_ref()
    if not api.get_arg(1, exception_ref, formal):
        return None
    name = swipl.atom_t()
    arity = swipl.c_size_t()
    if not api.get_name_arity(formal, swipl.byref(name), swipl.byref(arity)):
        return None
    if swipl.atoms.name(name.value) != "no_legal_move" or arity.value != 3:
        return None
    parts = api.new_term_refs(3)
    for index in range(3):
        api.get_arg(index + 1, formal, parts + index)
    try:
        role = swipl.get_term(parts)
        steps = swipl.get_int(parts + 1)
        state = [swipl.get_term(item) for item in swipl.get_list(parts + 2)]
    except (ValueError, swipl.TermTooDeep):
        return None
    return no_legal_move_error(role, state, steps)
