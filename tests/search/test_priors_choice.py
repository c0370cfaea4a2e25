"""priors=auto (the default): whole priors where move codes are placements, capped where played codes come back.

The choice is made from the rules by random playouts at START
(`priors_choice.py`); these tests pin what the reasoning predicts on games
whose codes we know, on both engines, the constants "capped" stands for, and
the time the measurement may take.
"""

from __future__ import annotations

import time

import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.tree.params import (
    CAPPED_PRIOR_BIAS, CAPPED_ROOT_EXPLORE, P_PRIOR_BIAS, P_ROOT_EXPLORE, SearchParams,
)
from ggp_agent.search.choices.priors_choice import RETURNING_FROM, choose_priors, returning_share
from ggp_agent.search.choices.start_choices import start_budget
from ggp_agent.search.registry import make_tree_search

from ..helpers import shared_path

pytestmark = pytest.mark.usefixtures("compiled_kernels")


@pytest.mark.parametrize("game, priors", [("tictactoe.kif", "whole"), ("connectfour.kif", "whole"),
                                          ("hex_5x5.kif", "whole"), ("nogo_5x5.kif", "whole"),
                                          ("breakthrough_6x6.kif", "capped"), ("wargame_5x5.kif", "capped")])
def test_auto_priors_are_capped_where_played_move_codes_come_back(machines, game, priors):
    """A mark, a disc, a stone is legal until played or filled and never again:
    whole priors. A pawn's step from e2 is played, gone when the pawn has
    moved, and legal again when another pawn arrives: capped."""
    machine = machines(game)
    search = make_tree_search("mcps", machine, 0, seed=1)  # the default: auto
    search.prepare(machine.initial_state())
    assert search.params.priors == priors
    assert search.stats()["priors"] == priors
    assert "came back" in search.stats()["priors_reason"]
    capped = priors == "capped"
    assert (search._packed[P_PRIOR_BIAS] == CAPPED_PRIOR_BIAS) == capped
    assert (search._packed[P_ROOT_EXPLORE] == CAPPED_ROOT_EXPLORE) == capped
    search.search(200)


@pytest.mark.parametrize("game, priors", [("nineBoardTicTacToe.kif", "whole"), ("knightThrough.kif", "capped")])
def test_codes_that_leave_unplayed_and_come_back_keep_whole_priors(game, priors):
    """Nine-board tic-tac-toe's cells leave the legal moves while their board is
    not the one sent to and come back, but a cell once played never does:
    each code is one move, the priors stay whole. knightThrough's knight
    moves come back once another knight stands where one left: capped."""
    machine = make_state_machine("propnet", load_game(shared_path("gdl-corpus", "games", game)))
    try:
        assert choose_priors(returning_share(machine, machine.initial_state(), seconds=30.0)) == priors
    finally:
        machine.close()


@pytest.mark.parametrize("game, placements", [("tictactoe.kif", True), ("breakthrough_6x6.kif", False)])
def test_the_measure_asks_only_for_legal_moves_so_prolog_answers_it_too(machines, game, placements):
    share = returning_share(machines(game, "prolog"), machines(game, "prolog").initial_state(), seconds=1.0)
    assert share is not None
    assert (share < RETURNING_FROM) == placements


def test_the_measure_keeps_to_its_time_and_the_same_seed_gives_the_same_answer(machines):
    """Prolog plays breakthrough slowly: the measurement stops at its deadline
    (within a step); the same seed gives the same share when the playouts fit
    in the time (a loaded machine fits fewer in 0.3 s)."""
    machine = machines("breakthrough_6x6.kif", "prolog")
    began = time.perf_counter()
    returning_share(machine, machine.initial_state(), seconds=0.05)
    assert time.perf_counter() - began < 0.05 + 0.25
    fast = machines("breakthrough_6x6.kif")
    shares = {returning_share(fast, fast.initial_state(), seed=7, seconds=30.0) for _ in range(3)}
    assert len(shares) == 1


def test_grave_and_uct_keep_their_published_rules(machines):
    machine = machines("breakthrough_6x6.kif")
    for rule in ("grave", "uct"):
        search = make_tree_search(rule, machine, 0, seed=1, options={"priors": "auto"})
        search.prepare(machine.initial_state())
        assert search.params.priors == "whole"
        assert search._packed[P_ROOT_EXPLORE] == 0.0


def test_capped_stands_for_its_constants_unless_the_options_set_them():
    assert SearchParams().priors == "auto"
    assert SearchParams(priors="whole").pack()[P_PRIOR_BIAS] == 0.0
    assert SearchParams(priors="auto").pack()[P_ROOT_EXPLORE] == 0.0  # undecided reads as whole
    capped = SearchParams(priors="capped").pack()
    assert (capped[P_PRIOR_BIAS], capped[P_ROOT_EXPLORE]) == (CAPPED_PRIOR_BIAS, CAPPED_ROOT_EXPLORE)
    mine = SearchParams(priors="capped", prior_bias=0.05, root_explore=0.1).pack()
    assert (mine[P_PRIOR_BIAS], mine[P_ROOT_EXPLORE]) == (0.05, 0.1)
    # An explicit 0 is a setting, not "unset": capped priors without the cap.
    zero = SearchParams(priors="capped").with_options({"prior_bias": "0"}).pack()
    assert (zero[P_PRIOR_BIAS], zero[P_ROOT_EXPLORE]) == (0.0, CAPPED_ROOT_EXPLORE)
    assert SearchParams(priors="whole").with_options({"root_explore": "0.2"}).pack()[P_ROOT_EXPLORE] == 0.2
    assert choose_priors(None) == "whole"  # no code ever left: nothing came back
    with pytest.raises(ValueError, match="unknown priors"):
        SearchParams(priors="half")


def test_the_trees_of_a_match_decide_once_and_agree(machines, caplog):
    """With two threads the first tree measures codes and priors at START and
    the second adopts its decisions: one log line each, the same settings."""
    from ggp_agent.search.registry import make_search

    machine = machines("breakthrough_6x6.kif")
    search = make_search("mcps", machine, 0, seed=3, threads=2, memory_cap=32 << 20)
    with caplog.at_level("INFO", logger="ggp_agent.search.choices.start_choices"):
        search.prepare(machine.initial_state())
    first, second = search.searches
    assert (first.params.codes, first.params.priors) == (second.params.codes, second.params.priors) \
        == ("moves", "capped")
    assert second.stats()["priors_reason"] == first.stats()["priors_reason"]
    assert caplog.text.count("capped priors") == 1
    assert caplog.text.count("moves codes") == 1
    assert (second._packed == first._packed).all()


@pytest.mark.parametrize("start_clock", [1.0, 4.0])
@pytest.mark.parametrize("game", ["breakthrough_6x6.kif", "wargame_5x5.kif"])
def test_the_start_choices_take_at_most_a_tenth_of_the_start_clock(machines, game, start_clock):
    """Codes and priors both measured (on the propnet: the codes look ahead
    of every move, the priors play through the engine's interface, and on
    the Wargame the codes also sample the moves' destinations) within the
    budget the player gives its search: a tenth of the START clock at most,
    the START's arena sizing included.

    Counted in this thread's CPU time, the least of three STARTs: the rule
    under test is the work START does, and a loaded machine that sets the
    thread aside adds wall time no budget controls (CI once measured 0.15 s
    of wall time for 0.06 s of work, and once 0.68 s of CPU for a START that
    takes 0.20 s here, quiet or loaded); a START that overran its budget
    would overrun it every time."""
    machine = machines(game)
    spent = []
    for _ in range(3):
        search = make_tree_search("mcps", machine, 0, seed=2, memory_cap=32 << 20,
                                  start_seconds=start_budget(start_clock))
        began = time.thread_time()
        search.prepare(machine.initial_state())
        spent.append(time.thread_time() - began)
    assert min(spent) <= 0.1 * start_clock, spent
    stats = search.stats()
    assert stats["codes_reason"] and stats["priors_reason"]  # both were measured, not defaulted

