"""The game-library tests share one Prolog engine per game (`library.machine`)."""

import pytest

from .library import close_machines


@pytest.fixture(scope="module", autouse=True)
def _close_machines():
    """Close the shared engines when a module's tests are done."""
    yield
    close_machines()
