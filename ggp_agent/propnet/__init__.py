"""The propnet: a game's rules grounded into a network of AND/OR gates, run as arrays.

In the order data flows: `rules`, `inert` and `demand` (rules prepared,
rewritten and factored for grounding), `grounder` (every ground rule
instance, computed by `evaluate` over the integer tables of `relations`,
`joins` and `term_store`), `network` with `graph_kernels` and `order_kernels` (the simplified,
ordered gate network), `arrays` (the network as flat numpy arrays), the numba
kernels over those arrays (`state_kernels`: one state at a time;
`lane_kernels`: 256 random playouts at once; `bits` and `jit` beneath both),
`machine` (`PropnetStateMachine`, the `StateMachine` on top), `bench` and
`survey` (what it costs). Nothing here generates or compiles code per game.
"""
