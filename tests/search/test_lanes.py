"""The search on the lanes (batched leaves) and on several threads (root and tree parallelism)."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.propnet.kernels.bits import set_bit_indices
from ggp_agent.search.tree.arena import C_ITERATIONS, C_LEAVES, C_NODES, C_ROOT, EXPANDED, LEGAL
from ggp_agent.search.runners.lane_runner import LaneRunner
from ggp_agent.search.tree.arena import PENDING
from ggp_agent.search.runners.lane_copies import COPIES_FROM_ROOT_VISITS
from ggp_agent.search.runners.lane_search import FORCED, IDLE, LOAD_FORCED, lane_search
from ggp_agent.search.runners.lane_slots import S_INFLIGHT
from ggp_agent.search.parallel.root_parallel import RootParallelSearch
from ggp_agent.search.tree.params import MCPS_LEAF_PLAYOUTS, P_LEAF_PLAYOUTS, SearchParams, tree_params
from ggp_agent.search.registry import make_search
from ggp_agent.search.runners.serial import MachineRunner, PropnetRunner
from ggp_agent.search.parallel.shared_tree import SharedTreeSearch
from ggp_agent.search.driver.tree_search import TreeSearch
from ggp_agent.search.registry import make_tree_search

from ..helpers import GAMES

pytestmark = pytest.mark.usefixtures("compiled_kernels")


@pytest.fixture(scope="module")
def nogo():
    machine = make_state_machine("propnet", load_game(GAMES / "nogo_5x5.kif"))
    yield machine
    machine.close()


@pytest.fixture(scope="module")
def tictactoe():
    machine = make_state_machine("propnet", load_game(GAMES / "tictactoe.kif"))
    yield machine
    machine.close()


def _grown(machine, iterations=400, seed=1):
    search = make_tree_search("mcps", machine, 0, seed=seed, memory_cap=32 << 20)
    search.prepare(machine.initial_state())
    search.search(iterations)
    return search


def test_the_runner_is_chosen_by_engine_and_batch(nogo, tictactoe):
    """Lanes for a propnet, whatever the codes; one leaf at a time with
    batch=1 (the search before the lanes); Prolog runs its own."""
    assert isinstance(make_tree_search("mcps", nogo, 0)._runner, LaneRunner)
    assert type(make_tree_search("mcps", nogo, 0, batch=1)._runner) is PropnetRunner
    assert isinstance(make_tree_search("mcps", nogo, 0, options={"codes": "effects"})._runner, LaneRunner)
    prolog = make_state_machine("prolog", load_game(GAMES / "tictactoe.kif"))
    try:
        assert isinstance(make_tree_search("mcps", prolog, 0)._runner, MachineRunner)
    finally:
        prolog.close()


@pytest.fixture(scope="module")
def connect_four():
    machine = make_state_machine("propnet", load_game(GAMES / "connectfour.kif"))
    yield machine
    machine.close()


def test_auto_codes_keep_the_lanes_whichever_codes_they_become(nogo, connect_four):
    """codes=auto is decided at the start; move codes (NoGo) and effect codes
    (connect four) both search on the lanes."""
    for machine, codes in ((nogo, "moves"), (connect_four, "effects")):
        search = make_tree_search("mcps", machine, 0, seed=1)
        search.prepare(machine.initial_state())
        assert search.params.codes == codes and isinstance(search._runner, LaneRunner)
        assert search.search(400) >= 400


def _interned_effects(search) -> set:
    A = search.arena
    return {int(key) for key in A.effect_key if key != 0}


def test_lanes_record_the_effects_one_leaf_at_a_time_records(connect_four):
    """An effect is keyed by the fluents a move changed: a lane reads them from
    its bit-sliced rows, a one-state playout from its state words, and both
    must give the same keys. Connect four from the start: a disc on each of
    its 42 cells in either colour, 84 effects, all met by a few thousand
    playouts either way; and every root edge, tried, has its effect code."""
    searches = {}
    for batch in (None, 1):
        search = make_tree_search("mcps", connect_four, 0, seed=3, batch=batch, options={"codes": "effects"})
        search.prepare(connect_four.initial_state())
        search.search(3000)
        searches[batch] = search
    lanes, single = (_interned_effects(searches[b]) for b in (None, 1))
    assert len(lanes) == len(single) == 84
    assert lanes == single
    A = searches[None].arena
    root = int(A.counters[C_ROOT])
    features = A.edge_feat[A.node_edges[root, 0]:A.node_edges[root, 1]]
    assert len(set(features.tolist())) == 7 and features.min() >= len(connect_four.move_codes)


def _assert_edge_visits_are_real(search) -> None:
    """At every expanded node (the first 500), a chooser's edge visits add up
    to at most the node's visits: no virtual loss or copied playout is left
    counted where no backup came."""
    A = search.arena
    nodes = np.flatnonzero(A.node_flags[: int(search.stats()["nodes"])] & EXPANDED)
    for node in nodes[:500]:
        for role in range(A.node_edges.shape[1] - 1):
            lo, hi = A.node_edges[node, role], A.node_edges[node, role + 1]
            if hi - lo > 1:
                assert A.edge_n[lo:hi].sum() <= A.node_visits[node]


def test_lanes_out_between_calls_leave_only_real_results_on_the_tree(nogo):
    """Lanes stay out across calls, but their virtual losses do not: between
    calls every edge's visits are real backups, so at every expanded node the
    chooser's edge visits add up to at most the node's visits; the leaves out
    were chosen apart (no two lanes compute the same child) and their edges
    are pending; forget_inflight drops them and clears the marks."""
    search = _grown(nogo)
    A, runner = search.arena, search._runner
    done = lane_search(A, search._packed, runner.net, runner.lanes, runner.slots, runner.work, runner.rng,
                       300, 128, 0)
    assert done >= 300
    slots = runner.slots
    assert 0 < slots.counters[S_INFLIGHT] <= 128
    pending = [int(e) for lane, e in enumerate(slots.pending)
               if slots.phase[lane] in (LOAD_FORCED, FORCED) and e >= 0]
    assert len(pending) == len(set(pending))
    assert all(A.edge_child[e] == PENDING for e in pending)
    _assert_edge_visits_are_real(search)
    runner.forget_inflight(A)
    assert slots.counters[S_INFLIGHT] == 0 and (slots.phase == IDLE).all()
    assert not (A.edge_child[: A.edge_child.shape[0]] == PENDING).any()


def test_each_leaf_on_the_lanes_gets_its_leaf_playouts(nogo):
    """With `leaf_playouts=k` a leaf a lane takes is played out by k lanes, each
    backed up as an iteration: about k iterations per new leaf where one
    gives one (8 as well: copies once got only the lanes idle at the leaf's
    step, about 2.5 at 8), once the root has COPIES_FROM_ROOT_VISITS visits (before, one
    playout per leaf whatever k), and the tree's counts stay real (the
    chooser's edge visits at a node add up to at most the node's visits)."""
    young, old = {}, {}
    for k in (1, 3, 8):
        search = make_tree_search("mcps", nogo, 0, seed=1, memory_cap=32 << 20, options={"leaf_playouts": k})
        search.prepare(nogo.initial_state())
        A = search.arena
        search.search(COPIES_FROM_ROOT_VISITS - 500)
        young[k] = int(A.counters[C_ITERATIONS]) / int(A.counters[C_LEAVES])
        search.search(1500)  # past COPIES_FROM_ROOT_VISITS, and the lanes out before it backed up
        iterations, leaves = int(A.counters[C_ITERATIONS]), int(A.counters[C_LEAVES])
        search.search(6000)
        old[k] = (int(A.counters[C_ITERATIONS]) - iterations) / (int(A.counters[C_LEAVES]) - leaves)
        _assert_edge_visits_are_real(search)
    assert young[1] < 1.3 and young[3] < 1.3 and young[8] < 1.3
    assert old[1] < 1.3
    assert old[3] > 2.7 and old[8] > 6.5  # every copy, not only as many as lanes were idle at the leaf's step


def test_mcps_plays_two_playouts_per_leaf_unless_told_and_the_baselines_one():
    """The default MCPS takes MCPS_LEAF_PLAYOUTS; UCT and GRAVE stay the
    published baselines; an option sets any rule's."""
    assert SearchParams().pack()[P_LEAF_PLAYOUTS] == MCPS_LEAF_PLAYOUTS > 1
    for rule in ("uct", "grave"):
        assert tree_params(rule).pack()[P_LEAF_PLAYOUTS] == 1
    assert tree_params("mcps", {"leaf_playouts": "1"}).pack()[P_LEAF_PLAYOUTS] == 1
    assert tree_params("uct", {"leaf_playouts": "3"}).pack()[P_LEAF_PLAYOUTS] == 3
    with pytest.raises(ValueError):
        tree_params("mcps", {"leaf_playouts": "0"})


def test_a_search_whose_lanes_could_not_end_in_time_plays_single_leaves(nogo):
    """When no lane could end before the move is asked for, the time left goes
    to single leaves, not to nothing: a latency once measured too long (a
    loaded machine) shut every lane out, and moves came from a handful of
    iterations or none ("the search has no move yet")."""
    search = _grown(nogo)
    A, runner = search.arena, search._runner
    runner.forget_inflight(A)
    runner.latency = 100.0  # no lane could end before the deadline below
    runner.think_until(time.monotonic() + 0.5)
    before = int(A.node_visits[int(A.counters[C_ROOT])])
    ran = runner.run(A, search._packed, 40)
    assert ran == 40 and int(A.node_visits[int(A.counters[C_ROOT])]) == before + 40
    assert runner.slots.counters[S_INFLIGHT] == 0  # and no lane started
    runner.think_until(time.monotonic() - 0.01)  # past the deadline: nothing starts
    assert runner.run(A, search._packed, 40) == 0


def test_nodes_made_on_the_lanes_keep_their_legal_moves(nogo):
    """A node the lanes attach keeps its legal moves, and expanding it from them
    gives the edges the engine would."""
    search = _grown(nogo, iterations=600)
    A = search.arena
    count = int(search.stats()["nodes"])
    flags = A.node_flags[:count]
    kept = np.flatnonzero(((flags & LEGAL) != 0) & ((flags & EXPANDED) != 0))
    assert len(kept) > 10
    net = nogo.net
    for node in kept[:50]:
        state = nogo.state_from_words(A.node_words[node])
        for role in range(net.n_roles):
            codes = [int(A.edge_code[e]) for e in range(A.node_edges[node, role], A.node_edges[node, role + 1])]
            assert sorted(codes) == sorted(nogo.legal_codes(state, role))


def _kept_legal_codes(A, node) -> list[int]:
    """The move codes whose bits `node` keeps in `Arena.node_legal`."""
    codes = np.empty(64 * A.node_legal.shape[1], dtype=np.int64)
    return codes[: set_bit_indices(A.node_legal[node], codes)].tolist()


#: Per-node fields a collection renumbers (edge offsets, table indexes); every
#: other `node_*` field must move with its node unchanged.
RENUMBERED = {"node_edges", "node_amaf", "node_perm", "node_pick"}


def test_a_collection_moves_every_node_field_with_its_node(nogo):
    """After the root moves and the tree is collected (nodes slide to new
    indexes), every node keeps its own rows of every per-node field, its legal
    moves among them: a node that kept another's legal moves would be expanded
    with moves that are not legal there (the search once proposed illegal
    moves after a collection). Fields added later are checked too."""
    search = _grown(nogo, iterations=3000)
    A = search.arena
    state = nogo.initial_state()
    for _ in range(2):
        ours = nogo.legal_moves(state, 0)
        joint = [search.best_move() if len(ours) > 1 else ours[0], nogo.legal_moves(state, 1)[-1]]
        state = nogo.next_state(state, joint)
        search.advance(joint, state, legal_moves=tuple(nogo.legal_moves(state, 0)))
    fields = [name for name in A._fields if name.startswith("node_") and name not in RENUMBERED]
    before = int(A.counters[C_NODES])
    rows = {int(A.node_hash[n]): {name: getattr(A, name)[n].copy() for name in fields} for n in range(before)}
    search.collect_now(state)
    count = int(A.counters[C_NODES])
    assert 0 < count < before
    moved = [n for n in range(count) if not all(np.array_equal(getattr(A, name)[n], rows[int(A.node_hash[n])][name])
                                                for name in fields)]
    assert moved == []
    kept = [n for n in range(count) if A.node_flags[n] & LEGAL]
    assert len(kept) > 10
    for node in kept:
        node_state = nogo.state_from_words(A.node_words[node])
        assert _kept_legal_codes(A, node) == sorted(c for r in range(2) for c in nogo.legal_codes(node_state, r))
    search.search(2000)
    assert search.best_move() in nogo.legal_moves(state, 0)


def test_colliding_descents_are_counted_in_the_figures(tictactoe):
    """Tic-tac-toe's few lines make the lanes meet edges another lane is
    computing, and the figures say how often; one leaf at a time never does."""
    figures = {}
    for batch in (None, 1):
        search = make_tree_search("mcps", tictactoe, 0, seed=1, memory_cap=32 << 20,
                                  **({} if batch is None else {"batch": batch}))
        search.prepare(tictactoe.initial_state())
        search.search(3000)
        figures[batch] = search.stats()
    assert 0 < figures[None]["lane_collisions"] <= figures[None]["iterations"]
    assert figures[1]["lane_collisions"] == 0


def test_the_batch_grows_with_the_tree(nogo):
    """A fresh tree starts one leaf at a time; the lanes take over as it grows."""
    search = make_tree_search("mcps", nogo, 0, seed=3, memory_cap=32 << 20)
    search.prepare(nogo.initial_state())
    runner = search._runner
    search.search(4)
    assert runner.slots.counters[2] == 0  # no lane step yet: the single-leaf kernel ran
    search.search(2000)
    assert runner.slots.counters[2] > 0
    assert int(search.arena.node_visits[int(search.arena.counters[C_ROOT])]) >= 2000


@pytest.mark.parametrize("parallel", ["root", "tree"])
def test_two_threads_find_the_winning_move(tictactoe, parallel):
    """Both kinds of two-thread search, workers running, find a tic-tac-toe win
    in one (x to move with two in a row)."""
    machine = tictactoe
    state = machine.initial_state()
    moves = ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)"]
    from ggp_agent.gdl import parse_term

    for index, text in enumerate(moves):
        mover = index % 2
        joint = [parse_term(text) if r == mover else parse_term("noop") for r in range(2)]
        state = machine.next_state(state, joint)
    search = make_search("mcps", machine, 0, seed=5, threads=2, parallel=parallel, memory_cap=16 << 20)
    assert isinstance(search, RootParallelSearch if parallel == "root" else SharedTreeSearch)
    search.start(state, tuple(machine.legal_moves(state, 0)))
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and search.best_move() is None:
            time.sleep(0.05)
        time.sleep(0.3)
        assert str(search.best_move()) == "(mark 1 3)"
        assert search.stats()["threads"] == 2
    finally:
        search.stop()


def test_threads_default_to_the_cores_and_prolog_gets_one(tictactoe):
    from ggp_agent.search.registry import machine_cores

    default = make_search("mcps", tictactoe, 0, seed=1)
    if machine_cores() == 1:
        assert isinstance(default, TreeSearch)
    else:
        assert isinstance(default, RootParallelSearch) and len(default.searches) == machine_cores()
    assert isinstance(make_search("mcps", tictactoe, 0, seed=1, threads=1), TreeSearch)
    assert isinstance(make_search("mcps", tictactoe, 0, seed=1, threads=2), RootParallelSearch)
    prolog = make_state_machine("prolog", load_game(GAMES / "tictactoe.kif"))
    try:
        assert isinstance(make_search("mcps", prolog, 0, threads=4), TreeSearch)
    finally:
        prolog.close()


def test_a_pending_edge_is_left_alone_while_another_remains(tictactoe):
    """The selection rule leaves an edge whose child a lane computes while the
    chooser has another edge (the batch's leaves stay apart), and takes it only
    when every edge is pending."""
    from ggp_agent.propnet.network.arrays import new_rng
    from ggp_agent.search.tree.select import choose_edge

    search = _grown(tictactoe, iterations=300)
    search._runner.forget_inflight(search.arena)
    A, P = search.arena, search._packed
    root = int(A.counters[C_ROOT])
    lo, hi = int(A.node_edges[root, 0]), int(A.node_edges[root, 1])
    saved = A.edge_child[lo:hi].copy()
    try:
        A.edge_child[lo:hi - 1] = PENDING
        rng = new_rng(3)
        assert {int(choose_edge(A, P, root, 0, root, -1, rng, True)) for _ in range(20)} == {hi - 1}
        A.edge_child[lo:hi] = PENDING
        assert lo <= int(choose_edge(A, P, root, 0, root, -1, rng, True)) < hi
    finally:
        A.edge_child[lo:hi] = saved


def test_without_pondering_every_tree_stops_when_the_move_is_taken(nogo):
    """ponder=0 with two threads: after best_move no tree thinks until the next
    root change (equal-time experiments depend on it)."""
    search = make_search("mcps", nogo, 0, seed=2, threads=2, ponder=False, memory_cap=32 << 20)
    state = nogo.initial_state()
    search.start(state, tuple(nogo.legal_moves(state, 0)))
    try:
        time.sleep(0.5)
        assert search.best_move() is not None
        time.sleep(0.2)  # batches in progress end
        before = search.stats()["total_iterations"]
        time.sleep(0.5)
        assert search.stats()["total_iterations"] == before
    finally:
        search.stop()


@pytest.mark.parametrize("threads", [1, 2])
def test_past_the_deadline_the_worker_waits_and_once_answered_ponders_on(nogo, threads):
    """With pondering: once the deadline has passed, no iteration can start
    before the move is asked for, and the worker waits instead of spinning
    (a spinning worker held the GIL while the player sent its reply: a reply
    went out 0.7 s late at a 1 s clock on a loaded machine); once the move is
    taken it searches on with no deadline, through the opponents' time."""
    search = make_search("mcps", nogo, 0, seed=2, threads=threads, ponder=True, memory_cap=32 << 20)
    state = nogo.initial_state()
    others = _thread_ids()
    search.start(state, tuple(nogo.legal_moves(state, 0)))
    try:
        time.sleep(0.3)
        workers = _thread_ids() - others  # the search's threads, not what earlier tests left winding down
        assert len(workers) >= threads
        search.think_until(time.monotonic() + 0.05)
        time.sleep(0.2)  # the deadline passes; lanes out land
        cpu = _cpu_seconds(workers)
        time.sleep(0.5)
        idle_cpu = _cpu_seconds(workers) - cpu
        assert idle_cpu < 0.1, f"the worker used {idle_cpu:.2f} s of CPU waiting for the question"
        assert search.best_move() is not None
        before = search.stats()["total_iterations"]
        time.sleep(0.5)
        assert search.stats()["total_iterations"] > before + 100
    finally:
        search.stop()


def _thread_ids() -> set[int]:
    """The kernel's ids of this process's threads (Linux)."""
    return {int(name) for name in os.listdir("/proc/self/task")}


def _cpu_seconds(thread_ids: set[int]) -> float:
    """CPU time the threads have used (user and system, /proc/self/task/N/stat);
    a thread that has ended counts no more."""
    ticks = 0
    for thread_id in thread_ids:
        try:
            with open(f"/proc/self/task/{thread_id}/stat", encoding="ascii") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of stat
    return ticks / os.sysconf("SC_CLK_TCK")
