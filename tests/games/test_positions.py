"""Each game of `gdl_games/` on hand-made positions: a known win is scored as a win, a
known illegal move is not legal, a position near the end has the right terminal flag.

Why: the search is tuned and the paper's tables are reproduced on these games, so
a rule bug here would silently bend every result. NoGo and AtariGo have a module of
their own (`test_nogo_atarigo.py`), Go too (`test_go.py`)."""

from __future__ import annotations


import pytest

from ggp_agent.gdl import parse_term

from .library import fluents, legal_texts, machine, play

# --------------------------------------------------------------------------- tic-tac-toe

def test_tictactoe_row_wins_and_occupied_cell_is_illegal():
    game = machine("tictactoe")
    cells = {(x, y): "b" for x in (1, 2, 3) for y in (1, 2, 3)}
    cells.update({(1, 1): "x", (1, 2): "x", (2, 1): "o", (2, 2): "o"})

    def state(control):
        return fluents(*(f"(cell {x} {y} {m})" for (x, y), m in cells.items()),
                       f"(control {control})")

    before = state("xplayer")
    assert not game.is_terminal(before)
    assert "(mark 1 1)" not in legal_texts(game, before, 0)
    after = play(game, before, "(mark 1 3)", "noop")
    assert game.is_terminal(after)
    assert game.goal_values(after) == (100, 0)


# --------------------------------------------------------------------------- Hex

def hex_board(diagram: str, control: str) -> frozenset:
    """A Hex board from rows of `.`, `R` (red) and `B` (blue), top row (highest) first."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    size = len(rows)
    texts = [f"(control {control})"]
    for top_index, row in enumerate(rows):
        for column, mark in enumerate(row):
            content = {".": "b", "R": "red", "B": "blue"}[mark]
            texts.append(f"(cell {'abcdefghi'[column]}{size - top_index} {content})")
    return fluents(*texts)


def test_hex_chain_along_the_hex_diagonal_wins():
    game = machine("hex_5x5")
    # a5-b4-c3-d2 are neighbours (steps of (+1, -1)); e1 would join row 1.
    board = hex_board("""
        R . . . .
        . R . B .
        . B R . .
        . . B R .
        . . B . .
    """, "red")
    assert not game.is_terminal(board)
    assert "(place c3)" not in legal_texts(game, board, 0)    # occupied
    after = play(game, board, "(place e1)", "noop")
    assert game.is_terminal(after)
    assert game.goal_values(after) == (100, 0)


def test_hex_other_diagonal_is_not_a_chain():
    game = machine("hex_5x5")
    # a1-b2-c3-d4-e5 touch only at corners in Hex: no chain, no winner yet.
    board = hex_board("""
        . . . . R
        . . . R .
        . . R . .
        . R . . .
        R . . . .
    """, "blue")
    assert not game.is_terminal(board)
    assert game.goal_values(board) == (50, 50)


def test_hex_blue_joins_left_and_right():
    game = machine("hex_5x5")
    board = hex_board("""
        . . . . .
        . R R . .
        B B B B B
        . . R . .
        . R . . .
    """, "red")
    assert game.is_terminal(board)
    assert game.goal_values(board) == (0, 100)


# --------------------------------------------------------------------------- breakthrough

def breakthrough_board(diagram: str, control: str) -> frozenset:
    """Rows of `.`, `W` (white) and `B` (black), top row (highest) first."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    size = len(rows)
    texts = [f"(control {control})"]
    for top_index, row in enumerate(rows):
        for column, mark in enumerate(row):
            if mark != ".":
                colour = {"W": "white", "B": "black"}[mark]
                texts.append(f"(cell {'abcdefgh'[column]}{size - top_index} {colour})")
    return fluents(*texts)


def test_breakthrough_moves_captures_and_the_far_row():
    game = machine("breakthrough_6x6")
    board = breakthrough_board("""
        . B B . . B
        . W . . B .
        . . . . . .
        . . . . . .
        W W . . . .
        . . . . . .
    """, "white")
    white = legal_texts(game, board, 0)
    assert "(move b5 b6)" not in white    # straight ahead is blocked
    assert "(move b5 a6)" in white        # diagonal to an empty cell
    assert "(move b5 c6)" in white        # diagonal capture
    assert "(move a2 b3)" in white
    assert "(move a2 b2)" not in white    # sideways
    assert "(move b2 a3)" in white
    assert not game.is_terminal(board)
    after = play(game, board, "(move b5 c6)", "noop")
    assert game.is_terminal(after)
    assert game.goal_values(after) == (100, 0)
    assert parse_term("(cell c6 black)") not in after and parse_term("(cell c6 white)") in after
    assert parse_term("(cell b6 black)") in after


@pytest.mark.parametrize("name, size", [("breakthrough_6x6", 6), ("breakthrough_8x8", 8)])
def test_breakthrough_opening_moves(name, size):
    game = machine(name)
    start = game.initial_state()
    # each second-row pawn: straight ahead plus two diagonals, one at the edges
    assert len(game.legal_moves(start, 0)) == 3 * size - 2
    assert legal_texts(game, start, 1) == {"noop"}
    assert not game.is_terminal(start)


def test_breakthrough_own_pawn_blocks_a_diagonal_and_no_pawns_loses():
    game = machine("breakthrough_6x6")
    board = breakthrough_board("""
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . W . . . .
        W . . . . .
    """, "white")
    assert "(move a1 b2)" not in legal_texts(game, board, 0)
    assert not game.is_terminal(board)
    after = play(game, board, "(move b2 b3)", "noop")        # black to move, no pawns
    assert game.is_terminal(after)
    assert game.goal_values(after) == (100, 0)


# --------------------------------------------------------------------------- connect four

def connect_four(diagram: str, control: str) -> frozenset:
    """Rows of `.`, `R` and `Y`, top row (6) first, columns 1..7."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    texts = [f"(control {control})"]
    for top_index, row in enumerate(rows):
        for column, mark in enumerate(row, start=1):
            if mark != ".":
                colour = {"R": "red", "Y": "yellow"}[mark]
                texts.append(f"(cell {column} {6 - top_index} {colour})")
    return fluents(*texts)


def test_connect_four_discs_fall_and_fours_win():
    game = machine("connectfour")
    board = connect_four("""
        . Y . . . . .
        . R . . . . .
        . Y . . . . .
        . R . R . . .
        . Y R Y . . .
        R R Y Y . . .
    """, "red")
    red = legal_texts(game, board, 0)
    assert "(drop 2)" not in red          # full column
    assert "(drop 1)" in red
    after = play(game, board, "(drop 1)", "noop")
    assert parse_term("(cell 1 2 red)") in after               # landed on row 2
    assert not game.is_terminal(after)
    after = play(game, board, "(drop 3)", "noop")
    assert parse_term("(cell 3 3 red)") in after
    after = play(game, board, "(drop 5)", "noop")
    assert parse_term("(cell 5 1 red)") in after


def test_connect_four_diagonal_and_vertical_fours():
    game = machine("connectfour")
    diagonal = connect_four("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . R Y . . .
        . R Y R . . .
        R Y Y Y . . .
    """, "red")
    assert not game.is_terminal(diagonal)
    after = play(game, diagonal, "(drop 4)", "noop")           # lands on (4,4)
    assert game.is_terminal(after)
    assert game.goal_values(after) == (100, 0)
    vertical = connect_four("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . Y
        . . . . . R Y
        . . . . R R Y
    """, "yellow")
    after = play(game, vertical, "noop", "(drop 7)")
    assert game.is_terminal(after)
    assert game.goal_values(after) == (0, 100)


def test_connect_four_full_board_without_four_is_a_draw():
    game = machine("connectfour")
    board = connect_four("""
        Y R Y R Y Y Y
        R R Y Y R R R
        R Y R Y R Y Y
        R R Y Y R R Y
        Y R R R Y Y R
        R Y Y Y R Y R
    """, "red")
    assert game.is_terminal(board)
    assert game.goal_values(board) == (50, 50)


# --------------------------------------------------------------------------- wargame

def wargame(units: dict[str, tuple[str, int]], control: str, step: int) -> frozenset:
    """A wargame position: {cell: (colour, health)}, the mover and the turn counter."""
    texts = [f"(control {control})", f"(step {step})"]
    texts += [f"(unit {cell} {colour} {health})" for cell, (colour, health) in units.items()]
    return fluents(*texts)


def test_wargame_setup_places_units_in_own_columns():
    game = machine("wargame_5x5")
    start = game.initial_state()
    assert legal_texts(game, start, 0) == {f"(place {c}{r})" for c in "ab" for r in range(1, 6)}
    assert legal_texts(game, start, 1) == {"noop"}
    after = play(game, start, "(place b3)", "noop")
    assert parse_term("(unit b3 red 2)") in after
    assert legal_texts(game, after, 1) == {f"(place {c}{r})" for c in "de" for r in range(1, 6)}


def test_wargame_attack_hits_the_weakest_then_the_nearest_to_headquarters():
    game = machine("wargame_5x5")
    # c3's neighbours: b3, d3, c2, c4, d2, b4 (hex adjacency).
    blue = {"d3": ("blue", 2), "c4": ("blue", 2), "d2": ("blue", 1), "e1": ("blue", 2)}
    board = wargame({"b3": ("red", 2), "a1": ("red", 2), **blue}, "red", 10)
    assert "(move b3 c3)" in legal_texts(game, board, 0)
    assert "(move b3 b4)" in legal_texts(game, board, 0)
    assert "(move b3 c2)" in legal_texts(game, board, 0)      # the (+1, -1) hex diagonal
    assert "(move b3 a2)" not in legal_texts(game, board, 0)  # (-1, -1) is not adjacent
    after = play(game, board, "(move b3 c3)", "noop")
    assert parse_term("(unit c3 red 2)") in after
    assert not any(str(f).startswith("(unit d2 ") for f in after)   # the 1-health unit dies
    assert parse_term("(unit d3 blue 2)") in after and parse_term("(unit c4 blue 2)") in after

    # All at health 2: d3 is one step from e3, c4 two, so d3 is hit.
    board = wargame({"b3": ("red", 2), "a1": ("red", 2), "d3": ("blue", 2),
                     "c4": ("blue", 2), "e1": ("blue", 2)}, "red", 10)
    after = play(game, board, "(move b3 c3)", "noop")
    assert parse_term("(unit d3 blue 1)") in after and parse_term("(unit c4 blue 2)") in after

    # d2 and c4 are both two steps from e3: the earlier in a1-order (d2) is hit.
    board = wargame({"b3": ("red", 2), "a1": ("red", 2), "d2": ("blue", 2),
                     "c4": ("blue", 2), "e1": ("blue", 2)}, "red", 10)
    after = play(game, board, "(move b3 c3)", "noop")
    assert parse_term("(unit d2 blue 1)") in after and parse_term("(unit c4 blue 2)") in after


def test_wargame_red_takes_the_headquarters_even_when_held():
    game = machine("wargame_5x5")
    board = wargame({"d3": ("red", 1), "a1": ("red", 2), "e3": ("blue", 2),
                     "e4": ("blue", 2)}, "red", 20)
    red = legal_texts(game, board, 0)
    assert "(move d3 e3)" in red          # the headquarters, held by blue
    assert "(move d3 e4)" not in red      # any other occupied cell is closed
    assert not game.is_terminal(board)
    after = play(game, board, "(move d3 e3)", "noop")
    assert game.is_terminal(after)
    assert game.goal_values(after) == (100, 0)


def test_wargame_eliminations_turn_limit_and_passing():
    game = machine("wargame_5x5")
    # Red kills blue's last unit: red wins.
    board = wargame({"b3": ("red", 2), "d3": ("blue", 1)}, "red", 30)
    after = play(game, board, "(move b3 c3)", "noop")
    assert game.is_terminal(after)
    assert game.goal_values(after) == (100, 0)
    # Blue kills red's last unit: blue wins.
    board = wargame({"b3": ("red", 1), "d3": ("blue", 2)}, "blue", 31)
    after = play(game, board, "noop", "(move d3 c3)")
    assert game.is_terminal(after)
    assert game.goal_values(after) == (0, 100)
    # The 4N^2 = 100th half-move ends the game for blue.
    board = wargame({"a5": ("red", 2), "e1": ("blue", 2)}, "blue", 99)
    assert not game.is_terminal(board)
    after = play(game, board, "noop", "(move e1 d1)")
    assert game.is_terminal(after)
    assert game.goal_values(after) == (0, 100)
    # A red unit boxed into corner a1 (neighbours b1, a2) can only pass.
    board = wargame({"a1": ("red", 2), "b1": ("blue", 2), "a2": ("blue", 2)}, "red", 40)
    assert legal_texts(game, board, 0) == {"noop"}
    assert not game.is_terminal(board)


# --------------------------------------------------------------------------- knight's tour

def test_knights_tour_jumps_visits_and_scores():
    game = machine("knights_tour_5x5")
    start = game.initial_state()
    assert legal_texts(game, start, 0) == {"(jump b3)", "(jump c2)"}
    assert game.goal_values(start) == (4,)
    after = play(game, start, "(jump c2)")
    assert legal_texts(game, after, 0) == {"(jump a3)", "(jump b4)", "(jump d4)", "(jump e3)",
                                           "(jump e1)"}
    stuck = fluents("(at a1)", "(visited a1)", "(visited b3)", "(visited c2)", "(count 3)")
    assert game.is_terminal(stuck)
    assert game.goal_values(stuck) == (12,)


# --------------------------------------------------------------------------- goofspiel

def test_goofspiel_higher_bid_takes_the_prize():
    game = machine("goofspiel_5")
    start = game.initial_state()
    bids = {f"(bid {c})" for c in range(1, 6)}
    assert legal_texts(game, start, 0) == bids and legal_texts(game, start, 1) == bids
    after = play(game, start, "(bid 5)", "(bid 2)")            # round 1 is worth 3
    assert parse_term("(score left 3)") in after and parse_term("(score right 0)") in after
    assert "(bid 5)" not in legal_texts(game, after, 0)
    tie = play(game, after, "(bid 4)", "(bid 4)")              # equal bids win nothing
    assert parse_term("(score left 3)") in tie and parse_term("(score right 0)") in tie
    assert not game.is_terminal(tie)


def test_goofspiel_ends_after_five_rounds():
    game = machine("goofspiel_5")
    last = fluents("(round 5)", "(hand left 1)", "(hand right 3)",
                   "(score left 7)", "(score right 6)")
    assert not game.is_terminal(last)
    end = play(game, last, "(bid 1)", "(bid 3)")               # round 5 is worth 2
    assert game.is_terminal(end)
    assert game.goal_values(end) == (0, 100)
    even = fluents("(round 6)", "(score left 6)", "(score right 6)")
    assert game.goal_values(even) == (50, 50)


# --------------------------------------------------------------------------- three players

def three_player(diagram: str, control: str) -> frozenset:
    """Rows of `.`, `R`, `G`, `B`, top row (4) first, columns 1..4."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    texts = [f"(control {control})"]
    for top_index, row in enumerate(rows):
        for column, mark in enumerate(row, start=1):
            if mark != ".":
                colour = {"R": "red", "G": "green", "B": "blue"}[mark]
                texts.append(f"(cell {column} {4 - top_index} {colour})")
    return fluents(*texts)


def test_three_player_turns_lines_and_draws():
    game = machine("tictactoe_3p")
    assert [str(r) for r in game.roles] == ["red", "green", "blue"]
    board = three_player("""
        . . . .
        . G B .
        . . G B
        R R . .
    """, "red")
    assert legal_texts(game, board, 1) == {"noop"} and legal_texts(game, board, 2) == {"noop"}
    assert "(mark 2 1)" not in legal_texts(game, board, 0)     # occupied
    quiet = play(game, board, "(mark 4 4)", "noop", "noop")
    assert parse_term("(control green)") in quiet and not game.is_terminal(quiet)
    win = play(game, board, "(mark 3 1)", "noop", "noop")
    assert game.is_terminal(win)
    assert game.goal_values(win) == (100, 0, 0)
    full = three_player("""
        B G R R
        R R B G
        G R B B
        R G G B
    """, "blue")
    assert game.is_terminal(full)
    assert game.goal_values(full) == (50, 50, 50)
