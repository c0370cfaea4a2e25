"""The one decorator every search kernel uses, and why it turns reference counting off.

The arena is a NamedTuple of about fifty arrays. With numba's runtime (NRT)
on, every read of a field of that tuple increments and decrements the array's
reference count with atomic instructions; a descent through the tree does
hundreds of them per level. Measured on connect four: one descent took 33 µs
with NRT and 0.8 µs without (`ggp-agent bench --search` shows the whole-search
effect). The search kernels never allocate, never keep an array beyond the
call and never hand one back, which is exactly when reference counts are not
needed: `kernel` compiles them with `_nrt=False`.

A function that must allocate (`tree.collect_garbage`) uses plain `njit`.
Everything is `cache=True` (compiled once, loaded from disk afterwards) and
`nogil=True` (the search thread runs while the server answers).
"""

from __future__ import annotations

from numba import njit


def kernel(function):
    """`njit(cache=True, nogil=True)` without reference counting (see above)."""
    return njit(cache=True, nogil=True, _nrt=False)(function)
