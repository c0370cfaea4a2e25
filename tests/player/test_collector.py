"""The garbage collector's freeze over live matches (`player/collector.py`),
on a real server on 127.0.0.1."""

import gc
import time
import weakref

import pytest

from ggp_agent.player import collector
from ..helpers import ServerThread, start_message

pytestmark = pytest.mark.usefixtures("compiled_kernels")


class Litter:
    """A reference cycle: only a collection frees it."""

    def __init__(self):
        self.me = self


@pytest.fixture
def no_automatic_collections():
    """Only an explicit collection runs, so a freed cycle says who freed it."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def test_matches_freeze_what_they_built_and_the_last_to_end_unfreezes(no_automatic_collections):
    give_up = time.monotonic() + 10  # a compile an earlier test's player left behind releases when done
    while collector.holds() and time.monotonic() < give_up:
        time.sleep(0.05)
    assert collector.holds() == 0, "a match of an earlier test still holds the freeze"
    assert gc.get_freeze_count() == 0
    with ServerThread(name="frozen", search="random", max_matches=2) as server:
        litter = weakref.ref(Litter())
        assert server.post(start_message("m.a", "xplayer")).text == "ready"
        assert server.post("(play m.a nil)").text.startswith("(mark ")  # after the compile, which holds
        assert litter() is None, "the first hold froze garbage instead of collecting it"
        frozen = gc.get_freeze_count()
        assert frozen > 10_000 and collector.holds() == 1

        later_litter = weakref.ref(Litter())
        assert server.post(start_message("m.b", "oplayer")).text == "ready"
        assert server.post("(play m.b nil)").text == "noop"
        assert collector.holds() == 2
        assert later_litter() is not None, "a hold while a match plays collected (a stall for that match)"

        assert server.post("(abort m.a)").text == "aborted"
        server.call(server.player.wait_idle())
        assert collector.holds() == 1 and gc.get_freeze_count() >= frozen  # m.b still plays

        assert server.post("(abort m.b)").text == "aborted"
        server.call(server.player.wait_idle())
        assert collector.holds() == 0 and gc.get_freeze_count() == 0
    gc.collect()
    assert later_litter() is None, "what was frozen is collectable again"


def test_a_start_that_fails_holds_nothing(no_automatic_collections):
    with ServerThread(name="refuses", search="random") as server:
        broken = "(START m.bad xplayer ((role xplayer) (<= (legal xplayer ?m) (nope ?m)) ) 10 2)"
        assert server.post(broken).text == "busy"
        assert collector.holds() == 0 and gc.get_freeze_count() == 0
