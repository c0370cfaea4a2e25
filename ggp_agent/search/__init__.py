"""The search a player runs: MCPS (the default), GRAVE and UCT in one numba kernel family,
and the flat searches beside them. See docs/search.md.

The package is a building of rooms, each a sub-package with one job; a room
imports only from itself, from the rooms below it and from the layers below
`search` (tests/test_architecture.py checks it). From the bottom up:

- `contract`: what the player and a search exchange (`interface.Search`, the
  GDL-II `belief.Belief` it hands to `observe`).
- `tree`: the tree and its rules, as numba kernels over one arena: settings
  and their packing (`params`), memory (`arena`), nodes and transpositions
  (`table`), one iteration's descent, expansion and backup (`iteration`),
  selection (`select`, `regret`), MCPS's permutation window (`mcps`), the
  solver, MAST, the root's move (`root`) and garbage collection (`collect`).
- `choices`: the settings left at "auto" and decided at START from the rules
  (move, effect or destination codes; whole or capped priors).
- `runners`: how iterations run over an engine: one at a time (`serial`:
  the fused propnet kernel of `kernels`, or a Python loop over Prolog), or
  on the propnet's 256 lanes (`lane_*`).
- `driver`: `TreeSearch`, one tree behind the `Search` interface: its worker
  thread, root changes, figures and root votes.
- `parallel`: several threads on one match: a tree each merged at the root,
  or one shared tree.
- `hidden`: GDL-II, Ensemble Determinization MCTS over the player's belief.

At the top, beside the rooms: `registry.make_search` (every search by rule
name, and a player's search options), `flat` (Monte Carlo, random, legal),
`warmup` (the process's one warm-up, which loads every kernel) and `bench`
(the figures of `ggp-agent bench --search`).
"""
