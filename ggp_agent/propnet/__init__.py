"""The compiled engines: a game's rules grounded into a network of AND/OR gates, run as arrays, or evaluated on each state.

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
- `lazy`: the compiled engine for games whose network gives up: nothing
  that depends on the state is grounded, the rules are compiled into
  programs evaluated on each state under demand (`build`, `program`,
  `layout`, `vm`, `game_kernels`, `machine`); a network for the moves
  beside its goal program when only the goal gives up (`hybrid`).

At the top, beside the rooms: `survey` (which games get a propnet within a
budget, and what the build costs). Nothing here generates or compiles code
per game.
"""
