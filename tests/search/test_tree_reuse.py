"""Tree reuse (issue 50): the position the match reached is found whatever
the codes, the opponent's reply keeps its share of the search, each root
change says what it kept, and no collection runs on our clock."""

from __future__ import annotations

import time

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.driver.figures import kept_share
from ggp_agent.search.driver.reuse import FOUND_BY_MOVE, FOUND_BY_STATE, reuse_summary
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.tree.arena import (C_CHANCE, C_NODES, C_OUR_ROLE, C_ROOT, EXPANDED, PROVEN, Capacity,
                                         fuller_than, new_arena)
from ggp_agent.search.tree.params import SearchParams
from ggp_agent.search.tree.reply_floor import floor_edge
from ggp_agent.search.tree.root import root_child

from ..helpers import GAMES, give_edges

#: These tests run searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")

_MACHINES: dict = {}


def machine_of(game: str, engine: str = "propnet"):
    key = (game, engine)
    if key not in _MACHINES:
        _MACHINES[key] = make_state_machine(engine, load_game(GAMES / game))
    return _MACHINES[key]


@pytest.fixture(scope="module", autouse=True)
def _close_machines():
    yield
    for machine in _MACHINES.values():
        machine.close()
    _MACHINES.clear()


def _mover(machine, state) -> int:
    return next((r for r in range(len(machine.roles)) if len(machine.legal_moves(state, r)) > 1), 0)


def _joint(machine, state, role, move) -> list:
    return [move if r == role else machine.legal_moves(state, r)[0] for r in range(len(machine.roles))]


def _expanded_children(search, machine, state) -> list:
    """(joint move, child node) for every joint move at the root whose child the tree expanded."""
    A = search.arena
    found = []
    legal = [machine.legal_moves(state, r) for r in range(len(machine.roles))]
    for joint in (list(j) for j in np.array(np.meshgrid(*[range(len(m)) for m in legal])).T.reshape(-1, len(legal))):
        moves = [legal[r][k] for r, k in enumerate(joint)]
        codes = np.asarray([search._runner.code_of(r, m) for r, m in enumerate(moves)], dtype=np.int32)
        child = int(root_child(A, codes))
        if child >= 0 and A.node_flags[child] & EXPANDED:
            found.append((moves, child))
    return found


#: (game, engine, codes, batch): each coding on the lanes and one leaf at a
#: time, Prolog, and a simultaneous game (children in the transitions table).
CODINGS = [
    ("connectfour.kif", "propnet", "moves", None),
    ("connectfour.kif", "propnet", "effects", None),
    ("dotsandboxes_3x3.kif", "propnet", "effects", None),
    ("dotsandboxes_3x3.kif", "propnet", "effects", 1),
    ("breakthrough_6x6.kif", "propnet", "destinations", None),
    ("tictactoe.kif", "prolog", "moves", None),
    ("goofspiel_5.kif", "propnet", "moves", None),
]


@pytest.mark.parametrize("game, engine, codes, batch", CODINGS)
def test_the_new_root_carries_the_visits_of_the_child_the_joint_move_expanded(game, engine, codes, batch):
    """Whatever keys the statistics (moves, effects, destinations), the root
    moves to the child of the played joint move with everything searched
    under it, and the stats say so: found by the joint move, the share kept."""
    machine = machine_of(game, engine)
    state = machine.initial_state()
    search = make_tree_search("mcps", machine, 0, seed=5, memory_cap=32 << 20, batch=batch, options={"codes": codes})
    search.prepare(state)
    search.search(6000)
    A = search.arena
    root_visits = int(A.node_visits[int(A.counters[C_ROOT])])
    # the least visited expanded child: one the search did not favour
    moves, child = min(_expanded_children(search, machine, state), key=lambda found: int(A.node_visits[found[1]]))
    visits = int(A.node_visits[child])
    after = machine.next_state(state, moves)
    search.advance(moves, after, tuple(machine.legal_moves(after, 0)))
    # the same node (renumbered when the move left the arena to collect)
    assert int(A.node_visits[int(A.counters[C_ROOT])]) == visits > 1
    stats = search.stats()
    assert stats["tree_kept"] == kept_share(root_visits, visits)
    assert search._changes.last.found == FOUND_BY_MOVE


@pytest.mark.parametrize("game, engine, codes", [("connectfour.kif", "propnet", "effects"),
                                                 ("tictactoe.kif", "prolog", "moves")])
def test_a_state_the_tree_holds_elsewhere_is_found_by_its_hash(game, engine, codes):
    """When the joint move's child is not linked at the root (a transposition
    reached by another path), the state's hash finds its node and its visits."""
    machine = machine_of(game, engine)
    state = machine.initial_state()
    search = make_tree_search("mcps", machine, 0, seed=5, memory_cap=32 << 20, options={"codes": codes})
    search.prepare(state)
    search.search(3000)
    A = search.arena
    moves, child = max(_expanded_children(search, machine, state), key=lambda found: int(A.node_visits[found[1]]))
    visits = int(A.node_visits[child])
    root = int(A.counters[C_ROOT])
    edges = range(int(A.node_edges[root, 0]), int(A.node_edges[root, 1]))
    A.edge_child[[e for e in edges if A.edge_child[e] == child]] = -1  # the link is gone, the node stays
    after = machine.next_state(state, moves)
    search.advance(moves, after, tuple(machine.legal_moves(after, 0)))
    assert int(A.node_visits[int(A.counters[C_ROOT])]) == visits > 1
    assert search._changes.last.found == FOUND_BY_STATE


@pytest.mark.parametrize("game, codes", [("dotsandboxes_3x3.kif", "effects"), ("dotsandboxes_3x3.kif", "moves"),
                                         ("dotsandboxes_3x3.kif", "destinations"), ("connectfour.kif", "effects")])
def test_whichever_reply_the_opponent_plays_keeps_a_thousandth_of_the_visits(game, codes):
    """The symptom of issue 50: at the opponent's node MCPS tried a reply its
    priors ranked low once and never again, so the tree kept one node of
    it. With the reply floor every reply holds at least 1/1000 of the visits
    (the floor is 1/500), and the root change says it found the reply; with
    the floor off (the behaviour before) some reply holds less."""
    machine = machine_of(game)
    start = machine.initial_state()
    us = _mover(machine, start)
    state = machine.next_state(start, _joint(machine, start, us, machine.legal_moves(start, us)[0]))
    them = _mover(machine, state)
    assert them != us

    def searched(floor):
        search = make_tree_search("mcps", machine, us, seed=1, memory_cap=64 << 20,
                                  options={"codes": codes, "reply_floor": floor})
        search.prepare(state)
        search.search(20000)
        A = search.arena
        root = int(A.counters[C_ROOT])
        shares = {}
        for e in range(int(A.node_edges[root, them]), int(A.node_edges[root, them + 1])):
            child = int(A.edge_child[e])
            shares[e] = A.node_visits[child] / A.node_visits[root] if child >= 0 else 0.0
        return search, shares

    _, before = searched("0")
    assert min(before.values()) < 0.001
    search, shares = searched("none")  # the default
    assert min(shares.values()) >= 0.001
    # the least visited reply is played: the tree keeps its subtree and says so
    A = search.arena
    least = min(shares, key=shares.get)
    reply = search._runner.move_of(int(A.edge_code[least]))
    after = machine.next_state(state, _joint(machine, state, them, reply))
    search.advance(_joint(machine, state, them, reply), after, tuple(machine.legal_moves(after, us)))
    stats = search.stats()
    assert stats["reply_found"] and stats["reply_kept"] >= 0.001
    assert stats["replies"] == [{"found": True, "kept": stats["reply_kept"], "rank": stats["reply_rank"],
                                 "moves": len(shares)}]
    assert stats["reply_rank"] == 1 + sum(1 for e in shares if A.edge_n[e] > A.edge_n[least])


def test_the_floor_holds_for_the_other_roles_near_the_root_only():
    """The floor takes the least visited move of another role below it, at
    the root and one ply down; never our role's, the chance role's, a proven
    child's, or deeper."""
    capacity = Capacity(nodes=16, edges=64, amaf_tables=4, perm_tables=4, transitions=16, codes=8, window=128,
                        max_depth=8, max_rollout=8)
    A = new_arena(capacity, n_roles=2, n_words=0, code_role=np.array([0, 0, 0, 1, 1, 1, 0, 1], dtype=np.int32))
    P = SearchParams(rule="mcps").pack()  # the floor at MCPS's default, 1/500
    A.counters[C_NODES] = 1
    give_edges(A, 0, [[0, 1, 2], [3, 4, 5]])
    A.counters[C_ROOT] = 0
    A.counters[C_OUR_ROLE] = 0
    A.node_visits[0] = 10_000  # the floor: 20 visits
    A.edge_n[:6] = [9000, 900, 5, 9000, 900, 5]
    assert floor_edge(A, P, 0, 0, 0) == -1  # our moves keep the rule's focus
    assert floor_edge(A, P, 0, 1, 0) == 5  # the opponent's reply below the floor
    assert floor_edge(A, P, 0, 1, 1) == 5  # one ply down too
    assert floor_edge(A, P, 0, 1, 2) == -1  # not deeper
    assert floor_edge(A, SearchParams(rule="uct").pack(), 0, 1, 0) == -1  # the baselines keep their rules
    A.counters[C_CHANCE] = 1
    assert floor_edge(A, P, 0, 1, 0) == -1  # the dice play for no goal
    A.counters[C_CHANCE] = -1
    A.counters[C_NODES] = 2
    A.edge_child[5] = 1
    A.node_flags[1] = PROVEN
    assert floor_edge(A, P, 0, 1, 0) == -1  # a proven reply's value is known
    A.node_flags[1] = 0
    A.edge_n[5] = 20
    assert floor_edge(A, P, 0, 1, 0) == -1  # at the floor


def test_each_turn_says_what_the_tree_kept_and_a_summary_adds_turns_up():
    """Two turns' figures add up: replies found, kept from 1/1000, among the
    three most visited, the mean kept, root changes on our clock."""
    turns = [{"replies": [{"found": True, "kept": 0.5, "rank": 1, "moves": 7}],
              "root_change_s": 0.002, "root_change_on_our_clock": True},
             {"replies": [{"found": False, "kept": 0.0, "rank": None, "moves": 7},
                          {"found": True, "kept": 0.0005, "rank": 5, "moves": 7}],
              "root_change_s": 0.3, "root_change_on_our_clock": True},
             {}, {"root_change_s": 4.0, "root_change_on_our_clock": False}]
    summary = reuse_summary(turns)
    assert summary == {"replies": 3, "found": 0.6667, "kept_from_0.001": 0.3333, "top3": 0.3333,
                       "kept_mean": 0.1668, "root_changes_on_our_clock": 2, "root_change_p95_s": 0.3,
                       "root_change_max_s": 0.3}


def _fill(search, share: float = 0.5) -> None:
    """Search until a pool of the arena is more than `share` full."""
    for _ in range(200):
        if fuller_than(search.arena, share):
            return
        search.search(500)
    raise AssertionError("the arena did not fill")


@pytest.mark.parametrize("collect", ["off_clock", "at_change"])
def test_a_full_tree_is_collected_on_the_opponents_clock_never_on_ours(collect):
    """After our move (the opponent chooses next) a tree more than half full
    is collected; after the opponent's reply (we choose next) it is not,
    before or during our search: the root change costs our clock nothing
    more. `collect=at_change` restores the behaviour before, which collected
    there too."""
    machine = machine_of("connectfour.kif")
    state = machine.initial_state()
    search = make_tree_search("mcps", machine, 0, seed=2, memory_cap=1 << 20, options={"collect": collect})
    search.prepare(state)
    assert search.capacity.nodes == 4096  # the smallest arena: it fills in a few thousand iterations
    _fill(search)
    ours = _joint(machine, state, 0, search.best_move())
    state = machine.next_state(state, ours)
    search.advance(ours, state, tuple(machine.legal_moves(state, 0)))
    assert search.stats()["collections"] == 1  # on the opponent's clock (no worker here: at once)
    assert not search.stats()["root_change_on_our_clock"]
    _fill(search)
    reply = _joint(machine, state, 1, machine.legal_moves(state, 1)[3])
    state = machine.next_state(state, reply)
    search.advance(reply, state, tuple(machine.legal_moves(state, 0)))
    search.search(300)
    stats = search.stats()
    assert stats["root_change_on_our_clock"] and stats["reply_found"]
    assert stats["collections"] == (1 if collect == "off_clock" else 2)
    assert search.best_move() in machine.legal_moves(state, 0)  # a tree that kept growing where it could


def test_with_the_worker_the_reply_is_searched_at_once_and_the_collection_waits():
    """The same with the worker thread, as a player runs it: after the reply
    the worker's batches start on the new root with no collection first, and
    after our move it collects while the opponent thinks."""
    machine = machine_of("connectfour.kif")
    state = machine.initial_state()
    search = make_tree_search("mcps", machine, 0, seed=2, memory_cap=1 << 20, ponder=True)
    search.start(state, tuple(machine.legal_moves(state, 0)))
    try:
        def until(condition, seconds=60.0):
            deadline = time.monotonic() + seconds
            while not condition():
                assert time.monotonic() < deadline
                time.sleep(0.01)

        until(lambda: fuller_than(search.arena, 0.5))
        ours = _joint(machine, state, 0, search.best_move())
        state = machine.next_state(state, ours)
        search.advance(ours, state, tuple(machine.legal_moves(state, 0)))
        until(lambda: search.stats()["collections"] == 1)  # the opponent's clock
        until(lambda: fuller_than(search.arena, 0.5))
        reply = _joint(machine, state, 1, machine.legal_moves(state, 1)[0])
        state = machine.next_state(state, reply)
        search.advance(reply, state, tuple(machine.legal_moves(state, 0)))
        # searching the new root (the figures a worker publishes: of the new root once a batch ran)
        until(lambda: search.stats().get("root_change_on_our_clock") and search.stats()["iterations"] > 1000)
        stats = search.stats()
        assert stats["collections"] == 1
        assert stats["root_change_s"] == round(search._changes.last.seconds, 4)  # recorded, whatever it took
    finally:
        search.stop()


def test_at_a_simultaneous_root_the_collection_follows_our_answer():
    """Where every role moves at once every root change is on our clock; the
    time between our answer and the next message is not, and a tree more
    than half full is collected then."""
    machine = machine_of("goofspiel_5.kif")
    state = machine.initial_state()
    search = make_tree_search("mcps", machine, 0, seed=2, memory_cap=1 << 20)
    search.prepare(state)
    _fill(search)
    move = search.best_move()  # the answer: collected now, the root is still the position answered
    assert search.stats()["collections"] == 1
    joint = [move] + [machine.legal_moves(state, r)[0] for r in range(1, len(machine.roles))]
    state = machine.next_state(state, joint)
    search.advance(joint, state, tuple(machine.legal_moves(state, 0)))
    assert search.stats()["collections"] == 1 and search.stats()["root_change_on_our_clock"]


def test_the_figures_read_during_a_batch_are_the_new_roots_once_the_root_changed():
    """The player reads the figures without waiting while a batch holds the
    lock; after a root change they are the new root's, with its reply (they
    were the last turn's until the next timed publication)."""
    machine = machine_of("tictactoe.kif")
    search = make_tree_search("mcps", machine, 1, seed=4)
    state = machine.initial_state()
    search.prepare(state)
    search.search(300)
    joint = [machine.legal_moves(state, 0)[4], machine.legal_moves(state, 1)[0]]
    search.advance(joint, machine.next_state(state, joint))
    with search._lock:  # as a batch holds it
        figures = search.stats()
    assert "root_change_s" in figures and len(figures["replies"]) == 1
    search.stop()
