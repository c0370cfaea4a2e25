"""The numba tree search: rules, solver, arena bounds, tree reuse, GGP generality.

The tic-tac-toe checks are the seed tutorial's (`../shared/seeds/002_*`): in
every reachable position where exactly one move wins (by minimax), the search
plays it at 2,000 iterations, and it never loses to a random player.
"""

from __future__ import annotations

import functools
import os
import random

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.tree import mcps
from ggp_agent.search.tree.arena import (
    C_CODES, C_FULL, C_NODES, C_ROOT, EXPANDED, PENDING, PROVEN, Capacity, arena_bytes, new_arena, plan_capacity,
)
from ggp_agent.search.driver.figures import answer_summary
from ggp_agent.search.tree.root import best_edge, root_child
from ggp_agent.search.tree.solver import _proof_rank, proof_rank
from ggp_agent.search.driver.tree_search import TreeSearch
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.tree.params import MCPS_PICK_REFRESH, P_PICK_REFRESH, SearchParams
from ggp_agent.search.tree.select import PICK_STAND_MAX, _let_stand, _standing_pick
from ggp_agent.search.warmup import all_kernels

from ..helpers import GAMES, LEFT_RECURSION, give_edges

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")

RULES = ["uct", "grave", "mcps"]


@pytest.fixture(scope="module")
def tictactoe():
    machine = make_state_machine("propnet", load_game(GAMES / "tictactoe.kif"))
    yield machine
    machine.close()


@pytest.fixture(scope="module")
def tictactoe_prolog():
    machine = make_state_machine("prolog", load_game(GAMES / "tictactoe.kif"))
    yield machine
    machine.close()


def _mover(machine, state) -> int:
    for role in range(len(machine.roles)):
        if len(machine.legal_moves(state, role)) > 1:
            return role
    return 0


def _joint(machine, state, role, move):
    return [move if r == role else machine.legal_moves(state, r)[0] for r in range(len(machine.roles))]


def one_winning_move_positions(machine):
    """(state, mover, the winning move) for every reachable non-terminal position
    where exactly one move of the mover wins with best play (the tutorial's set)."""
    seen, positions, stack = set(), [], [machine.initial_state()]
    while stack:
        state = stack.pop()
        if state in seen:
            continue
        seen.add(state)
        if machine.is_terminal(state):
            continue
        positions.append(state)
        mover = _mover(machine, state)
        for move in machine.legal_moves(state, mover):
            stack.append(machine.next_state(state, _joint(machine, state, mover, move)))

    @functools.lru_cache(maxsize=None)
    def value(state):
        if machine.is_terminal(state):
            return machine.goal_values(state)
        mover = _mover(machine, state)
        options = [value(machine.next_state(state, _joint(machine, state, mover, move)))
                   for move in machine.legal_moves(state, mover)]
        return max(options, key=lambda goals: goals[mover])

    cases = []
    for state in positions:
        mover = _mover(machine, state)
        wins = [move for move in machine.legal_moves(state, mover)
                if value(machine.next_state(state, _joint(machine, state, mover, move)))[mover] == 100]
        if len(wins) == 1:
            cases.append((state, mover, wins[0]))
    return cases


@pytest.fixture(scope="module")
def winning_positions(tictactoe):
    return one_winning_move_positions(tictactoe)


def _search(machine, role, state, rule="mcps", seed=0, **options) -> TreeSearch:
    search = make_tree_search(rule, machine, role, seed=seed, memory_cap=8 << 20, options=options or None)
    search.prepare(state)
    return search


def test_the_tutorial_counts_1686_positions_with_one_winning_move(winning_positions):
    assert len(winning_positions) == 1686


def test_mcps_plays_the_one_winning_move_in_every_position(tictactoe, winning_positions):
    missed = []
    for index, (state, mover, win) in enumerate(winning_positions):
        search = _search(tictactoe, mover, state, seed=index)
        search.search(2000)
        move = search.best_move()
        if move != win:
            missed.append((sorted(map(str, state)), str(win), str(move)))
    assert missed == []


@pytest.mark.parametrize("rule", ["uct", "grave"])
def test_every_rule_finds_the_winning_moves(tictactoe, winning_positions, rule):
    sample = winning_positions[::7]
    found = 0
    for index, (state, mover, win) in enumerate(sample):
        search = _search(tictactoe, mover, state, rule=rule, seed=index)
        search.search(2000)
        found += search.best_move() == win
    assert found == len(sample)


def test_the_same_rules_run_over_prolog(tictactoe_prolog, winning_positions):
    for index, (state, mover, win) in enumerate(winning_positions[::60]):
        search = _search(tictactoe_prolog, mover, state, seed=index)
        search.search(2000)
        assert search.best_move() == win


def _play_random(machine, rule, seat, games, iterations, seed):
    """Games of the search (seat) against uniformly random moves, with tree reuse."""
    rng = random.Random(seed)
    results = []
    for game in range(games):
        state = machine.initial_state()
        search = _search(machine, seat, state, rule=rule, seed=seed * 1000 + game)
        while not machine.is_terminal(state):
            joint = []
            for role in range(len(machine.roles)):
                moves = machine.legal_moves(state, role)
                if role == seat and len(moves) > 1:
                    search.search(iterations)
                    move = search.best_move()
                    assert move in moves
                else:
                    move = rng.choice(moves)
                joint.append(move)
            state = machine.next_state(state, joint)
            search.advance(joint, state)
        results.append(machine.goal_values(state)[seat])
    return results


@pytest.mark.parametrize("seat", [0, 1])
def test_never_loses_to_random_quick(tictactoe, seat):
    assert min(_play_random(tictactoe, "mcps", seat, games=10, iterations=2000, seed=seat)) >= 50


@pytest.mark.slow
@pytest.mark.parametrize("seat", [0, 1])
def test_never_loses_to_random_in_200_games(tictactoe, seat):
    results = _play_random(tictactoe, "mcps", seat, games=200, iterations=2000, seed=10 + seat)
    assert min(results) >= 50
    assert results.count(100) > 100


def test_a_proven_win_is_taken_and_a_proven_loss_avoided(tictactoe):
    # After x (1 1), o (2 1), x (1 2), o (2 2): x wins at (1 3) at once, and any
    # other move lets o win at (2 3). The solver must see both.
    machine = tictactoe
    start = machine.initial_state()
    line = ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)"]
    state = start
    for text in line:
        mover = _mover(machine, state)
        legal = {str(m): m for m in machine.legal_moves(state, mover)}
        state = machine.next_state(state, _joint(machine, state, mover, legal[text]))
    search = _search(machine, 0, state, rule="mcps", seed=3)
    search.search(300)
    assert str(search.best_move()) == "(mark 1 3)"
    stats = search.stats()
    assert stats["root_proven"] and stats["move_value"] == 1.0


def test_tree_reuse_keeps_the_subtree(tictactoe):
    machine = tictactoe
    state = machine.initial_state()
    search = _search(machine, 0, state)
    search.search(3000)
    move = search.best_move()
    joint = _joint(machine, state, 0, move)
    A = search.arena
    root = int(A.counters[C_ROOT])
    child_edges = [e for e in range(A.node_edges[root, 0], A.node_edges[root, 1]) if A.edge_code[e] == machine.move_codes.get(0, move)]
    visits = int(A.edge_n[child_edges[0]])
    root_visits = int(A.node_visits[root])
    assert search.stats()["tree_kept"] is None  # no root change yet
    state = machine.next_state(state, joint)
    search.advance(joint, state)
    kept = int(A.node_visits[A.counters[C_ROOT]])
    assert kept >= visits - 1 > 0
    stats = search.stats()
    assert stats["iterations"] == 0
    # the share of the search the move left standing, in the stats and the move's log line
    assert stats["tree_kept"] == pytest.approx(kept / root_visits, abs=1e-4)
    assert 0 < stats["tree_kept"] < 1
    assert f"kept={stats['tree_kept']}" in answer_summary(stats)


def test_window_freeze_matches_a_direct_count():
    """Algorithm 2 on a hand-made window: n̂ and Q̂ for a path (a0) are the counts
    and mean outcomes of the playouts containing a0 and each code."""
    params = SearchParams(rule="mcps", window=128)
    P = params.pack()
    capacity = Capacity(nodes=16, edges=64, amaf_tables=4, perm_tables=4, transitions=16,
                        codes=4, window=128, max_depth=4, max_rollout=4)
    A = new_arena(capacity, n_roles=2, n_words=1, code_role=np.array([0, 0, 1, 1], dtype=np.int32),
                  goal_values=[[0, 50, 100], [0, 50, 100]])
    rng = np.random.default_rng(5)
    playouts = []
    for _ in range(300):  # more than the window: old slots are overwritten
        codes = sorted(set(rng.choice(4, size=rng.integers(1, 4)).tolist()))
        goal0 = int(rng.choice([0, 50, 100]))
        goals = np.array([goal0, 100 - goal0], dtype=np.int32)
        A.seen[: len(codes)] = codes
        mcps.record_playout(A, P, len(codes), goals)
        playouts.append((codes, goals))
    A.path_code[0, 0] = 1
    A.path_code[0, 1] = ~3  # no choice: ignored
    give_edges(A, 5, [[0, 1], [2, 3]])
    assert mcps.freeze(A, P, 5, 1)
    table = A.node_perm[5]
    recent = playouts[-128:]
    for code in range(4):
        chosen = [g for codes, g in recent if 1 in codes and code in codes]
        assert A.perm_n[table, code] == len(chosen)
        if chosen:
            role = A.code_role[code]
            expected = sum(g[role] for g in chosen) / (100.0 * len(chosen))
            assert A.perm_q[table, code] == pytest.approx(expected, rel=1e-6)
        else:
            assert A.perm_q[table, code] == 1.0
    # the match played code 2: only playouts containing it stay valid
    mcps.restrict_window(A, P, np.array([2], dtype=np.int32), 1)
    give_edges(A, 6, [[0, 1], [2, 3]])
    assert mcps.freeze(A, P, 6, 0)
    kept = [g for codes, g in recent if 2 in codes]
    assert A.perm_n[A.node_perm[6], 0] == sum(1 for codes, _ in recent if 2 in codes and 0 in codes)
    assert len(kept) > 0


def test_a_freeze_counts_the_codes_of_the_node_and_its_children_only():
    """A frozen table serves the node's edges and, until they freeze their
    own, its children's: those codes get their counts, a code met in neither
    gets none (the freeze's cost is per code it counts)."""
    P = SearchParams(rule="mcps", window=128).pack()
    capacity = Capacity(nodes=16, edges=64, amaf_tables=4, perm_tables=4, transitions=16,
                        codes=4, window=128, max_depth=4, max_rollout=4)
    A = new_arena(capacity, n_roles=2, n_words=1, code_role=np.array([0, 0, 1, 1], dtype=np.int32),
                  goal_values=[[0, 100], [0, 100]])
    A.seen[:4] = [0, 1, 2, 3]
    for _ in range(10):  # every playout holds every code
        mcps.record_playout(A, P, 4, np.array([100, 0], dtype=np.int32))
    give_edges(A, 5, [[0], [3]])  # at node 5 role 0 plays code 0 (role 1 has no choice)
    give_edges(A, 6, [[0], [2]])  # its child: role 1 plays code 2
    A.edge_child[A.node_edges[5, 0]] = 6
    give_edges(A, 7, [[1], [3]])  # not a child of node 5
    assert mcps.freeze(A, P, 5, 0)
    counts = A.perm_n[A.node_perm[5]].tolist()
    assert counts == [10, 0, 10, 10]  # code 1 is only at node 7
    assert A.perm_q[A.node_perm[5], 0] == 1.0 and A.perm_q[A.node_perm[5], 2] == 0.0


def test_arena_never_grows_and_a_full_arena_keeps_searching():
    machine = make_state_machine("propnet", load_game(GAMES / "tictactoe.kif"))
    try:
        search = make_tree_search("mcps", machine, 0, seed=1, memory_cap=1)  # the smallest arena
        state = machine.initial_state()
        search.prepare(state)
        A = search.arena
        shapes = [a.shape for a in A]
        ran = search.search(20000)
        assert ran > 0
        assert [a.shape for a in A] == shapes
        assert int(A.counters[C_NODES]) <= A.node_hash.shape[0]
        move = search.best_move()
        assert move in machine.legal_moves(state, 0)
    finally:
        machine.close()


def test_plan_capacity_respects_the_cap():
    for cap in (16 << 20, 256 << 20):
        capacity = plan_capacity(n_roles=2, n_codes=200, n_words=4, branching=60, simultaneous=False,
                                 memory_cap=cap)
        arena = new_arena(capacity, n_roles=2, n_words=4, code_role=np.zeros(200, dtype=np.int32))
        assert arena_bytes(arena) <= cap * 1.05


def _vm_flags(address: int) -> list[str]:
    """The kernel's flags of the mapping that holds `address` (/proc/self/smaps)."""
    inside = False
    for line in open("/proc/self/smaps").read().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            low, high = (int(part, 16) for part in head.split("-"))
            inside = low <= address < high
        elif inside and line.startswith("VmFlags:"):
            return line.split()[1:]
    raise AssertionError(f"no mapping holds {address:#x}")


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="needs Linux's /proc/self/smaps")
def test_the_arena_is_zeroed_plain_pages_that_are_not_advised_huge():
    """The big arrays are zero, writable, and not advised for huge pages (VmFlags
    `hg`), as np.zeros advises them: each first touch of a 2 MB page then
    compacted memory in the kernel, and the tree's hash tables are touched at
    random (`arena.lazy_zeros`)."""
    capacity = plan_capacity(n_roles=2, n_codes=200, n_words=4, branching=60, simultaneous=False,
                             memory_cap=256 << 20)
    arena = new_arena(capacity, n_roles=2, n_words=4, code_role=np.zeros(200, dtype=np.int32))
    big = [array for array in arena if array.nbytes >= 8 << 20]
    assert len(big) >= 5
    for array in big:
        assert array.flags.writeable and array.flags.c_contiguous and not array.any()
    advised = np.zeros(8 << 20, dtype=np.int32)
    if "hg" not in _vm_flags(_middle(advised)):
        pytest.skip("numpy does not advise huge pages here (no transparent huge pages)")
    for array in big:
        assert "hg" not in _vm_flags(_middle(array))


def _middle(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0] + array.nbytes // 2


def test_garbage_collection_keeps_what_the_root_reaches(tictactoe):
    machine = tictactoe
    state = machine.initial_state()
    search = _search(machine, 0, state)
    search.search(3000)
    A = search.arena
    before = int(A.counters[C_NODES])
    joint = _joint(machine, state, 0, search.best_move())
    state = machine.next_state(state, joint)
    search.advance(joint, state)
    visits = int(A.node_visits[A.counters[C_ROOT]])
    search.collect_now(state)
    assert int(A.counters[C_NODES]) < before
    assert int(A.node_visits[A.counters[C_ROOT]]) == visits
    # the collected tree is consistent: searching on and asking for moves works
    search.search(2000)
    assert search.best_move() in machine.legal_moves(state, 0) or _mover(machine, state) != 0


def test_a_root_that_does_not_offer_our_legal_moves_is_replaced(tictactoe, caplog):
    """A tree whose new root lists moves other than our legal ones (a
    corrupted node) is not trusted: the search starts afresh at the state and
    says so, instead of proposing a move that is not legal."""
    machine = tictactoe
    state = machine.initial_state()
    search = _search(machine, 0, state)
    search.search(3000)
    A = search.arena
    def child_of(move):
        joint = _joint(machine, state, 0, move)
        codes = np.asarray([search._runner.code_of(r, m) for r, m in enumerate(joint)], dtype=np.int32)
        return joint, codes, int(root_child(A, codes))

    # a move whose child the search has expanded (which ones depends on the seed)
    joint, codes, child = max((child_of(move) for move in machine.legal_moves(state, 0)),
                              key=lambda found: found[2] >= 0 and bool(A.node_flags[found[2]] & EXPANDED))
    assert child >= 0 and A.node_flags[child] & EXPANDED
    ours = int(A.node_edges[child, 0])
    A.edge_code[ours] = codes[0]  # our only move there (noop) now reads as a mark
    state = machine.next_state(state, joint)
    with caplog.at_level("ERROR"):
        search.advance(joint, state, legal_moves=tuple(machine.legal_moves(state, 0)))
    assert "starting a fresh tree" in caplog.text
    search.search(500)
    assert search.best_move() in machine.legal_moves(state, 0)


SIMULTANEOUS = """
(role a) (role b)
(init (round 0))
(<= (legal ?r (pick ?x)) (role ?r) (choice ?x))
(choice 1) (choice 2) (choice 3)
(<= (next (round 1)) (true (round 0)))
(<= (next (round 2)) (true (round 1)))
(<= (next (last ?r ?x)) (does ?r (pick ?x)))
(<= (next (score ?r ?x)) (true (last ?r ?x)))
(<= terminal (true (round 2)))
(<= (same) (does a (pick ?x)) (does b (pick ?x)))
(<= (goal a 100) (true (last a ?x)) (true (last b ?x)))
(<= (goal a 0) (true (last a ?x)) (true (last b ?y)) (distinct ?x ?y))
(<= (goal b 0) (true (last a ?x)) (true (last b ?x)))
(<= (goal b 100) (true (last a ?x)) (true (last b ?y)) (distinct ?x ?y))
(<= (goal ?r 50) (role ?r) (true (round 0)))
(<= (goal ?r 50) (role ?r) (true (round 1)))
"""

THREE_PLAYERS = """
(role r) (role g) (role y)
(init (turn r)) (init (count 0))
(<= (legal ?p (take ?n)) (true (turn ?p)) (amount ?n))
(<= (legal ?p noop) (role ?p) (not (true (turn ?p))))
(amount 1) (amount 2)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
(<= (next (count ?m)) (does ?p (take 1)) (true (count ?n)) (succ ?n ?m))
(<= (next (count ?k)) (does ?p (take 2)) (true (count ?n)) (succ ?n ?m) (succ ?m ?k))
(<= (next (turn g)) (true (turn r)))
(<= (next (turn y)) (true (turn g)))
(<= (next (turn r)) (true (turn y)))
(<= (next (last ?p)) (does ?p (take ?n)))
(<= over (true (count 6)))
(<= over (true (count 7)))
(<= terminal over)
(<= (goal ?p 100) (true (last ?p)) over)
(<= (goal ?p 0) (role ?p) (not (true (last ?p))))
(<= (goal ?p 0) (true (last ?p)) (not over))
"""

PUZZLE = """
(role solver)
(init (at 0))
(<= (legal solver (step ?n)) (true (at ?m)) (hop ?m ?n))
(hop 0 1) (hop 0 2) (hop 1 3) (hop 2 4) (hop 3 5) (hop 4 5) (hop 4 6) (hop 1 6)
(<= (next (at ?n)) (does solver (step ?n)))
(<= terminal (true (at 5)))
(<= terminal (true (at 6)))
(<= (goal solver 100) (true (at 5)) (true (at 5)))
(<= (goal solver 30) (true (at 6)))
(<= (goal solver 0) (true (at ?n)) (distinct ?n 5) (distinct ?n 6))
"""


@pytest.mark.parametrize("engine", ["propnet", "prolog"])
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("text", [SIMULTANEOUS, THREE_PLAYERS, PUZZLE], ids=["simultaneous", "three", "puzzle"])
def test_any_number_of_roles_and_simultaneous_moves(engine, rule, text):
    machine = make_state_machine(engine, load_game(text))
    try:
        rng = random.Random(2)
        for seat in range(len(machine.roles)):
            state = machine.initial_state()
            search = _search(machine, seat, state, rule=rule, seed=seat)
            while not machine.is_terminal(state):
                search.search(300)
                joint = []
                for role in range(len(machine.roles)):
                    moves = machine.legal_moves(state, role)
                    move = search.best_move() if role == seat else rng.choice(moves)
                    assert move in moves
                    joint.append(move)
                state = machine.next_state(state, joint)
                search.advance(joint, state)
            if len(machine.roles) == 1:
                assert machine.goal_values(state) == (100,)
    finally:
        machine.close()


def test_the_puzzle_is_solved():
    machine = make_state_machine("propnet", load_game(PUZZLE))
    try:
        search = _search(machine, 0, machine.initial_state())
        search.search(200)
        assert search.stats()["root_proven"]
        assert str(search.best_move()) == "(step 1)" or str(search.best_move()) == "(step 2)"
    finally:
        machine.close()


def test_codes_met_by_prolog_are_registered(tictactoe_prolog):
    search = _search(tictactoe_prolog, 0, tictactoe_prolog.initial_state())
    search.search(200)
    A = search.arena
    assert int(A.counters[C_CODES]) >= 10
    roles = A.code_role[: int(A.counters[C_CODES])]
    assert set(roles.tolist()) <= {0, 1}


def test_a_new_game_needs_no_compilation(tictactoe):
    """After the warm-up (this module's fixture), searching a game never seen
    before adds no kernel signature, nor loads one from the disk cache in the
    middle of a match (a root change that loaded `clear_window` took 0.15 s on
    a quiet machine and 1.8 s on a loaded one, and a 1 s reply went out 0.8 s
    late)."""
    dispatchers = all_kernels()
    before = {name: len(d.signatures) for name, d in dispatchers.items()}
    for engine in ("propnet", "prolog"):
        machine = make_state_machine(engine, load_game(THREE_PLAYERS))
        try:
            for rule in RULES:
                search = _search(machine, 1, machine.initial_state(), rule=rule)
                search.search(200)
                search.best_move()
                state = machine.next_state(machine.initial_state(), [machine.legal_moves(machine.initial_state(), r)[0] for r in range(3)])
                search.advance([machine.legal_moves(machine.initial_state(), r)[0] for r in range(3)], state)
                search.advance(None, state)  # no joint move: MCPS clears its window (also after an unexpanded root)
                search.collect_now(state)
        finally:
            machine.close()
    after = {name: len(d.signatures) for name, d in all_kernels().items()}
    assert after == before


def test_pool_full_is_counted_not_fatal():
    machine = make_state_machine("propnet", load_game(GAMES / "tictactoe.kif"))
    try:
        search = make_tree_search("grave", machine, 0, seed=1, memory_cap=1)
        search.prepare(machine.initial_state())
        search.search(10000)
        A = search.arena
        if int(A.counters[C_NODES]) == A.node_hash.shape[0]:
            assert int(A.counters[C_FULL]) > 0
    finally:
        machine.close()


@pytest.mark.slow
def _written_bytes(array: np.ndarray) -> int:
    """Bytes of the pages under `array` that this process has written (Linux).

    Counted from /proc/self/pagemap as pages present and exclusively mapped,
    which is what resident memory counts: a page only read maps the shared
    zero page and counts in neither."""
    import mmap

    page = mmap.PAGESIZE
    first = array.ctypes.data // page
    count = (array.ctypes.data + array.nbytes + page - 1) // page - first
    with open("/proc/self/pagemap", "rb") as handle:
        handle.seek(first * 8)
        entries = np.frombuffer(handle.read(count * 8), dtype=np.uint64)
    present_and_private = (entries >> np.uint64(63)) & (entries >> np.uint64(56)) & np.uint64(1)
    return int(present_and_private.sum()) * page


def test_written_bytes_count_written_pages_and_not_read_ones():
    from ggp_agent.search.tree.arena import lazy_zeros

    array = lazy_zeros((1 << 18,), np.int64)  # 2 MB, 512 pages
    assert _written_bytes(array) == 0
    assert int(array[::512].sum()) == 0  # read every page
    assert _written_bytes(array) == 0
    array[: 1 << 17] = 1  # write half of them
    assert _written_bytes(array) == 1 << 20


def test_memory_stays_under_the_cap_over_a_60_s_search_on_connect_four():
    """A pondering search on connect four for 60 s (it fills its arena within
    seconds, then keeps searching): the process grows by the arena's pages plus
    a few MB of runtime (thread stack, numba), and outside the arena not at all
    once it is full. The arena's own pages come on first touch (4 KB each), so
    a full tree still maps statistics of edges first backed up late; they are
    inside the cap and not counted as growth."""
    import time

    from ggp_agent.search.tree.arena import LAZY_FROM_BYTES, process_rss

    path = GAMES / "connectfour.kif"
    if not path.exists():
        pytest.skip("gdl_games/connectfour.kif comes with the games branch")
    cap = 24 << 20  # small enough that the search fills it well within the minute
    runtime = 24 << 20
    machine = make_state_machine("propnet", load_game(path))
    try:
        state = machine.initial_state()
        search = make_tree_search("mcps", machine, 0, seed=1, memory_cap=cap)
        before = process_rss()
        search.start(state, legal_moves=machine.legal_moves(state, 0))
        arrays = [array for array in search.arena if array.nbytes >= LAZY_FROM_BYTES]  # its own mappings
        samples = []
        began = time.monotonic()
        while time.monotonic() - began < 60:
            time.sleep(0.5)
            in_arena = sum(_written_bytes(array) for array in arrays)
            samples.append((search.stats().get("pool_full", 0), process_rss(), in_arena))
        stats = search.stats()
        search.stop()
        assert arena_bytes(search.arena) <= cap
        assert max(rss for _, rss, _ in samples) - before <= cap + runtime
        outside = [rss - in_arena for pool_full, rss, in_arena in samples if pool_full > 0]
        assert len(outside) > 10, "the arena never filled"
        assert max(outside) - min(outside) <= 2 << 20, "the process grew outside the arena after it was full"
        assert stats["nodes"] == stats["node_capacity"] or stats["pool_full"] > 0
        assert search.best_move() in machine.legal_moves(state, 0)
    finally:
        machine.close()


def test_effect_codes_key_the_statistics_by_what_a_move_changes(tictactoe):
    """codes=effects: only fluents that depend on moves count (the turn marker
    does not), and every move of the chooser tried from the root has its
    effect's code (learnt when its child was computed), one per cell."""
    from ggp_agent.search.runners.kernels import move_dependent_fluents

    machine = tictactoe
    mask = np.zeros(machine.net.n_words, dtype=np.uint64)
    move_dependent_fluents(machine.net, mask)
    dynamic = {str(f) for i, f in enumerate(machine.fluents) if int(mask[i >> 6]) >> (i & 63) & 1}
    assert dynamic and all(text.startswith("(cell") for text in dynamic)
    assert not any(text.startswith("(control") for text in dynamic)

    state = machine.initial_state()
    search = _search(machine, 0, state, codes="effects")
    search.search(500)
    A = search.arena
    root = int(A.counters[C_ROOT])
    features = A.edge_feat[A.node_edges[root, 0]:A.node_edges[root, 1]]
    assert len(set(features.tolist())) == 9 and features.min() >= len(machine.move_codes)
    assert int(A.counters[C_CODES]) > len(machine.move_codes)


def test_effect_codes_find_the_winning_moves(tictactoe, winning_positions):
    for index, (state, mover, win) in enumerate(winning_positions[::11]):
        search = _search(tictactoe, mover, state, seed=index, codes="effects")
        search.search(2000)
        assert search.best_move() == win


def test_effect_codes_over_prolog_fall_back_to_move_codes(tictactoe_prolog):
    search = _search(tictactoe_prolog, 0, tictactoe_prolog.initial_state(), codes="effects")
    assert search.params.codes == "moves"
    search.search(100)
    assert search.best_move() in tictactoe_prolog.legal_moves(tictactoe_prolog.initial_state(), 0)


#: LEFT_RECURSION's game has a self-loop ((go a) from (at a) stays put) next
#: to a two-step win: every state is worth 100, so the root is proven at once,
#: and a solver that took any proven child would walk the loop forever.
CYCLE = LEFT_RECURSION


@pytest.mark.parametrize("engine", ["propnet", "prolog"])
def test_proven_lines_end_even_through_cycles(engine):
    machine = make_state_machine(engine, load_game(CYCLE))
    try:
        state = machine.initial_state()
        search = _search(machine, 0, state)
        turns = 0
        while not machine.is_terminal(state) and turns < 10:
            search.search(200)
            move = search.best_move()
            state = machine.next_state(state, [move])
            search.advance([move], state)
            turns += 1
        assert machine.is_terminal(state) and turns <= 3
    finally:
        machine.close()


def test_a_proven_root_plays_its_proof_not_its_most_visited_move():
    """Both moves proven draws (50 of a possible 100): the most visited one,
    whose mean is above 50, loops back (a proof of 5 moves), the other ends
    the game (1 move). The root is proven: the move is its proof's, the
    shorter line, in one tree as in the root merge of several
    (`votes.merge_votes`, its doctests)."""
    capacity = Capacity(nodes=8, edges=16, amaf_tables=2, perm_tables=2, transitions=8,
                        codes=3, window=64, max_depth=4, max_rollout=4)
    A = new_arena(capacity, n_roles=2, n_words=1, code_role=np.array([0, 0, 1], dtype=np.int32),
                  goal_values=[[0, 50, 100], [0, 50, 100]])
    give_edges(A, 0, [[0, 1], [2]])
    A.counters[C_ROOT] = 0
    loop, line = int(A.node_edges[0, 0]), int(A.node_edges[0, 0]) + 1
    for edge, child, proof, visits, reward in [(loop, 1, 5, 90, 60.0), (line, 2, 1, 10, 5.0)]:
        A.edge_child[edge] = child
        A.node_flags[child] |= PROVEN
        A.node_goals[child] = [50, 50]
        A.node_proof[child] = proof
        A.edge_n[edge], A.edge_w[edge] = visits, reward
    assert best_edge(A, 0) == loop  # an open root: the most visited edge, as before
    A.node_flags[0] |= PROVEN
    assert best_edge(A, 0) == line


def test_the_solver_order_is_one_rule_for_one_tree_and_for_the_merge():
    """`solver.proof_rank` ranks proven results for `better_proof` (compiled)
    and for `votes.merge_votes` (plain Python): the same numbers either way,
    and the order the solver needs: a higher goal first; at a goal above 0 the
    shorter proof (a win sooner), at 0 the longer (a loss later)."""
    results = [(goal, proof) for goal in (0, 50, 100) for proof in (0, 1, 2, 7, 400)]
    for goal, proof in results:
        assert _proof_rank(goal, proof) == proof_rank(goal, proof)
    ranked = sorted(results, key=lambda result: proof_rank(*result), reverse=True)
    assert ranked[:2] == [(100, 0), (100, 1)]
    assert ranked[-2:] == [(0, 1), (0, 0)]
    assert [goal for goal, _ in ranked] == sorted((goal for goal, _ in results), reverse=True)


def _standing_codes(A) -> dict:
    """{state hash: the move code of the node's standing pick}, asserting that
    every standing pick is an edge of its own node."""
    codes = {}
    for node in range(int(A.counters[C_NODES])):
        if A.node_pick_until[node] > 0:
            pick = int(A.node_pick[node])
            roles = A.node_edges.shape[1] - 1
            assert any(A.node_edges[node, r] <= pick < A.node_edges[node, r + 1] for r in range(roles))
            codes[int(A.node_hash[node])] = int(A.edge_code[pick])
    return codes


def test_standing_picks_stay_on_their_own_nodes_edges_through_moves_and_collections():
    """None stands across a root change (the permutation window changes with
    it); a collection, which slides nodes and edges down, moves each with its
    node: it still names one of its node's own edges, the move it chose."""
    machine = make_state_machine("propnet", load_game(GAMES / "breakthrough_6x6.kif"))
    state = machine.initial_state()
    search = make_tree_search("mcps", machine, 0, seed=0, memory_cap=256 << 20, options={"pick_refresh": 0.1})
    search.prepare(state)
    A = search.arena
    for ply in range(4):
        search.search(20_000)
        assert len(_standing_codes(A)) > 0
        role = _mover(machine, state)
        joint = _joint(machine, state, role, machine.legal_moves(state, role)[0])
        state = machine.next_state(state, joint)
        search.advance(joint, state)
        assert _standing_codes(A) == {}
        search.search(5_000)
        before = _standing_codes(A)
        nodes = int(A.counters[C_NODES])
        search.collect_now(state)
        assert int(A.counters[C_NODES]) < nodes
        after = _standing_codes(A)
        assert after and all(before.get(h) == code for h, code in after.items())


def test_a_standing_pick_holds_for_its_share_of_visits_and_at_most_sixteen_passes():
    """The pick stands while its edge's visits (a lane's virtual loss counts
    as one) stay below what they were plus `pick_refresh` of the node's
    visits, at most PICK_STAND_MAX: lanes out at once cannot all pile onto
    it. A proven child or one a lane computes ends it at once."""
    machine = make_state_machine("propnet", load_game(GAMES / "breakthrough_6x6.kif"))
    search = _search(machine, 0, machine.initial_state())
    search.search(3000)
    A, P = search.arena, search._packed
    root = int(A.counters[C_ROOT])
    e = int(A.node_edges[root, 0])
    for visits, passes in ((50, 5), (100_000, PICK_STAND_MAX), (10, 0)):
        A.node_pick_until[root] = 0
        _let_stand(A, P, root, e, visits)
        stood = 0
        while _standing_pick(A, root) == e:
            A.edge_n[e] += 1
            stood += 1
        assert stood == passes
        A.edge_n[e] -= stood
    _let_stand(A, P, root, e, 100_000)
    child = int(A.edge_child[e])
    assert child >= 0 and _standing_pick(A, root) == e
    flags = int(A.node_flags[child])
    A.node_flags[child] = flags | PROVEN
    assert _standing_pick(A, root) == -1
    A.node_flags[child] = flags
    A.edge_child[e] = PENDING
    assert _standing_pick(A, root) == -1
    A.edge_child[e] = child


def test_mcps_lets_picks_stand_unless_told_and_the_baselines_scan_every_time():
    assert SearchParams().pack()[P_PICK_REFRESH] == MCPS_PICK_REFRESH > 0
    for rule in ("uct", "grave"):
        assert SearchParams(rule=rule).pack()[P_PICK_REFRESH] == 0
    assert SearchParams().with_options({"pick_refresh": "0"}).pack()[P_PICK_REFRESH] == 0
    with pytest.raises(ValueError):
        SearchParams().with_options({"pick_refresh": "2"})
