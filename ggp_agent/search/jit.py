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

from numba import njit, types
from numba.extending import intrinsic


def kernel(function):
    """`njit(cache=True, nogil=True)` without reference counting (see above)."""
    return njit(cache=True, nogil=True, _nrt=False)(function)


@intrinsic
def atomic_read(typingctx, array, index):
    """array[index] (int64) read with an atomic acquire load.

    Another thread writes the flag (`TreeSearch._interrupt`) while a batch
    runs; a plain load may be hoisted out of the batch's loop by LLVM (nothing
    in the loop writes that element), and the batch would never see it.
    """
    signature = types.int64(array, index)

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        handle = context.make_array(array_type)(context, builder, args[0])
        pointer = builder.gep(handle.data, [args[1]])
        return builder.load_atomic(pointer, ordering="acquire", align=8)

    return signature, codegen
