"""The validator: broken games are rejected naming the rule; bent ones warn."""

import pytest

from ggp_agent.gdl import GdlValidationError, load_game
from ggp_agent.gdl.normalize import expand_disjunctions
from ggp_agent.gdl.reader import parse_rules

from ..helpers import shared_path

MINIMAL = """
(role a)
(init p)
(legal a go)
(<= (next q) (true p))
(<= terminal (true q))
(goal a 100)
"""


def test_minimal_game_is_valid():
    game = load_game(MINIMAL)
    assert [str(r) for r in game.roles] == ["a"]
    assert game.warnings == []


def test_relation_with_two_arities():
    with pytest.raises(GdlValidationError) as error:
        load_game(MINIMAL + "(foo bar) (foo bar bar)")
    assert "relation 'foo' is used with 1 and with 2 arguments" in str(error.value)
    assert "(foo bar bar)" in str(error.value)


def test_function_with_two_arities():
    with pytest.raises(GdlValidationError) as error:
        load_game(MINIMAL + "(legal a (m 1)) (legal a (m 1 2))")
    assert "function 'm' is used with 1 and with 2 arguments" in str(error.value)


def test_keyword_with_wrong_arity():
    with pytest.raises(GdlValidationError, match="'legal' takes 2 arguments"):
        load_game(MINIMAL + "(legal a)")


@pytest.mark.parametrize(
    "rule, variable",
    [
        ("(<= (legal a (m ?x)) (true p))", "?x"),
        ("(<= (next (r ?y)) (true p) (not (s ?y)))", "?y"),
        ("(<= (next r) (true p) (distinct ?z p))", "?z"),
    ],
)
def test_unsafe_variable_is_rejected_with_the_rule(rule, variable):
    with pytest.raises(GdlValidationError) as error:
        load_game(MINIMAL + "(s 1)" + rule)
    assert f"unsafe variable {variable}" in str(error.value)
    assert rule in str(error.value)


def test_role_variable_of_legal_and_goal_is_bound_by_the_query():
    game = load_game(MINIMAL + "(<= (goal ?p 0) (not (true p)))")
    assert game.warnings == []


def test_no_role_is_an_error():
    with pytest.raises(GdlValidationError, match="no role"):
        load_game("(init p) (legal a go)")


def test_defining_true_or_does_is_an_error():
    with pytest.raises(GdlValidationError, match="'true' cannot be defined"):
        load_game(MINIMAL + "(<= (true x) (true p))")


def test_unstratified_negation_warns_and_goes_on():
    game = load_game(MINIMAL + "(<= (r ?x) (s ?x) (not (t ?x))) (<= (t ?x) (s ?x) (r ?x)) (s 1)")
    assert any("unstratified negation" in w for w in game.warnings)


def test_recursion_restriction_breach_warns():
    game = load_game(MINIMAL + "(s 1) (<= (r ?x) (s ?x)) (<= (r ?y) (r ?x) (f ?x ?y)) (f 1 2)")
    assert game.warnings == []  # ?y is bound by f, outside the cycle
    game = load_game(MINIMAL + "(s 1) (<= (r ?x) (s ?x)) (<= (r ?y) (s ?x) (r (g ?y ?x)))")
    assert any("recursion restriction" in w for w in game.warnings)


def test_or_expands_to_plain_rules_with_de_morgan_under_not():
    (rule,) = parse_rules("(<= h (p ?x) (or (q ?x) (and1 ?x)) (not (or (r ?x) (s ?x))))")
    plain = [str(p) for p, _ in expand_disjunctions((rule,))]
    assert plain == [
        "(<= h (p ?x) (q ?x) (not (r ?x)) (not (s ?x)))",
        "(<= h (p ?x) (and1 ?x) (not (r ?x)) (not (s ?x)))",
    ]


def test_dependency_graph_marks_recursion_and_state_dependence():
    game = load_game(MINIMAL + "(adj 1 2) (<= (reach ?x) (true (at ?x))) (<= (reach ?y) (reach ?x) (adj ?x ?y))")
    assert ("reach", 1) in game.graph.positively_recursive
    assert ("reach", 1) in game.graph.state_dependent
    assert ("adj", 2) not in game.graph.state_dependent


@pytest.mark.parametrize(
    "name, message",
    [
        ("test_invalid_function_arities_differ", "function 'a' is used with 1 and with 2 arguments"),
        ("test_invalid_sentence_arities_differ", "relation 'foo' is used with 1 and with 2 arguments"),
    ],
)
def test_invalid_edge_cases_are_rejected(name, message):
    path = shared_path("gdl-corpus", "edge-cases", f"{name}.kif")
    with pytest.raises(GdlValidationError, match=message):
        load_game(path)
