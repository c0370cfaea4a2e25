"""Several threads on one match: a `TreeSearch` per thread merged at the root
when the move is chosen (`root_parallel`), or one tree the threads share on
their own lanes (`shared_tree`).

Both are `Search`es built from `driver.TreeSearch` and the `runners`' lanes;
nothing here changes a rule of the tree, and nothing here knows of GDL-II
(`hidden` builds its ensemble on single trees).
"""
