"""The validator: broken games are rejected naming the rule; bent ones warn."""

import pytest

from ggp_agent.gdl import RANDOM_ROLE, Dialect, GdlValidationError, load_game
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


# -- GDL-II: the random role and sees ------------------------------------------------

#: The smallest GDL-II game: random picks a side, the player perceives it only
#: when it asks.
CHANCE = """
(role player) (role random)
(init (phase pick))
(<= (legal random (side ?s)) (true (phase pick)) (side ?s))
(<= (legal random wait) (true (phase look)))
(<= (legal player wait) (true (phase pick)))
(<= (legal player look) (true (phase look)))
(side heads) (side tails)
(<= (next (shown ?s)) (does random (side ?s)))
(<= (next (shown ?s)) (true (shown ?s)))
(<= (next (phase look)) (true (phase pick)))
(<= (next done) (true (phase look)))
(<= (sees ?r (saw ?s)) (role ?r) (does player look) (true (shown ?s)))
(<= (sees player turned) (does random (side ?s)))
(<= terminal (true done))
(<= (goal player 100) (true done))
"""


def test_a_perfect_information_game_is_gdl():
    game = load_game(MINIMAL)
    assert game.dialect is Dialect.GDL
    assert game.random_role is None and not game.has_sees


def test_the_random_role_and_sees_rules_make_a_game_gdl_ii():
    game = load_game(CHANCE)
    assert game.dialect is Dialect.GDL_II
    assert game.roles[game.random_role] == RANDOM_ROLE
    assert game.random_role == 1 and game.has_sees
    assert game.warnings == []


@pytest.mark.parametrize("extra", ["(role random)", "(<= (sees a (got ?x)) (does a ?x))"])
def test_either_gdl_ii_word_alone_makes_the_dialect(extra):
    game = load_game(MINIMAL + extra)
    assert game.dialect is Dialect.GDL_II


def test_the_random_keyword_is_case_insensitive_like_every_keyword():
    game = load_game(MINIMAL + "(role RANDOM)")
    assert game.random_role == 1


def test_sees_may_use_does_and_true_and_depends_on_the_move():
    game = load_game(CHANCE)
    assert ("sees", 2) in game.graph.move_dependent
    assert ("sees", 2) in game.graph.state_dependent


@pytest.mark.parametrize(
    "rule, words",
    [
        ("(<= (r ?p) (sees a ?p))", "'sees' may only be the head of a rule"),
        ("(<= (legal a stay) (not (sees a blinded)))", "'sees' may only be the head of a rule"),
        ("(<= (r ?p) (next ?p))", "'next' may only be the head of a rule"),
        ("(<= random (true p))", "'random' is the GDL-II chance role, not a relation"),
        ("(<= (legal a stay) random)", "'random' is the GDL-II chance role, not a relation"),
        ("(<= (random ?x) (true ?x))", "'random' is the GDL-II chance role, not a relation"),
        ("(sees a)", "'sees' takes 2 arguments, not 1"),
    ],
)
def test_gdl_ii_words_out_of_place_are_rejected_naming_the_rule(rule, words):
    with pytest.raises(GdlValidationError) as error:
        load_game(MINIMAL + rule)
    assert words in str(error.value)
    assert rule in str(error.value)


def test_a_sees_rule_needs_its_percept_bound_like_any_rule():
    rule = "(<= (sees a (got ?x)) (true p))"
    with pytest.raises(GdlValidationError, match=r"unsafe variable \?x") as error:
        load_game(MINIMAL + rule)
    assert rule in str(error.value)


def test_the_role_of_sees_is_bound_by_the_query_as_for_legal_and_goal():
    game = load_game(MINIMAL + "(<= (sees ?r ping) (true p))")
    assert game.warnings == []


def test_a_percept_for_a_name_that_is_no_role_warns():
    game = load_game(MINIMAL + "(<= (sees nobody ping) (true p))")
    assert any("nobody is not a role" in w for w in game.warnings)

