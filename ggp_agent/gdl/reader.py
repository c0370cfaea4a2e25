"""KIF reader: text to S-expressions, S-expressions to GDL terms and rules.

GDL arrives from the network, so the reader is built for hostile input: it never
recurses on the input's nesting (a 100,000-deep form is refused, not a crash),
accepts any character KIF allows in a symbol (a symbol is any run of characters
other than whitespace, parentheses and `;`), and every error says where and what.

Keywords are case-insensitive and come out lowercase; every other symbol keeps its
case, because a move sent back in another case is illegal to the server. Numbers
are plain constants: `01` and `1` are different symbols.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .errors import GdlSyntaxError
from .terms import KEYWORDS, Compound, Distinct, Literal, Not, Or, Rule, Symbol, Term, Variable

#: Deepest parenthesis nesting accepted. Real games stay below 15; the bound keeps
#: every later recursive walk (printing, Prolog terms) far from any stack limit.
MAX_NESTING = 200

#: An S-expression: a token, or a parenthesized list of S-expressions.
SExp = Union[str, list]

_DELIMITERS = "();"


@dataclass(frozen=True, slots=True)
class Form:
    """A top-level S-expression and the line it starts on (for error messages)."""

    sexp: SExp
    line: int


def read_forms(text: str, max_nesting: int = MAX_NESTING) -> list[Form]:
    """Split KIF text into top-level S-expressions.

    Raises GdlSyntaxError on unbalanced parentheses or nesting beyond `max_nesting`.
    """
    forms: list[Form] = []
    stack: list[list] = []
    open_lines: list[int] = []
    line = 1
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch.isspace():
            i += 1
        elif ch == ";":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch == "(":
            if len(stack) >= max_nesting:
                raise GdlSyntaxError(
                    f"parentheses nested deeper than {max_nesting} levels", line=line
                )
            stack.append([])
            open_lines.append(line)
            i += 1
        elif ch == ")":
            if not stack:
                raise GdlSyntaxError("unbalanced ')': no '(' to close", line=line)
            done = stack.pop()
            start_line = open_lines.pop()
            if stack:
                stack[-1].append(done)
            else:
                forms.append(Form(done, start_line))
            i += 1
        else:
            start = i
            while i < n and not text[i].isspace() and text[i] not in _DELIMITERS:
                i += 1
            token = text[start:i]
            if stack:
                stack[-1].append(token)
            else:
                forms.append(Form(token, line))
    if stack:
        raise GdlSyntaxError(
            f"unbalanced '(': {len(stack)} left open, the outermost from line {open_lines[0]}",
            line=open_lines[0],
        )
    return forms


def sexp_to_kif(sexp: SExp) -> str:
    """Print an S-expression back as KIF (for error messages)."""
    if isinstance(sexp, str):
        return sexp
    return "(" + " ".join(sexp_to_kif(item) for item in sexp) + ")"


def _normalize_symbol(token: str) -> str:
    lowered = token.lower()
    return lowered if lowered in KEYWORDS else token


def to_term(sexp: SExp) -> Term:
    """An S-expression as a GDL term (constant, variable or function term)."""
    if isinstance(sexp, str):
        if sexp.startswith("?"):
            return Variable(sexp)
        return Symbol(_normalize_symbol(sexp))
    if not sexp:
        raise GdlSyntaxError("empty parentheses '()' are not a term")
    head = sexp[0]
    if not isinstance(head, str) or head.startswith("?"):
        raise GdlSyntaxError(
            f"a function term must start with a name, not {sexp_to_kif(head)}: {sexp_to_kif(sexp)}"
        )
    name = _normalize_symbol(head)
    if name in ("<=", "not", "or", "distinct"):
        raise GdlSyntaxError(f"'{name}' cannot be used inside a term: {sexp_to_kif(sexp)}")
    if len(sexp) == 1:
        return Symbol(name, parenthesized=True)
    return Compound(name, tuple(to_term(item) for item in sexp[1:]))


def to_sentence(sexp: SExp) -> Union[Symbol, Compound]:
    """An S-expression as a relation sentence: a term that is not a variable."""
    term = to_term(sexp)
    if isinstance(term, Variable):
        raise GdlSyntaxError(f"a variable cannot stand as a sentence: {term}")
    return term


def to_literal(sexp: SExp) -> Literal:
    """An S-expression as a body literal: a sentence, `not`, `distinct` or `or`."""
    if isinstance(sexp, list) and sexp and isinstance(sexp[0], str):
        keyword = sexp[0].lower()
        if keyword == "not":
            if len(sexp) != 2:
                raise GdlSyntaxError(f"'not' takes one literal: {sexp_to_kif(sexp)}")
            return Not(to_literal(sexp[1]))
        if keyword == "distinct":
            if len(sexp) != 3:
                raise GdlSyntaxError(f"'distinct' takes two terms: {sexp_to_kif(sexp)}")
            return Distinct(to_term(sexp[1]), to_term(sexp[2]))
        if keyword == "or":
            if len(sexp) < 2:
                raise GdlSyntaxError(f"'or' needs at least one literal: {sexp_to_kif(sexp)}")
            return Or(tuple(to_literal(item) for item in sexp[1:]))
        if keyword == "<=":
            raise GdlSyntaxError(f"a rule cannot appear inside a rule body: {sexp_to_kif(sexp)}")
    return to_sentence(sexp)


def to_rule(sexp: SExp) -> Rule:
    """A top-level S-expression as a rule or a fact."""
    if isinstance(sexp, list) and sexp and isinstance(sexp[0], str) and sexp[0] == "<=":
        if len(sexp) < 2:
            raise GdlSyntaxError("'<=' without a head")
        head = to_sentence(sexp[1])
        if isinstance(head, Compound) and head.functor in ("not", "or", "distinct"):
            raise GdlSyntaxError(f"'{head.functor}' cannot be the head of a rule: {sexp_to_kif(sexp)}")
        return Rule(head, tuple(to_literal(item) for item in sexp[2:]))
    if isinstance(sexp, list) and sexp and isinstance(sexp[0], str):
        keyword = sexp[0].lower()
        if keyword in ("not", "or", "distinct"):
            raise GdlSyntaxError(f"'{keyword}' cannot stand as a fact: {sexp_to_kif(sexp)}")
    return Rule(to_sentence(sexp))


def _with_context(error: GdlSyntaxError, form: Form) -> GdlSyntaxError:
    if error.line is None:
        error.line = form.line
    if error.rule is None:
        error.rule = sexp_to_kif(form.sexp)
    return error


def parse_rules(text: str) -> tuple[Rule, ...]:
    """Parse a game description (KIF text) into rules and facts.

    The rules of a START message arrive wrapped in one more pair of parentheses;
    callers unwrap that list with `rules_from_sexp`.
    """
    return tuple(_parse_forms(read_forms(text)))


def rules_from_sexps(items: list[SExp]) -> tuple[Rule, ...]:
    """Rules from already-read S-expressions (the rule list inside a START)."""
    return tuple(_parse_forms([Form(item, 0) for item in items]))


def _parse_forms(forms: list[Form]) -> list[Rule]:
    rules = []
    for form in forms:
        try:
            rules.append(to_rule(form.sexp))
        except GdlSyntaxError as error:
            raise _with_context(error, form) from None
    return rules


def parse_term(text: str) -> Term:
    """Parse one term, e.g. a move `(mark 1 2)` or `noop`."""
    forms = read_forms(text)
    if len(forms) != 1:
        raise GdlSyntaxError(f"expected one term, found {len(forms)}: {text[:80]!r}")
    return to_term(forms[0].sexp)


def parse_term_list(text: str) -> tuple[Term, ...]:
    """A KIF list of terms, `(t1 t2 ...)`, as its terms: a state as a match
    record writes it. `()` is the empty list.

    >>> [str(t) for t in parse_term_list("((cell 1 1 x) (control (o)))")]
    ['(cell 1 1 x)', '(control (o))']
    """
    forms = read_forms(text)
    if len(forms) != 1 or not isinstance(forms[0].sexp, list):
        raise GdlSyntaxError(f"expected one list of terms: {text[:80]!r}")
    return tuple(to_term(item) for item in forms[0].sexp)
