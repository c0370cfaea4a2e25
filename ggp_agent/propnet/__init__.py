"""The propnet: a game's rules grounded into a network of AND/OR gates, run as arrays.

`grounder` (ground rule instances through Prolog), `network` (the simplified
gate network), `arrays` (the network as flat numpy arrays), `kernels` (numba
kernels over those arrays: the API the search uses), `machine`
(`PropnetStateMachine`, the `StateMachine` protocol on top). Nothing here
generates or compiles code per game.
"""
