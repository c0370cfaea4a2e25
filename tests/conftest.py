"""Fixtures every test directory may use: the engine contract's fixture and the kernels' warm-up.

Paths and shared helpers live in `helpers.py`.
"""

from __future__ import annotations

import pytest


def engine_names() -> list[str]:
    from ggp_agent.engines import CHOOSERS, ENGINES

    return sorted(set(ENGINES) - set(CHOOSERS))


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


@pytest.fixture(scope="session")
def compiled_kernels():
    """Every numba kernel compiled (or loaded from numba's disk cache), as
    `ggp-agent serve` does before its first START.

    Directories whose tests play matches with agents use it for every test
    (their conftest.py): on a fresh checkout (CI) the first compile takes a
    minute or two, and inside a test it would run in some search's worker
    thread mid-match and hold numba's compiler lock, so the player's own
    engine calls would wait for it and miss the clock. Agents started as
    separate processes load the cache this fills. Tests of the front end,
    the protocol or the timing rules need no kernels and do not wait for them.
    """
    from ggp_agent.search.warmup import warm_up

    warm_up()
