"""The decorators every numba kernel of the project uses, and why.

Every kernel is `cache=True` (compiled once, loaded from disk afterwards: a
game is data, so a START never compiles) and `nogil=True` (a search thread
runs while the server answers). The propnet's kernels and the search's share
these two decorators, so a flag is decided once:

- `kernel`: no reference counting. The search's arena is a NamedTuple of about
  fifty arrays. With numba's runtime (NRT) on, every read of a field of that
  tuple increments and decrements the array's reference count with atomic
  instructions; a descent through the tree does hundreds of them per level.
  Measured on connect four: one descent took 33 µs with NRT and 0.8 µs
  without (`ggp-agent bench --search` shows the whole-search effect); on the
  propnet's kernels it made 2.3 times more random playouts on connect four
  and 1.65 times on Hex 5x5. A kernel that never allocates, never keeps an
  array beyond the call and never hands one back needs no reference counts.
- `allocating_kernel`: reference counting on, for a kernel that allocates or
  returns an array (the network builder's graph work, garbage collection).

Numba compiles a callee with its caller's flags: a `kernel` may call only
kernels that could themselves be `kernel`s.

Every kernel under `propnet/` and `search/` is stamped with the digest of the
kernel modules and every module they import (`cache_stamp.py`): a kernel
inlines its callees and freezes their constants, so an edit to any of them
must make its cache stale, and an edit elsewhere need not.

Three atomics for threads that share arrays: `atomic_read` (a flag another
thread sets), `atomic_swap_if` and `atomic_write` (a spin lock).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from numba import njit, types
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic

from .cache_stamp import track_sources

#: Where every kernel is defined (the constants they read are in modules they import):
#: the propnet's rooms and the search's.
PROPNET_FOLDER = Path(__file__).parents[1]
KERNEL_FOLDERS = (PROPNET_FOLDER, PROPNET_FOLDER.parent / "search")
track_sources(KERNEL_FOLDERS)


def kernel(function):
    """`njit(cache=True, nogil=True)` without reference counting (see above)."""
    return njit(cache=True, nogil=True, _nrt=False)(function)


def inline_kernel(function):
    """`kernel`, inlined into its callers by numba itself, before LLVM: a
    helper that takes the `Net` record and that LLVM leaves a call (it holds
    loops) copies the record's sixty-odd arrays at every call. The sparse
    pass's `_mark` as a plain `kernel` took AtariGo's pass from 358 to 581 µs
    a step."""
    return njit(cache=True, nogil=True, _nrt=False, inline="always")(function)


def allocating_kernel(function):
    """`njit(cache=True, nogil=True)` with reference counting (see above)."""
    return njit(cache=True, nogil=True)(function)


def dispatchers(*modules: ModuleType) -> dict[str, CPUDispatcher]:
    """Every numba kernel defined in `modules`, by qualified name: what the
    warm-up must have loaded, and what a test counts signatures of."""
    found = {}
    for module in modules:
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = value
    return found


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


@intrinsic
def atomic_swap_if(typingctx, array, index, expected, value):
    """array[index] = value if it holds `expected` (int64 compare-and-swap,
    acquire-release); returns what it held. A spin lock's acquire."""
    signature = types.int64(array, index, types.int64, types.int64)

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        handle = context.make_array(array_type)(context, builder, args[0])
        pointer = builder.gep(handle.data, [args[1]])
        result = builder.cmpxchg(pointer, args[2], args[3], "acq_rel", "monotonic")
        return builder.extract_value(result, 0)

    return signature, codegen


@intrinsic
def atomic_write(typingctx, array, index, value):
    """array[index] = value (int64) with a release store: a spin lock's release."""
    signature = types.void(array, index, types.int64)

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        handle = context.make_array(array_type)(context, builder, args[0])
        pointer = builder.gep(handle.data, [args[1]])
        builder.store_atomic(args[2], pointer, ordering="release", align=8)
        return context.get_dummy_value()

    return signature, codegen
