"""Game engines behind one `StateMachine` protocol."""

from .statemachine import (
    IllegalMoveError, JointMove, ReasonerError, ReasonerResourceError, ReasonerTimeout,
    State, StateMachine, sorted_moves, state_to_kif,
)

__all__ = [
    "IllegalMoveError", "JointMove", "ReasonerError", "ReasonerResourceError",
    "ReasonerTimeout", "State", "StateMachine", "sorted_moves", "state_to_kif",
]
