"""One build of a game's propnet serves every machine of the same rules in a
process: a replayed game and a tournament's two in-process players build once."""

import threading
import uuid

import pytest

from ggp_agent.engines import choose_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.propnet.machine.compiled import CompiledGames
from ggp_agent.propnet.machine.state_machine import PropnetStateMachine
from ggp_agent.reasoner.statemachine import ReasonerError

from ..helpers import GAMES


def fresh_tictactoe():
    """Tic-tac-toe with a fact no other test's rules have: a build of its own."""
    return load_game((GAMES / "tictactoe.kif").read_text() + f"\n(unused c{uuid.uuid4().hex})\n")


def test_a_second_machine_of_the_same_rules_shares_the_build_and_keeps_its_own_state():
    game = fresh_tictactoe()
    first = PropnetStateMachine(game, time_limit=30.0)
    second = PropnetStateMachine(load_game(game.rules), time_limit=30.0)  # the same rules, parsed again
    try:
        assert not first.cached and second.cached
        assert second.net is first.net and second.stats["gates"] == first.stats["gates"]
        state = first.initial_state()
        moves = [first.legal_moves(state, r)[0] for r in range(2)]
        after = first.next_state(state, moves)
        assert second.legal_moves(second.initial_state(), 0) == first.legal_moves(state, 0)
        assert second.next_state(second.initial_state(), moves) == after
        assert len(first.legal_moves(after, 1)) == 8  # one cell taken, on the first machine only
    finally:
        first.close()
        second.close()


def test_two_starts_of_one_game_at_once_build_it_once_and_the_choice_says_so():
    game = fresh_tictactoe()
    results: list = []

    def start() -> None:
        results.append(choose_state_machine(game, 30.0))

    threads = [threading.Thread(target=start) for _ in range(2)]
    for each in threads:
        each.start()
    for each in threads:
        each.join()
    try:
        assert sorted(machine.cached for machine, _ in results) == [False, True]
        [reused] = [choice for machine, choice in results if machine.cached]
        assert reused.engine == "propnet" and "an earlier build of these rules" in reused.reason
    finally:
        for machine, _ in results:
            machine.close()


def test_other_bounds_build_again_and_the_oldest_game_is_dropped_first():
    games = CompiledGames(kept=2)
    one, two, three = fresh_tictactoe(), fresh_tictactoe(), fresh_tictactoe()
    assert games.get(one, 30.0)[1] is False
    assert games.get(one, 30.0)[1] is True
    assert games.get(one, 30.0, factor=False)[1] is False  # other bounds: another network
    games.get(two, 30.0)
    games.get(three, 30.0)
    assert games.get(three, 30.0)[1] is True
    assert games.get(one, 30.0)[1] is False  # dropped: the least recently used


def test_a_build_that_fails_is_not_kept_and_a_start_with_more_time_builds():
    games = CompiledGames()
    game = fresh_tictactoe()
    with pytest.raises(ReasonerError):
        games.get(game, 0.001)
    compiled, cached = games.get(game, 30.0)
    assert not cached and compiled.stats["gates"] > 0
