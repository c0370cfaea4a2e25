"""The Prolog engine reproduces ggp-base's reference traces for every corpus game.

Skips when ../shared is absent. A game that cannot agree goes into
KNOWN_DISAGREEMENTS with the reason; today there are none.
"""

import pytest

from ggp_agent.gdl import load_game
from ggp_agent.reasoner.prolog_machine import PrologStateMachine
from ggp_agent.reasoner.replay import replay

from ..helpers import CORPUS, corpus_games

#: game -> why our answer differs from the reference and ours is right (or why
#: the game is beyond a stated budget). Empty: all 158 agree.
KNOWN_DISAGREEMENTS: dict[str, str] = {}


@pytest.mark.slow
@pytest.mark.parametrize("name", corpus_games() or ["<no corpus>"])
def test_prolog_engine_agrees_with_the_oracle(name):
    if name == "<no corpus>":
        pytest.skip("../shared/gdl-corpus is absent")
    if name in KNOWN_DISAGREEMENTS:
        pytest.skip(KNOWN_DISAGREEMENTS[name])
    game = load_game(CORPUS / "games" / f"{name}.kif")
    with PrologStateMachine(game) as machine:
        result = replay(machine, CORPUS / "oracle" / f"{name}.jsonl")
    assert result.failure is None, result.failure
    assert result.difference is None, result.difference
    assert result.steps_agreed > 0 or result.terminals_agreed > 0


#: Seconds the propnet may take to build in this test: the 60 s a build may
#: take in the survey (`ggp-agent survey --budget 60`), so that every game that
#: builds there is checked here, even on a busy machine.
PROPNET_BUILD_LIMIT = 60.0


@pytest.mark.slow
@pytest.mark.parametrize("name", corpus_games() or ["<no corpus>"])
def test_propnet_agrees_with_the_oracle(name):
    """Every trace the Prolog engine reproduces, the propnet reproduces too;
    games whose propnet does not build within the limit are skipped (the skip
    says why: they fall back to Prolog in play)."""
    from ggp_agent.propnet.machine.state_machine import PropnetStateMachine, PropnetUnavailable

    if name == "<no corpus>":
        pytest.skip("../shared/gdl-corpus is absent")
    if name in KNOWN_DISAGREEMENTS:
        pytest.skip(KNOWN_DISAGREEMENTS[name])
    game = load_game(CORPUS / "games" / f"{name}.kif")
    try:
        machine = PropnetStateMachine(game, time_limit=PROPNET_BUILD_LIMIT)
    except PropnetUnavailable as error:
        pytest.skip(f"falls back to Prolog: {error}")
    result = replay(machine, CORPUS / "oracle" / f"{name}.jsonl")
    assert result.failure is None, result.failure
    assert result.difference is None, result.difference
    assert result.steps_agreed > 0 or result.terminals_agreed > 0


#: Walks of each trace the lazy engine replays: every corpus game builds on
#: it (it grounds nothing that depends on the state), two walks apiece keep
#: the test near five minutes.
LAZY_WALKS = 2


@pytest.mark.slow
@pytest.mark.parametrize("name", corpus_games() or ["<no corpus>"])
def test_lazy_engine_agrees_with_the_oracle(name):
    """Every corpus game builds on the lazy engine and reproduces the oracle's
    first walks, the games whose network gives up (laikLee_hex, slaughter)
    and those whose network builds alike."""
    from ggp_agent.propnet.lazy.machine import LazyStateMachine

    if name == "<no corpus>":
        pytest.skip("../shared/gdl-corpus is absent")
    if name in KNOWN_DISAGREEMENTS:
        pytest.skip(KNOWN_DISAGREEMENTS[name])
    game = load_game(CORPUS / "games" / f"{name}.kif")
    with LazyStateMachine(game, time_limit=PROPNET_BUILD_LIMIT) as machine:
        result = replay(machine, CORPUS / "oracle" / f"{name}.jsonl", max_walks=LAZY_WALKS)
    assert result.failure is None, result.failure
    assert result.difference is None, result.difference
    assert result.steps_agreed > 0 or result.terminals_agreed > 0
