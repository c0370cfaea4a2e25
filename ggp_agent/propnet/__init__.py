"""The propnet: a game's rules grounded into a network of AND/OR gates, run as arrays.

In the order data flows: `rules` (rules prepared and factored for grounding),
`grounder` with `grounder_clauses` (every ground rule instance, through
Prolog), `network` with `graph_kernels` and `order_kernels` (the simplified,
ordered gate network), `arrays` (the network as flat numpy arrays), the numba
kernels over those arrays (`state_kernels`: one state at a time;
`lane_kernels`: 256 random playouts at once; `bits` and `jit` beneath both),
`machine` (`PropnetStateMachine`, the `StateMachine` on top), `bench` and
`survey` (what it costs). Nothing here generates or compiles code per game.
"""
