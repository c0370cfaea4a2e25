"""The MCPS ablation constants, the diagnostic figures and the choice of codes.

The constants (`amaf`, `perm`, `explore`, `prior_bias`, `prior_explore`,
`root_window`, `root_explore`, `amaf_horizon`) change the MCPS value only as
documented in `SearchParams`: these tests pin the value
to its formula, GRAVE's weight included, and check the window modes and the
figures on a real search; codes=auto must pick what the effects predict.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.tree import mcps
from ggp_agent.search.tree.arena import C_ROOT, Capacity, new_arena
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.driver.figures import discordance, window_stat
from ggp_agent.search.tree.params import SearchParams
from ggp_agent.search.tree.select import exploration, mcps_value, prior_exploration, prior_weights

from ..helpers import GAMES, give_edges

#: These tests run searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


def _value(params: SearchParams, n, w, n_amaf, w_amaf, n_perm, q_perm) -> float:
    return float(mcps_value(params.pack(), n, w, n_amaf, w_amaf, n_perm, q_perm, params.prior_weighing()[0], 0.0))


def test_the_default_value_is_the_papers_formula():
    n, w, na, wa, np_, qp = 10, 6.0, 40, 12.0, 25, 0.8
    expected = (n * (w / n) + na * (wa / na) + np_ * qp) / (n + na + np_)
    assert _value(SearchParams(), n, w, na, wa, np_, qp) == pytest.approx(expected)
    assert _value(SearchParams(), 0, 0.0, 0, 0.0, 0, 1.0) == 1.0  # Q = 1 when nothing is known


@pytest.mark.parametrize("bias", [1e-5, 1e-3, 0.05])
def test_without_permutations_the_prior_bias_is_graves_weight(bias):
    params = SearchParams(perm=0.0, prior_bias=bias)
    for n, w, na, wa in [(1, 1.0, 5, 2.0), (30, 12.0, 300, 210.0), (2000, 900.0, 5000, 3100.0)]:
        beta = na / (n + na + bias * n * na)
        expected = (1 - beta) * (w / n) + beta * (wa / na)
        assert _value(params, n, w, na, wa, 777, 0.1) == pytest.approx(expected)


def test_the_prior_bias_caps_what_a_prior_is_worth():
    """With prior_bias b a prior counts as at most 1/b playouts of the edge itself,
    so the edge's own value takes over as it is played."""
    params = SearchParams(prior_bias=0.01)
    few = _value(params, 10, 10.0, 100_000, 0.0, 0, 1.0)   # Q = 1 over 10 visits, Q̃ = 0 over 100,000
    many = _value(params, 1000, 1000.0, 100_000, 0.0, 0, 1.0)
    assert few == pytest.approx(10 / (10 + 100_000 / 1001), rel=1e-6)
    assert many > 0.9
    assert _value(SearchParams(), 1000, 1000.0, 100_000, 0.0, 0, 1.0) < 0.01  # the paper's: the prior wins


def test_without_its_own_playouts_the_prior_is_the_other_playouts_of_the_code():
    """amaf_own=False: the reference node's ñ, w̃ less the edge's own n, w."""
    params = SearchParams(amaf_own=False)
    n, w, na, wa, np_, qp = 10, 6.0, 40, 12.0, 25, 0.8
    expected = (w + (wa - w) + np_ * qp) / (n + (na - n) + np_)
    assert _value(params, n, w, na, wa, np_, qp) == pytest.approx(expected)
    # The paper's counts the edge's playouts twice: own Q 1 over 100, 100 more losses elsewhere.
    assert _value(SearchParams(), 100, 100.0, 200, 100.0, 0, 1.0) == pytest.approx(200 / 300)
    assert _value(params, 100, 100.0, 200, 100.0, 0, 1.0) == pytest.approx(100 / 200)
    # A table made after the edge's first playouts may hold fewer: nothing left, no prior.
    assert _value(params, 10, 6.0, 4, 3.0, 0, 1.0) == pytest.approx(0.6)


def test_weights_switch_sources_off():
    assert _value(SearchParams(amaf=0.0, perm=0.0), 4, 3.0, 50, 5.0, 70, 0.2) == pytest.approx(0.75)
    assert _value(SearchParams(amaf=0.0), 4, 3.0, 50, 5.0, 6, 0.5) == pytest.approx((3.0 + 3.0) / 10)
    assert _value(SearchParams(perm=0.0), 4, 3.0, 6, 3.0, 70, 0.2) == pytest.approx(6.0 / 10)


def test_exploration_is_off_by_default_and_ucb_shaped():
    assert exploration(SearchParams().pack(), 3, math.log(100)) == 0.0
    assert exploration(SearchParams(explore=0.3).pack(), 3, math.log(100)) == pytest.approx(0.3 * math.sqrt(math.log(100) / 4))


def test_bad_constants_are_refused():
    with pytest.raises(ValueError):
        SearchParams(root_window="sometimes")
    with pytest.raises(ValueError):
        SearchParams(prior_bias=-1.0)


def test_discordance_counts_pairs_ordered_against_the_values():
    assert discordance([0.9, 0.5, 0.1], [0.2, 0.5, 0.8]) == 1.0
    assert discordance([0.9, 0.5, 0.1], [0.8, 0.5, 0.2]) == 0.0
    assert discordance([0.9, 0.5, 0.1], [0.5, 0.8, 0.2]) == pytest.approx(2 / 6)
    assert discordance([0.3], [0.1]) is None


def test_window_stat_is_algorithm_2_for_one_code():
    params = SearchParams(rule="mcps", window=128)
    P = params.pack()
    capacity = Capacity(nodes=16, edges=64, amaf_tables=4, perm_tables=4, transitions=16,
                        codes=4, window=128, max_depth=4, max_rollout=4)
    A = new_arena(capacity, n_roles=2, n_words=1, code_role=np.array([0, 0, 1, 1], dtype=np.int32),
                  goal_values=[[0, 50, 100], [0, 50, 100]])
    rng = np.random.default_rng(3)
    for _ in range(200):
        codes = sorted(set(rng.choice(4, size=rng.integers(1, 4)).tolist()))
        goal0 = int(rng.choice([0, 50, 100]))
        A.seen[: len(codes)] = codes
        mcps.record_playout(A, P, len(codes), np.array([goal0, 100 - goal0], dtype=np.int32))
    A.path_code[0, 0] = 1
    A.path_code[0, 1] = ~3
    give_edges(A, 5, [[0, 1], [2, 3]])
    assert mcps.freeze(A, P, 5, 1)
    table = A.node_perm[5]
    for code in range(4):
        n, q = window_stat(A, code, int(A.code_role[code]), [1])
        assert n == A.perm_n[table, code]
        if n:
            assert q == pytest.approx(float(A.perm_q[table, code]), rel=1e-6)


@pytest.fixture(scope="module")
def tictactoe():
    machine = make_state_machine("propnet", load_game(GAMES / "tictactoe.kif"))
    yield machine
    machine.close()


def _first_move_played(machine, root_window: str):
    state = machine.initial_state()
    search = make_tree_search("mcps", machine, 0, seed=3, options={"root_window": root_window})
    search.prepare(state)
    search.search(1500)
    before = search.arena.win_valid.copy()
    move = search.best_move()
    joint = [move, machine.legal_moves(state, 1)[0]]
    search.advance(joint, machine.next_state(state, joint))
    return before, search.arena.win_valid.copy()


def _bits(words) -> int:
    return int(np.unpackbits(words.view(np.uint8)).sum())


def test_root_window_modes(tictactoe):
    before, after = _first_move_played(tictactoe, "restrict")
    assert 0 < _bits(after) < _bits(before)
    assert np.all(after & ~before == 0)
    before, after = _first_move_played(tictactoe, "clear")
    assert _bits(before) > 0 and _bits(after) == 0
    before, after = _first_move_played(tictactoe, "keep")
    assert np.array_equal(before, after)


def test_stats_show_the_chosen_moves_three_estimates(tictactoe):
    search = make_tree_search("mcps", tictactoe, 0, seed=5)
    search.prepare(tictactoe.initial_state())
    search.search(3000)
    stats = search.stats()
    assert stats["move_n"] == stats["move_visits"] > 0
    assert stats["move_amaf_n"] >= stats["move_n"] - 10  # every playout through the move holds its code
    assert stats["move_perm_n"] > 0 and 0.0 <= stats["move_perm_q"] <= 1.0
    assert stats["reply_n"] > 0 and stats["reply_perm_n"] > 0
    assert 0.0 <= stats["amaf_disagreement"] <= 1.0


@pytest.mark.parametrize("game, codes", [("connectfour.kif", "effects"), ("tictactoe.kif", "moves"),
                                         ("hex_5x5.kif", "moves"), ("breakthrough_6x6.kif", "moves"),
                                         ("wargame_5x5.kif", "destinations"), ("dotsandboxes_5x5.kif", "effects")])
def test_auto_codes_take_effects_where_a_move_code_has_several_effects(game, codes):
    """"Drop in column c" lands on six cells: effect codes; a stone on c3, or a
    pawn's step that captures or not (two effects), keeps its move code; the
    Wargame's (move ?from ?to) has several effects (attacks, health) and
    its moves into one cell share ?to: destination codes; a line of dots and
    boxes closes a box or not only late in the game, which the measurement
    reaches by spreading its look-aheads over whole playouts: effect codes."""
    machine = make_state_machine("propnet", load_game(GAMES / game))
    try:
        search = make_tree_search("mcps", machine, 0, seed=1, options={"codes": "auto"})
        search.prepare(machine.initial_state())
        assert search.params.codes == codes
        assert search.stats()["codes"] == codes
        search.search(300)
    finally:
        machine.close()


def test_auto_codes_over_prolog_are_move_codes():
    machine = make_state_machine("prolog", load_game(GAMES / "connectfour.kif"))
    try:
        search = make_tree_search("mcps", machine, 0, seed=1, options={"codes": "auto"})
        search.prepare(machine.initial_state())
        assert search.params.codes == "moves"
    finally:
        machine.close()


def _grown_root(machine, seed):
    """An MCPS tree grown 400 iterations from the initial state, no lane out
    and no pick standing (the choices compared are the scan's): its arena,
    settings, root and the first role's root edges lo..hi-1."""
    search = make_tree_search("mcps", machine, 0, seed=seed, memory_cap=32 << 20, options={"pick_refresh": 0})
    search.prepare(machine.initial_state())
    search.search(400)
    search._runner.forget_inflight(search.arena)
    A = search.arena
    root = int(A.counters[C_ROOT])
    return A, search.params, root, int(A.node_edges[root, 0]), int(A.node_edges[root, 1])


def test_root_exploration_widens_the_root_and_nothing_below(tictactoe):
    """root_explore adds a UCB term at the root only: large, it sends the next
    descent to the root's least visited edge; below the root the choice is
    the rule's own."""
    from dataclasses import replace

    from ggp_agent.propnet.network.arrays import new_rng
    from ggp_agent.search.tree.select import choose_edge

    A, params, root, lo, hi = _grown_root(tictactoe, seed=5)
    plain = params.pack()
    wide = replace(params, root_explore=100.0).pack()
    visits = A.edge_n[lo:hi]
    assert visits.max() > 3 * visits.min()  # MCPS alone has favourites
    least = set(lo + np.flatnonzero(visits == visits.min()))
    assert int(choose_edge(A, wide, root, 0, root, -1, new_rng(1), True)) in least
    assert int(choose_edge(A, plain, root, 0, root, -1, new_rng(1), True)) not in least
    child = int(A.edge_child[lo + int(np.argmax(visits))])
    below = [int(choose_edge(A, p, child, 1, root, -1, new_rng(2), True)) for p in (plain, wide)]
    assert below[0] == below[1]


def test_an_amaf_horizon_keeps_only_the_codes_played_soon_after_the_node(tictactoe):
    """amaf_horizon=1: the root's AMAF table holds only the first move of each
    iteration (xplayer's marks, once per iteration); the default holds the
    replies too."""
    def root_table(options):
        search = make_tree_search("mcps", tictactoe, 0, seed=3, memory_cap=32 << 20, options=options)
        search.prepare(tictactoe.initial_state())
        search.search(600)
        search._runner.forget_inflight(search.arena)
        A = search.arena
        root = int(A.counters[C_ROOT])
        return A, root, A.amaf_n[A.node_amaf[root]]

    A, root, counts = root_table({"amaf_horizon": 1})
    counted_roles = {int(A.code_role[c]) for c in np.flatnonzero(counts)}
    assert counted_roles == {0}
    assert 0 < counts.sum() <= A.node_visits[root]
    A, root, counts = root_table({})
    assert {int(A.code_role[c]) for c in np.flatnonzero(counts)} == {0, 1}
    assert counts.sum() > 2 * A.node_visits[root]


def test_a_root_prior_bias_caps_the_priors_at_the_root_only(tictactoe):
    """root_prior_bias huge: the root's priors are worth nothing, so the root
    takes the edge with the best mean of its own playouts; below the root the
    choice is the rule's own."""
    from dataclasses import replace

    from ggp_agent.propnet.network.arrays import new_rng
    from ggp_agent.search.tree.select import choose_edge

    def root_with_best_means(seed):
        A, params, root, lo, hi = _grown_root(tictactoe, seed=seed)
        visited = [e for e in range(lo, hi) if A.edge_n[e] > 0]
        means = np.array([A.edge_w[e] / A.edge_n[e] for e in visited])
        return A, params, root, lo, hi, {visited[i] for i in np.flatnonzero(np.isclose(means, means.max()))}

    # a tree where the priors steer the plain rule away from the best mean
    # (which tree that is depends on the seed: the first of a few seeds)
    for seed in range(1, 30):
        A, params, root, lo, hi, best = root_with_best_means(seed)
        plain = params.pack()
        if int(choose_edge(A, plain, root, 0, root, -1, new_rng(1), True)) not in best:
            break
    else:
        pytest.fail("no tree among 29 seeds where the priors change the root's choice")
    capped = replace(params, root_prior_bias=1e9).pack()
    chosen = int(choose_edge(A, capped, root, 0, root, -1, new_rng(1), True))
    # an edge never played is priced by its prior alone: it may go first
    assert chosen in best or A.edge_n[chosen] == 0
    child = int(A.edge_child[lo + int(np.argmax(A.edge_n[lo:hi]))])
    below = [int(choose_edge(A, p, child, 1, root, -1, new_rng(2), True)) for p in (plain, capped)]
    assert below[0] == below[1]


def _explored_value(params: SearchParams, n, w, n_amaf, w_amaf, visits) -> float:
    """An MCPS edge's value with its exploration terms, at a node of `visits` visits (no permutations)."""
    return float(mcps_value(params.pack(), n, w, n_amaf, w_amaf, 0, 1.0, params.prior_weighing()[0], math.log(visits)))


def test_prior_exploration_retries_a_move_with_a_poor_prior_only_when_priors_are_capped():
    """The breakthrough 6x6 case (docs/search.md): the favourite holds 0.45
    over most of 150,000 visits; a move played twice (lost) has a prior of
    0.35 from half of them. With prior_explore the priors count as visits:
    uncapped, they grow with the node and the poor move stays buried (the
    published rule); capped (prior_bias), it is tried again."""
    visits = 150_000
    favourite = dict(n=140_000, w=0.45 * 140_000, n_amaf=148_000, w_amaf=0.45 * 148_000)
    poor = dict(n=2, w=0.0, n_amaf=75_000, w_amaf=0.35 * 75_000)
    for params, poor_wins in [(SearchParams(prior_explore=0.4), False),
                              (SearchParams(prior_explore=0.4, prior_bias=0.01), True),
                              (SearchParams(prior_bias=0.01), False)]:
        top = _explored_value(params, visits=visits, **favourite)
        retry = _explored_value(params, visits=visits, **poor)
        assert (retry > top) == poor_wins, params


def test_prior_exploration_fades_with_uncapped_priors():
    """Uncapped, a prior that grows with the node's visits makes the term
    vanish; capped, the term of a move never played grows with ln N."""
    P = SearchParams(prior_explore=0.4).pack()
    capped = SearchParams(prior_explore=0.4, prior_bias=0.01)
    terms, capped_terms = [], []
    for visits in (1_000, 100_000):
        a, _, b = prior_weights(P, 0, 0.0, visits // 2, 0.2 * visits, 0, 0.0)
        terms.append(float(prior_exploration(P, 0, a, b, math.log(visits))))
        a, _, b = prior_weights(capped.pack(), 0, 0.0, visits // 2, 0.2 * visits, 0, capped.prior_weighing()[0])
        capped_terms.append(float(prior_exploration(capped.pack(), 0, a, b, math.log(visits))))
    assert terms[1] < terms[0] / 5
    assert capped_terms[1] > capped_terms[0] > 0.1
    assert float(prior_exploration(SearchParams().pack(), 0, 10.0, 10.0, 5.0)) == 0.0  # off by default
