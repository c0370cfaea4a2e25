"""How a tree's iterations run over an engine: the rules stay in `tree`, the
engine's work is done here.

- `serial`: one iteration at a time, `PropnetRunner` (a batch is one call of
  the fused numba kernel in `kernels`, GIL released) or `MachineRunner` (a
  Python loop over any `StateMachine`, the Prolog engine when the game was
  too big to ground);
- the lanes (`lane_runner`, `lane_search`, `lane_slots`, `lane_copies`,
  `lane_effects`): as many iterations as fit on the propnet's 256 lanes.

A runner chooses nothing (selection, backup and proofs are the `tree`
room's kernels) and runs no thread of its own: a `driver` worker calls it.
It imports only the `tree` and `choices` rooms below it.
"""
