"""Measure the games of `gdl_games/`: random-playout statistics and ground size.

Why: the README's table (game length, branching factor) must come from
measurements, and the games are written to be grounded into a propnet, so their
ground size is worth a number too. Run from the repository root:

    .venv/bin/python gdl_games/measure.py                 # every game, 100 matches
    .venv/bin/python gdl_games/measure.py --matches 20 gdl_games/hex_9x9.kif

It prints one Markdown table row per game. Random playouts go through the
`StateMachine` protocol (legal moves, next state, goals) with uniformly random
moves; the ground size comes from `relaxed_grounding`, a small stand-alone
instantiation (no Prolog), so it can run where the reasoner does not.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

GAMES_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(GAMES_DIR.parent))

from ggp_agent.gdl import (  # noqa: E402  (after the path set-up, for a plain checkout)
    Compound, Distinct, Not, Rule, Symbol, ValidatedGame, Variable, load_game, relation_key, substitute,
)


# --------------------------------------------------------------------------- random playouts

@dataclass
class PlayoutStats:
    """What random matches of one game looked like."""

    matches: int
    lengths: list[int] = field(default_factory=list)
    #: legal joint moves (product over roles) of every non-terminal state visited
    joint_branching: list[int] = field(default_factory=list)
    #: legal moves of the role with the most choices, per non-terminal state:
    #: the mover's moves in an alternating game (the others only have noop)
    mover_branching: list[int] = field(default_factory=list)
    outcomes: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def mean_length(self) -> float:
        return statistics.fmean(self.lengths)

    @property
    def mean_branching(self) -> float:
        return statistics.fmean(self.mover_branching)

    @property
    def mean_joint_branching(self) -> float:
        return statistics.fmean(self.joint_branching)


def random_matches(machine, matches: int, seed: int = 0, max_steps: int = 10_000) -> PlayoutStats:
    """Play `matches` uniformly random matches through the `StateMachine` protocol.

    Every match must reach a terminal state within `max_steps` joint moves, and
    every role must have a legal move in every non-terminal state; anything else
    is a broken game and raises.
    """
    rng = random.Random(seed)
    stats = PlayoutStats(matches)
    roles = range(len(machine.roles))
    started = time.perf_counter()
    for _ in range(matches):
        state = machine.initial_state()
        steps = 0
        while not machine.is_terminal(state):
            if steps >= max_steps:
                raise RuntimeError(f"no terminal state after {max_steps} joint moves")
            legal = [machine.legal_moves(state, role) for role in roles]
            if any(not moves for moves in legal):
                raise RuntimeError(f"a role has no legal move in a non-terminal state: {sorted(map(str, state))}")
            joint = 1
            for moves in legal:
                joint *= len(moves)
            stats.joint_branching.append(joint)
            stats.mover_branching.append(max(len(moves) for moves in legal))
            state = machine.next_state(state, tuple(rng.choice(moves) for moves in legal))
            steps += 1
        stats.lengths.append(steps)
        stats.outcomes[tuple(machine.goal_values(state))] += 1
    stats.seconds = time.perf_counter() - started
    return stats


# --------------------------------------------------------------------------- ground size

@dataclass
class GroundSize:
    """Atoms and ground rule instances of the state-dependent part of a game."""

    atoms: dict[tuple[str, int], int]
    instances: dict[tuple[str, int], int]
    #: the ground fluents of `base` and the (role, move) pairs of `input`
    base: frozenset = frozenset()
    inputs: frozenset = frozenset()

    @property
    def total_atoms(self) -> int:
        return sum(self.atoms.values())

    @property
    def total_instances(self) -> int:
        return sum(self.instances.values())


def _match(pattern, ground, bindings: dict) -> dict | None:
    """Extend `bindings` so that `pattern` equals the ground term, or None."""
    if isinstance(pattern, Variable):
        bound = bindings.get(pattern)
        if bound is None:
            extended = dict(bindings)
            extended[pattern] = ground
            return extended
        return bindings if bound == ground else None
    if isinstance(pattern, Symbol):
        return bindings if pattern == ground else None
    if not isinstance(ground, Compound) or ground.functor != pattern.functor \
            or len(ground.args) != len(pattern.args):
        return None
    for sub_pattern, sub_ground in zip(pattern.args, ground.args):
        bindings = _match(sub_pattern, sub_ground, bindings)
        if bindings is None:
            return None
    return bindings


def _args(sentence) -> tuple:
    return () if isinstance(sentence, Symbol) else sentence.args


def relaxed_grounding(game: ValidatedGame) -> GroundSize:
    """Instantiate every rule over what could ever be true, as a grounder does.

    `true` ranges over the `base` relation and `does` over `input`; negative
    literals are ignored (an over-approximation, before any simplification);
    `distinct` is applied. The result counts the ground atoms and the ground rule
    instances of every relation that depends on the state or the moves: roughly
    the propositions and AND gates of an unsimplified propnet. Static relations
    (board facts) are evaluated but not counted, since they fold away.
    """
    x, r, m = Variable("?x"), Variable("?r"), Variable("?m")
    rules = list(game.plain_rules) + [
        Rule(Compound("true", (x,)), (Compound("base", (x,)),)),
        Rule(Compound("does", (r, m)), (Compound("input", (r, m)),)),
    ]
    known: dict[tuple[str, int], set[tuple]] = defaultdict(set)
    indexes: dict = {}

    def lookup(key, positions, values):
        cache_key = (key, positions)
        entry = indexes.get(cache_key)
        if entry is None or entry[0] != len(known[key]):
            index: dict = defaultdict(list)
            for args in known[key]:
                index[tuple(args[p] for p in positions)].append(args)
            entry = (len(known[key]), index)
            indexes[cache_key] = entry
        return entry[1].get(values, ())

    def solutions(body):
        positives = [lit for lit in body if not isinstance(lit, (Not, Distinct))]
        distincts = [lit for lit in body if isinstance(lit, Distinct)]
        results = []

        def extend(remaining, bindings):
            if not remaining:
                for d in distincts:
                    if substitute(d.left, bindings) == substitute(d.right, bindings):
                        return
                results.append(bindings)
                return
            # Most-bound literal first keeps the joins small: the most ground
            # arguments (those can use an index), then the fewest free variables.
            def boundness(lit):
                args = [substitute(a, bindings) for a in _args(lit)]
                ground = sum(1 for a in args if next(_variables_in(a), None) is None)
                free = len({v for a in args for v in _variables_in(a)})
                return (-ground, free)
            remaining = sorted(remaining, key=boundness)
            literal, rest = remaining[0], remaining[1:]
            key = relation_key(literal)
            args = tuple(substitute(a, bindings) for a in _args(literal))
            positions = tuple(i for i, a in enumerate(args)
                              if not any(True for _ in _variables_in(a)))
            candidates = lookup(key, positions, tuple(args[p] for p in positions))
            for ground in candidates:
                extended = bindings
                for pattern, value in zip(args, ground):
                    extended = _match(pattern, value, extended)
                    if extended is None:
                        break
                if extended is not None:
                    extend(rest, extended)

        extend(positives, {})
        return results

    instances: dict[tuple[str, int], set] = defaultdict(set)
    changed = True
    while changed:
        changed = False
        instances.clear()
        for rule in rules:
            head_key = relation_key(rule.head)
            for bindings in solutions(rule.body):
                head_args = tuple(substitute(a, bindings) for a in _args(rule.head))
                if head_args not in known[head_key]:
                    known[head_key].add(head_args)
                    changed = True
                instances[head_key].add((id(rule), tuple(sorted(
                    ((v.name, str(t)) for v, t in bindings.items())))))
    dependent = game.graph.state_dependent | {("true", 1), ("does", 2)}
    atoms = {key: len(values) for key, values in known.items() if key in dependent}
    counted = {key: len(values) for key, values in instances.items()
               if key in dependent and key not in (("true", 1), ("does", 2))}
    base = frozenset(args[0] for args in known[("base", 1)])
    inputs = frozenset(known[("input", 2)])
    return GroundSize(atoms, counted, base, inputs)


def _variables_in(term):
    if isinstance(term, Variable):
        yield term
    elif isinstance(term, Compound):
        for arg in term.args:
            yield from _variables_in(arg)


# --------------------------------------------------------------------------- command line

def default_machine_factory() -> Callable[[Path], object]:
    """The project's Prolog engine, imported late so `--ground-only` needs no Prolog."""
    from ggp_agent.reasoner.prolog_machine import PrologStateMachine
    return PrologStateMachine.from_file


def game_files(paths: Iterable[str]) -> list[Path]:
    chosen = [Path(p) for p in paths]
    return chosen or sorted(GAMES_DIR.glob("*.kif"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help="KIF files (default: every gdl_games/*.kif)")
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ground-only", action="store_true",
                        help="only the relaxed ground size, no playouts (no Prolog needed)")
    options = parser.parse_args(argv)
    factory = None if options.ground_only else default_machine_factory()
    print("| game | roles | ground atoms | ground rules | matches | length (mean, min-max) "
          "| branching (mover) | branching (joint) | outcomes (goals: matches) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in game_files(options.games):
        game = load_game(path)
        size = relaxed_grounding(game)
        roles = " ".join(map(str, game.roles))
        if factory is None:
            print(f"| {path.stem} | {roles} | {size.total_atoms} | {size.total_instances} "
                  "| | | | | |")
            continue
        machine = factory(path)
        try:
            stats = random_matches(machine, options.matches, options.seed)
        finally:
            machine.close()
        outcomes = ", ".join(f"{'/'.join(map(str, goals))}: {count}"
                             for goals, count in stats.outcomes.most_common(4))
        print(f"| {path.stem} | {roles} | {size.total_atoms} | {size.total_instances} "
              f"| {stats.matches} | {stats.mean_length:.1f} ({min(stats.lengths)}-{max(stats.lengths)}) "
              f"| {stats.mean_branching:.1f} | {stats.mean_joint_branching:.1f} | {outcomes} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
