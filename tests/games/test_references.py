"""The Go-like games, Hex and the wargame against independent reference rules written
here in plain Python, over random matches."""

from __future__ import annotations

import random

import pytest

from ggp_agent.gdl import Compound, parse_term

from .library import legal_texts, machine, play

# --------------------------------------------------------------------------- reference rules
#
# Plain-Python versions of the trickiest rules (Go liberties, Hex connection),
# compared with the GDL on every state of random matches. They are written
# from the rules, independently of the GDL formulation (liberty codes, one-cell
# recursions), so a mistake in the encoding shows up as a disagreement.

def board_of(state, size: int) -> dict[tuple[int, int], str]:
    """{(column, row): colour} of the stones in a Go or Hex state."""
    board = {}
    for fluent in state:
        if isinstance(fluent, Compound) and fluent.functor == "cell":
            name, content = str(fluent.args[0]), str(fluent.args[1])
            if content != "b":
                board[("abcdefghi".index(name[0]) + 1, int(name[1:]))] = content
    return board


def orthogonal(size, point):
    column, row = point
    for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 1 <= column + dc <= size and 1 <= row + dr <= size:
            yield (column + dc, row + dr)


def liberties(board, size, point) -> int:
    """How many liberties the group of the stone on `point` has (flood fill)."""
    colour = board[point]
    group, frontier, libs = {point}, [point], set()
    while frontier:
        for neighbour in orthogonal(size, frontier.pop()):
            if neighbour not in board:
                libs.add(neighbour)
            elif board[neighbour] == colour and neighbour not in group:
                group.add(neighbour)
                frontier.append(neighbour)
    return len(libs)


def go_move_effects(board, size, point, colour) -> tuple[bool, bool]:
    """(captures, suicide) of placing `colour` on the empty `point`."""
    after = dict(board)
    after[point] = colour
    captures = any(after.get(n) not in (None, colour) and liberties(after, size, n) == 0
                   for n in orthogonal(size, point))
    return captures, liberties(after, size, point) == 0


def reference_go_legal(board, size, colour, game_kind) -> set[str]:
    legal = set()
    for column in range(1, size + 1):
        for row in range(1, size + 1):
            if (column, row) in board:
                continue
            captures, suicide = go_move_effects(board, size, (column, row), colour)
            ok = (not captures and not suicide) if game_kind == "nogo" else (captures or not suicide)
            if ok:
                legal.add(f"(place {'abcdefghi'[column - 1]}{row})")
    return legal


def hex_connected(board, size, colour) -> bool:
    steps = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
    # red joins row 1 to row n; blue joins column a to the last column
    start = [p for p, c in board.items() if c == colour and (p[1] if colour == "red" else p[0]) == 1]
    seen, frontier = set(start), list(start)
    while frontier:
        column, row = frontier.pop()
        if (row if colour == "red" else column) == size:
            return True
        for dc, dr in steps:
            neighbour = (column + dc, row + dr)
            if board.get(neighbour) == colour and neighbour not in seen:
                seen.add(neighbour)
                frontier.append(neighbour)
    return False


def _reference_params(family: str):
    return [f"{family}_5x5"] + [pytest.param(f"{family}_{n}x{n}", marks=pytest.mark.slow)
                                for n in (7, 9)]


@pytest.mark.parametrize("name", _reference_params("nogo") + _reference_params("atarigo"))
def test_go_rules_agree_with_a_flood_fill_on_random_matches(name):
    game = machine(name)
    kind, size = name.split("_")[0], int(name.split("_")[1].split("x")[0])
    rng = random.Random(name)
    for _ in range(5):
        state = game.initial_state()
        previous_mover, capture_made = None, False
        while True:
            board = board_of(state, size)
            mover = 0 if parse_term("(control black)") in state else 1
            colour = ("black", "white")[mover]
            expected = set() if capture_made else reference_go_legal(board, size, colour, kind)
            terminal = game.is_terminal(state)
            assert terminal == (capture_made or not expected), sorted(map(str, state))
            if terminal:
                goals = game.goal_values(state)
                winner = previous_mover if capture_made else 1 - mover
                assert goals[winner] == 100 and goals[1 - winner] == 0
                break
            assert legal_texts(game, state, mover) == expected, sorted(map(str, state))
            choice = rng.choice(sorted(expected))
            if kind == "atarigo":
                point = choice[7:-1]
                capture_made = go_move_effects(
                    board, size, ("abcdefghi".index(point[0]) + 1, int(point[1:])), colour)[0]
            joint = [choice, "noop"] if mover == 0 else ["noop", choice]
            state = play(game, state, *joint)
            previous_mover = mover


@pytest.mark.parametrize("name", _reference_params("hex"))
def test_hex_winner_agrees_with_a_flood_fill_on_random_matches(name):
    game = machine(name)
    size = int(name.split("_")[1].split("x")[0])
    rng = random.Random(name)
    for _ in range(5):
        state = game.initial_state()
        while True:
            board = board_of(state, size)
            red, blue = hex_connected(board, size, "red"), hex_connected(board, size, "blue")
            assert not (red and blue)
            assert game.is_terminal(state) == (red or blue)
            if red or blue:
                assert game.goal_values(state) == ((100, 0) if red else (0, 100))
                break
            mover = 0 if parse_term("(control red)") in state else 1
            moves = sorted(legal_texts(game, state, mover))
            assert len(moves) == size * size - len(board)
            choice = rng.choice(moves)
            state = play(game, state, *([choice, "noop"] if mover == 0 else ["noop", choice]))


def _hex_distance(a, b) -> int:
    dc, dr = b[0] - a[0], b[1] - a[1]
    return (abs(dc) + abs(dr) + abs(dc + dr)) // 2


class ReferenceWargame:
    """The paper's wargame rules in plain Python, with this library's choices
    (red first, setup turns count toward 4N^2, a stuck player passes, the last
    attack tie goes to the first cell in a1-order)."""

    steps = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))

    def __init__(self, size: int):
        self.size = size
        self.hq = (size, size // 2 + 1)
        self.setup = 2 * (size - 1)
        self.limit = 4 * size * size

    def name(self, point) -> str:
        return f"{'abcdefghi'[point[0] - 1]}{point[1]}"

    def point(self, name: str):
        return ("abcdefghi".index(name[0]) + 1, int(name[1:]))

    def neighbours(self, point):
        for dc, dr in self.steps:
            column, row = point[0] + dc, point[1] + dr
            if 1 <= column <= self.size and 1 <= row <= self.size:
                yield (column, row)

    def decode(self, state):
        units, step, mover = {}, None, None
        for fluent in state:
            text = str(fluent)[1:-1].split()
            if text[0] == "unit":
                units[self.point(text[1])] = (text[2], int(text[3]))
            elif text[0] == "step":
                step = int(text[1])
            elif text[0] == "control":
                mover = text[1]
        return units, step, mover

    def winner(self, units, step):
        if units.get(self.hq, ("",))[0] == "red":
            return "red"
        colours = {colour for colour, _ in units.values()}
        if step >= self.setup and "blue" not in colours:
            return "red"
        if step >= self.setup and "red" not in colours:
            return "blue"
        return "blue" if step >= self.limit else None

    def legal(self, units, step, mover) -> set[str]:
        if step < self.setup:
            columns = (1, 2) if mover == "red" else (self.size - 1, self.size)
            return {f"(place {self.name((c, r))})" for c in columns
                    for r in range(1, self.size + 1) if (c, r) not in units}
        moves = set()
        for origin, (colour, _) in units.items():
            if colour != mover:
                continue
            for target in self.neighbours(origin):
                held = units.get(target)
                if held is None or (mover == "red" and target == self.hq and held[0] == "blue"):
                    moves.add(f"(move {self.name(origin)} {self.name(target)})")
        return moves or {"noop"}

    def play(self, units, mover, choice: str):
        units = dict(units)
        words = choice[1:-1].split() if choice != "noop" else ["noop"]
        if words[0] == "place":
            units[self.point(words[1])] = (mover, 2)
        elif words[0] == "move":
            origin, target = self.point(words[1]), self.point(words[2])
            units[target] = units.pop(origin)
            order = {(c, r): (r - 1) * self.size + c for c in range(1, self.size + 1)
                     for r in range(1, self.size + 1)}
            enemies = [p for p in self.neighbours(target)
                       if p in units and units[p][0] != mover]
            if enemies:
                victim = min(enemies, key=lambda p: (units[p][1], _hex_distance(p, self.hq),
                                                     order[p]))
                colour, health = units[victim]
                if health > 1:
                    units[victim] = (colour, health - 1)
                else:
                    del units[victim]
        return units


@pytest.mark.parametrize("name", ["wargame_5x5"] + [pytest.param(f"wargame_{n}x{n}", marks=pytest.mark.slow)
                                                     for n in (7, 9)])
def test_wargame_agrees_with_a_reference_on_random_matches(name):
    game = machine(name)
    reference = ReferenceWargame(int(name.split("_")[1].split("x")[0]))
    rng = random.Random(name)
    for _ in range(10):
        state = game.initial_state()
        while True:
            units, step, mover = reference.decode(state)
            winner = reference.winner(units, step)
            assert game.is_terminal(state) == (winner is not None)
            if winner:
                assert game.goal_values(state) == ((100, 0) if winner == "red" else (0, 100))
                break
            index = 0 if mover == "red" else 1
            expected = reference.legal(units, step, mover)
            assert legal_texts(game, state, index) == expected, sorted(map(str, state))
            assert legal_texts(game, state, 1 - index) == {"noop"}
            choice = rng.choice(sorted(expected))
            state = play(game, state, *([choice, "noop"] if index == 0 else ["noop", choice]))
            new_units, new_step, _ = reference.decode(state)
            assert new_units == reference.play(units, mover, choice), choice
            assert new_step == step + 1
