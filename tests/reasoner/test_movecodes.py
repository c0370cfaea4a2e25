"""Move codes: one dense integer per (role, move), the same table shape for both engines."""

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game, parse_term
from ggp_agent.reasoner.movecodes import MoveCodes, UnknownMoveError

from ..helpers import GAMES

T = parse_term


def test_a_fixed_table_numbers_roles_in_order_and_moves_by_text():
    codes = MoveCodes.fixed([[T("(mark 2 1)"), T("(mark 1 2)")], [T("noop"), T("(mark 1 2)")]])
    assert [str(codes.move_of(c)) for c in range(len(codes))] == ["(mark 1 2)", "(mark 2 1)", "(mark 1 2)", "noop"]
    assert [codes.role_of(c) for c in range(4)] == [0, 0, 1, 1]
    assert codes.codes_of(1) == range(2, 4)
    assert codes.code(1, T("(mark 1 2)")) == 2  # the same move is another code for another role
    with pytest.raises(UnknownMoveError):
        codes.code(0, T("noop"))


def test_an_open_table_interns_moves_as_they_come():
    codes = MoveCodes(2)
    assert codes.intern(1, T("b")) == 0
    assert codes.intern(0, T("a")) == 1
    assert codes.intern(1, T("b")) == 0
    assert codes.get(0, T("b")) is None and codes.code(0, T("b")) == 2


@pytest.mark.parametrize("engine", ["prolog", "propnet"])
def test_both_engines_give_codes_that_map_back_to_their_moves(engine):
    machine = make_state_machine(engine, load_game(GAMES / "tictactoe.kif"))
    try:
        state = machine.initial_state()
        for role in range(2):
            moves = machine.legal_moves(state, role)
            codes = machine.legal_codes(state, role)
            assert [machine.move_codes.move_of(c) for c in codes] == list(moves)
            assert all(machine.move_codes.role_of(c) == role for c in codes)
    finally:
        machine.close()
