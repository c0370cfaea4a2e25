"""The compiled engines (the propnet and the lazy engine) and the Prolog engine
agree, step by step, on random walks through every game of `gdl_games/`: the
state, each role's legal moves, terminal and goals, and each role's percepts
in the GDL-II games (which a compiled engine hands to a Prolog engine of its
own). The games are ours, so every engine must handle all of them."""

import os
import random
from pathlib import Path

import pytest

from ggp_agent.gdl import Dialect, load_game
from ggp_agent.propnet.lazy.machine import LazyStateMachine
from ggp_agent.propnet.machine.state_machine import PropnetStateMachine
from ggp_agent.reasoner.prolog_machine import PrologStateMachine

from ..helpers import GAMES

#: Another folder of .kif files to check the same way (e.g. a branch's games
#: before they land in gdl_games/).
EXTRA = os.environ.get("GGP_EXTRA_GAMES")


def game_files() -> list[Path]:
    files = sorted(GAMES.glob("*.kif"))
    if EXTRA:
        files += sorted(Path(EXTRA).glob("*.kif"))
    return files


def walk_and_compare(path: Path, steps: int, seed: int, compiled=PropnetStateMachine) -> int:
    """Random joint moves for `steps` steps (restarting at terminal states);
    returns how many terminal states were met."""
    game = load_game(path)
    rng = random.Random(seed)
    terminals = 0
    with compiled(game) as propnet, PrologStateMachine(game) as prolog:
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
            if game.dialect is Dialect.GDL_II:
                assert [propnet.percepts(ours, joint, role) for role in roles] \
                    == [prolog.percepts(theirs, joint, role) for role in roles], where
            ours, theirs = propnet.next_state(ours, joint), prolog.next_state(theirs, joint)
    return terminals


COMPILED = [PropnetStateMachine, LazyStateMachine]


@pytest.mark.parametrize("compiled", COMPILED, ids=lambda c: c.engine_name)
def test_engines_agree_on_tictactoe_quickly(compiled):
    assert walk_and_compare(GAMES / "tictactoe.kif", 200, seed=1, compiled=compiled) > 5


@pytest.mark.parametrize("compiled", COMPILED, ids=lambda c: c.engine_name)
def test_engines_agree_on_a_gdl_ii_game_quickly(compiled):
    assert walk_and_compare(GAMES / "montyhall.kif", 100, seed=1, compiled=compiled) > 5


@pytest.mark.slow
@pytest.mark.parametrize("compiled", COMPILED, ids=lambda c: c.engine_name)
@pytest.mark.parametrize("path", game_files(), ids=lambda p: p.stem)
def test_engines_agree_on_1000_random_steps(path, compiled):
    walk_and_compare(path, 1000, seed=2026, compiled=compiled)
