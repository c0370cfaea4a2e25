"""Shared fixtures: where the project's games and the external test data live.

`../shared` (real GDL games, oracle traces, protocol captures) exists on the
developers' machines and in CI, not in a user's clone: tests that need it skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
GAMES = REPOSITORY / "gdl_games"
#: ../shared next to the repository; GGP_SHARED points elsewhere (a git worktree
#: lives in another folder than the clone it belongs to).
SHARED = Path(os.environ.get("GGP_SHARED", REPOSITORY.parent / "shared"))
CORPUS = SHARED / "gdl-corpus"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or a skip when that folder is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared holds external test data)")
    return path


def corpus_games() -> list[str]:
    """Names of the corpus games (empty when ../shared is absent)."""
    folder = CORPUS / "games"
    return sorted(p.stem for p in folder.glob("*.kif")) if folder.exists() else []


def engine_names() -> list[str]:
    from ggp_agent.engines import CHOOSERS, ENGINES

    return sorted(set(ENGINES) - CHOOSERS)


@pytest.fixture(params=engine_names())
def engine(request):
    """Each engine's name in turn: the state-machine suite runs against all of them."""
    return request.param


@pytest.fixture
def machine_for(engine):
    """Build a state machine of the current engine from KIF text or a path; closes it after."""
    from ggp_agent.engines import make_state_machine
    from ggp_agent.gdl import load_game

    made = []

    def build(source):
        machine = make_state_machine(engine, load_game(source))
        made.append(machine)
        return machine

    yield build
    for machine in made:
        machine.close()


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Every numba kernel compiled (or loaded from numba's disk cache) before the
    first test, as `ggp-agent serve` does before its first START.

    On a fresh checkout (CI) the first compile takes a minute or two; inside a
    test it would run in some search's worker thread mid-match and hold numba's
    compiler lock, so the player's own engine calls would wait for it and miss
    the clock. Agents started as separate processes load the cache this fills.
    """
    from ggp_agent.warmup import warm_up

    warm_up()
