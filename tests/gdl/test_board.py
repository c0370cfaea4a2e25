"""Finding a game's board in its fluents (`gdl.board`): the relation with two
coordinates the game orders, never a game's or a relation's name."""

from __future__ import annotations

import pytest

from ggp_agent.gdl import load_game, parse_rules, parse_term
from ggp_agent.gdl.board import BoardLayout, background, draw, find_board

from ..helpers import GAMES, shared_path


def terms(*texts: str) -> list:
    return [parse_term(text) for text in texts]


def grid(relation: str, xs, ys, *rest: str) -> list:
    return [parse_term(f"({relation} {x} {y}{''.join(' ' + r for r in rest)})") for x in xs for y in ys]


def test_tic_tac_toe_cells_with_numbered_coordinates():
    fluents = grid("cell", (1, 2, 3), (1, 2, 3), "b") + terms("(control xplayer)")
    layout = find_board(fluents)
    assert (layout.relation, layout.x_arg, layout.y_arg) == ("cell", 0, 1)
    assert layout.columns == layout.rows == ("1", "2", "3")
    position = draw(layout, terms("(cell 1 1 x)", "(cell 2 3 o)", "(cell 3 3 b)", "(control oplayer)"))
    assert position.cells == (("", "o", "b"), ("", "", ""), ("x", "", ""))  # top row first, x to the right
    assert position.others == ("(control oplayer)",)


def test_scrambled_names_and_coordinates_ordered_by_a_chain_of_facts():
    """A scrambled game: no name means anything; the files are ordered by the
    static successor facts, the ranks by number, and ten is after nine."""
    rules = parse_rules("(zq k w) (zq w p) (zq p r) " + " ".join(f"(nx {n} {n + 1})" for n in range(12)))
    fluents = grid("blorp", ("r", "k", "p", "w"), range(1, 11), "vv") + terms("(glub vv)")
    layout = find_board(fluents, rules)
    assert layout.relation == "blorp" and layout.columns == ("k", "w", "p", "r")
    assert layout.rows == tuple(str(n) for n in range(1, 11))


def test_no_board_where_the_game_orders_no_coordinates():
    # point names that are no grid, and a colour with a count: no coordinates the game orders
    points = [parse_term(f"(cell {name} {p})") for name in ("north", "south", "east", "west") for p in ("red", "blue")]
    counts = [parse_term(f"(piece_count {side} {n})") for side in ("black", "white") for n in range(13)]
    opponents = parse_rules("(opponent black white) (opponent white black)")  # a cycle orders nothing
    assert find_board(points + counts, opponents) is None
    assert find_board(terms("(step 1)", "(control x)")) is None


def test_one_token_cells_split_into_column_and_row():
    """`a1`..`c3` are a 3x3 grid: letters left to right, digits bottom to top,
    the letters and rows between the ones seen filled in; cards far apart in
    the alphabet (`b1`, `r4`) are no grid."""
    stones = [parse_term(f"(cell {c}{r} {p})") for c in "abd" for r in (1, 2, 4) for p in ("b", "black", "white")]
    layout = find_board(stones + terms("(control black)"))
    assert layout.one_token and (layout.relation, layout.x_arg) == ("cell", 0)
    assert layout.columns == ("a", "b", "c", "d") and layout.rows == ("1", "2", "3", "4")
    assert layout.pieces == ("b", "black", "white")
    position = draw(layout, terms("(cell a1 black)", "(cell d4 white)", "(control white)"))
    assert position.cells[0] == ("", "", "", "white") and position.cells[3] == ("black", "", "", "")
    assert BoardLayout.from_json(layout.to_json()) == layout
    cards = [parse_term(f"(deck {suit}{n})") for suit in "br" for n in (1, 2, 3, 4)]
    assert find_board(cards) is None


@pytest.mark.parametrize("name, lean, size", [("hex_5x5", 1, (5, 5)), ("wargame_5x5", 1, (5, 5)),
                                              ("go_5x5", 0, (5, 5)), ("breakthrough_6x6", 0, (6, 6))])
def test_hex_cells_are_told_from_the_rules_adjacency(name, lean, size):
    game = load_game(GAMES / f"{name}.kif")
    cells = [parse_term(f"(cell {c}{r} b)") for c in "abcdef"[:size[0]] for r in range(1, size[1] + 1)]
    if name.startswith("wargame"):
        cells = [parse_term(f"(unit {c}{r} red 2)") for c in "abcde" for r in range(1, 6)]
    layout = find_board(cells, game.rules)
    assert layout.lean == lean and (len(layout.columns), len(layout.rows)) == size


def test_hex_adjacency_derived_by_rules_and_the_rhombus_rows():
    """The corpus' hex writes its adjacency as rules over successor facts; the
    rows of a hex board shift half a cell each, so that neighbours touch."""
    rules = parse_rules(
        "(nx 1 2) (nx 2 3) (row 1) (row 2) (row 3) (col 1) (col 2) (col 3)"
        "(<= (adj ?r ?c ?r ?d) (nx ?c ?d) (row ?r)) (<= (adj ?r ?c ?r ?d) (nx ?d ?c) (row ?r))"
        "(<= (adj ?r ?c ?s ?c) (nx ?r ?s) (col ?c)) (<= (adj ?r ?c ?s ?c) (nx ?s ?r) (col ?c))"
        "(<= (adj ?r ?c ?s ?d) (nx ?s ?r) (nx ?c ?d)) (<= (adj ?r ?c ?s ?d) (nx ?r ?s) (nx ?d ?c))")
    layout = find_board(grid("cell", (1, 2, 3), (1, 2, 3), "red"), rules)
    assert layout.lean == 1
    assert draw(layout, []).to_json()["shift"] == [1.0, 0.5, 0.0]  # top row furthest right
    without_diagonals = rules[:-2]  # four neighbours: a square grid
    assert find_board(grid("cell", (1, 2, 3), (1, 2, 3), "red"), without_diagonals).lean == 0


def test_a_static_relation_on_the_state_or_too_large_is_no_adjacency():
    # adjacency that depends on the state is not read; neither is a relation whose derivation explodes
    on_state = parse_rules("(<= (adj ?a ?b) (true (link ?a ?b)))")
    layout = find_board([parse_term(f"(cell {c}{r} b)") for c in "abc" for r in (1, 2, 3)], on_state)
    assert layout.lean == 0
    from ggp_agent.gdl.board_shape import MAX_DERIVED, StaticRelations

    many = parse_rules(" ".join(f"(v n{k})" for k in range(200)) + " (<= (pair ?a ?b) (v ?a) (v ?b))")
    assert 200 * 200 > MAX_DERIVED and StaticRelations(many).tuples(("pair", 2)) == set()


def test_sparse_fluents_are_no_board_but_most_cells_are():
    few = terms("(at 1 1)", "(at 5 5)")
    assert find_board(few) is None
    most = [f for f in grid("at", range(1, 6), range(1, 6)) if str(f) != "(at 3 3)"]
    layout = find_board(most)
    assert layout.relation == "at" and draw(layout, terms("(at 2 5)")).cells[0] == ("", "\u25cf", "", "", "")


def test_the_larger_board_wins_and_the_layout_round_trips():
    fluents = grid("cell", range(1, 9), range(1, 9), "white") + grid("mark", (1, 2), (1, 2))
    layout = find_board(fluents)
    assert layout.relation == "cell"
    assert BoardLayout.from_json(layout.to_json()) == layout


def test_the_empty_content_is_what_fills_the_first_position():
    layout = find_board(grid("cell", (1, 2, 3), (1, 2, 3), "b"))
    start = draw(layout, grid("cell", (1, 2, 3), (1, 2, 3), "b"))
    assert background(start) == "b"
    later = draw(layout, terms("(cell 1 1 x)", "(cell 2 2 o)"))
    assert background(later) == ""
    changed = later.changed_from(start)
    assert changed[2][0] and changed[1][1] and changed[0][2]  # every b became empty or a mark


@pytest.mark.parametrize("name, relation, size", [("tictactoe", "cell", (3, 3)), ("connectfour", "cell", (7, 6)),
                                                  ("tictactoe_3p", "cell", (4, 4))])
def test_our_games_boards_from_their_propnets(name, relation, size):
    from ggp_agent.engines import make_state_machine

    game = load_game(GAMES / f"{name}.kif")
    with make_state_machine("propnet", game) as machine:
        layout = find_board(machine.known_fluents(), game.rules)
    assert layout.relation == relation and (len(layout.columns), len(layout.rows)) == size


def test_the_corpus_hex_is_a_rhombus():
    game = load_game(shared_path("gdl-corpus", "games", "hex.kif"))
    from ggp_agent.engines import make_state_machine

    with make_state_machine("propnet", game) as machine:
        layout = find_board(machine.known_fluents(), game.rules)
    assert layout.lean == 1 and layout.columns == tuple("abcdefghi") and len(layout.rows) == 9
    assert layout.pieces == ("blue", "red")


def test_breakthrough_and_checkers_from_the_corpus():
    for name, columns in (("breakthroughSuicide", tuple("12345678")), ("checkers", tuple("abcdefgh"))):
        game = load_game(shared_path("gdl-corpus", "games", f"{name}.kif"))
        from ggp_agent.engines import make_state_machine

        with make_state_machine("prolog", game) as machine:
            layout = find_board(machine.initial_state(), game.rules)
        assert layout.columns == columns and layout.rows == tuple("12345678"), name


@pytest.mark.parametrize("marker_first", [True, False])
def test_a_board_of_contents_beats_a_marker_as_large_in_any_order(marker_first):
    """Go's propnet knows `(ko c3)` for every point as well as `(cell c3 white)`:
    the cells that hold stones are the board, whichever the fluents list first."""
    points = [f"{c}{r}" for c in "abcde" for r in range(1, 6)]
    cells = [parse_term(f"(cell {p} {stone})") for p in points for stone in ("b", "black", "white")]
    marks = [parse_term(f"(ko {p})") for p in points]
    layout = find_board(marks + cells if marker_first else cells + marks)
    assert layout.relation == "cell" and layout.pieces == ("b", "black", "white")
