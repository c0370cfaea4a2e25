"""Bit tricks, hashing and the random number generator every kernel shares.

`rand_below` is xorshift64* over a uint64[1] state array (`arrays.new_rng`): one
state per thread, passed in, so kernels stay pure functions of their arrays.
`mix64` (splitmix64's finalizer) spreads the bits of the search's hashes.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import intrinsic

from ..jit.decorators import kernel

ONE = np.uint64(1)
ZERO = np.uint64(0)
ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_MIX = np.uint64(0x2545F4914F6CDD1D)
_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S27 = np.uint64(27)
_S32 = np.uint64(32)
_S58 = np.uint64(58)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.array(
    [0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4,
     62, 55, 59, 36, 53, 51, 43, 22, 45, 39, 33, 30, 24, 18, 12, 5,
     63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11,
     46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6],
    dtype=np.int64,
)


@kernel
def rand_below(rng, n):
    """A uniform integer in [0, n) from the xorshift64* state in rng[0]."""
    x = rng[0]
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    rng[0] = x
    r = (x * _MIX) >> _S32
    return np.int64((r * np.uint64(n)) >> _S32)


@kernel
def rand_word(rng):
    """64 random bits from the xorshift64* state in rng[0] (a bit per lane of a word)."""
    x = rng[0]
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    rng[0] = x
    return x * _MIX


@kernel
def lowest_bit_index(word):
    """Index of the lowest set bit of a non-zero uint64."""
    low = word & (~word + ONE)
    return _DEBRUIJN_INDEX[np.int64((low * _DEBRUIJN) >> _S58)]


@kernel
def set_bit_indices(words, out):
    """The indices of the set bits of `words` (uint64, bit i of word w is
    index 64 w + i), ascending, into `out`; returns how many."""
    n = 0
    for w in range(words.shape[0]):
        x = words[w]
        while x != ZERO:
            out[n] = w * 64 + lowest_bit_index(x)
            x &= x - ONE
            n += 1
    return n


_K2 = np.uint64(0xBF58476D1CE4E5B9)
_K3 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S31 = np.uint64(31)


@kernel
def mix64(x):
    """splitmix64's finalizer: a well-spread 64-bit hash of x."""
    x = (x ^ (x >> _S30)) * _K2
    x = (x ^ (x >> _S27)) * _K3
    return x ^ (x >> _S31)


@intrinsic
def popcount64(typingctx, word):
    """Bits set in a uint64 (the CPU's popcount instruction through LLVM)."""
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return signature, codegen
