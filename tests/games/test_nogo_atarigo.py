"""NoGo and AtariGo (`gdl_games/nogo_*.kif`, `atarigo_*.kif`) on hand-made positions: a
capture and a suicide are legal or not as each game says, the first capture wins
AtariGo, and a player without a legal move loses.

Why: both games encode captures with liberty-bit codes (`kif_templates/go_family.py`),
a trick a rule bug could hide in; Go itself is checked against a reference in
`test_go.py`, the other games' positions are in `test_positions.py`."""

from __future__ import annotations

from .library import fluents, legal_texts, machine, play


def go_board(diagram: str, control: str) -> frozenset:
    """A Go-like board from rows of `.`, `X` (black) and `O` (white), top row first.

    The top line is the highest row number; columns run a, b, c... left to right.
    """
    rows = [line.split() for line in diagram.strip().splitlines()]
    size = len(rows)
    texts = [f"(control {control})"]
    for top_index, row in enumerate(rows):
        number = size - top_index
        for column, mark in enumerate(row):
            content = {".": "b", "X": "black", "O": "white"}[mark]
            texts.append(f"(cell {'abcdefghi'[column]}{number} {content})")
    return fluents(*texts)


NOGO_BOARD = """
    . X O . .
    O O . . .
    . . . . .
    . . . . O
    O X . O .
"""


def test_nogo_forbids_capture_and_suicide():
    game = machine("nogo_5x5")
    board = go_board(NOGO_BOARD, "black")
    black = legal_texts(game, board, 0)
    assert "(place a2)" not in black      # takes white a1's last liberty: a capture
    assert "(place e1)" not in black      # among white stones that keep liberties: suicide
    assert "(place a5)" not in black      # fills black b5's last liberty: suicide
    assert "(place b1)" not in black      # occupied
    assert {"(place c3)", "(place c1)", "(place a3)"} <= black
    assert legal_texts(game, board, 1) == {"noop"}

    white = legal_texts(game, go_board(NOGO_BOARD, "white"), 1)
    assert "(place e1)" in white          # joins white groups that keep other liberties
    assert "(place a5)" not in white      # takes black b5's last liberty: a capture
    assert "(place a2)" in white          # next to its own a1, with empty neighbours


# White is one group with three one-point eyes (a5, c3, e1).
NOGO_EYES = """
    . O O O O
    O O O O O
    O O . O O
    O O O O O
    O O O O .
"""


def test_nogo_player_without_a_legal_move_loses():
    game = machine("nogo_5x5")
    # Black to move: every empty point is suicide (white keeps other liberties).
    board = go_board(NOGO_EYES, "black")
    assert legal_texts(game, board, 0) == set()
    assert game.is_terminal(board)
    assert game.goal_values(board) == (0, 100)

    # White to move may fill an eye; the game is not over yet.
    board = go_board(NOGO_EYES, "white")
    assert not game.is_terminal(board)
    assert legal_texts(game, board, 1) == {"(place a5)", "(place c3)", "(place e1)"}
    after = play(game, board, "noop", "(place c3)")
    assert game.is_terminal(after)        # black to move, still no legal move
    assert game.goal_values(after) == (0, 100)


def test_atarigo_first_capture_wins():
    game = machine("atarigo_5x5")
    board = go_board("""
        . . . . .
        . . . . .
        . . . . .
        X X . . .
        O O . . .
    """, "black")
    assert not game.is_terminal(board)
    assert game.goal_values(board) == (50, 50)
    assert "(place a1)" not in legal_texts(game, board, 0)   # occupied
    quiet = play(game, board, "(place d4)", "noop")
    assert not game.is_terminal(quiet)
    after = play(game, board, "(place c1)", "noop")           # takes the a1-b1 group
    assert game.is_terminal(after)
    assert game.goal_values(after) == (100, 0)


def test_atarigo_suicide_is_illegal_unless_it_captures():
    game = machine("atarigo_5x5")
    suicide = go_board("""
        . . . . .
        . . . . .
        . . . . O
        . . . . O
        . . X O .
    """, "black")
    assert "(place e1)" not in legal_texts(game, suicide, 0)
    capture = go_board("""
        . . . . .
        . . . . .
        . . . . O
        . . . X O
        . . X O .
    """, "black")
    assert "(place e1)" in legal_texts(game, capture, 0)      # d1 has no other liberty
    after = play(game, capture, "(place e1)", "noop")
    assert game.is_terminal(after)
    assert game.goal_values(after) == (100, 0)


def test_atarigo_player_without_a_legal_move_loses():
    game = machine("atarigo_5x5")
    board = go_board(NOGO_EYES, "black")
    assert legal_texts(game, board, 0) == set()
    assert game.is_terminal(board)
    assert game.goal_values(board) == (0, 100)
