"""What keeps the grounder's work proportional to what the network needs:
demand (a relation computed only where its callers ask), inert fluents (a
fluent no move changes is static), factoring of chained arithmetic, and the
caps that stop a grounding bomb. Each game below is small, but built so that
the grounding would not fit the caps given without the mechanism, and each
propnet is checked against Prolog on random walks."""

import random

import pytest

from ggp_agent.gdl import load_game
from ggp_agent.propnet.grounding.demand import with_demand
from ggp_agent.propnet.grounding.grounder import GroundingError, ground
from ggp_agent.propnet.grounding.inert import inert_families
from ggp_agent.propnet.machine.state_machine import PropnetStateMachine
from ggp_agent.reasoner.prolog_machine import PrologStateMachine

CELLS = [f"c{i}" for i in range(40)]

#: Chinese checkers' goal: `count` holds for every triple of cells and both
#: players (40^3 * 2 * 4 = 512,000 atoms whole), the goal asks about three.
COUNTING = "(role red) (role blue) (init (control red))\n" + " ".join(
    f"(cell {c})" for c in CELLS) + """
(<= (init (at ?c blank)) (cell ?c))
(<= (legal ?p (mark ?c)) (true (control ?p)) (true (at ?c blank)))
(<= (legal red noop) (true (control blue)))
(<= (legal blue noop) (true (control red)))
(<= (next (at ?c ?p)) (does ?p (mark ?c)))
(<= (next (at ?c ?v)) (true (at ?c ?v)) (does ?p (mark ?d)) (distinct ?c ?d))
(<= (next (at ?c ?v)) (true (at ?c ?v)) (does ?p noop))
(<= (next (control red)) (true (control blue)))
(<= (next (control blue)) (true (control red)))
(<= (count ?x ?y ?z ?p 100) (true (at ?x ?p)) (true (at ?y ?p)) (true (at ?z ?p)))
(<= (count ?x ?y ?z ?p 50) (true (at ?x ?p)) (true (at ?y ?p)) (true (at ?z blank)))
(<= (count ?x ?y ?z ?p 0) (true (at ?x blank)) (role ?p) (true (at ?y ?v)) (true (at ?z ?w)))
(<= (goal red ?v) (count c1 c2 c3 red ?v))
(<= (goal blue ?v) (count c4 c5 c6 blue ?v))
(<= (goal ?p 25) (role ?p) (not (count c1 c2 c3 ?p 100)) (not (count c1 c2 c3 ?p 50))
    (not (count c1 c2 c3 ?p 0)) (not (count c4 c5 c6 ?p 100)) (not (count c4 c5 c6 ?p 50))
    (not (count c4 c5 c6 ?p 0)))
(<= terminal (goal ?p 100))
(<= terminal (not (true (at c1 blank))) (not (true (at c4 blank))) (not (true (at c7 blank))))
"""

#: A token walks a line of 40 squares, walls block it: its `true (wall ..)`
#: only ever holds as it did initially (inert), so the relaxed model keeps
#: the token between the walls, at squares 0 to 3.
WALLED = "(role r) (init (at 0)) (init (wall 3 4))\n" + " ".join(f"(succ {i} {i + 1})" for i in range(40)) + """
(<= (legal r (step ?x ?y)) (true (at ?x)) (succ ?x ?y) (not (true (wall ?x ?y))))
(legal r stay)
(<= (next (at ?y)) (does r (step ?x ?y)))
(<= (next (at ?x)) (does r stay) (true (at ?x)))
(<= (next (wall ?x ?y)) (true (wall ?x ?y)))
(<= terminal (true (at 3)))
(goal r 100)
"""

#: Six guesses summed: one rule whose instances are every combination of
#: guesses (30^6) unless the sums are split off one at a time.
NUMBERS = 30
SUMMING = """
(role p1) (role p2) (role p3) (role p4) (role p5) (role p6)
(<= (legal ?p (guess ?n)) (role ?p) (number ?n) (not (true (done ?p))))
(<= (legal ?p noop) (true (done ?p)))
(<= (next (guessed ?p ?n)) (does ?p (guess ?n)))
(<= (next (guessed ?p ?n)) (true (guessed ?p ?n)))
(<= (next (done ?p)) (does ?p (guess ?n)))
(<= (next (done ?p)) (true (done ?p)))
(<= (total ?t) (true (guessed p1 ?a)) (true (guessed p2 ?b)) (sum ?a ?b ?s1) (true (guessed p3 ?c))
    (sum ?s1 ?c ?s2) (true (guessed p4 ?d)) (sum ?s2 ?d ?s3) (true (guessed p5 ?e)) (sum ?s3 ?e ?s4)
    (true (guessed p6 ?f)) (sum ?s4 ?f ?t))
(<= (goal ?p 100) (role ?p) (total ?t) (small ?t))
(<= (goal ?p 0) (role ?p) (total ?t) (not (small ?t)))
(<= (goal ?p 50) (role ?p) (not (true (done p1))))
(<= terminal (true (done p1)))
(<= (sum ?x 0 ?x) (number ?x))
(<= (sum ?x ?y ?z) (succ ?y1 ?y) (sum ?x ?y1 ?z1) (succ ?z1 ?z))
(<= (small ?t) (sum 20 ?x ?t))
""" + " ".join(f"(succ {i} {i + 1})" for i in range(6 * NUMBERS)) + " " + " ".join(
    f"(number {i})" for i in range(6 * NUMBERS))


def agree_on_random_walks(text: str, walks: int = 4, seed: int = 7) -> None:
    game = load_game(text)
    propnet = PropnetStateMachine(game)
    rng = random.Random(seed)
    with PrologStateMachine(game) as prolog:
        for _ in range(walks):
            ours = theirs = propnet.initial_state()
            for _step in range(40):
                assert ours == theirs
                assert propnet.is_terminal(ours) == prolog.is_terminal(theirs)
                if propnet.is_terminal(ours):
                    assert propnet.goal_values(ours) == prolog.goal_values(theirs)
                    break
                joint = []
                for role in range(len(game.roles)):
                    legal = propnet.legal_moves(ours, role)
                    assert sorted(map(str, legal)) == sorted(map(str, prolog.legal_moves(theirs, role)))
                    joint.append(rng.choice(legal))
                ours, theirs = propnet.next_state(ours, joint), prolog.next_state(theirs, joint)


def test_a_relation_is_computed_where_its_callers_ask():
    game = load_game(COUNTING)
    grounding = ground(game, max_atoms=100_000)  # count whole: 512,000 atoms
    assert any("count/5 computed under demand" in note for note in grounding.notes)
    assert grounding.n_atoms < 5_000
    agree_on_random_walks(COUNTING)


def test_demand_guards_a_rule_by_the_arguments_asked_and_leaves_wanted_relations_whole():
    game = load_game(COUNTING)
    rules = with_demand(list(game.plain_rules), {("goal", 2), ("legal", 2), ("next", 1), ("terminal", 0)},
                        lambda key: key not in {("true", 1), ("does", 2)}).rules
    guarded = [rule for rule in rules if str(rule.head).startswith("(count")]
    assert guarded and all(str(rule.body[0]).startswith("(demand count/5 ") for rule in guarded)
    demands = sorted(str(rule) for rule in rules if str(rule.head).startswith("(demand count"))
    assert "(demand count/5 bbbbf c1 c2 c3 red)" in demands  # a fact: the goal asks for it
    assert all(not str(rule.head).startswith("(demand goal") for rule in rules)


def test_a_fluent_no_move_changes_is_static_and_bounds_the_relaxed_model():
    game = load_game(WALLED)
    assert inert_families(game.plain_rules) == frozenset({("wall", 2)})
    grounding = ground(game)
    fluents = sorted(str(args[0]) for _, args in grounding.atoms_of(("true", 1))[0])
    assert [f for f in fluents if f.startswith("(at")] == ["(at 0)", "(at 1)", "(at 2)", "(at 3)"]  # else to 40
    agree_on_random_walks(WALLED)


def test_chained_sums_are_split_one_at_a_time():
    grounding = ground(load_game(SUMMING), max_instances=200_000)  # unsplit: 30^6 instances
    assert grounding.n_instances < 100_000
    agree_on_random_walks(SUMMING, walks=3)


def test_a_join_past_its_cap_stops_the_grounding_and_says_where():
    game = load_game(COUNTING)
    with pytest.raises(GroundingError) as caught:
        ground(game, max_atoms=2_000, demand=False)
    assert "too many" in caught.value.reason and caught.value.profile
