"""How every numba kernel of the project is compiled and cached.

`decorators` holds the decorators every kernel uses (`kernel`,
`inline_kernel`, `allocating_kernel`: `cache=True`, `nogil=True`, reference
counting only where a kernel allocates) and the atomics that threads share
arrays through; `cache_stamp` stamps each cached kernel with every source it
may have inlined, so an edit to a callee's file recompiles its callers;
`numba_cache` keeps a cache that can only be read (a read-only image) in use.

The bottom room, beneath the propnet's kernels and the search's alike: it
imports no other room and nothing of the package but `folders`, and knows
nothing of games, networks or trees. This `__init__` imports nothing: the
command line imports `numba_cache` to choose the cache before numba reads its
configuration, so that path must not import numba.
"""
