"""The propnet: a game's rules grounded into a network of AND/OR gates, run as arrays.

The package is a building of rooms, each a sub-package with one job; a room
imports only from itself, from the rooms below it and from the layers below
`propnet` (tests/test_architecture.py checks it). From the bottom up:

- `jit`: how every numba kernel is compiled and cached, the search's too
  (`decorators`, `cache_stamp`, `numba_cache`).
- `grounding`: the rules prepared (`rules`, `inert`, `demand`) and grounded
  (`grounder`, by `evaluate` over the integer tables of `relations`,
  `joins` and `term_store`) into a `program.Grounding`.
- `kernels`: the numba kernels over a network's arrays, generic for every
  game (`state_kernels`: one state at a time; `lane_kernels` and
  `lane_gates`: 256 random playouts at once; `component_kernels`, `bits`).
- `network`: the gate network built from a grounding, simplified and
  ordered (`gates`, `graph_kernels`, `order_kernels`), packed as flat
  arrays (`arrays`, `component_groups`) with its sparse pass planned
  (`sparse_plan`).
- `machine`: `PropnetStateMachine`, the `StateMachine` on top
  (`state_machine`), the process's compiled games (`compiled`) and the
  playout benchmark (`bench`).

At the top, beside the rooms: `survey` (which games get a propnet within a
budget, and what the build costs). Nothing here generates or compiles code
per game.
"""
