"""State words read back as terms, for every reader of a network's states.

Why a module of its own: the machine's states and the check of a new build
(`opening.py`) read words the same way, and the network's arrays module is a
kernel source (an edit there recompiles every kernel: `jit/cache_stamp.py`).
"""

from __future__ import annotations

import numpy as np

#: Fluents per state word (bit i of word w: fluent 64 * w + i).
WORD_BITS = 64


def fluents_of_words(fluents: tuple, words: np.ndarray) -> frozenset:
    """The fluents whose bits are set in state words."""
    found = []
    for w, word in enumerate(words.tolist()):
        while word:
            low = word & -word
            found.append(fluents[w * WORD_BITS + low.bit_length() - 1])
            word ^= low
    return frozenset(found)
