"""The GDL-II games of `gdl_games/`: random matches through the Prolog engine
produce percepts for every role that should perceive something, and hand-made
positions check the rules that make each game what it is (the host opens a goat
door; a blind mark on a taken cell fails and is perceived; a 1 ends a Pig turn;
a card player must follow suit).

The library-wide checks (header, base and input, `ggp-agent check`, goals at
the end of random matches) run on these games too, in `test_library.py`.
"""

from __future__ import annotations

import random

import pytest

from ggp_agent.cli.main import main
from ggp_agent.gdl import RANDOM_ROLE, Dialect, load_game, parse_term
from ggp_agent.reasoner.percepts import percepts_of_every_role

from .library import GAMES_DIR as GAMES, fluents, machine

GDL2_GAMES = ("blind_tictactoe", "montyhall", "pig_20", "whist_8cards", "whist_12cards")


def terms(*texts: str) -> tuple:
    return tuple(parse_term(text) for text in texts)


def texts(items) -> list[str]:
    return [str(item) for item in items]


def random_match(game, rng: random.Random):
    """One uniformly random match; yields (state, joint move, percepts per role)."""
    state = game.initial_state()
    for _ in range(200):
        if game.is_terminal(state):
            return
        joint = tuple(rng.choice(game.legal_moves(state, role)) for role in range(len(game.roles)))
        yield state, joint, percepts_of_every_role(game, state, joint)
        state = game.next_state(state, joint)
    raise AssertionError("no terminal state after 200 joint moves")


@pytest.mark.parametrize("name", GDL2_GAMES)
def test_random_matches_give_every_player_percepts_and_random_none(name):
    game = machine(name)
    assert load_game(GAMES / f"{name}.kif").dialect is Dialect.GDL_II
    rng = random.Random(name)
    for _ in range(20):
        totals = [0] * len(game.roles)
        for _state, _joint, seen in random_match(game, rng):
            for role, percepts in enumerate(seen):
                assert list(percepts) == sorted(set(percepts), key=str)
                totals[role] += len(percepts)
        for role, total in zip(game.roles, totals):
            assert (total == 0) == (role == RANDOM_ROLE), f"{role} got {total} percepts"


@pytest.mark.parametrize("name", GDL2_GAMES)
def test_check_reports_the_dialect_and_the_percepts(name, capsys):
    assert main(["check", str(GAMES / f"{name}.kif"), "--seed", "1"]) == 0
    printed = capsys.readouterr().out
    assert "dialect: GDL-II" in printed
    assert "percepts in a random match: " in printed


# --------------------------------------------------------------------------- Monty Hall

def test_montyhall_contestant_sees_the_goat_door_then_the_car():
    game = machine("montyhall")
    contestant, rand = 0, 1
    state = game.initial_state()
    hide = terms("noop", "(hide_car 2)")
    assert game.percepts(state, hide, contestant) == ()
    state = game.next_state(state, hide)
    choose = terms("(choose 1)", "noop")
    assert game.percepts(state, choose, contestant) == ()
    state = game.next_state(state, choose)
    # The host may open neither the car's door (2) nor the chosen one (1).
    assert texts(game.legal_moves(state, rand)) == ["(open_door 3)"]
    opened = terms("noop", "(open_door 3)")
    assert texts(game.percepts(state, opened, contestant)) == ["(opened 3)"]
    assert game.percepts(state, opened, rand) == ()
    state = game.next_state(state, opened)
    switch = terms("switch", "noop")
    assert texts(game.percepts(state, switch, contestant)) == ["(car 2)"]
    end = game.next_state(state, switch)
    assert game.is_terminal(end)
    assert game.goal_values(end)[contestant] == 100


def test_montyhall_switching_wins_exactly_when_the_first_pick_was_wrong():
    game = machine("montyhall")
    for car in (1, 2, 3):
        for pick in (1, 2, 3):
            state = game.next_state(game.initial_state(), terms("noop", f"(hide_car {car})"))
            state = game.next_state(state, terms(f"(choose {pick})", "noop"))
            for host in game.legal_moves(state, 1):
                opened = game.next_state(state, (parse_term("noop"), host))
                for decision in ("stay", "switch"):
                    end = game.next_state(opened, terms(decision, "noop"))
                    won = game.goal_values(end)[0] == 100
                    assert won == ((decision == "switch") != (car == pick)), (car, pick, host, decision)


# --------------------------------------------------------------------------- blind tic-tac-toe

def blind_board(rows: list[str], control: str, *extra: str) -> frozenset:
    mark = {"x": "x", "o": "o", ".": "b"}
    cells = [f"(cell {r + 1} {c + 1} {mark[ch]})" for r, row in enumerate(rows) for c, ch in enumerate(row)]
    return fluents(*cells, f"(control {control})", *extra)


def test_blind_mark_on_a_taken_cell_fails_is_perceived_and_is_not_tried_again():
    game = machine("blind_tictactoe")
    state = blind_board(["x..", ".o.", "..."], "xplayer")
    moves = texts(game.legal_moves(state, 0))
    assert "(mark 2 2)" in moves  # x cannot see o's mark
    assert "(mark 1 1)" not in moves  # but knows its own
    attempt = terms("(mark 2 2)", "noop")
    assert texts(game.percepts(state, attempt, 0)) == ["(occupied 2 2)", "(turn xplayer)"]
    assert texts(game.percepts(state, attempt, 1)) == ["(turn xplayer)"]  # o learns it failed, not where
    after = game.next_state(state, attempt)
    assert after == blind_board(["x..", ".o.", "..."], "xplayer", "(found xplayer 2 2)")
    assert "(mark 2 2)" not in texts(game.legal_moves(after, 0))
    placed = terms("(mark 3 3)", "noop")
    assert texts(game.percepts(after, placed, 0)) == ["(placed 3 3)", "(turn oplayer)"]
    assert texts(game.percepts(after, placed, 1)) == ["(turn oplayer)"]


def test_blind_line_wins():
    game = machine("blind_tictactoe")
    state = blind_board(["xx.", "oo.", "..."], "xplayer")
    end = game.next_state(state, terms("(mark 1 3)", "noop"))
    assert game.is_terminal(end)
    assert game.goal_values(end) == (100, 0)


# --------------------------------------------------------------------------- Pig

def pig(left: int, right: int, total: int, control: str, step: int = 5) -> frozenset:
    return fluents(f"(score left {left})", f"(score right {right})", f"(total {total})",
                   f"(control {control})", f"(step {step})")


def test_pig_a_one_loses_the_turn_points_and_everyone_sees_the_roll():
    game = machine("pig_20")
    state = pig(4, 7, 12, "left")
    assert texts(game.legal_moves(state, 0)) == ["hold", "roll"]
    bust = terms("roll", "noop", "(face 1)")
    assert texts(game.percepts(state, bust, 0)) == ["(rolled 1)"]
    assert texts(game.percepts(state, bust, 1)) == ["(rolled 1)"]
    assert game.percepts(state, bust, 2) == ()
    assert game.next_state(state, bust) == pig(4, 7, 7, "right", 6)
    hold = terms("hold", "noop", "(face 3)")
    assert texts(game.percepts(state, hold, 1)) == ["held"]
    assert game.next_state(state, hold) == pig(12, 7, 7, "right", 6)


def test_pig_reaching_the_target_wins_at_once():
    game = machine("pig_20")
    state = pig(10, 18, 16, "left")
    end = game.next_state(state, terms("roll", "noop", "(face 5)"))
    assert game.is_terminal(end)
    assert game.goal_values(end)[:2] == (100, 0)


# --------------------------------------------------------------------------- whist

def test_whist_deals_are_seen_by_their_receiver_only():
    game = machine("whist_8cards")
    state = game.initial_state()
    deal = terms("noop", "noop", "(deal r3 north)")
    assert texts(game.percepts(state, deal, 0)) == ["(dealt r3)"]
    assert game.percepts(state, deal, 1) == ()
    after = game.next_state(state, deal)
    assert "(deal r3 south)" not in texts(game.legal_moves(after, 2))
    assert len(game.legal_moves(after, 2)) == 7


def test_whist_follower_must_follow_suit_and_the_higher_card_of_the_suit_wins():
    game = machine("whist_8cards")
    hands = ["(hand north r2)", "(hand north b1)", "(hand south r1)", "(hand south b4)", "(hand south b3)"]
    state = fluents("(step 8)", "(leader north)", "(led r4)", "(tricks north 0)", "(tricks south 0)",
                    "(deck r3)", "(deck b2)", *hands)
    assert texts(game.legal_moves(state, 1)) == ["(play r1)"]  # south holds a red card
    follow = terms("noop", "(play r1)", "noop")
    assert texts(game.percepts(state, follow, 0)) == ["(played south r1)"]
    after = game.next_state(state, follow)
    assert parse_term("(leader north)") in after and parse_term("(tricks north 1)") in after
    # Void in the suit led: any card, and a card of another suit never wins.
    void = fluents("(step 8)", "(leader north)", "(led b2)", "(tricks north 0)", "(tricks south 0)",
                   "(hand south r1)", "(hand south r4)")
    assert texts(game.legal_moves(void, 1)) == ["(play r1)", "(play r4)"]
    after = game.next_state(void, terms("noop", "(play r4)", "noop"))
    assert parse_term("(leader north)") in after and parse_term("(tricks north 1)") in after


def test_whist_a_higher_card_of_the_suit_led_takes_the_trick_and_the_lead():
    game = machine("whist_8cards")
    state = fluents("(step 12)", "(leader north)", "(led b2)", "(tricks north 1)", "(tricks south 1)",
                    "(hand south b3)")
    end = game.next_state(state, terms("noop", "(play b3)", "noop"))
    assert parse_term("(leader south)") in end and parse_term("(tricks south 2)") in end
    assert game.is_terminal(end)
    assert game.goal_values(end)[:2] == (0, 100)
