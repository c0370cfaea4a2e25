"""Grounding: a game's rules turned into every ground rule instance the network needs, as integers.

In the order data flows: `rules` (rules made safe to ground, and factored to
stay small), `inert` (fluents no move changes, made static) and `demand`
(each relation computed only for the arguments its callers ask about)
rewrite the rules; `grounder` grounds them through `evaluate` (a Datalog
program evaluated bottom up) over the integer tables of `relations` and
`joins`, each ground term interned once by `term_store` (its hash table is
the kernels of `term_kernels`). What comes out is a `program.Grounding`,
data only: all the network builder reads of this room.

It imports only the `jit` room and the layers below (GDL terms, the
reasoner's error type): nothing of the kernels, the network or the machine,
and no Prolog (the rules arrive as parsed GDL and are grounded in numpy).
"""
