"""The propnet and the Prolog engine agree, step by step, on random walks through
every GDL game of `gdl_games/`: the state, each role's legal moves, terminal and
goals. The games are ours, so both engines must handle all of them."""

import os
import random
from pathlib import Path

import pytest

from ggp_agent.gdl import Dialect, load_game
from ggp_agent.propnet.machine import PropnetStateMachine
from ggp_agent.reasoner.prolog_machine import PrologStateMachine

from ..helpers import GAMES

#: Another folder of .kif files to check the same way (e.g. a branch's games
#: before they land in gdl_games/).
EXTRA = os.environ.get("GGP_EXTRA_GAMES")


def game_files() -> list[Path]:
    """The GDL games: the propnet refuses GDL-II ones (it does not evaluate `sees`)."""
    files = sorted(GAMES.glob("*.kif"))
    if EXTRA:
        files += sorted(Path(EXTRA).glob("*.kif"))
    return [path for path in files if load_game(path).dialect is Dialect.GDL]


def walk_and_compare(path: Path, steps: int, seed: int) -> int:
    """Random joint moves for `steps` steps (restarting at terminal states);
    returns how many terminal states were met."""
    game = load_game(path)
    propnet = PropnetStateMachine(game)
    rng = random.Random(seed)
    terminals = 0
    with PrologStateMachine(game) as prolog:
        roles = range(len(prolog.roles))
        ours = theirs = None
        for step in range(steps):
            if ours is None:
                ours, theirs = propnet.initial_state(), prolog.initial_state()
            where = f"{path.stem}, step {step}"
            assert ours == theirs, where
            terminal = propnet.is_terminal(ours)
            assert terminal == prolog.is_terminal(theirs), where
            assert propnet.goal_values(ours) == prolog.goal_values(theirs), where
            if terminal:
                terminals += 1
                ours = None
                continue
            legal = [propnet.legal_moves(ours, role) for role in roles]
            assert legal == [prolog.legal_moves(theirs, role) for role in roles], where
            joint = [rng.choice(moves) for moves in legal]
            ours, theirs = propnet.next_state(ours, joint), prolog.next_state(theirs, joint)
    return terminals


def test_engines_agree_on_tictactoe_quickly():
    assert walk_and_compare(GAMES / "tictactoe.kif", 200, seed=1) > 5


@pytest.mark.slow
@pytest.mark.parametrize("path", game_files(), ids=lambda p: p.stem)
def test_engines_agree_on_1000_random_steps(path):
    walk_and_compare(path, 1000, seed=2026)
