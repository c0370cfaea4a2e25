"""The network and its build: a `Grounding` turned into AND/OR gates,
simplified, ordered and packed into the flat arrays the kernels run.

`gates` holds the `Network` (which node is which fluent, move, goal and
`terminal`) and `build_network`, whose graph work runs in generic kernels
(`graph_kernels`: the raw graph, constants folded, gates rebuilt;
`order_kernels`: evaluation order, cyclic components, renumbering); `arrays`
packs a network into a `Net` (with `component_groups`, the cyclic components
of one shape evaluated together) and makes each thread's scratch (`Work`,
`Lanes`); `sparse_plan` plays sampled lane playouts and plans the sparse pass
after the moves.

It reads the grounder's output (`grounding.program`), never the grounder's
code, so an edit to the grounder leaves every kernel's cache as it is; it
calls the `kernels` below it; it must not import `machine`, and knows nothing
of Prolog or of a match.
"""
