"""Destination codes: a move keyed by where it lands and how much it changes,
with the destination found from the rules by sampling plays."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ggp_agent.gdl.terms import Compound
from ggp_agent.search.tree import table
from ggp_agent.search.choices.codes_choice import EFFECTS_FROM, choose_codes
from ggp_agent.search.choices.destinations import destination_positions, pooled_share
from ggp_agent.search.registry import make_tree_search

pytestmark = pytest.mark.usefixtures("compiled_kernels")


@pytest.mark.parametrize("game, expected", [
    # (move ?from ?to) lands on ?to; (place ?cell) on its cell
    ("wargame_5x5.kif", {(0, "move"): (1,), (1, "move"): (1,), (0, "place"): (0,), (1, "place"): (0,)}),
    ("breakthrough_6x6.kif", {(0, "move"): (1,), (1, "move"): (1,)}),
    ("tictactoe.kif", {(0, "mark"): (0, 1), (1, "mark"): (0, 1)}),
])
def test_the_destination_is_the_argument_found_in_what_the_move_makes_true(machines, game, expected):
    machine = machines(game)
    found = destination_positions(machine, machine.initial_state(), 0.5, random.Random(3))
    assert found == expected


def test_moves_to_one_cell_share_a_code_and_a_capture_there_has_its_own(machines):
    """Breakthrough 6x6: white's moves into a cell from different squares are
    one code, a capture into that cell another, and each cell its own."""
    machine = machines("breakthrough_6x6.kif")
    search = make_tree_search("mcps", machine, 0, seed=1, memory_cap=16 << 20, options={"codes": "destinations"})
    state = machine.initial_state()
    search.prepare(state)
    A, runner = search.arena, search._runner
    rng = random.Random(5)
    kinds: dict[tuple, set] = {}  # (destination, capture) -> codes
    sources: dict[tuple, set] = {}
    for _ in range(30):
        state = machine.initial_state()
        while not machine.is_terminal(state):
            legal = [machine.legal_moves(state, r) for r in range(2)]
            if len(legal[0]) > 1:
                noop = legal[1][0]
                for move in legal[0]:
                    after = machine.next_state(state, [move, noop])
                    code = int(table.effect_code(A, 0, runner.code_of(0, move), machine.state_words(state),
                                                 machine.state_words(after)))
                    source, target = move.args
                    capture = any(isinstance(f, Compound) and f.functor == "cell" and f.args[0] == target
                                  for f in state)
                    kinds.setdefault((target, capture), set()).add(code)
                    sources.setdefault((target, capture), set()).add(source)
            state = machine.next_state(state, [rng.choice(moves) for moves in legal])
    assert all(len(codes) == 1 for codes in kinds.values()), kinds
    assert any(len(froms) > 1 for froms in sources.values())  # some cell was reached from several squares
    assert any(capture for _, capture in kinds)
    assert len({code for codes in kinds.values() for code in codes}) == len(kinds)


def test_destination_codes_are_chosen_where_moves_share_destinations_and_have_several_effects():
    assert pooled_share(np.array([-1, 0, 0, 1, 2, -1])) == 0.5  # codes 1 and 2 share group 0
    assert pooled_share(np.array([-1, -1])) == 0.0
    assert choose_codes(EFFECTS_FROM - 0.1, pooled=1.0) == "moves"  # one effect a move: nothing to pool
    assert choose_codes(EFFECTS_FROM, pooled=0.0) == "effects"  # connect four: a column is its own group
    assert choose_codes(EFFECTS_FROM, pooled=0.8) == "destinations"


@pytest.mark.parametrize("codes", ["effects", "destinations"])
def test_a_prepared_search_keys_moves_by_what_they_change(machines, codes):
    """The arena knows which fluents moves change (`A.dynamic`, set by the
    runner's `prepare_arena`): without them every move of a role hashes to
    one effect and effect-coded statistics collapse to a code per role."""
    from ggp_agent.search.tree.arena import C_CODES

    machine = machines("connectfour.kif")
    search = make_tree_search("mcps", machine, 0, seed=1, memory_cap=64 << 20, options={"codes": codes})
    search.prepare(machine.initial_state())
    A = search.arena
    assert A.dynamic.any()
    move_codes = int(A.counters[C_CODES])
    search.search(3000)
    assert int(A.counters[C_CODES]) >= move_codes + 2 * len(machine.roles)
