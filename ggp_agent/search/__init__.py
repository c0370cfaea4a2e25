"""The search a player runs: MCPS (the default), GRAVE and UCT in one numba kernel family,
and the flat searches beside them.

`interface.Search` is what a player calls; `registry.make_search` builds one by
rule name. The tree searches (`tree_search.TreeSearch`) keep their memory in
one arena (`arena`), choose edges by one rule function (`select`), keep the
permutation window in `mcps`, find nodes in `table`, descend and back up in
`tree`, prove results in `solver`, pick the root's move in `root`, collect
garbage in `collect`, and run iterations through `runners` (the fused propnet
batch of `kernels`, or a Python loop over Prolog). `worker` is the thinking
thread, `warmup` the process's one warm-up, `bench` the figures. See
docs/search.md.
"""
