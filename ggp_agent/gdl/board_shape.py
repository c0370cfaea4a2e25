"""Whether a board's cells are hexagons: read from the adjacency its rules give.

Why: Hex, and the MCPS paper's wargame, are played on a rhombus of hexagons
whose rules name the cells like a square grid's (`a1`, or a row and a column);
drawn as squares, a chain that wins looks broken. A square grid's neighbours
differ by one step along one axis (and, with diagonals, along both); a hex
grid's by one step along one axis or along one diagonal only: (x+1, y-1) and
(x-1, y+1), or the other diagonal. The rules say which when a static relation
between two cells holds exactly for those six steps.

The relation may be written as facts (`(adjacent a1 b1)`) or derived from facts
by rules without state (`(<= (adjacent ?r ?c ?r ?d) (nextcol ?c ?d) (row ?r))`,
the corpus' hex): such rules are evaluated here, a few levels deep and with a
bound on the work, since the rules come from the network. This module knows
terms only.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable, Optional

from .terms import Compound, Distinct, Rule, Symbol, Variable

#: The steps between a hex grid's neighbours, as (dx, dy), for each lean: +1
#: when (x+1, y-1) neighbours (x, y), -1 when (x+1, y+1) does.
HEX_STEPS = {
    1: frozenset({(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)}),
    -1: frozenset({(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)}),
}
#: Most tuples a derived relation may hold, and most partial matches while
#: deriving one: beyond, the relation is left out (a board's adjacency is a
#: few hundred pairs).
MAX_DERIVED = 20_000
#: How deep derived relations may build on derived relations.
MAX_LEVELS = 3

#: A cell's position on the board as (column index, row index), or None when
#: the arguments name no cell of it.
Locate = Callable[[tuple[str, ...]], Optional[tuple[int, int]]]


def hex_lean(rules: Iterable[Rule], arity: int, locate: Locate) -> int:
    """+1 or -1 when a static relation of `arity` arguments (two cells) holds
    exactly for a hex grid's six steps between the cells `locate` reads from
    its first and second half; 0 (square cells) otherwise."""
    relations = StaticRelations(rules)
    half = arity // 2
    for key in relations.keys_of_arity(arity):
        steps = set()
        for args in relations.tuples(key):
            here, there = locate(args[:half]), locate(args[half:])
            if here is None or there is None:
                steps = None
                break
            steps.add((there[0] - here[0], there[1] - here[1]))
        if not steps:
            continue
        for lean, expected in HEX_STEPS.items():
            if steps == expected:
                return lean
    return 0


class StaticRelations:
    """The ground tuples of the relations the rules define without the state:
    facts, and rules whose bodies hold only such relations and `distinct`."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self._facts: dict[tuple[str, int], set[tuple[str, ...]]] = defaultdict(set)
        self._rules: dict[tuple[str, int], list[Rule]] = defaultdict(list)
        for rule in rules:
            head = rule.head
            if not isinstance(head, Compound):
                continue
            key = (head.functor, len(head.args))
            if not rule.body:
                if all(isinstance(a, Symbol) for a in head.args):
                    self._facts[key].add(tuple(a.name for a in head.args))
            else:
                self._rules[key].append(rule)
        self._derived: dict[tuple[str, int], Optional[set[tuple[str, ...]]]] = {}

    def keys_of_arity(self, arity: int) -> list[tuple[str, int]]:
        return sorted({key for key in (*self._facts, *self._rules) if key[1] == arity})

    def tuples(self, key: tuple[str, int], level: int = 0) -> set[tuple[str, ...]]:
        """The relation's tuples; empty when it depends on the state or is too large."""
        if key not in self._rules:
            return self._facts.get(key, set())
        if key not in self._derived:
            self._derived[key] = None  # a recursion through itself derives nothing
            self._derived[key] = self._derive(key, level)
        return self._derived[key] or set()

    def _derive(self, key: tuple[str, int], level: int) -> Optional[set[tuple[str, ...]]]:
        if level >= MAX_LEVELS:
            return None
        found = set(self._facts.get(key, ()))
        for rule in self._rules[key]:
            answers = self._answers(rule, level)
            if answers is None:
                return None
            for bindings in answers:
                head = tuple(_value(a, bindings) for a in rule.head.args)
                if any(v is None for v in head):
                    return None  # a head variable the body does not bind
                found.add(head)
            if len(found) > MAX_DERIVED:
                return None
        return found

    def _answers(self, rule: Rule, level: int) -> Optional[list[dict[str, str]]]:
        """Every binding of the body's variables, or None when the body is not
        static facts and `distinct` (or the work exceeds the bound)."""
        partial: list[dict[str, str]] = [{}]
        distinct = []
        for literal in rule.body:
            if isinstance(literal, Distinct):
                distinct.append(literal)
                continue
            if not isinstance(literal, Compound) or literal.functor in ("true", "does"):
                return None
            key = (literal.functor, len(literal.args))
            if key not in self._facts and key not in self._rules:
                return None
            rows = self.tuples(key, level + 1)
            if not rows:
                return None
            partial = [joined for bindings in partial for row in rows
                       if (joined := _match(literal.args, row, bindings)) is not None]
            if len(partial) > MAX_DERIVED:
                return None
        return [b for b in partial
                if all(_value(d.left, b) != _value(d.right, b) for d in distinct)]


def _match(args, row: tuple[str, ...], bindings: dict[str, str]) -> Optional[dict[str, str]]:
    """`bindings` extended so that `args` read `row`, or None when they cannot."""
    extended = bindings
    for arg, value in zip(args, row):
        if isinstance(arg, Symbol):
            if arg.name != value:
                return None
        elif isinstance(arg, Variable):
            bound = extended.get(arg.name)
            if bound is None:
                extended = {**extended, arg.name: value}
            elif bound != value:
                return None
        else:
            return None  # a function term: not a cell name
    return extended


def _value(term, bindings: dict[str, str]) -> Optional[str]:
    if isinstance(term, Symbol):
        return term.name
    if isinstance(term, Variable):
        return bindings.get(term.name)
    return None
