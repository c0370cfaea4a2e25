"""The tree and its rules: numba kernels over one arena of flat arrays.

`params` packs a search's settings for the kernels (`settings` reads them as
text); `arena` is the memory, sized once at START; `table` finds a state's
node and a child; `iteration` runs one iteration's descent, expansion and
backup; `select` (with `regret` at simultaneous nodes) chooses an edge by
UCT, GRAVE or MCPS; `mcps` keeps the permutation window; `solver` proves
values; `mast` ranks playout moves; `root` picks the move to play;
`collect` slides what the new root reaches down the arena.

Engine-free: nothing here computes a state (a descent stops and says what it
needs; `runners` asks the engine), starts a thread or grows the arena, and
nothing here imports another room of the search.
"""
