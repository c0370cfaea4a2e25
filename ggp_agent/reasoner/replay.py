"""Replaying an oracle trace against one of our engines.

A trace (the format of `gdl-corpus/oracle/`, see its README) records random walks
played by ggp-base's reference prover: each step's state, every role's legal
moves and the joint move played, and each walk's terminal state and goals. A
correct engine reproduces all of it. The walk is followed with our own states
(not the trace's), so one wrong next state shows up at the step it happened.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

from ..gdl import parse_term
from .statemachine import ReasonerError, StateMachine, state_to_kif


@dataclass
class ReplayResult:
    """How far an engine agreed with a trace."""

    steps_agreed: int = 0
    terminals_agreed: int = 0
    #: the first disagreement, described in full; None when all agreed
    difference: Optional[str] = None
    #: the engine failed or gave up (timeout, resource error)
    failure: Optional[str] = None
    notes: list[str] = field(default_factory=list)

    @property
    def agreed(self) -> bool:
        return self.difference is None and self.failure is None

    @property
    def exit_code(self) -> int:
        """0 when all agree, 1 on a difference, 2 when the engine failed."""
        if self.failure is not None:
            return 2
        return 0 if self.difference is None else 1


def read_trace(path: Path) -> Iterator[dict]:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line:
                yield json.loads(line)


def replay(machine: StateMachine, trace_path: Path, max_walks: Optional[int] = None) -> ReplayResult:
    """Follow every walk of the trace with `machine`; stop at the first difference."""
    result = ReplayResult()
    try:
        _replay(machine, trace_path, result, max_walks)
    except ReasonerError as error:
        result.failure = f"{type(error).__name__}: {error}"
    return result


def _replay(machine: StateMachine, trace_path: Path, result: ReplayResult, max_walks: Optional[int]) -> None:
    roles = [str(role) for role in machine.roles]
    state = None
    expected_step = 0
    current_walk = None
    for record in read_trace(trace_path):
        kind = record.get("type")
        if kind == "header":
            if record.get("roles") != roles:
                result.difference = f"roles differ: ours {roles}, trace {record.get('roles')}"
                return
            continue
        if kind == "summary":
            if record.get("status") != "ok":
                result.notes.append(f"trace status {record.get('status')}: the reference ran out of time")
            continue
        walk, step = record["walk"], record["step"]
        if max_walks is not None and walk >= max_walks:
            return
        if walk != current_walk:
            current_walk = walk
            state = machine.initial_state()
            expected_step = 0
        where = f"walk {walk} step {step}"
        if step != expected_step:
            result.difference = f"{where}: trace skips from step {expected_step} to {step}"
            return
        ours = state_to_kif(state)
        if ours != sorted(record["state"]):
            result.difference = _state_difference(where, ours, sorted(record["state"]))
            return
        terminal = machine.is_terminal(state)
        if kind == "terminal":
            if not terminal:
                result.difference = f"{where}: the trace's walk ends here (terminal) but ours is not terminal"
                return
            goals = list(machine.goal_values(state))
            if goals != record["goals"]:
                result.difference = f"{where}: goals differ: ours {goals}, trace {record['goals']}"
                return
            result.terminals_agreed += 1
            continue
        if terminal:
            result.difference = f"{where}: ours is terminal, the trace plays on"
            return
        for index, role in enumerate(roles):
            ours_legal = sorted(str(m) for m in machine.legal_moves(state, index))
            theirs = sorted(record["legal"][index])
            if ours_legal != theirs:
                result.difference = (
                    f"{where}: legal moves of {role} differ\n"
                    f"  only ours:  {sorted(set(ours_legal) - set(theirs))}\n"
                    f"  only trace: {sorted(set(theirs) - set(ours_legal))}"
                )
                return
        joint = [parse_term(move) for move in record["joint"]]
        state = machine.next_state(state, joint)
        result.steps_agreed += 1
        expected_step = step + 1


def _state_difference(where: str, ours: list[str], theirs: list[str]) -> str:
    only_ours = sorted(set(ours) - set(theirs))
    only_theirs = sorted(set(theirs) - set(ours))
    return (
        f"{where}: states differ\n"
        f"  only ours:  {only_ours}\n"
        f"  only trace: {only_theirs}"
    )
