"""The numba kernels the search uses: one-at-a-time and 64-lane, checked against
each other and against the state machine; and no compilation for a new game."""

import numpy as np
import pytest

from ggp_agent.gdl import load_game
from ggp_agent.propnet.kernels import lane_kernels, state_kernels as kernels
from ggp_agent.propnet.network.arrays import new_lanes, new_rng, new_work
from ggp_agent.propnet.machine.state_machine import PropnetStateMachine
from ggp_agent.search.warmup import all_kernels

from ..helpers import GAMES, REACH


@pytest.fixture(scope="module")
def tictactoe():
    return PropnetStateMachine(load_game(GAMES / "tictactoe.kif"))


@pytest.fixture(scope="module")
def reach():
    return PropnetStateMachine(load_game(REACH))


@pytest.fixture(scope="module")
def nogo():
    """Cyclic components evaluated as a group of parallel ones by the lanes."""
    return PropnetStateMachine(load_game(GAMES / "nogo_5x5.kif"))


def replay_codes(machine, start_words, codes, steps):
    """Play recorded codes with the one-at-a-time kernels; the final work record."""
    net = machine.net
    work = new_work(net)
    kernels.load_state(net, work, start_words)
    joint = np.zeros(net.n_roles, dtype=np.int32)
    buffer = np.zeros(net.n_codes, dtype=np.int32)
    for step in range(steps):
        assert not kernels.is_terminal(net, work)
        for role in range(net.n_roles):
            code = codes[step, role]
            legal = buffer[: kernels.legal_codes(net, work, role, buffer)].tolist()
            played = code if code >= 0 else -1 - code
            assert played in legal
            assert (code < 0) == (len(legal) == 1)  # forced moves are marked
            joint[role] = played
        kernels.advance(net, work, joint)
    return work


@pytest.mark.parametrize("game", ["connectfour.kif", "breakthrough_6x6.kif"])
def test_peek_next_is_advance_without_moving(game):
    """The codes choice looks ahead with `peek_next`: every legal joint move's next
    state must be `advance`'s, and the current state must stay as it was
    (values and counts included, or later steps would go wrong)."""
    machine = PropnetStateMachine(load_game(GAMES / game))
    net = machine.net
    work, ahead = new_work(net), new_work(net)
    rng = np.random.default_rng(5)
    buffer = np.zeros(net.n_codes, dtype=np.int32)
    peeked = np.zeros(net.n_words, dtype=np.uint64)
    joint = np.zeros(net.n_roles, dtype=np.int32)
    kernels.load_state(net, work, net.init_words)
    for _ in range(12):
        if kernels.is_terminal(net, work):
            break
        legal = [buffer[: kernels.legal_codes(net, work, r, buffer)].copy() for r in range(net.n_roles)]
        chooser = max(range(net.n_roles), key=lambda r: len(legal[r]))
        for r in range(net.n_roles):
            joint[r] = legal[r][0]
        values, counts = work.value.copy(), work.count.copy()
        for code in legal[chooser]:
            joint[chooser] = code
            kernels.peek_next(net, work, joint, peeked)
            kernels.load_state(net, ahead, kernels.current_state(work))
            kernels.advance(net, ahead, joint)
            assert np.array_equal(peeked, kernels.current_state(ahead))
            assert np.array_equal(work.value, values) and np.array_equal(work.count, counts)
        joint[chooser] = legal[chooser][rng.integers(len(legal[chooser]))]
        kernels.advance(net, work, joint)


def test_one_at_a_time_kernels_answer_like_the_state_machine(tictactoe):
    machine, net = tictactoe, tictactoe.net
    work = new_work(net)
    state = machine.initial_state()
    kernels.load_state(net, work, machine.state_words(state))
    buffer = np.zeros(net.n_codes, dtype=np.int32)
    for role in range(2):
        codes = buffer[: kernels.legal_codes(net, work, role, buffer)]
        assert [machine.move_codes.move_of(c) for c in codes] == list(machine.legal_moves(state, role))
        assert all(net.code_role[c] == role for c in codes)
    joint = [machine.legal_moves(state, 0)[4], machine.legal_moves(state, 1)[0]]
    kernels.advance(net, work, np.array([machine.move_codes.code(r, m) for r, m in enumerate(joint)], dtype=np.int32))
    after = machine.next_state(state, joint)
    assert machine.state_from_words(kernels.current_state(work)) == after
    assert not kernels.is_terminal(net, work)


def test_state_hash_follows_the_state_not_the_path(tictactoe):
    machine, net = tictactoe, tictactoe.net
    work = new_work(net)
    code = machine.move_codes.code

    def play(moves):
        kernels.load_state(net, work, net.init_words)
        for x_move, o_move in moves:
            kernels.advance(net, work, np.array([code(0, x_move), code(1, o_move)], dtype=np.int32))
        return kernels.state_hash(work), kernels.current_state(work).copy()

    from ggp_agent.gdl import parse_term as T

    noop = T("noop")
    first = play([(T("(mark 1 1)"), noop), (noop, T("(mark 2 2)")), (T("(mark 3 3)"), noop)])
    second = play([(T("(mark 3 3)"), noop), (noop, T("(mark 2 2)")), (T("(mark 1 1)"), noop)])
    other = play([(T("(mark 3 3)"), noop), (noop, T("(mark 2 2)")), (T("(mark 1 2)"), noop)])
    assert first[0] == second[0] and (first[1] == second[1]).all()
    assert first[0] != other[0]
    kernels.load_state(net, work, net.init_words)
    expected = np.uint64(0)
    for fluent in range(net.n_fluents):
        if (int(net.init_words[fluent // 64]) >> (fluent % 64)) & 1:
            expected ^= net.zobrist[fluent]
    assert kernels.state_hash(work) == expected


@pytest.mark.parametrize("game", ["tictactoe", "reach"])
def test_random_playout_records_codes_that_replay_to_the_same_end(game, request):
    machine = request.getfixturevalue(game)
    net = machine.net
    work = new_work(net)
    rng = new_rng(11)
    codes = np.zeros((200, net.n_roles), dtype=np.int32)
    goals = np.zeros(net.n_roles, dtype=np.int32)
    for _ in range(20):
        kernels.load_state(net, work, net.init_words)
        steps = kernels.random_playout(net, work, rng, 200, codes)
        assert steps > 0 and kernels.is_terminal(net, work)
        kernels.goals(net, work, goals)
        replayed = replay_codes(machine, net.init_words, codes, steps)
        assert (kernels.current_state(replayed) == kernels.current_state(work)).all()
        again = np.zeros_like(goals)
        kernels.goals(net, replayed, again)
        assert (again == goals).all()


@pytest.mark.parametrize("game", ["tictactoe", "reach", "nogo"])
def test_lane_playouts_replay_lane_by_lane(game, request):
    machine = request.getfixturevalue(game)
    net = machine.net
    lanes = new_lanes(net)
    rng = new_rng(5)
    # more starts than lanes, from two different positions, so lanes refill
    work = new_work(net)
    first_codes = np.zeros((1, net.n_roles), dtype=np.int32)
    kernels.random_playout(net, work, new_rng(1), 1, first_codes)
    later = kernels.current_state(work).copy()
    n = 600
    starts = np.array([net.init_words if k % 3 else later for k in range(n)], dtype=np.uint64)
    codes = np.zeros((n, 100, net.n_roles), dtype=np.int32)
    lengths = np.zeros(n, dtype=np.int32)
    goals = np.zeros((n, net.n_roles), dtype=np.int32)
    lane_kernels.lane_playouts(net, lanes, starts, n, rng, 100, codes, lengths, goals)
    assert (lengths > 0).all()
    for k in range(n):
        replayed = replay_codes(machine, starts[k], codes[k], lengths[k])
        assert kernels.is_terminal(net, replayed)
        expected = np.zeros(net.n_roles, dtype=np.int32)
        kernels.goals(net, replayed, expected)
        assert (goals[k] == expected).all(), k


def test_lane_playouts_stop_at_the_step_limit(reach):
    net = reach.net
    n = 70
    starts = np.tile(net.init_words, (n, 1))
    codes = np.zeros((n, 3, net.n_roles), dtype=np.int32)
    lengths = np.zeros(n, dtype=np.int32)
    goals = np.zeros((n, net.n_roles), dtype=np.int32)
    lane_kernels.lane_playouts(net, new_lanes(net), starts, n, new_rng(2), 3, codes, lengths, goals)
    assert (lengths == 3).all()  # reach always lasts 8 joint moves


def test_a_start_for_a_new_game_compiles_nothing(compiled_kernels):
    """After the warm-up, building and running a game never seen before adds no
    numba signature and loads nothing from (or compiles anything into) the cache."""
    dispatchers = list(all_kernels().values())

    def snapshot():
        return {
            d.py_func.__name__: (len(d.signatures), sum(d.stats.cache_misses.values()), sum(d.stats.cache_hits.values()))
            for d in dispatchers
        }

    before = snapshot()
    machine = PropnetStateMachine(load_game("""
        (role left) (role right)
        (init (pile 3)) (succ 0 1) (succ 1 2) (succ 2 3)
        (<= (legal ?r take) (role ?r) (true (pile ?n)) (succ ?m ?n))
        (<= (legal ?r wait) (role ?r))
        (<= (next (pile ?m)) (true (pile ?n)) (succ ?m ?n) (does left take))
        (<= (next (pile ?n)) (true (pile ?n)) (not (does left take)))
        (<= terminal (true (pile 0)))
        (goal left 100) (goal right 0)
    """))
    state = machine.initial_state()
    machine.legal_moves(state, 0)
    machine.random_playout(state, seed=1)
    machine.bench(0.05)
    machine.goal_values(state)
    assert snapshot() == before


def test_set_bit_indices_lists_every_set_bit_in_order():
    """The lanes list the fluents and lanes they visit with `set_bit_indices`:
    every set bit, ascending, highest and lowest bits of a word included."""
    from ggp_agent.propnet.kernels.bits import set_bit_indices

    rng = np.random.default_rng(5)
    words = rng.integers(0, 2**63, size=5, dtype=np.uint64) | np.uint64(1)
    words[2] = np.uint64(0)
    words[3] = np.uint64(1 << 63)
    expected = [64 * w + i for w in range(5) for i in range(64) if int(words[w]) >> i & 1]
    out = np.zeros(320, dtype=np.int32)
    n = set_bit_indices(words, out)
    assert out[:n].tolist() == expected


def test_the_bit_sliced_comparison_is_each_lanes_x_below_y():
    """`less_plane` over four planes, from the highest down, against plain
    integers lane by lane (choose_moves draws ranks below each lane's count
    with it, prefer_moves its epsilon share)."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        xs = rng.integers(0, 16, size=64)
        ys = rng.integers(0, 16, size=64)
        below, same = np.uint64(0), ~np.uint64(0)
        for p in range(3, -1, -1):
            x = np.uint64(sum(int((v >> p) & 1) << lane for lane, v in enumerate(xs)))
            y = np.uint64(sum(int((v >> p) & 1) << lane for lane, v in enumerate(ys)))
            below, same = (np.uint64(v) for v in lane_kernels.less_plane(below, same, x, y))
        assert [bool((int(below) >> lane) & 1) for lane in range(64)] == list(xs < ys)
        assert [bool((int(same) >> lane) & 1) for lane in range(64)] == list(xs == ys)
