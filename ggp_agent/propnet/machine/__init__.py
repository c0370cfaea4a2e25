"""The propnet as a `StateMachine`, and what it costs.

`state_machine` is `PropnetStateMachine`: the protocol's terms turned into
state words at the boundary, everything else run by the kernels (a GDL-II
game's percepts come from a Prolog engine it owns); `compiled` builds a
game's network once per process and shares it (ground, build, pack, plan,
within the START's time limit), after `opening` compared its initial state
and first moves with the rules' (`state_words` reads states back as terms);
`bench` measures random playouts per second
by each evaluation strategy (`ggp-agent bench`).

It may import every room before it; only `lazy`, the room after it, imports
it (a network for the moves beside the lazy engine's goals). It chooses no
engine (that is `engines`, the layer above) and knows nothing of a search.
"""
