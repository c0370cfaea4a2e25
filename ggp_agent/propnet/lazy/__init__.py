"""The lazy engine: a game's rules evaluated on each state as it is met, compiled, not grounded.

For games whose ground network gives up (chess's threats, sudoku's goal,
paths that remember their cells): `build` makes the rules into three
programs (legal moves and terminal, next state, goals) under demand, with
the static relations computed once; `program` compiles a program into
arrays (`layout`); `vm` runs one over a state's facts in generic numba
kernels, and `game_kernels` plays a game's steps and random playouts on
them; `machine` is the `StateMachine` on top; `hybrid` pairs a network for the
moves with its goal program. Like the propnet, nothing here generates or
compiles code per game.

The last room: it may import every room before it (the grounder's model
computes its static relations, `machine` gives `hybrid` its network), and
no room imports it. It chooses no engine (that is `engines`).
"""
