"""The StateMachine protocol, run unchanged against every engine."""

import random

import pytest

from ggp_agent.gdl import parse_term
from ggp_agent.reasoner import IllegalMoveError, state_to_kif

from ..helpers import GAMES

TICTACTOE = GAMES / "tictactoe.kif"


def position(*fluents: str) -> frozenset:
    return frozenset(parse_term(f) for f in fluents)


def board(rows: list[str], control: str) -> frozenset:
    """A tic-tac-toe state from three rows like 'xo.' ('.' is blank)."""
    mark = {"x": "x", "o": "o", ".": "b"}
    cells = [f"(cell {r + 1} {c + 1} {mark[ch]})" for r, row in enumerate(rows) for c, ch in enumerate(row)]
    return position(*cells, f"(control {control})")


def moves(machine, state, role) -> list[str]:
    return [str(m) for m in machine.legal_moves(state, role)]


def test_roles_and_initial_state(machine_for):
    machine = machine_for(TICTACTOE)
    assert [str(r) for r in machine.roles] == ["xplayer", "oplayer"]
    state = machine.initial_state()
    assert state == board(["...", "...", "..."], "xplayer")
    assert not machine.is_terminal(state)


def test_legal_moves_are_sorted_and_per_role(machine_for):
    machine = machine_for(TICTACTOE)
    state = board(["x..", ".o.", "..."], "xplayer")
    assert moves(machine, state, 0) == [f"(mark {r} {c})" for r in (1, 2, 3) for c in (1, 2, 3) if (r, c) not in ((1, 1), (2, 2))]
    assert moves(machine, state, 1) == ["noop"]


def test_next_state_applies_the_joint_move(machine_for):
    machine = machine_for(TICTACTOE)
    state = machine.initial_state()
    after = machine.next_state(state, (parse_term("(mark 2 2)"), parse_term("noop")))
    assert after == board(["...", ".x.", "..."], "oplayer")


def test_win_loss_and_draw_are_scored(machine_for):
    machine = machine_for(TICTACTOE)
    won = board(["xxx", "oo.", "..."], "oplayer")
    assert machine.is_terminal(won)
    assert machine.goal_values(won) == (100, 0)
    lost = board(["x.x", "ooo", "x.."], "xplayer")
    assert machine.goal_values(lost) == (0, 100)
    drawn = board(["xox", "xoo", "oxx"], "oplayer")
    assert machine.is_terminal(drawn)
    assert machine.goal_values(drawn) == (50, 50)


def test_near_the_end_is_not_terminal(machine_for):
    machine = machine_for(TICTACTOE)
    state = board(["xox", "xoo", "ox."], "xplayer")
    assert not machine.is_terminal(state)
    assert moves(machine, state, 0) == ["(mark 3 3)"]


def test_occupied_cell_is_not_legal(machine_for):
    machine = machine_for(TICTACTOE)
    state = board(["x..", "...", "..."], "oplayer")
    assert "(mark 1 1)" not in moves(machine, state, 1)


def test_joint_move_of_the_wrong_length_is_refused(machine_for):
    machine = machine_for(TICTACTOE)
    with pytest.raises(IllegalMoveError):
        machine.next_state(machine.initial_state(), (parse_term("(mark 1 1)"),))


def test_a_game_without_sees_rules_gives_no_percepts(machine_for):
    machine = machine_for(TICTACTOE)
    state = machine.initial_state()
    joint = (parse_term("(mark 2 2)"), parse_term("noop"))
    assert machine.percepts(state, joint, 0) == ()
    assert machine.percepts(state, joint, 1) == ()
    with pytest.raises(IllegalMoveError):
        machine.percepts(state, joint[:1], 0)


def test_random_walks_reach_terminal_states_with_goals(machine_for):
    machine = machine_for(TICTACTOE)
    rng = random.Random(7)
    for _ in range(20):
        state = machine.initial_state()
        steps = 0
        while not machine.is_terminal(state):
            joint = [rng.choice(machine.legal_moves(state, i)) for i in range(2)]
            state = machine.next_state(state, joint)
            steps += 1
        assert 5 <= steps <= 9
        goals = machine.goal_values(state)
        assert sorted(goals) in ([0, 100], [50, 50])


def test_states_print_as_sorted_kif(machine_for):
    machine = machine_for(TICTACTOE)
    kif = state_to_kif(machine.initial_state())
    assert kif == sorted(kif) and kif[0] == "(cell 1 1 b)"


def test_terms_come_back_as_the_rules_write_them(machine_for):
    """`(go)` and `(a)` stay parenthesized in moves and states (ggp-base's
    manager would not take `go` for `(go)`); the manager's `(go)` or `go` both apply."""
    machine = machine_for("""
        (role p) (role q)
        (init (cell (a)))
        (<= (legal p (go)) (true (cell ?x)))
        (<= (legal p (noop)) (true (cell ?x)))
        (<= (legal q wait) (true (cell ?x)))
        (<= (next (cell (b))) (does p (go)))
        (<= (next (cell ?x)) (does p (noop)) (true (cell ?x)))
        (<= terminal (true (cell (b))))
        (goal p 100) (goal q 0)
    """)
    state = machine.initial_state()
    assert state_to_kif(state) == ["(cell (a))"]
    assert moves(machine, state, 0) == ["(go)", "(noop)"] and moves(machine, state, 1) == ["wait"]
    for go in ("(go)", "go"):
        assert state_to_kif(machine.next_state(state, (parse_term(go), parse_term("wait")))) == ["(cell (b))"]


def test_a_role_left_without_moves_mid_match_plays_the_managers_nil(machine_for):
    """A broken game: b has no legal move at step 1, the manager sends `nil` for
    it, and every engine applies the joint move (b plays nothing)."""
    machine = machine_for("""
        (role a) (role b)
        (init (step 0))
        (succ 0 1) (succ 1 2)
        (legal a go)
        (<= (legal b wait) (true (step 0)))
        (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
        (<= (next waited) (does b wait))
        (<= (next waited) (true waited))
        (<= terminal (true (step 2)))
        (goal a 100) (goal b 0)
    """)
    go, wait, nil = parse_term("go"), parse_term("wait"), parse_term("nil")
    stuck = machine.next_state(machine.initial_state(), (go, wait))
    assert not machine.is_terminal(stuck) and machine.legal_moves(stuck, 1) == ()
    end = machine.next_state(stuck, (go, nil))
    assert state_to_kif(end) == ["(step 2)", "waited"] and machine.is_terminal(end)


def test_missing_and_double_goals_are_resolved(machine_for):
    machine = machine_for("""
        (role a) (role b)
        (init s)
        (legal a go) (legal b go)
        (<= (next t) (true s))
        (<= terminal (true t))
        (<= (goal a 30) (true t))
        (<= (goal a 70) (true t))
    """)
    state = machine.next_state(machine.initial_state(), (parse_term("go"), parse_term("go")))
    assert machine.is_terminal(state)
    assert machine.goal_values(state) == (70, 0)


def test_undefined_relations_just_fail(machine_for):
    machine = machine_for("""
        (role r)
        (<= (legal r lose) squee)
        (<= (legal r win) (not squee))
        (<= (next won) (does r win))
        (<= terminal (true won))
        (goal r 100)
    """)
    assert moves(machine, machine.initial_state(), 0) == ["win"]


#: `a` is legal by two rules, `b` by one; the one move decides the goal.
TWICE_DERIVED = """
(role r) (init start)
(<= (legal r a) (true start)) (<= (legal r a) (true start) (true start)) (<= (legal r b) (true start))
(<= (next (played ?m)) (does r ?m))
(<= terminal (true (played ?m)))
(<= (goal r 100) (true (played a))) (<= (goal r 0) (true (played b)))
"""


def test_random_playouts_draw_each_distinct_legal_move_alike(machine_for):
    """A move the rules derive twice is no likelier than one derived once
    (a playout samples the game, not the rules' proofs)."""
    machine = machine_for(TWICE_DERIVED)
    start = machine.initial_state()
    wins = sum(machine.random_playout(start, seed=seed).goals[0] == 100 for seed in range(400))
    assert 160 <= wins <= 240  # 1/2 of 400 (2/3 would be 267 on average)
