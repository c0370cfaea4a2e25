"""The rules as a state machine: the `StateMachine` every engine implements, and the Prolog engine.

`statemachine.py` is the contract (and the helpers every engine gets for free);
`movecodes.py` numbers each (role, move); `replay.py` checks an engine against
a reference trace. The Prolog engine: `compile.py` plans a game's clauses,
`prolog_terms.py` builds terms through the foreign interface (`swipl.py`),
`prolog_thread.py` and `prolog_query.py` run every call on one Prolog thread
under a time limit, and `prolog_machine.py` is the `StateMachine` on top.
"""

from .statemachine import (
    IllegalMoveError, JointMove, ReasonerError, ReasonerResourceError, ReasonerTimeout,
    State, StateMachine, sorted_moves, state_to_kif,
)

__all__ = [
    "IllegalMoveError", "JointMove", "ReasonerError", "ReasonerResourceError",
    "ReasonerTimeout", "State", "StateMachine", "sorted_moves", "state_to_kif",
]
