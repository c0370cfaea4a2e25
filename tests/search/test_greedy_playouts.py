"""Greedy playouts on the lanes (`runners/lane_greedy.py`, `playout=greedy`).

Two set positions of breakthrough 6x6 with black to move. The tree stops at
depth 1 (`max_depth=1`), so that every playout starts after black's move
with white to move, and the moves that win at once are known (as after
playouts that ended games with them):

- white has a pawn one step from the last row: a greedy playout plays the
  win at once (once the search has learnt that those moves win), a random
  one wanders;
- black's move puts a pawn one step from white's first row, and white's one
  defence is to capture it: a greedy playout takes back every other white
  move (black would win at once) and finds the capture; a random one mostly
  loses.
"""

from __future__ import annotations

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.tree.arena import C_ROLLOUT_STEPS, C_ROLLOUTS, C_ROOT

from ..helpers import GAMES

pytestmark = pytest.mark.usefixtures("compiled_kernels")

#: The tree plays the black move; the playouts do the rest.
SETTINGS = {"codes": "moves", "priors": "whole", "heuristic": "off", "probe": False, "solver": False,
            "max_depth": 1}


@pytest.fixture(scope="module")
def breakthrough():
    machine = make_state_machine("propnet", load_game(GAMES / "breakthrough_6x6.kif"))
    yield machine
    machine.close()


def _position(machine, cells, to_move):
    """The state holding `cells` ({cell: colour}) with `to_move` to move."""
    wanted = {f"(cell {cell} {colour})" for cell, colour in cells.items()} | {f"(control {to_move})"}
    words = np.zeros(machine.net.n_words, dtype=np.uint64)
    for i, fluent in enumerate(machine.network.fluents):
        if str(fluent) in wanted:
            words[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
            wanted.discard(str(fluent))
    assert not wanted
    return machine.state_from_words(words)


def _search(machine, state, playout, winning, seed=3):
    """A search of `state` whose playouts know the `winning` moves ((role, move) pairs) win at once."""
    search = make_tree_search("mcps", machine, 1, seed=seed, options={**SETTINGS, "playout": playout})
    search.prepare(state)
    for role, text in winning:
        code = next(c for c in range(machine.net.n_codes)
                    if int(machine.net.code_role[c]) == role and str(machine.move_codes.move_of(c)) == text)
        search.arena.code_won[code] = search.arena.code_played[code] = 10
    search.search(3000)
    return search


def _white_value(search):
    """White's mean reward over the root's visits (black's one edge holds black's)."""
    A = search.arena
    root = int(A.counters[C_ROOT])
    e = int(A.node_edges[root, 1])  # black's only edge
    return 1.0 - float(A.edge_w[e]) / int(A.edge_n[e])


@pytest.mark.parametrize("playout", ["greedy", "random"])
def test_a_greedy_playout_plays_the_win_in_one(breakthrough, playout):
    cells = {"a6": "black", "b6": "black", "d5": "white", "a1": "white", "b1": "white", "c1": "white",
             "e1": "white", "f1": "white"}
    state = _position(breakthrough, cells, "black")
    search = _search(breakthrough, state, playout, [(0, "(move d5 c6)"), (0, "(move d5 d6)"), (0, "(move d5 e6)")])
    A = search.arena
    mean_playout = int(A.counters[C_ROLLOUT_STEPS]) / max(1, int(A.counters[C_ROLLOUTS]))
    if playout == "greedy":
        assert mean_playout <= 1.1  # white's first move in every playout wins (measured 1.02)
    else:
        assert mean_playout > 3  # a random white move wins 3 times in 10 (measured 6.4)


@pytest.mark.parametrize("playout", ["greedy", "random"])
def test_a_greedy_playout_blocks_a_win_in_one(breakthrough, playout):
    cells = {"a3": "black", "a2": "white", "c1": "white", "e1": "white", "d2": "white", "f2": "white"}
    state = _position(breakthrough, cells, "black")
    assert [str(m) for m in breakthrough.legal_moves(state, 1)] == ["(move a3 b2)"]
    search = _search(breakthrough, state, playout, [(1, "(move b2 a1)"), (1, "(move b2 b1)"), (1, "(move b2 c1)")])
    value = _white_value(search)
    if playout == "greedy":
        assert value > 0.9  # white captures on b2, its one defence, in nearly every playout (measured 0.997)
    else:
        assert value < 0.3  # a random white move mostly lets black through (measured 0.10)
