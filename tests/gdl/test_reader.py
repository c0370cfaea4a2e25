"""The KIF reader: what real GDL looks like, and what hostile text does to it."""

import pytest

from ggp_agent.gdl import (
    Compound, Distinct, GdlSyntaxError, Not, Or, Rule, Symbol, Variable, parenthesized_names, parse_rules,
    parse_term,
)
from ggp_agent.gdl.reader import MAX_NESTING, read_forms


def test_rules_facts_comments_and_canonical_printing():
    rules = parse_rules("""
        ; a comment (with parentheses) that is ignored
        (ROLE xplayer)   ; keywords are case-insensitive
        (init (cell 1 1 b))
        (<= (legal ?p (mark ?x ?y)) (TRUE (cell ?x ?y b)) (true (control ?p)))
    """)
    assert rules[0] == Rule(Compound("role", (Symbol("xplayer"),)))
    assert str(rules[1]) == "(init (cell 1 1 b))"
    assert str(rules[2]) == "(<= (legal ?p (mark ?x ?y)) (true (cell ?x ?y b)) (true (control ?p)))"
    assert rules[2].body[0].functor == "true"


def test_symbols_keep_their_case_and_numbers_are_constants():
    term = parse_term("(cellHolds 01 1 NoOp)")
    assert term == Compound("cellHolds", (Symbol("01"), Symbol("1"), Symbol("NoOp")))
    assert Symbol("01") != Symbol("1")


def test_zero_arity_sentence_in_parentheses_is_the_bare_symbol():
    rules = parse_rules("(<= open1 (true x)) (<= (open2) (true x))")
    assert rules[0].head == Symbol("open1")
    assert rules[1].head == Symbol("open2")


def test_a_parenthesized_constant_prints_as_written_and_equals_the_bare_one():
    """ggp-base keeps `(noop)` apart from `noop`: a move goes back as the rules write it."""
    written = parse_term("(noop)")
    assert str(written) == "(noop)" and str(parse_term("noop")) == "noop"
    assert written == Symbol("noop") and hash(written) == hash(Symbol("noop"))
    assert str(parse_term("(move (up) 1)")) == "(move (up) 1)"
    [rule] = parse_rules("(<= (legal p (noop)) (true (at (home))) (not (true (f))) (distinct (g) x))")
    assert str(rule) == "(<= (legal p (noop)) (true (at (home))) (not (true (f))) (distinct (g) x))"
    assert parenthesized_names(parse_rules("(<= (terminal) (true (done)))")) == {"done"}  # not the sentence
    assert parenthesized_names([rule]) == {"noop", "home", "f", "g"}


def test_any_kif_symbol_character_is_accepted():
    term = parse_term("(f a-b x_1 <= => a.b 'q' \"s\" a,b :- $%&*+/<>=@~!)")
    assert [str(a) for a in term.args] == ["a-b", "x_1", "<=", "=>", "a.b", "'q'", '"s"', "a,b", ":-", "$%&*+/<>=@~!"]


def test_literals_not_distinct_and_nested_or():
    (rule,) = parse_rules("(<= h (p ?x) (not (q ?x)) (distinct ?x a) (or (r ?x) (or (s ?x) (t ?x))))")
    assert isinstance(rule.body[1], Not)
    assert rule.body[2] == Distinct(Variable("?x"), Symbol("a"))
    assert isinstance(rule.body[3], Or) and isinstance(rule.body[3].disjuncts[1], Or)


def test_crlf_line_ends_and_tabs():
    rules = parse_rules("(role a)\r\n(init\t(p 1))\r\n")
    assert [str(r) for r in rules] == ["(role a)", "(init (p 1))"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("(role a", "unbalanced '('"),
        ("(role a))", "unbalanced ')'"),
        ("(<= (p ?x) (not))", "'not' takes one literal"),
        ("(<= (p ?x) (distinct ?x))", "'distinct' takes two terms"),
        ("(<=)", "without a head"),
        ("(<= ?x (p ?x))", "variable cannot stand as a sentence"),
        ("(())", "must start with a name"),
        ("(<= (p) (q (not r)))", "cannot be used inside a term"),
    ],
)
def test_malformed_kif_is_rejected_with_a_reason(text, message):
    with pytest.raises(GdlSyntaxError) as error:
        parse_rules(text)
    assert message in str(error.value)


def test_error_names_line_and_rule():
    with pytest.raises(GdlSyntaxError) as error:
        parse_rules("(role a)\n(init p)\n(<= (legal a x) (distinct a))\n")
    assert error.value.line == 3
    assert "(<= (legal a x) (distinct a))" in str(error.value)


def test_nesting_100000_deep_is_refused_without_crashing():
    text = "(init " + "(f " * 100_000 + "a" + ")" * 100_001
    with pytest.raises(GdlSyntaxError) as error:
        parse_rules(text)
    assert f"nested deeper than {MAX_NESTING}" in str(error.value)


def test_nesting_at_the_limit_is_accepted():
    depth = MAX_NESTING - 1
    text = "(init " + "(f " * (depth - 1) + "a" + ")" * depth
    (rule,) = parse_rules(text)
    assert str(rule).count("(") == depth


def test_read_forms_keeps_start_lines():
    forms = read_forms("(a)\n\n(b\n c)\nd")
    assert [(f.sexp, f.line) for f in forms] == [(["a"], 1), (["b", "c"], 3), ("d", 5)]
