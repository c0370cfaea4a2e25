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
import threading

log = logging.getLogger(__name__)

_lock = threading.Lock()
_holds = 0


def hold() -> None:
    """A match starts playing: freeze what is alive (collecting first when no
    other match holds). Pair with one `release`."""
    global _holds
    with _lock:
        if _holds == 0:
            gc.collect()
        gc.freeze()
        _holds += 1
        log.debug("collector: %d objects frozen for %d match(es)", gc.get_freeze_count(), _holds)


def release() -> None:
    """A match that held has ended: when it was the last, unfreeze."""
    global _holds
    with _lock:
        if _holds == 0:
            raise RuntimeError("collector released more often than held")
        _holds -= 1
        if _holds == 0:
            gc.unfreeze()


def holds() -> int:
    """The matches holding the freeze now (the status page, tests)."""
    return _holds
