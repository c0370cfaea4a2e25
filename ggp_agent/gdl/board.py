"""A game's board, found from its fluents: which relation holds the cells, and
the order of its two coordinates.

Why: a person watching a match reads a position far better as a board than as
a list of fluents. Nothing tells a player which games have boards (public match
servers scramble every symbol, so names like `cell` mean nothing), so the board
is found from the shape of the fluents: a relation whose two arguments range
over small domains whose cells the fluents cover, like `(cell ?x ?y ?piece)`.
A domain is ordered by its numbers when it holds numbers, else by a chain of
static facts over it (`(succ 1 2)`, `(next_file a b)`); a domain the game does
not order (colours, point names) is no coordinate.

The first coordinate runs left to right and the second bottom to top, as on a
chess board: connect four's discs then rest on the bottom row and
breakthrough's white starts at the bottom (a square game such as tic-tac-toe
is drawn the same way, mirrored or not, it reads the same).

A cell may also be one token that holds both coordinates, letters then
digits (`a1`, `c3`, as Go, Hex and our breakthrough name them): the token is
split into a column and a row, and kept as a coordinate pair when the tokens
fill a grid as two arguments would. Letters are ordered as the alphabet
orders them, digits by number. Hexagonal cells are told from the rules'
adjacency (`board_shape.py`).

The fluents to look at are all that can ever be true (a propnet knows them),
else the ones seen so far: a caller gives what it has. This module knows terms
only: no engine, no HTML.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Optional

from .board_shape import hex_lean
from .terms import Compound, Rule, Symbol, Term

#: Most values a coordinate may take (a 26 x 26 board at most).
MAX_SIDE = 26
#: Share of a board's cells its fluents must cover for it to be a board.
MIN_COVER = 0.6
#: A cell named by one token: the column's letters, then the row's digits.
_ONE_TOKEN = re.compile(r"^([A-Za-z]{1,2})([0-9]{1,2})$")


@dataclass(frozen=True)
class BoardLayout:
    """Where the board is in a game's fluents: the relation and its arity, the
    argument positions of the two coordinates (`x` left to right, `y` bottom to
    top; the same position when one token names the cell, `a1`) and their
    values in order; the other arguments say what a cell holds. `lean` is 0 for
    square cells, +1 or -1 for hexagons (`board_shape.HEX_STEPS`); `pieces` is
    what the cells were seen to hold, in order (a piece keeps its colour)."""

    relation: str
    arity: int
    x_arg: int
    y_arg: int
    columns: tuple[str, ...]
    rows: tuple[str, ...]
    lean: int = 0
    pieces: tuple[str, ...] = ()

    @property
    def one_token(self) -> bool:
        """True when one argument names the cell (`a1`)."""
        return self.x_arg == self.y_arg

    def to_json(self) -> dict:
        return {"relation": self.relation, "arity": self.arity, "x": self.x_arg, "y": self.y_arg,
                "columns": list(self.columns), "rows": list(self.rows), "lean": self.lean,
                "pieces": list(self.pieces)}

    @classmethod
    def from_json(cls, data: dict) -> "BoardLayout":
        return cls(data["relation"], int(data["arity"]), int(data["x"]), int(data["y"]),
                   tuple(map(str, data["columns"])), tuple(map(str, data["rows"])),
                   int(data.get("lean", 0)), tuple(map(str, data.get("pieces", ()))))

    def holds(self, fluent: Term) -> bool:
        """True when `fluent` is one of this board's cells."""
        return (isinstance(fluent, Compound) and fluent.functor == self.relation
                and len(fluent.args) == self.arity)

    def coordinates(self, fluent: Compound) -> Optional[tuple[str, str]]:
        """(column, row) of one of this board's cell fluents, or None when its
        arguments name no cell."""
        return _coordinates(fluent.args, self.x_arg, self.y_arg)

    def content(self, fluent: Compound) -> str:
        """What a cell fluent puts in its cell: its other arguments (a dot when it has none)."""
        rest = [str(a) for k, a in enumerate(fluent.args) if k not in (self.x_arg, self.y_arg)]
        return " ".join(rest) or "\u25cf"


@dataclass(frozen=True)
class Position:
    """A state drawn on a board: `cells[row][column]` is what the cell holds
    ("" when no fluent names it), rows top first; `others` are the state's
    fluents that are not cells, as text."""

    layout: BoardLayout
    cells: tuple[tuple[str, ...], ...]
    others: tuple[str, ...]

    def changed_from(self, before: "Position") -> tuple[tuple[bool, ...], ...]:
        """Per cell, whether it holds something else than in `before` (the last move's mark)."""
        return tuple(tuple(a != b for a, b in zip(row, old)) for row, old in zip(self.cells, before.cells))

    def to_json(self, before: Optional["Position"] = None, empty: str = "") -> dict:
        """The position as the status page draws it: rows top first, the cells
        changed since `before` (the last move) marked, and `empty`, what an
        empty cell holds in this game (`background` of the first position)."""
        changed = self.changed_from(before) if before is not None else None
        return {
            "columns": list(self.layout.columns),
            "rows": list(reversed(self.layout.rows)),
            "cells": [list(row) for row in self.cells],
            "changed": [list(row) for row in changed] if changed else None,
            "empty": empty,
            "others": list(self.others),
            "pieces": [p for p in self.layout.pieces if p != empty],
            "shift": row_shifts(self.layout),
        }


def row_shifts(layout: BoardLayout) -> list[float]:
    """How far each row (top first) is drawn to the right, in cells: none on a
    square board; on a hex board half a cell a row, so that the six neighbours
    of a cell touch it (a rhombus)."""
    height = len(layout.rows)
    if layout.lean > 0:  # (x+1, y-1) is a neighbour: each row up is half a cell further right
        return [0.5 * (height - 1 - i) for i in range(height)]
    if layout.lean < 0:
        return [0.5 * i for i in range(height)]
    return [0.0] * height


def find_board(fluents: Iterable[Term], rules: Iterable[Rule] = ()) -> Optional[BoardLayout]:
    """The board in these fluents, or None when no relation looks like one.

    `rules` give the static facts that order non-numeric coordinates and the
    adjacency that tells hexagons. Among the relations with two constant
    arguments (or one token of letters and digits) of 2 to MAX_SIDE values
    each, both ordered by the game, whose fluents cover at least MIN_COVER of
    the cells, the one with the most cells wins, then the one whose
    coordinates come first. Among boards still tied: one that says what its
    cells hold over a bare marker (Go's `(cell c3 white)` over its
    `(ko c3)`), then the one with fewer different contents, then the
    relation's name: never the order the fluents came in, which a set of
    terms changes from run to run.

    >>> from .reader import parse_term
    >>> cells = [parse_term(f"(cell {x} {y} b)") for x in (1, 2, 3) for y in (1, 2, 3)]
    >>> layout = find_board(cells + [parse_term("(control x)")])
    >>> layout.relation, layout.x_arg, layout.y_arg, layout.columns
    ('cell', 0, 1, ('1', '2', '3'))
    >>> stones = [parse_term(f"(point {c}{r} empty)") for c in "abcd" for r in (1, 2, 3, 4)]
    >>> layout = find_board(stones)
    >>> layout.one_token, layout.columns, layout.rows
    (True, ('a', 'b', 'c', 'd'), ('1', '2', '3', '4'))
    """
    groups: dict[tuple[str, int], list[tuple[Term, ...]]] = defaultdict(list)
    for fluent in fluents:
        if isinstance(fluent, Compound):
            groups[(fluent.functor, len(fluent.args))].append(fluent.args)
    rules = tuple(rules)
    chains = _chains(rules)
    best = None
    for (relation, arity), rows in sorted(groups.items(), key=lambda group: group[0]):
        for i in range(arity):
            for j in range(i, arity):  # j == i: one token names the cell
                candidate = _candidate(relation, arity, i, j, rows, chains)
                if candidate is not None and (best is None or candidate[0] > best[0]):
                    best = candidate
    if best is None:
        return None
    layout = best[1]
    pieces = sorted({layout.content(Compound(layout.relation, args)) for args in groups[(layout.relation, layout.arity)]
                     if _coordinates(args, layout.x_arg, layout.y_arg) is not None})
    return BoardLayout(layout.relation, layout.arity, layout.x_arg, layout.y_arg, layout.columns, layout.rows,
                       _lean(layout, rules), tuple(pieces))


def draw(layout: BoardLayout, state: Iterable[Term]) -> Position:
    """`state` on the board: each cell's content (its fluents' other arguments),
    and the fluents that are not cells."""
    x_index = {value: k for k, value in enumerate(layout.columns)}
    y_index = {value: k for k, value in enumerate(layout.rows)}
    grid = [[[] for _ in layout.columns] for _ in layout.rows]
    others = []
    for fluent in state:
        if layout.holds(fluent):
            x, y = layout.coordinates(fluent) or ("", "")
            if x in x_index and y in y_index:
                grid[y_index[y]][x_index[x]].append(layout.content(fluent))
                continue
        others.append(str(fluent))
    cells = tuple(tuple(" ".join(sorted(found)) for found in row) for row in reversed(grid))
    return Position(layout, cells, tuple(sorted(others)))


def background(position: Position) -> str:
    """What an empty cell holds in this game, when it says so: the content that
    fills more than half of the cells of `position` (tic-tac-toe's `b` at the
    start), else "" (cells without a fluent are empty)."""
    counts: dict[str, int] = defaultdict(int)
    for row in position.cells:
        for content in row:
            if content:
                counts[content] += 1
    size = len(position.layout.columns) * len(position.layout.rows)
    common = max(counts, key=counts.get, default="")
    return common if counts.get(common, 0) * 2 > size else ""


# -- finding ---------------------------------------------------------------------------


def _candidate(relation: str, arity: int, i: int, j: int, rows: list[tuple[Term, ...]],
               chains: dict[str, list[tuple[str, str]]]):
    """(score, layout) for arguments i and j of a relation as the coordinates
    (i == j: one token holds both), or None."""
    xs: set[str] = set()
    ys: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    for args in rows:
        cell = _coordinates(args, i, j)
        if cell is None:
            return None
        xs.add(cell[0])
        ys.add(cell[1])
        pairs.add(cell)
    if not (2 <= len(xs) <= MAX_SIDE and 2 <= len(ys) <= MAX_SIDE):
        return None
    cells = len(xs) * len(ys)
    if len(pairs) < MIN_COVER * cells:
        return None
    columns = _letters(xs) if i == j else _order(xs, chains)
    rows_in_order = _order(ys, chains)
    if columns is None or rows_in_order is None:
        return None
    if i == j and len(pairs) < MIN_COVER * len(columns) * len(ys):
        return None  # letters far apart (cards `b1` and `r4`) name no grid
    holds_things = arity > len({i, j})
    contents = len({tuple(a for k, a in enumerate(args) if k not in (i, j)) for args in rows})
    return (len(pairs), -i, -j, holds_things, -contents), BoardLayout(relation, arity, i, j, columns, rows_in_order)


def _coordinates(args: tuple[Term, ...], i: int, j: int) -> Optional[tuple[str, str]]:
    """The (column, row) arguments i and j name: two symbols, or, when i == j,
    one symbol of letters then digits split in two; None otherwise."""
    x, y = args[i], args[j]
    if not (isinstance(x, Symbol) and isinstance(y, Symbol)):
        return None
    if i != j:
        return x.name, y.name
    split = _ONE_TOKEN.match(x.name)
    return (split.group(1), str(int(split.group(2)))) if split else None


def _letters(values: set[str]) -> Optional[tuple[str, ...]]:
    """Columns named by letters, in the alphabet's order, with the letters
    between them the fluents did not show; None when they mix cases or lengths."""
    if len({len(v) for v in values}) != 1 or not (all(v.islower() for v in values) or all(v.isupper() for v in values)):
        return None
    ordered = sorted(values)
    if len(ordered[0]) == 1:
        span = range(ord(ordered[0]), ord(ordered[-1]) + 1)
        if len(span) <= MAX_SIDE:
            return tuple(chr(c) for c in span)
    return tuple(ordered)


def _lean(layout: BoardLayout, rules: tuple[Rule, ...]) -> int:
    """Hexagons or squares, from the adjacency among the rules (`board_shape`)."""
    x_index = {value: k for k, value in enumerate(layout.columns)}
    y_index = {value: k for k, value in enumerate(layout.rows)}
    width = 1 if layout.one_token else 2

    def locate(args: tuple[str, ...]) -> Optional[tuple[int, int]]:
        if layout.one_token:
            split = _ONE_TOKEN.match(args[0])
            x, y = (split.group(1), str(int(split.group(2)))) if split else ("", "")
        else:
            x, y = args[0], args[1]
        if x not in x_index or y not in y_index:
            return None
        return x_index[x], y_index[y]

    return hex_lean(rules, 2 * width, locate)


def _order(values: set[str], chains: dict[str, list[tuple[str, str]]]) -> Optional[tuple[str, ...]]:
    """The values in the game's order, with the values between them that the
    fluents looked at did not show (the empty middle rows of a first
    position): by number when they are numbers, else along a chain of facts
    through them. None when the game orders them not (a colour and a count,
    `(piece_count black 12)`, is no board)."""
    if all(value.lstrip("-").isdigit() for value in values):
        numbers = sorted(map(int, values))
        if numbers[-1] - numbers[0] < MAX_SIDE:
            return tuple(str(n) for n in range(numbers[0], numbers[-1] + 1))
        return tuple(map(str, numbers))
    for pairs in chains.values():
        line = _chain_through(values, pairs)
        if line is not None:
            return line
    return None


def _chain_through(values: set[str], pairs: list[tuple[str, str]]) -> Optional[tuple[str, ...]]:
    """The stretch of a successor relation's line (`pairs`, one successor and
    one predecessor each) from the first of `values` to the last, when it
    passes through all of them within MAX_SIDE steps; else None."""
    following: dict[str, str] = {}
    preceded: set[str] = set()
    for a, b in pairs:
        if a == b or a in following or b in preceded:
            return None
        following[a] = b
        preceded.add(b)
    reached = set()
    for start in set(following) - preceded:  # lines, not cycles (`(opponent red yellow)` both ways)
        node = start
        while node not in reached:
            reached.add(node)
            node = following.get(node, node)
    if len(reached) < len(set(following) | preceded):
        return None
    for first in values:
        line = [first]
        met = 1
        while met < len(values) and line[-1] in following and len(line) < MAX_SIDE:
            line.append(following[line[-1]])
            met += line[-1] in values
        if met == len(values):
            return tuple(line)
    return None


def _chains(rules: Iterable[Rule]) -> dict[str, list[tuple[str, str]]]:
    """Binary static facts between constants, by relation: candidate successor relations."""
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for rule in rules:
        head = rule.head
        if rule.body or not isinstance(head, Compound) or len(head.args) != 2:
            continue
        a, b = head.args
        if isinstance(a, Symbol) and isinstance(b, Symbol):
            found[head.functor].append((a.name, b.name))
    return found
