"""`TreeSearch`: one tree behind the player's `Search` interface.

`tree_search` owns the arena, the lock and the worker thread (`worker`, the
thread every searching `Search` thinks in), moves the root when the match
moves (`root_change`, collecting off our clock), says what each root change
kept (`reuse`: for the turn's figures, a match's record and any series),
publishes the root's statistics for root parallelism (`votes`) and the
figures for logs and the status page (`figures`).

It drives the rooms below (`tree` kernels through `runners`, START
decisions through `choices`) and decides no rule itself; it knows nothing of
other trees (`parallel`) or of hidden information (`hidden`).
"""
