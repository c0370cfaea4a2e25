"""The numba kernels of `term_store`: a hash table of pairs of ids.

Kept apart from the store's Python side so that an edit there does not make
every kernel's cache stale (`cache_stamp.py`). This module must not know
about terms: it interns pairs of integers.
"""

from __future__ import annotations

import numpy as np

from ..jit.decorators import kernel

#: An empty slot of the hash table.
EMPTY = -1

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@kernel
def _slot(key, mask):
    mixed = np.uint64(key) * _GOLDEN
    return np.int64((mixed ^ (mixed >> np.uint64(32))) & np.uint64(mask))


@kernel
def intern_pairs(slot_key, slot_id, left, right, count, lefts, rights, out, insert, start):
    """out[i] = the id of pair (lefts[i], rights[i]) for i from `start`,
    interning new pairs when `insert` (else -1 for a pair never seen; -1 for
    a pair with a -1 side either way). Stops early, returning the index
    reached, when the ids or the table are full: the caller grows them and
    calls again from there; returns len(lefts) when done. count[0] is the
    number of ids, count[1] the pairs in the table."""
    mask = np.int64(len(slot_key) - 1)
    load_limit = len(slot_key) // 2
    n_ids = count[0]
    n_pairs = count[1]
    for i in range(start, len(lefts)):
        a = np.int64(lefts[i])
        b = np.int64(rights[i])
        if a < 0 or b < 0:
            out[i] = -1
            continue
        key = (a << np.int64(32)) | b
        h = _slot(key, mask)
        while True:
            found = slot_key[h]
            if found == key:
                out[i] = slot_id[h]
                break
            if found == EMPTY:
                if not insert:
                    out[i] = -1
                    break
                if n_ids >= len(left) or n_pairs >= load_limit:
                    count[0] = n_ids
                    count[1] = n_pairs
                    return i
                slot_key[h] = key
                slot_id[h] = n_ids
                left[n_ids] = a
                right[n_ids] = b
                out[i] = n_ids
                n_ids += 1
                n_pairs += 1
                break
            h = (h + 1) & mask
    count[0] = n_ids
    count[1] = n_pairs
    return len(lefts)


@kernel
def rehash(slot_key, slot_id, left, right, n_ids):
    """Put every pair id below `n_ids` into the (empty) table."""
    mask = np.int64(len(slot_key) - 1)
    for pair in range(n_ids):
        a = np.int64(left[pair])
        if a < 0:
            continue
        key = (a << np.int64(32)) | np.int64(right[pair])
        h = _slot(key, mask)
        while slot_key[h] != EMPTY:
            h = (h + 1) & mask
        slot_key[h] = key
        slot_id[h] = pair


@kernel
def first_of_each(values, slots, out):
    """The positions of the first occurrence of each distinct value (int64
    >= 0) into out, in order; returns how many. `slots` (int64, a power of
    two at least twice len(values), all EMPTY) is scratch."""
    mask = np.int64(len(slots) - 1)
    count = 0
    for i in range(len(values)):
        key = values[i]
        h = _slot(key, mask)
        while True:
            found = slots[h]
            if found == key:
                break
            if found == EMPTY:
                slots[h] = key
                out[count] = i
                count += 1
                break
            h = (h + 1) & mask
    return count
