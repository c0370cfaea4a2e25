"""The search tests' fixtures: tic-tac-toe on each engine, and any game of the library on
either (`machines`), built once per test module."""

from __future__ import annotations

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game

from ..helpers import GAMES


@pytest.fixture(scope="module")
def tictactoe():
    machine = make_state_machine("propnet", load_game(GAMES / "tictactoe.kif"))
    yield machine
    machine.close()


@pytest.fixture(scope="module")
def tictactoe_prolog():
    machine = make_state_machine("prolog", load_game(GAMES / "tictactoe.kif"))
    yield machine
    machine.close()


@pytest.fixture(scope="module")
def machines():
    """machines(game, engine="propnet"): the game's state machine, built at its first use."""
    made = {}

    def machine(game: str, engine: str = "propnet"):
        if (game, engine) not in made:
            made[game, engine] = make_state_machine(engine, load_game(GAMES / game))
        return made[game, engine]

    yield machine
    for each in made.values():
        each.close()
