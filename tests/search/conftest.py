"""The search tests' fixtures: tic-tac-toe on each engine, built once per test module."""

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
