"""The belief of a GDL-II player: the weighted states its moves and percepts leave possible.

Monty Hall checks the weights (the posterior, not a uniform set: 2/3 behind
the other door); random matches of the GDL-II games check that the true state
never leaves an exact belief and that our legal moves read from the belief are
the true ones; a belief capped at a few states, which loses the true state,
keeps only states consistent with the whole history by restarting histories.
"""

from __future__ import annotations

import random
import time

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game, parse_term
from ggp_agent.search.contract.belief import Belief, belief_budget

from ..helpers import GAMES

GDL2_GAMES = ("blind_tictactoe", "montyhall", "pig_20", "whist_8cards", "whist_12cards")


def terms(*texts: str) -> tuple:
    return tuple(parse_term(text) for text in texts)


@pytest.fixture(scope="module", params=["propnet", "prolog"])
def montyhall(request):
    machine = make_state_machine(request.param, load_game(GAMES / "montyhall.kif"))
    yield machine
    machine.close()


def later(seconds: float = 5.0) -> float:
    return time.monotonic() + seconds


def car_of(state) -> str:
    return next(str(fluent) for fluent in state if str(fluent).startswith("(car "))


def test_monty_hall_posterior_puts_two_thirds_behind_the_other_door(montyhall):
    belief = Belief(montyhall, 0, seed=1)
    belief.update(parse_term("noop"), (), later())
    assert sorted(belief.weights.values()) == pytest.approx([1 / 3] * 3)
    belief.update(parse_term("(choose 1)"), (), later())
    report = belief.update(parse_term("noop"), terms("(opened 3)"), later())
    cars = {car_of(state): weight for state, weight in belief.weights.items()}
    assert cars == pytest.approx({"(car 1)": 1 / 3, "(car 2)": 2 / 3})
    assert report.exact and not report.lost and report.states == 2
    assert belief.legal_moves() == terms("stay", "switch")
    shares = belief.determinizations(8)
    assert [car_of(state) for state, _ in shares] == ["(car 2)", "(car 1)"]
    assert [share for _, share in shares] == pytest.approx([2 / 3, 1 / 3])


def test_determinizations_draw_by_weight_when_there_are_more_states_than_asked(montyhall):
    belief = Belief(montyhall, 0, seed=1)
    belief.update(parse_term("noop"), (), later())
    drawn = belief.determinizations(2, random.Random(3))
    assert len(drawn) == 2 and len({state for state, _ in drawn}) == 2
    assert [share for _, share in drawn] == [0.5, 0.5]


@pytest.mark.parametrize("name", GDL2_GAMES)
def test_the_true_state_stays_in_an_exact_belief_and_our_moves_are_the_true_ones(name):
    with make_state_machine("propnet", load_game(GAMES / f"{name}.kif")) as machine:
        rng = random.Random(name)
        roles = range(len(machine.roles))
        players = [role for role in roles if str(machine.roles[role]) != "random"]
        for match in range(2):  # (CI time: whist_12cards' exact beliefs take about 1.5 s a match)
            beliefs = {role: Belief(machine, role, seed=match) for role in players}
            state = machine.initial_state()
            while not machine.is_terminal(state):
                joint = [rng.choice(machine.legal_moves(state, role)) for role in roles]
                after = machine.next_state(state, joint)
                for role, belief in beliefs.items():
                    report = belief.update(joint[role], machine.percepts(state, joint, role), later(),
                                           final=machine.is_terminal(after))
                    assert report.exact and not report.lost
                    assert after in belief.weights, f"{name}: {machine.roles[role]} lost the true state"
                    assert sum(belief.weights.values()) == pytest.approx(1.0)
                    if not machine.is_terminal(after):
                        assert set(belief.legal_moves()) == set(machine.legal_moves(after, role))
                state = after


def test_a_belief_too_small_for_the_truth_restarts_histories_that_fit_every_percept():
    with make_state_machine("propnet", load_game(GAMES / "blind_tictactoe.kif")) as machine:
        rng = random.Random(7)
        belief = Belief(machine, 0, seed=7, capacity=2)
        state = machine.initial_state()
        history = []
        while not machine.is_terminal(state):
            joint = [rng.choice(machine.legal_moves(state, role)) for role in range(2)]
            seen = machine.percepts(state, joint, 0)
            after = machine.next_state(state, joint)
            report = belief.update(joint[0], seen, later(), final=machine.is_terminal(after))
            history.append((joint[0], seen))
            assert len(belief) <= 2 and not report.lost
            if not machine.is_terminal(after):
                assert set(belief.legal_moves()) == set(machine.legal_moves(after, 0))
            state = after
        assert not belief.exact
        for held in belief.weights:  # each state held ends a history that fits every percept
            assert replays(machine, held, history)


def replays(machine, target, history) -> bool:
    """Whether some history of the others' moves with our moves and percepts reaches `target`."""
    frontier = {machine.initial_state()}
    for move, seen in history:
        following = set()
        for state in frontier:
            others = machine.legal_moves(state, 1)
            for other in others:
                joint = [move, other]
                if machine.percepts(state, joint, 0) == seen:
                    following.add(machine.next_state(state, joint))
        frontier = following
    return target in frontier


def test_unknown_percepts_accept_every_joint_move(montyhall):
    belief = Belief(montyhall, 0, seed=2)
    report = belief.update(None, None, later())
    assert report.states == 3 and report.consistent == 3


def test_the_budget_leaves_the_reply_its_time():
    soft, hard = belief_budget(100.0, 102.0)
    assert 100.0 < soft < hard < 102.0


def test_deadlines_that_passed_long_ago_never_leave_the_belief_without_a_consistent_state():
    """A stalled machine (the update starts after its deadlines): the update
    still examines states until one fits, so our legal moves stay the true ones."""
    with make_state_machine("propnet", load_game(GAMES / "whist_8cards.kif")) as machine:
        for seed in range(6):
            rng = random.Random(seed)
            belief = Belief(machine, 0, seed=seed)
            state = machine.initial_state()
            while not machine.is_terminal(state):
                joint = [rng.choice(machine.legal_moves(state, role)) for role in range(3)]
                after = machine.next_state(state, joint)
                past = time.monotonic() - 10
                report = belief.update(joint[0], machine.percepts(state, joint, 0), past, past,
                                       final=machine.is_terminal(after))
                assert not report.lost and report.states >= 1
                if not machine.is_terminal(after):
                    assert set(belief.legal_moves()) == set(machine.legal_moves(after, 0))
                state = after
