"""The SWI-Prolog foreign interface as we use it: terms built and read as data.

pyswip finds and initializes libswipl (that is the job it does well); the calls
here go to the library directly through ctypes, because pyswip's query API
parses every goal from a string and keeps a global "query open" flag. Game data
never becomes Prolog source text: a GDL symbol becomes an atom through
`PL_new_atom_mbchars`, a function term a compound through `PL_cons_functor_v`,
whatever characters they hold.

Everything in this module must run on the one Prolog thread
(`prolog_thread.PrologThread`); nothing here is thread-safe.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import sys
import threading
from ctypes import POINTER, byref, c_char_p, c_int, c_int64, c_size_t, c_uint, c_void_p
from typing import Callable, Iterator, Optional

from ..gdl.terms import Compound, Symbol, Term, Variable

_uintptr = ctypes.c_size_t
atom_t = _uintptr
functor_t = _uintptr
term_t = _uintptr
qid_t = _uintptr
fid_t = _uintptr
module_t = c_void_p
predicate_t = c_void_p

REP_UTF8 = 0x00100000
PL_Q_NODEBUG = 0x0004
PL_Q_CATCH_EXCEPTION = 0x0008

# PL_term_type() results (SWI-Prolog 7 and later)
PL_VARIABLE = 1
PL_ATOM = 2
PL_INTEGER = 3
PL_RATIONAL = 4
PL_FLOAT = 5
PL_STRING = 6
PL_TERM = 7
PL_NIL = 8
PL_BLOB = 9
PL_LIST_PAIR = 10

_lib = None


def _bind(name: str, restype, argtypes):
    function = getattr(_lib, name)
    function.restype = restype
    function.argtypes = argtypes
    return function


class _Api:
    """ctypes prototypes for the foreign-interface functions we call."""

    def __init__(self) -> None:
        self.new_term_ref = _bind("PL_new_term_ref", term_t, [])
        self.new_term_refs = _bind("PL_new_term_refs", term_t, [c_int])
        self.new_atom_mbchars = _bind("PL_new_atom_mbchars", atom_t, [c_int, c_size_t, c_char_p])
        self.atom_mbchars = _bind(
            "PL_atom_mbchars", c_int, [atom_t, POINTER(c_size_t), POINTER(c_char_p), c_uint]
        )
        self.new_functor = _bind("PL_new_functor_sz", functor_t, [atom_t, c_size_t])
        self.put_atom = _bind("PL_put_atom", c_int, [term_t, atom_t])
        self.put_variable = _bind("PL_put_variable", c_int, [term_t])
        self.put_int64 = _bind("PL_put_int64", c_int, [term_t, c_int64])
        self.put_float = _bind("PL_put_float", c_int, [term_t, ctypes.c_double])
        self.put_nil = _bind("PL_put_nil", c_int, [term_t])
        self.put_term = _bind("PL_put_term", c_int, [term_t, term_t])
        self.cons_functor_v = _bind("PL_cons_functor_v", c_int, [term_t, functor_t, term_t])
        self.cons_list = _bind("PL_cons_list", c_int, [term_t, term_t, term_t])
        self.term_type = _bind("PL_term_type", c_int, [term_t])
        self.get_atom = _bind("PL_get_atom", c_int, [term_t, POINTER(atom_t)])
        self.get_int64 = _bind("PL_get_int64", c_int, [term_t, POINTER(c_int64)])
        self.get_float = _bind("PL_get_float", c_int, [term_t, POINTER(ctypes.c_double)])
        self.get_name_arity = _bind(
            "PL_get_compound_name_arity_sz", c_int, [term_t, POINTER(atom_t), POINTER(c_size_t)]
        )
        self.get_arg = _bind("PL_get_arg_sz", c_int, [c_size_t, term_t, term_t])
        self.get_list = _bind("PL_get_list", c_int, [term_t, term_t, term_t])
        self.get_nchars = _bind(
            "PL_get_nchars", c_int, [term_t, POINTER(c_size_t), POINTER(c_char_p), c_uint]
        )
        self.predicate = _bind("PL_predicate", predicate_t, [c_char_p, c_int, c_char_p])
        self.open_query = _bind("PL_open_query", qid_t, [module_t, c_int, predicate_t, term_t])
        self.next_solution = _bind("PL_next_solution", c_int, [qid_t])
        self.cut_query = _bind("PL_cut_query", c_int, [qid_t])
        self.exception = _bind("PL_exception", term_t, [qid_t])
        self.open_foreign_frame = _bind("PL_open_foreign_frame", fid_t, [])
        self.discard_foreign_frame = _bind("PL_discard_foreign_frame", None, [fid_t])


api: Optional[_Api] = None


def initialize() -> _Api:
    """Start SWI-Prolog in the calling thread (through pyswip) and bind the API."""
    global _lib, api
    if api is not None:
        return api
    # pyswip calls PL_initialise at import time, in the importing thread, which
    # must therefore be our Prolog thread.
    import pyswip.core as pyswip_core  # noqa: WPS433 (deliberately late)
    import pyswip.prolog  # noqa: F401  (runs PL_initialise)

    _lib = pyswip_core._lib
    # pyswip registers an atexit hook that runs PL_cleanup from the main thread
    # (not a Prolog thread here) and wraps sys.exit; neither is wanted: the
    # process's exit frees Prolog's memory anyway.
    atexit.unregister(pyswip_core.cleanupProlog)
    try:  # pyswip's exit hook (not in every release)
        original_exit = pyswip_core._hook._orig_exit
    except AttributeError:
        original_exit = None
    if original_exit is not None:
        sys.exit = original_exit
    api = _Api()
    return api


CVT_ALL_TEXT = 0x0000003F | 0x00000200  # CVT_ALL | CVT_WRITEQ
BUF_STACK = 0x00010000


class Atoms:
    """Atom and functor handles, created once per name and kept (never GC'd)."""

    def __init__(self) -> None:
        self._atoms: dict[str, int] = {}
        self._functors: dict[tuple[str, int], int] = {}
        self._names: dict[int, str] = {}

    def atom(self, name: str) -> int:
        handle = self._atoms.get(name)
        if handle is None:
            data = name.encode("utf-8")
            handle = api.new_atom_mbchars(REP_UTF8, len(data), data)
            self._atoms[name] = handle
            self._names[handle] = name
        return handle

    def functor(self, name: str, arity: int) -> int:
        key = (name, arity)
        handle = self._functors.get(key)
        if handle is None:
            handle = api.new_functor(self.atom(name), arity)
            self._functors[key] = handle
        return handle

    def name(self, handle: int) -> str:
        name = self._names.get(handle)
        if name is None:
            length = c_size_t()
            text = c_char_p()
            if not api.atom_mbchars(handle, byref(length), byref(text), REP_UTF8):
                raise ValueError("not a text atom")
            name = ctypes.string_at(text, length.value).decode("utf-8")
            # The handle may be garbage collected later and reused for another
            # atom, so only atoms we created ourselves are cached by handle.
        return name


atoms = Atoms()


def put_term(ref: int, term: Term, bindings: dict, rename: Optional[Callable[[str], str]] = None) -> None:
    """Build `term` into term reference `ref`; variables come from/go into `bindings`.

    `rename` maps a compound's functor (used for relation sentences, whose
    predicates live in a namespace of their own).
    """
    if isinstance(term, Symbol):
        api.put_atom(ref, atoms.atom(rename(term.name) if rename else term.name))
    elif isinstance(term, Variable):
        existing = bindings.get(term)
        if existing is None:
            api.put_variable(ref)
            keep = api.new_term_ref()
            api.put_term(keep, ref)
            bindings[term] = keep
        else:
            api.put_term(ref, existing)
    else:
        arity = len(term.args)
        args = api.new_term_refs(arity)
        for offset, arg in enumerate(term.args):
            put_term(args + offset, arg, bindings)
        name = rename(term.functor) if rename else term.functor
        api.cons_functor_v(ref, atoms.functor(name, arity), args)


def put_compound(ref: int, name: str, args: list[Callable[[int], None]]) -> None:
    """Build `name(args...)` where each arg is a function that fills a reference."""
    refs = api.new_term_refs(len(args)) if args else 0
    for offset, fill in enumerate(args):
        fill(refs + offset)
    if args:
        api.cons_functor_v(ref, atoms.functor(name, len(args)), refs)
    else:
        api.put_atom(ref, atoms.atom(name))


def put_list(ref: int, fills: list[Callable[[int], None]]) -> None:
    """Build a Prolog list from functions that each fill one element."""
    api.put_nil(ref)
    head = api.new_term_ref()
    for fill in reversed(fills):
        fill(head)
        api.cons_list(ref, head, ref)


def put_conjunction(ref: int, goal_refs: list[int]) -> None:
    """Build the right-nested conjunction `(G1, (G2, ...))` of filled references
    (at least one): the body of a clause or a query."""
    api.put_term(ref, goal_refs[-1])
    comma = atoms.functor(",", 2)
    for goal in reversed(goal_refs[:-1]):
        pair = api.new_term_refs(2)
        api.put_term(pair, goal)
        api.put_term(pair + 1, ref)
        api.cons_functor_v(ref, comma, pair)


def put_rule(ref: int, head_ref: int, body_ref: int) -> None:
    """Build the clause `Head :- Body` from two filled references."""
    pair = api.new_term_refs(2)
    api.put_term(pair, head_ref)
    api.put_term(pair + 1, body_ref)
    api.cons_functor_v(ref, atoms.functor(":-", 2), pair)


#: Deepest term read back from Prolog; the same bound as the KIF reader's, so a
#: game whose terms grow without end gets an error instead of a RecursionError.
MAX_TERM_DEPTH = 200


class TermTooDeep(ValueError):
    """A Prolog term nested deeper than MAX_TERM_DEPTH."""


class _Spelling(threading.local):
    #: constants the current game's rules write as `(name)` (`gdl.parenthesized_names`)
    names: frozenset = frozenset()


_spelling = _Spelling()


@contextlib.contextmanager
def spelled(names: frozenset) -> Iterator[None]:
    """Within this block (on this thread), terms read back give the constants in
    `names` their parenthesized spelling, as the game's rules write them."""
    before = _spelling.names
    _spelling.names = names
    try:
        yield
    finally:
        _spelling.names = before


def get_term(ref: int, depth: int = 0) -> Term:
    """Read a ground Prolog term back as a GDL term (atoms and integers to symbols)."""
    if depth > MAX_TERM_DEPTH:
        raise TermTooDeep(f"a term nested deeper than {MAX_TERM_DEPTH} levels")
    kind = api.term_type(ref)
    if kind == PL_ATOM or kind == PL_NIL:
        handle = atom_t()
        api.get_atom(ref, byref(handle))
        name = atoms.name(handle.value)
        return Symbol(name, parenthesized=name in _spelling.names)
    if kind == PL_TERM or kind == PL_LIST_PAIR:
        name = atom_t()
        arity = c_size_t()
        api.get_name_arity(ref, byref(name), byref(arity))
        arg = api.new_term_ref()
        args = []
        for index in range(1, arity.value + 1):
            api.get_arg(index, ref, arg)
            args.append(get_term(arg, depth + 1))
        return Compound(atoms.name(name.value), tuple(args))
    if kind == PL_INTEGER:
        value = c_int64()
        api.get_int64(ref, byref(value))
        return Symbol(str(value.value))
    if kind == PL_VARIABLE:
        raise ValueError("a variable where a ground term was expected (an unsafe rule?)")
    return Symbol(get_text(ref))


def get_text(ref: int) -> str:
    """Any term as text (writeq form): for error messages."""
    length = c_size_t()
    text = c_char_p()
    if api.get_nchars(ref, byref(length), byref(text), CVT_ALL_TEXT | BUF_STACK | REP_UTF8):
        return ctypes.string_at(text, length.value).decode("utf-8", errors="replace")
    return "<unprintable term>"


def get_list(ref: int) -> list[int]:
    """The element references of a proper Prolog list."""
    items = []
    tail = api.new_term_ref()
    api.put_term(tail, ref)
    while True:
        head = api.new_term_ref()
        if not api.get_list(tail, head, tail):
            break
        items.append(head)
    return items


def get_int(ref: int) -> int:
    value = c_int64()
    if not api.get_int64(ref, byref(value)):
        raise ValueError(f"expected an integer, got {get_text(ref)}")
    return value.value


def get_float(ref: int) -> float:
    value = ctypes.c_double()
    if api.get_float(ref, byref(value)):
        return value.value
    return float(get_int(ref))
