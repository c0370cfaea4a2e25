"""The project's own games (`gdl_games/`): well-formed, generated, playable, and right.

Why: the search is tuned and the paper's tables are reproduced on these games, so
a rule bug here would silently bend every result. Each game is checked on
hand-made positions (a known win is scored as a win, a known illegal move is not
legal, a position near the end has the right terminal flag), and random matches
must all reach a terminal state with a goal value for every role.

Positions are frozensets of parsed fluents queried through the `StateMachine`
protocol, so the same tests can run against any engine. Nothing here reads
`../shared`.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from ggp_agent.gdl import Compound, load_game, parse_term

from .ggp_helpers import load_games_script

GAMES_DIR = Path(__file__).resolve().parent.parent / "gdl_games"
ALL_GAMES = sorted(path.stem for path in GAMES_DIR.glob("*.kif"))


generate = load_games_script("generate")
measure = load_games_script("measure")

_machines: dict = {}


@pytest.fixture(scope="module", autouse=True)
def _close_machines():
    """Close the shared engines when this module's tests are done: an engine
    left open until interpreter shutdown can hang the process in `__del__`."""
    yield
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


# --------------------------------------------------------------------------- the library as a whole

def test_library_has_every_game_the_issue_asks_for():
    expected = {
        "tictactoe", "connectfour", "breakthrough_6x6", "breakthrough_8x8",
        "hex_5x5", "hex_7x7", "hex_9x9", "nogo_5x5", "nogo_7x7", "nogo_9x9",
        "atarigo_5x5", "atarigo_7x7", "atarigo_9x9", "go_5x5", "go_7x7", "go_9x9",
        "wargame_5x5", "wargame_7x7", "wargame_9x9", "goofspiel_5", "tictactoe_3p",
        "knights_tour_5x5",
    }
    assert expected <= set(ALL_GAMES)


@pytest.mark.parametrize("name", ALL_GAMES)
def test_game_validates_with_base_input_and_a_header(name):
    path = GAMES_DIR / f"{name}.kif"
    game = load_game(path)
    assert game.warnings == []
    heads = {rule.head.functor for rule in game.plain_rules if isinstance(rule.head, Compound)}
    assert {"base", "input", "legal", "next", "goal"} <= heads
    lines = path.read_text(encoding="utf-8").splitlines()
    header = []
    for line in lines:
        if not line.startswith(";"):
            break
        header.append(line)
    assert header and "ggp-agent" in header[0]
    text = "\n".join(header)
    assert "What it is:" in text and "What it is for:" in text


def test_generated_files_are_up_to_date(tmp_path):
    written = generate.write_all(tmp_path)
    assert written, "the generator wrote nothing"
    for path in written:
        committed = GAMES_DIR / path.name
        assert committed.exists(), f"{path.name} is generated but not committed"
        assert committed.read_bytes() == path.read_bytes(), (
            f"{path.name} differs from its template: run `python gdl_games/generate.py`"
        )


def _claimed_recursion_size(name: str) -> tuple[int, int]:
    text = (GAMES_DIR / f"{name}.kif").read_text(encoding="utf-8")
    found = re.search(r"(\d+) atoms and (\d+) ground rule instances", text)
    assert found, f"{name} states no ground size"
    return int(found.group(1)), int(found.group(2))


@pytest.mark.parametrize("name, relation", [
    ("hex_5x5", ("reach", 2)), ("nogo_5x5", ("libcode", 3)), ("atarigo_5x5", ("libcode", 3)),
    ("go_5x5", ("libcode", 3)),
    pytest.param("hex_9x9", ("reach", 2), marks=pytest.mark.slow),
    pytest.param("nogo_9x9", ("libcode", 3), marks=pytest.mark.slow),
])
def test_ground_size_in_the_header_is_what_a_grounder_gets(name, relation):
    size = measure.relaxed_grounding(load_game(GAMES_DIR / f"{name}.kif"))
    assert (size.atoms[relation], size.instances[relation]) == _claimed_recursion_size(name)


# --------------------------------------------------------------------------- random matches

def random_match(game, rng: random.Random, max_steps: int = 2000) -> tuple[tuple[int, ...], int]:
    """One uniformly random match: (goal values, joint moves played)."""
    state = game.initial_state()
    steps = 0
    while not game.is_terminal(state):
        assert steps < max_steps, "no terminal state"
        legal = [game.legal_moves(state, role) for role in range(len(game.roles))]
        assert all(legal), f"a role has no legal move in {sorted(map(str, state))}"
        state = game.next_state(state, tuple(rng.choice(moves) for moves in legal))
        steps += 1
    return tuple(game.goal_values(state)), steps


def _sweep_params():
    small = {"tictactoe", "tictactoe_3p", "connectfour", "goofspiel_5", "knights_tour_5x5",
             "hex_5x5", "nogo_5x5", "atarigo_5x5", "breakthrough_6x6", "wargame_5x5"}
    return [name if name in small else pytest.param(name, marks=pytest.mark.slow)
            for name in ALL_GAMES]


@pytest.mark.parametrize("name", _sweep_params())
def test_random_matches_end_with_goals_for_every_role(name):
    """100 random matches, each one Prolog call (`random_playout`), which raises
    if a role has no legal move in a non-terminal state."""
    game = machine(name)
    start = game.initial_state()
    for seed in range(100):
        goals, steps, final = game.random_playout(start, max_steps=2000, seed=seed)
        assert final, f"seed {seed}: no terminal state after {steps} joint moves"
        assert steps > 0
        assert len(goals) == len(game.roles)
        assert all(0 <= value <= 100 for value in goals)


def test_protocol_level_random_matches_agree_on_lengths():
    """The same sweep through legal_moves/next_state (what a search does) on a few games."""
    rng = random.Random(7)
    for name in ("tictactoe_3p", "goofspiel_5", "knights_tour_5x5"):
        game = machine(name)
        for _ in range(10):
            goals, steps = random_match(game, rng)
            assert len(goals) == len(game.roles) and steps > 0


def _check_params():
    # Go 9x9's random match is one Prolog query of up to 324 joint moves, about
    # 2 s of CPU: on a machine loaded tenfold it outlives the 10 s query limit.
    return [pytest.param(name, marks=pytest.mark.slow) if name == "go_9x9" else name
            for name in ALL_GAMES]


@pytest.mark.parametrize("name", _check_params())
def test_ggp_agent_check_accepts_the_game(name, capsys):
    from ggp_agent.cli import main

    assert main(["check", str(GAMES_DIR / f"{name}.kif"), "--seed", "1"]) == 0
    printed = capsys.readouterr().out
    assert "warning" not in printed and ", terminal, goals:" in printed


def _base_input_params():
    big = {"nogo_9x9", "atarigo_9x9", "nogo_7x7", "atarigo_7x7", "hex_9x9", "wargame_7x7",
           "breakthrough_8x8", "go_7x7", "go_9x9", "wargame_9x9"}
    return [pytest.param(name, marks=pytest.mark.slow) if name in big else name
            for name in ALL_GAMES]


@pytest.mark.parametrize("name", _base_input_params())
def test_states_stay_within_base_and_moves_within_input(name, caplog):
    """`base` and `input` must list every fluent and move that can occur: a
    propnet builder takes them as the propositions and the inputs. Every role
    must also have exactly one goal value in every state (the engine logs a
    warning otherwise; a fresh engine, because it logs each problem once)."""
    from ggp_agent.reasoner.prolog_machine import PrologStateMachine

    size = measure.relaxed_grounding(load_game(GAMES_DIR / f"{name}.kif"))
    game = PrologStateMachine.from_file(GAMES_DIR / f"{name}.kif")
    rng = random.Random(name)
    caplog.set_level("WARNING")
    for _ in range(3):
        state = game.initial_state()
        while True:
            assert state <= size.base, sorted(map(str, state - size.base))
            game.goal_values(state)
            if game.is_terminal(state):
                break
            legal = [game.legal_moves(state, role) for role in range(len(game.roles))]
            for role, moves in zip(game.roles, legal):
                assert {(role, m) for m in moves} <= size.inputs
            state = game.next_state(state, tuple(rng.choice(moves) for moves in legal))
    game.close()
    assert [record.getMessage() for record in caplog.records] == []


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


# --------------------------------------------------------------------------- Go boards

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
