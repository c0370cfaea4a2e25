"""A new build is compared with the rules at the initial state before it plays:
a network or lazy build whose initial state or first moves are wrong is
refused, and the `auto` engine plays on another engine, saying why."""

import logging

import pytest

from ggp_agent import engines
from ggp_agent.engines import choose_state_machine
from ggp_agent.gdl import load_game, parse_term
from ggp_agent.propnet.grounding.grounder import ground
from ggp_agent.propnet.lazy import games, machine as lazy_machine
from ggp_agent.propnet.lazy.build import LazyUnavailable, build_lazy
from ggp_agent.propnet.lazy.games import LazyGames
from ggp_agent.propnet.machine import compiled, state_machine
from ggp_agent.propnet.machine.compiled import CompiledGames
from ggp_agent.propnet.machine.opening import Opening, difference
from ggp_agent.propnet.machine.state_machine import PropnetStateMachine, PropnetUnavailable

from ..helpers import TICTACTOE

T = parse_term
ROLES = (T("xplayer"), T("oplayer"))


def grounding_without_init(kept: int):
    """The grounder, with all but `kept` of the static `init` atoms lost (as
    the static trial's bug lost all of them)."""

    def broken(*args, **kwargs):
        grounding = ground(*args, **kwargs)
        grounding.static_atoms[("init", 1)] = grounding.static_atoms[("init", 1)][:kept]
        return grounding

    return broken


@pytest.mark.parametrize("kept", [0, 9], ids=["no_init", "one_init_fluent_lost"])
def test_a_build_whose_initial_state_is_wrong_is_refused_and_auto_plays_on_another_engine(kept, monkeypatch, caplog):
    """The compiled engine then tries the lazy engine (checked the same way);
    when its build is wrong too, `auto` plays on Prolog, saying why."""
    monkeypatch.setattr(state_machine, "COMPILED", CompiledGames())  # a build of its own
    monkeypatch.setattr(lazy_machine, "LAZY_GAMES", LazyGames())
    monkeypatch.setattr(compiled, "ground", grounding_without_init(kept))
    game = load_game(TICTACTOE)
    with pytest.raises(PropnetUnavailable) as refused:
        PropnetStateMachine(game, time_limit=30.0)
    assert refused.value.reason.startswith("the network disagrees with the rules: the initial state")
    assert f"({kept} fluents) lacks" in refused.value.reason and "(the rules' has 10)" in refused.value.reason
    with caplog.at_level(logging.INFO, logger=engines.__name__):
        machine, choice = choose_state_machine(game, 30.0)
    with machine:
        assert choice.engine == "lazy" and machine.stats["opening_checked"] is True
        assert "the full propnet gave up (the network disagrees with the rules" in caplog.text
        assert len(machine.legal_moves(machine.initial_state(), 0)) == 9
    monkeypatch.setattr(lazy_machine, "LAZY_GAMES", LazyGames())
    monkeypatch.setattr(games, "build_lazy", lazy_without_init(kept))
    machine, choice = choose_state_machine(game, 30.0)
    with machine:
        assert choice.engine == "prolog" and "the network disagrees with the rules" in choice.reason
        assert "the lazy engine disagrees with the rules" in choice.reason
        assert len(machine.legal_moves(machine.initial_state(), 0)) == 9


def test_a_sound_build_is_checked_and_kept(monkeypatch):
    monkeypatch.setattr(state_machine, "COMPILED", CompiledGames())
    with PropnetStateMachine(load_game(TICTACTOE), time_limit=30.0) as machine:
        assert machine.stats["opening_checked"] is True
        assert len(machine.initial_state()) == 10


def opening(state=("(control xplayer)",), terminal=False, legal=(("noop",), ("(mark 1 1)",))) -> Opening:
    return Opening(frozenset(map(T, state)), terminal, tuple(frozenset(map(T, moves)) for moves in legal))


def test_the_difference_names_what_is_wrong_and_agreement_is_none():
    rules = opening()
    assert difference(opening(), rules, ROLES) == ""
    assert difference(opening(state=()), rules, ROLES) == \
        "the initial state (0 fluents) lacks (control xplayer) (the rules' has 1)"
    assert difference(opening(terminal=True, legal=((), ())), rules, ROLES) == \
        "the initial state reads as terminal, the rules say not terminal"
    assert difference(opening(legal=(("noop",), ())), rules, ROLES) == \
        "oplayer's legal moves in the initial state (0) lacks (mark 1 1) (the rules give 1)"
    assert difference(opening(legal=(("noop", "(mark 2 2)"), ("(mark 1 1)",))), rules, ROLES) == \
        "xplayer's legal moves in the initial state (2) has (mark 2 2) besides (the rules give 1)"
    # a role without a legal move is a broken game, not a broken build, when the rules agree
    stuck = opening(legal=(("noop",), ()))
    assert difference(stuck, stuck, ROLES) == ""


def lazy_without_init(kept: int):
    """The lazy build, with all but `kept` of its initial fluents lost."""

    def broken(*args, **kwargs):
        built = build_lazy(*args, **kwargs)
        built.init_ids = built.init_ids[:kept]
        return built

    return broken


def test_a_lazy_build_whose_initial_state_is_wrong_is_refused(monkeypatch):
    """The lazy engine's builds pass the same check: its static relations
    (`init` among them) are computed once and could come out incomplete too."""
    monkeypatch.setattr(lazy_machine, "LAZY_GAMES", LazyGames())
    monkeypatch.setattr(games, "build_lazy", lazy_without_init(9))
    with pytest.raises(LazyUnavailable) as refused:
        lazy_machine.LazyStateMachine(load_game(TICTACTOE), time_limit=30.0)
    assert "the lazy engine disagrees with the rules: the initial state (9 fluents) lacks" in str(refused.value)
    monkeypatch.setattr(games, "build_lazy", build_lazy)
    with lazy_machine.LazyStateMachine(load_game(TICTACTOE), time_limit=30.0) as machine:
        assert machine.stats["opening_checked"] is True and len(machine.initial_state()) == 10
