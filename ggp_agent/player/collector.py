"""The garbage collector kept off what the live matches are built of.

A full (generation 2) collection walks every object the process tracks, with
every Python thread stopped. Once a game is compiled (the rules' terms, the
grounder's tables, the propnet's and the search's bookkeeping: about 116,000
objects on breakthrough 6x6) one such walk takes 0.09-0.34 s on this machine,
and the stall watch saw collections hold a playing process for 0.100-0.175 s.
What a match builds at START lives until the match ends, so walking it again
during play finds nothing to free.

So once a match's START is done the process moves every object then alive
into the permanent generation (`gc.freeze`), and collections during play walk
only what play itself creates (the same full collection: 0.015 s). When the
last match of the process has ended the objects go back (`gc.unfreeze`) and
become collectable again. The first hold of an idle process collects before
it freezes, so the garbage a START (or the matches before it) left is freed
rather than frozen; a hold while another match plays does not collect, which
would stall that match. What a match that ends while another plays leaves
behind stays frozen until the process is idle: memory, bounded by the
matches that overlap.

The hold is the process's (`gc` is), counted over every player in it: a
tournament runs several players in one process.
"""

from __future__ import annotations

import gc
import logging

from .shared_use import SharedUse

log = logging.getLogger(__name__)


def _freeze() -> None:
    gc.freeze()
    log.debug("collector: %d objects frozen", gc.get_freeze_count())


#: The first hold collects (what an idle process left is garbage, not play's
#: ground), every hold freezes, the last release unfreezes.
_freeze_use: SharedUse[None] = SharedUse(first=gc.collect, every=_freeze, last=lambda _: gc.unfreeze())


def hold() -> None:
    """A match starts playing: freeze what is alive (collecting first when no
    other match holds). Pair with one `release`."""
    _freeze_use.enter()


def release() -> None:
    """A match that held has ended: when it was the last, unfreeze."""
    _freeze_use.leave()


def holds() -> int:
    """The matches holding the freeze now (the status page, tests)."""
    return _freeze_use.users
