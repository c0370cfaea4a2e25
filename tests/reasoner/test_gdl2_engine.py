"""GDL-II through the engines: the random role's moves and each role's percepts.

The Prolog engine answers `percepts` through the same machinery as `next`; the
propnet builds GDL-II games for the search (legal, next, terminal, goal) and
hands percepts to a Prolog engine it owns, so both engines answer every question
of the protocol the same way.
"""

import pytest

from ggp_agent.engines import choose_state_machine, make_state_machine
from ggp_agent.gdl import RANDOM_ROLE, load_game, parse_term
from ggp_agent.reasoner import IllegalMoveError

#: Random hides a coin; the guesser perceives only whether its guess was right,
#: the watcher perceives the coin and the guess (a role variable in a sees head,
#: bound by the query); every role perceives the turn number.
HIDDEN_COIN = """
(role guesser) (role watcher) (role random)
(init (step 0))
(side heads) (side tails)
(<= (legal random (hide ?s)) (true (step 0)) (side ?s))
(<= (legal random wait) (true (step 1)))
(<= (legal guesser wait) (true (step 0)))
(<= (legal guesser (guess ?s)) (true (step 1)) (side ?s))
(legal watcher wait)
(<= (next (coin ?s)) (does random (hide ?s)))
(<= (next (coin ?s)) (true (coin ?s)))
(<= (next (step 1)) (true (step 0)))
(<= (next (step 2)) (true (step 1)))
(<= (next (won guesser)) (does guesser (guess ?s)) (true (coin ?s)))
(<= (sees guesser right) (does guesser (guess ?s)) (true (coin ?s)))
(<= (sees guesser wrong) (does guesser (guess ?s)) (not (true (coin ?s))))
(<= (sees watcher (coin ?s)) (does random (hide ?s)))
(<= (sees watcher (guessed ?s)) (does guesser (guess ?s)))
(<= (sees ?r (turn ?n)) (role ?r) (true (step ?n)))
(<= terminal (true (step 2)))
(<= (goal guesser 100) (true (won guesser)))
(<= (goal guesser 0) (not (true (won guesser))))
(goal watcher 50)
"""


def terms(*texts: str) -> tuple:
    return tuple(parse_term(t) for t in texts)


@pytest.fixture
def coin():
    machine = make_state_machine("prolog", load_game(HIDDEN_COIN))
    yield machine
    machine.close()


def test_the_random_role_is_a_role_with_legal_moves(coin):
    assert coin.roles[2] == RANDOM_ROLE
    state = coin.initial_state()
    assert coin.legal_moves(state, 2) == terms("(hide heads)", "(hide tails)")


def test_each_role_perceives_its_own_percepts_sorted(coin, caplog):
    start = coin.initial_state()
    hide = terms("wait", "wait", "(hide tails)")
    assert coin.percepts(start, hide, 0) == terms("(turn 0)")
    assert coin.percepts(start, hide, 1) == terms("(coin tails)", "(turn 0)")
    assert coin.percepts(start, hide, 2) == terms("(turn 0)")
    hidden = coin.next_state(start, hide)
    guess = terms("(guess heads)", "wait", "wait")
    assert coin.percepts(hidden, guess, 0) == terms("(turn 1)", "wrong")
    assert coin.percepts(hidden, guess, 1) == terms("(guessed heads)", "(turn 1)")
    right = terms("(guess tails)", "wait", "wait")
    assert coin.percepts(hidden, right, 0) == terms("(turn 1)", "right")
    end = coin.next_state(hidden, right)
    assert coin.is_terminal(end)
    assert coin.goal_values(end) == (100, 50, 0)
    assert not any("random" in record.getMessage() for record in caplog.records)  # it plays for no goal


def test_percepts_leave_the_machine_as_they_found_it(coin):
    """Percepts set the moves as `next` does; a later query sees no stale move."""
    start = coin.initial_state()
    coin.percepts(start, terms("wait", "wait", "(hide heads)"), 1)
    assert coin.next_state(start, terms("wait", "wait", "(hide tails)")) == frozenset(
        terms("(coin tails)", "(step 1)")
    )
    assert coin.legal_moves(start, 0) == terms("wait")


def test_a_joint_move_of_the_wrong_length_is_refused(coin):
    with pytest.raises(IllegalMoveError):
        coin.percepts(coin.initial_state(), terms("wait", "wait"), 0)


def test_the_propnet_builds_a_gdl_ii_game_and_answers_percepts_through_prolog():
    game = load_game(HIDDEN_COIN)
    machine, choice = choose_state_machine(game, budget_s=5.0)
    try:
        assert choice.engine == "propnet"
        start = machine.initial_state()
        hide = terms("wait", "wait", "(hide tails)")
        assert machine.percepts(start, hide, 1) == terms("(coin tails)", "(turn 0)")
        assert machine.legal_moves(start, 2) == terms("(hide heads)", "(hide tails)")
    finally:
        machine.close()


@pytest.mark.parametrize("engine", ["prolog", "propnet"])
def test_next_with_percepts_is_next_state_and_percepts_in_one(engine):
    with make_state_machine(engine, load_game(HIDDEN_COIN)) as machine:
        start = machine.initial_state()
        hide = terms("wait", "wait", "(hide heads)")
        hidden, seen = machine.next_with_percepts(start, hide, 1)
        assert hidden == machine.next_state(start, hide)
        assert seen == machine.percepts(start, hide, 1) == terms("(coin heads)", "(turn 0)")
        guess = terms("(guess heads)", "wait", "wait")
        end, seen = machine.next_with_percepts(hidden, guess, 0)
        assert seen == terms("(turn 1)", "right")
        assert machine.is_terminal(end) and machine.goal_values(end) == (100, 50, 0)
        with pytest.raises(IllegalMoveError):
            machine.next_with_percepts(start, hide[:2], 0)


def test_a_role_variable_only_the_sees_head_binds_is_bound_by_the_query():
    game = load_game("""
        (role a) (role b)
        (init p)
        (legal a go) (legal b go)
        (<= (next p) (true p))
        (<= (sees ?r (me ?r)) (true p))
        (<= (sees ?r others) (distinct ?r a))
        (<= terminal (true q))
        (goal a 0) (goal b 0)
    """)
    with make_state_machine("prolog", game) as machine:
        joint = terms("go", "go")
        state = machine.initial_state()
        assert machine.percepts(state, joint, 0) == terms("(me a)")
        assert machine.percepts(state, joint, 1) == terms("(me b)", "others")


@pytest.mark.parametrize("engine", ["prolog", "propnet"])
def test_consistent_successors_keep_the_joint_moves_that_give_those_percepts(engine):
    from ggp_agent.reasoner.statemachine import StateMachine

    with make_state_machine(engine, load_game(HIDDEN_COIN)) as machine:
        start = machine.initial_state()
        hides = [terms("wait", "wait", "(hide heads)"), terms("wait", "wait", "(hide tails)")]
        heads = machine.consistent_successors(start, hides, 1, terms("(coin heads)", "(turn 0)"))
        assert heads == [(0, machine.next_state(start, hides[0]))]
        assert [i for i, _ in machine.consistent_successors(start, hides, 0, terms("(turn 0)"))] == [0, 1]
        assert len(machine.consistent_successors(start, hides, 1, None)) == 2  # unknown: every move
        many = machine.consistent_successors_of_many([(start, hides), (start, hides[1:])], 1, terms("(turn 0)",
                                                                                                  "(coin tails)"))
        assert many == [[(1, machine.next_state(start, hides[1]))], [(0, machine.next_state(start, hides[1]))]]
        assert many == StateMachine.consistent_successors_of_many(
            machine, [(start, hides), (start, hides[1:])], 1, terms("(turn 0)", "(coin tails)"))
