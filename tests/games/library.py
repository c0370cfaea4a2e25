"""What the game-library tests share: the games folder, its scripts, one Prolog engine per game,
and a notation for positions.

Positions are frozensets of parsed fluents queried through the `StateMachine`
protocol, so the same checks can run against any engine. Nothing here reads
`../shared`.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

from ggp_agent.gdl import parse_term

from ..helpers import GAMES as GAMES_DIR

ALL_GAMES = sorted(path.stem for path in GAMES_DIR.glob("*.kif"))


def load_games_script(name: str):
    """Import a script of `gdl_games/` (they are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"gdl_games_{name}", GAMES_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


generate = load_games_script("generate")
measure = load_games_script("measure")
#: The Go family's templates (the generator puts `gdl_games/` on the path for its `kif_templates`).
go_family = importlib.import_module("kif_templates.go_family")

_machines: dict = {}


def close_machines() -> None:
    """Close the engines `machine` built (an engine left open until interpreter
    shutdown can hang the process in `__del__`)."""
    while _machines:
        _machines.popitem()[1].close()


def machine(name: str):
    """The Prolog engine for `gdl_games/<name>.kif`, built once per test module."""
    if name not in _machines:
        from ggp_agent.reasoner.prolog_machine import PrologStateMachine
        _machines[name] = PrologStateMachine.from_file(GAMES_DIR / f"{name}.kif")
    return _machines[name]


def fluents(*texts: str) -> frozenset:
    return frozenset(parse_term(text) for text in texts)


def move(text: str):
    return parse_term(text)


def legal_texts(game, state, role: int) -> set[str]:
    return {str(m) for m in game.legal_moves(state, role)}


def play(game, state, *joint: str):
    return game.next_state(state, tuple(move(m) for m in joint))
