"""The compiled engines (the propnet and the lazy engine) and the Prolog engine
agree, step by step, on random walks through every game of `gdl_games/`: the
state, each role's legal moves, terminal and goals, and each role's percepts
in the GDL-II games (which a compiled engine hands to a Prolog engine of its
own). The games are ours, so every engine must handle all of them."""

import logging
import os
import random
from pathlib import Path

import pytest

from ggp_agent.gdl import Dialect, load_game
from ggp_agent.propnet.grounding import grounder
from ggp_agent.propnet.lazy import build as lazy_build, machine as lazy_machine
from ggp_agent.propnet.lazy.games import LazyGames
from ggp_agent.propnet.lazy.machine import LazyStateMachine
from ggp_agent.propnet.machine import state_machine
from ggp_agent.propnet.machine.compiled import CompiledGames
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


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "breakthrough_6x6"])
def test_engines_agree_when_the_static_trial_runs_out(name, monkeypatch, caplog):
    """A busy machine (or a slow first load of the kernels) can leave the
    grounder's static trial no time: every static relation, `init` among
    them, is then computed with the state's rules. The network must come
    out the same (tic-tac-toe's and breakthrough's initial states were
    empty, terminal, without a legal move, while `true` came from `base`)."""
    monkeypatch.setattr(grounder, "STATIC_TRIAL_SHARE", 0.0)
    monkeypatch.setattr(state_machine, "COMPILED", CompiledGames())  # a build of its own
    with caplog.at_level(logging.INFO, logger=state_machine.__name__):
        walk_and_compare(GAMES / f"{name}.kif", 100, seed=3)
    assert "past the trial's bounds" in caplog.text


@pytest.mark.slow
@pytest.mark.parametrize("compiled", COMPILED, ids=lambda c: c.engine_name)
@pytest.mark.parametrize("path", game_files(), ids=lambda p: p.stem)
def test_engines_agree_on_1000_random_steps(path, compiled):
    walk_and_compare(path, 1000, seed=2026, compiled=compiled)


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "breakthrough_6x6"])
def test_the_lazy_engine_agrees_when_its_static_trial_runs_out(name, monkeypatch, caplog):
    """The lazy engine's build has a static trial of its own: with no time
    for it, every static relation but `init` and `role` is evaluated per
    state, under demand, and the engine must still agree with the rules."""
    monkeypatch.setattr(lazy_build, "STATIC_TRIAL_SHARE", 0.0)
    monkeypatch.setattr(lazy_machine, "LAZY_GAMES", LazyGames())  # a build of its own
    with caplog.at_level(logging.INFO, logger=lazy_machine.__name__):
        walk_and_compare(GAMES / f"{name}.kif", 100, seed=3, compiled=LazyStateMachine)
    assert "evaluated per state under demand" in caplog.text
