"""Go (`gdl_games/go_*.kif`) against an independent Go written here in plain Python.

Why: the GDL encodes Go with tricks a mistake could hide in: captures through
liberty-bit codes, simple ko as a single-capture shape test, area scoring as a
one-point region recursion and a tally chain. `ReferenceGo` plays Go from the
rules instead: groups and liberties by flood fill, ko as "a move may not bring
back the board as it was before the opponent's last move", area by flood fill
over empty regions, komi 6.5. Random games through each engine must agree with
it at every step: the mover's legal moves, the board after each move (so every
capture), the terminal flag and the result. Hand-made positions pin the rules
the reference itself could get wrong (ko, suicide, the komi) to known answers.

The move cap and the komi come from the Go family's template (`go_move_limit`, `GO_KOMI`):
they are the library's choices, stated once. Nothing here reads `../shared`.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import Compound, load_game, parse_term

from .library import GAMES_DIR as GAMES, go_family, measure


COLOURS = ("black", "white")
LETTERS = "abcdefghi"

Point = tuple[int, int]  # (column, row), both from 1


def point_name(point: Point) -> str:
    return f"{LETTERS[point[0] - 1]}{point[1]}"


def point_of(name: str) -> Point:
    return (LETTERS.index(name[0]) + 1, int(name[1:]))


# --------------------------------------------------------------------------- the reference

@dataclass
class Position:
    """A Go position: stones, the player to move, and what the rules remember."""

    board: dict[Point, str]
    mover: int = 0  # index into COLOURS
    #: the board before the last move (a move may not recreate it: ko)
    previous: dict[Point, str] | None = None
    passes: int = 0  # consecutive passes just played
    moves: int = 0  # joint moves played


@dataclass
class ReferenceGo:
    """Go by the rules on a size x size board (suicide illegal, simple ko, area
    scoring with komi, two passes or the move cap end the game)."""

    size: int
    limit: int = field(init=False)
    komi: float = field(init=False)

    def __post_init__(self) -> None:
        self.limit = go_family.go_move_limit(self.size)
        self.komi = go_family.GO_KOMI

    def neighbours(self, point: Point):
        column, row = point
        for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if 1 <= column + dc <= self.size and 1 <= row + dr <= self.size:
                yield (column + dc, row + dr)

    def group(self, board, point: Point) -> tuple[set[Point], set[Point]]:
        """The stones of the group on `point` and its liberties."""
        colour = board[point]
        stones, frontier, liberties = {point}, [point], set()
        while frontier:
            for neighbour in self.neighbours(frontier.pop()):
                if neighbour not in board:
                    liberties.add(neighbour)
                elif board[neighbour] == colour and neighbour not in stones:
                    stones.add(neighbour)
                    frontier.append(neighbour)
        return stones, liberties

    def placed(self, board, point: Point, colour: str) -> tuple[dict | None, int]:
        """(the board after `colour` plays on the empty `point`, or None for suicide;
        the number of stones it captures)."""
        after = dict(board)
        after[point] = colour
        captured = 0
        for neighbour in self.neighbours(point):
            if neighbour in after and after[neighbour] != colour:
                stones, liberties = self.group(after, neighbour)
                if not liberties:
                    captured += len(stones)
                    for stone in stones:
                        del after[stone]
        if not self.group(after, point)[1]:
            return None, 0
        return after, captured

    def start(self) -> Position:
        return Position({})

    def is_over(self, position: Position) -> bool:
        return position.passes >= 2 or position.moves >= self.limit

    def legal_moves(self, position: Position) -> set[str]:
        if self.is_over(position):
            return set()
        colour = COLOURS[position.mover]
        moves = {"pass"}
        for column in range(1, self.size + 1):
            for row in range(1, self.size + 1):
                point = (column, row)
                if point in position.board:
                    continue
                after, _ = self.placed(position.board, point, colour)
                if after is not None and after != position.previous:
                    moves.add(f"(place {point_name(point)})")
        return moves

    def play(self, position: Position, move: str) -> Position:
        following = position.mover ^ 1
        if move == "pass":
            return Position(position.board, following, position.board, position.passes + 1,
                            position.moves + 1)
        after, _ = self.placed(position.board, point_of(move[7:-1]), COLOURS[position.mover])
        assert after is not None, move
        return Position(after, following, position.board, 0, position.moves + 1)

    def areas(self, board) -> tuple[int, int]:
        """(black area, white area): stones plus empty regions bordered by one colour."""
        area = Counter(board.values())
        seen: set[Point] = set()
        for column in range(1, self.size + 1):
            for row in range(1, self.size + 1):
                start = (column, row)
                if start in board or start in seen:
                    continue
                region, frontier, borders = {start}, [start], set()
                while frontier:
                    for neighbour in self.neighbours(frontier.pop()):
                        if neighbour in board:
                            borders.add(board[neighbour])
                        elif neighbour not in region:
                            region.add(neighbour)
                            frontier.append(neighbour)
                seen |= region
                if len(borders) == 1:
                    area[borders.pop()] += len(region)
        return area["black"], area["white"]

    def goals(self, position: Position) -> tuple[int, int]:
        black, white = self.areas(position.board)
        return (100, 0) if black - white > self.komi else (0, 100)


# --------------------------------------------------------------------------- engines and states

def board_of(state) -> dict[Point, str]:
    board = {}
    for fluent in state:
        if isinstance(fluent, Compound) and fluent.functor == "cell" and str(fluent.args[1]) != "b":
            board[point_of(str(fluent.args[0]))] = str(fluent.args[1])
    return board


def legal_texts(machine, state, role: int) -> set[str]:
    return {str(move) for move in machine.legal_moves(state, role)}


def joint(mover: int, move: str) -> tuple:
    moves = ["noop", "noop"]
    moves[mover] = move
    return tuple(map(parse_term, moves))


def go_state(diagram: str, mover: str = "black", *extra: str) -> frozenset:
    """A position from rows of `.`, `X` (black) and `O` (white), top row first,
    with the step counter at 10 unless `extra` fluents say otherwise."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    size = len(rows)
    texts = [f"(control {mover})"] + list(extra)
    if not any(text.startswith("(step ") for text in extra):
        texts.append("(step 10)")
    for top_index, row in enumerate(rows):
        for column, mark in enumerate(row):
            content = {".": "b", "X": "black", "O": "white"}[mark]
            texts.append(f"(cell {LETTERS[column]}{size - top_index} {content})")
    return frozenset(parse_term(text) for text in texts)


_machines: dict = {}


@pytest.fixture(scope="module", autouse=True)
def _close_machines():
    yield
    while _machines:
        _machines.popitem()[1].close()


def machine(engine: str, name: str):
    """One state machine per (engine, game) for this module."""
    key = (engine, name)
    if key not in _machines:
        _machines[key] = make_state_machine(engine, load_game(GAMES / f"{name}.kif"))
    return _machines[key]


# --------------------------------------------------------------------------- random games

def compare_random_game(game, size: int, rng: random.Random, seen: Counter) -> None:
    """One uniformly random game, the engine and the reference in lock-step.

    `seen` counts what the game exercised (captures, ko, suicide, how it ended),
    so a sweep can check it met every rule at least once."""
    reference = ReferenceGo(size)
    position = reference.start()
    state = game.initial_state()
    while True:
        where = f"move {position.moves}: {sorted(map(str, state))}"
        assert board_of(state) == position.board, where
        over = reference.is_over(position)
        assert game.is_terminal(state) == over, where
        if over:
            assert tuple(game.goal_values(state)) == reference.goals(position), where
            seen["ended by passes" if position.passes >= 2 else "ended at the cap"] += 1
            seen[f"{COLOURS[0 if reference.goals(position)[0] else 1]} won"] += 1
            return
        assert tuple(game.goal_values(state)) == (50, 50), where
        expected = reference.legal_moves(position)
        assert legal_texts(game, state, position.mover) == expected, where
        assert legal_texts(game, state, position.mover ^ 1) == {"noop"}, where
        _count_rules_met(reference, position, expected, seen)
        choice = rng.choice(sorted(expected))
        state = game.next_state(state, joint(position.mover, choice))
        position = reference.play(position, choice)


def _count_rules_met(reference: ReferenceGo, position: Position, legal: set[str], seen: Counter) -> None:
    colour = COLOURS[position.mover]
    for column in range(1, reference.size + 1):
        for row in range(1, reference.size + 1):
            point = (column, row)
            if point in position.board:
                continue
            after, captured = reference.placed(position.board, point, colour)
            if after is None:
                seen["suicide refused"] += 1
            elif f"(place {point_name(point)})" not in legal:
                seen["ko refused"] += 1
            elif captured == 1:
                seen["single capture offered"] += 1
            elif captured > 1:
                seen["multiple capture offered"] += 1


RULES_TO_MEET = ("suicide refused", "ko refused", "single capture offered", "multiple capture offered",
                 "ended by passes", "black won", "white won")


def sweep(engine: str, name: str, games: int, seed: int) -> Counter:
    game = machine(engine, name)
    size = int(name.split("_")[1].split("x")[0])
    rng = random.Random(f"{name}-{seed}")
    seen: Counter = Counter()
    for _ in range(games):
        compare_random_game(game, size, rng, seen)
    return seen


def test_random_5x5_games_agree_with_the_reference_quickly():
    seen = sweep("propnet", "go_5x5", 20, seed=1)
    assert all(seen[rule] > 0 for rule in RULES_TO_MEET), seen


@pytest.mark.slow
@pytest.mark.parametrize("name", ["go_5x5", "go_7x7", "go_9x9"])
def test_200_random_games_on_the_propnet_agree_with_the_reference(name):
    seen = sweep("propnet", name, 200, seed=2)
    assert all(seen[rule] > 0 for rule in RULES_TO_MEET), seen


def test_a_random_5x5_game_on_prolog_agrees_with_the_reference():
    sweep("prolog", "go_5x5", 2, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize("name, games", [("go_5x5", 30), ("go_7x7", 10), ("go_9x9", 3)])
def test_random_games_on_prolog_agree_with_the_reference(name, games):
    seen = sweep("prolog", name, games, seed=4)
    assert seen["ended by passes"] + seen["ended at the cap"] == games


# --------------------------------------------------------------------------- hand-made positions

BOTH_ENGINES = ("propnet", "prolog")


@pytest.mark.parametrize("engine", BOTH_ENGINES)
def test_capture_removes_the_whole_group(engine):
    game = machine(engine, "go_5x5")
    before = go_state("""
        . . . . .
        . . . . .
        X X . . .
        O O X . .
        . O X . .
    """)
    after = game.next_state(before, joint(0, "(place a1)"))
    assert board_of(after) == board_of(go_state("""
        . . . . .
        . . . . .
        X X . . .
        . . X . .
        X . X . .
    """))
    assert parse_term("(control white)") in after
    # three stones taken at once: no ko
    assert "(place a2)" in legal_texts(game, after, 1)


@pytest.mark.parametrize("engine", BOTH_ENGINES)
def test_suicide_is_illegal_unless_it_captures(engine):
    game = machine(engine, "go_5x5")
    assert "(place e1)" not in legal_texts(game, go_state("""
        . . . . .
        . . . . .
        . . . . .
        . . . . O
        . . . O .
    """), 0)                                          # no liberty, no capture
    assert "(place e1)" in legal_texts(game, go_state("""
        . . . . .
        . . . . .
        . . . . X
        . . . . O
        . . . O .
    """, "white"), 1)                                 # white joins its own stones
    capture = go_state("""
        . . . . .
        . . . . .
        . . . . X
        . . . X O
        . . X O .
    """)
    assert "(place e1)" in legal_texts(game, capture, 0)      # the last liberty of d1 and e2
    after = game.next_state(capture, joint(0, "(place e1)"))
    assert (4, 1) not in board_of(after) and (5, 2) not in board_of(after)


KO = """
    . . . . .
    . . . . .
    . X O . .
    X O . O .
    . X O . .
"""


@pytest.mark.parametrize("engine", BOTH_ENGINES)
def test_simple_ko_forbids_the_immediate_retake_only(engine):
    game = machine(engine, "go_5x5")
    board = go_state(KO)
    taken = game.next_state(board, joint(0, "(place c2)"))   # black takes b2
    assert (2, 2) not in board_of(taken) and board_of(taken)[(3, 2)] == "black"
    assert parse_term("(ko b2)") in taken
    assert "(place b2)" not in legal_texts(game, taken, 1)   # the retake would repeat
    assert "pass" in legal_texts(game, taken, 1)
    # after an exchange elsewhere the retake is legal again
    later = game.next_state(game.next_state(taken, joint(1, "(place e5)")), joint(0, "(place a5)"))
    assert "(place b2)" in legal_texts(game, later, 1)
    retaken = game.next_state(later, joint(1, "(place b2)"))
    assert (3, 2) not in board_of(retaken)
    # a pass also ends the ko
    passed = game.next_state(game.next_state(taken, joint(1, "pass")), joint(0, "(place a5)"))
    assert "(place b2)" in legal_texts(game, passed, 1)


@pytest.mark.parametrize("engine", BOTH_ENGINES)
def test_taking_one_stone_with_a_connected_stone_is_no_ko(engine):
    game = machine(engine, "go_5x5")
    # black c2 joins d2 (not alone): white may take both back at once
    board = go_state("""
        . . . . .
        . . . . .
        . X O O .
        X O . X O
        . X O O .
    """)
    taken = game.next_state(board, joint(0, "(place c2)"))
    assert not any(str(f).startswith("(ko ") for f in taken)
    assert "(place b2)" in legal_texts(game, taken, 1)
    retaken = game.next_state(taken, joint(1, "(place b2)"))
    assert (3, 2) not in board_of(retaken) and (4, 2) not in board_of(retaken)


@pytest.mark.parametrize("engine", BOTH_ENGINES)
def test_two_passes_in_a_row_end_the_game(engine):
    game = machine(engine, "go_5x5")
    # black: 10 stones + column a = 15; white: 5 stones + column e = 10.
    # Black leads by 5, less than the komi: white wins.
    board = go_state("""
        . X X O .
        . X X O .
        . X X O .
        . X X O .
        . X X O .
    """)
    assert ReferenceGo(5).areas(board_of(board)) == (15, 10)
    once = game.next_state(board, joint(0, "pass"))
    assert not game.is_terminal(once) and game.goal_values(once) == (50, 50)
    twice = game.next_state(once, joint(1, "pass"))
    assert game.is_terminal(twice) and game.goal_values(twice) == (0, 100)
    # a pass, a stone, a pass: not two in a row
    back = game.next_state(game.next_state(once, joint(1, "(place e5)")), joint(0, "pass"))
    assert not game.is_terminal(back)


@pytest.mark.parametrize("engine", BOTH_ENGINES)
def test_a_lead_of_seven_wins_for_black_and_six_does_not(engine):
    game = machine(engine, "go_5x5")
    seven = go_state("""
        . X O . .
        . X O . .
        . X O O O
        . X X X X
        . X . . .
    """, "black", "(passes 2)")
    # black: 8 stones + column a (5) + c1-e1 (3) = 16; white: 5 stones + d4-e5 (4) = 9
    assert ReferenceGo(5).areas(board_of(seven)) == (16, 9)
    assert game.is_terminal(seven) and game.goal_values(seven) == (100, 0)
    six = go_state("""
        . X O . .
        . X O . .
        . X O . O
        . X X X X
        O X . . .
    """, "black", "(passes 2)")
    # a2-a5 touch white a1 and d3-e5 touch black d2: both neutral.
    # black: 8 stones + c1-e1 (3) = 11; white: 5 stones
    assert ReferenceGo(5).areas(board_of(six)) == (11, 5)
    assert game.is_terminal(six) and game.goal_values(six) == (0, 100)


@pytest.mark.parametrize("engine", BOTH_ENGINES)
def test_the_move_cap_ends_the_game(engine):
    game = machine(engine, "go_5x5")
    limit = go_family.go_move_limit(5)
    near = go_state(KO, "white", f"(step {limit - 1})")
    assert not game.is_terminal(near)
    assert game.is_terminal(end := game.next_state(near, joint(1, "(place e5)")))
    black, white = ReferenceGo(5).areas(board_of(end))
    assert game.goal_values(end) == ((100, 0) if black - white > 6.5 else (0, 100))


@pytest.mark.parametrize("size", [5, pytest.param(7, marks=pytest.mark.slow)])
def test_ground_sizes_in_the_headers_are_what_a_grounder_gets(size):
    """The header's region and score sizes come from `go_ground_sizes`; a
    grounder (`measure.relaxed_grounding`) must get the same."""
    grounding = measure.relaxed_grounding(load_game(GAMES / f"go_{size}x{size}.kif"))
    for relation, arity in (("reaches", 2), ("tally", 2)):
        assert (grounding.atoms[(relation, arity)], grounding.instances[(relation, arity)]) == \
            go_family.go_ground_sizes(size)[relation]
