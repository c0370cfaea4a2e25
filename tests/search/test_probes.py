"""Probes: a child that ends the game is seen when its parent is expanded (`runners/probes.py`).

Each position here has a move that wins at once. With probes on, the root is
proven won by its first expansion, before the winning move has a single visit;
with them off, the search must first try the move. The candidates and the
depth gate are learnt from playouts: these tests check that too.
"""

from __future__ import annotations

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.tree.arena import C_MIN_END, C_PROBE_ENDS, C_PROBES, C_ROOT, NO_END, PROVEN

from ..helpers import GAMES

pytestmark = pytest.mark.usefixtures("compiled_kernels")


@pytest.fixture(scope="module")
def connect_four():
    machine = make_state_machine("propnet", load_game(GAMES / "connectfour.kif"))
    yield machine
    machine.close()


def _position(machine, columns):
    """Red and yellow drop in turn in `columns` (red first) from the start."""
    state = machine.initial_state()
    for turn, column in enumerate(columns):
        mover = turn % 2
        moves = [m for m in machine.legal_moves(state, mover) if str(m) == f"(drop {column})"]
        joint = [moves[0] if role == mover else machine.legal_moves(state, role)[0] for role in (0, 1)]
        state = machine.next_state(state, joint)
    return state


#: Red has three in column 1, yellow three in column 2: red to move wins with (drop 1).
THREATS = [1, 2, 1, 2, 1, 2]


def _learnt(search):
    """As after playouts that ended games with every move, at any depth."""
    search.arena.code_ends[:] = 1
    search.arena.counters[C_MIN_END] = 0


@pytest.mark.parametrize("probe", [True, False])
def test_a_win_in_one_is_proven_at_the_first_expansion(connect_four, probe):
    state = _position(connect_four, THREATS)
    search = make_tree_search("mcps", connect_four, 0, seed=3, options={"probe": probe}, batch=1)
    search.prepare(state)
    _learnt(search)
    search.search(2)  # the root's first playout, then its expansion and one descent
    A = search.arena
    root = int(A.counters[C_ROOT])
    assert bool(A.node_flags[root] & PROVEN) == probe
    assert (int(A.counters[C_PROBES]) > 0) == probe
    if probe:
        assert int(A.counters[C_PROBE_ENDS]) >= 1
        assert str(search.best_move()) == "(drop 1)"


def test_probes_learn_which_moves_end_games_and_how_soon(connect_four):
    state = connect_four.initial_state()
    search = make_tree_search("mcps", connect_four, 0, seed=5)
    search.prepare(state)
    A = search.arena
    assert int(A.counters[C_MIN_END]) == NO_END and not A.code_ends.any()
    search.search(3000)
    # connect four cannot end before red's fourth disc: seven joint moves
    assert 7 <= int(A.counters[C_MIN_END]) < NO_END
    assert A.code_ends.any()
    assert int(A.counters[C_PROBES]) > 0


def test_the_baselines_do_not_probe(connect_four):
    state = _position(connect_four, THREATS)
    search = make_tree_search("uct", connect_four, 0, seed=3, batch=1)
    search.prepare(state)
    _learnt(search)
    search.search(50)
    assert int(search.arena.counters[C_PROBES]) == 0
