"""The numba kernels that run a network: generic code over a `Net`'s flat
arrays, compiled once for every game (a game is data, never code).

`state_kernels` runs one state at a time by change propagation (legal moves,
a step, goals, a random playout); `lane_kernels` plays 256 random playouts at
once, one bit per playout, over the gate passes of `lane_gates` (dense, or
sparse where the network's plan says); `component_kernels` evaluates the
cyclic components (recursive relations) by worklists for both; `bits` holds
the bit tricks, hashing and random numbers every kernel shares, the search's
too.

Below the network on purpose: a kernel takes the arrays as arguments and
knows nothing of how they were built, so this room imports only the `jit`
room (no grounding, no network, no machine, nothing of GDL), and the
network's packing (`network.arrays`) and plan (`network.sparse_plan`) may
call the kernels.
"""
