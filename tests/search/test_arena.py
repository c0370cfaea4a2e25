"""The arena's memory: sized once under the cap, never grown, zeroed lazily, full without failing."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.search.registry import make_tree_search
from ggp_agent.search.tree.arena import C_FULL, C_NODES, arena_bytes, new_arena, plan_capacity

from ..helpers import GAMES

#: These tests run agents or searches: numba kernels loaded before the first one (../conftest.py).
pytestmark = pytest.mark.usefixtures("compiled_kernels")


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


def _search_memory_samples(path: Path, seconds: float, cap: int) -> dict:
    """Run a pondering search for `seconds` and sample, every 0.5 s, whether the
    arena is full, the process's resident memory and the arena's written bytes.

    Runs in a process of its own (see the test): in the suite's process, threads
    that earlier tests left winding down allocate too, and their megabytes are
    not the search's."""
    import time

    from ggp_agent.search.tree.arena import LAZY_FROM_BYTES, process_rss
    from ggp_agent.search.warmup import warm_up

    warm_up()  # the kernels loaded before the search, as `serve` has them before a match
    machine = make_state_machine("propnet", load_game(path))
    try:
        state = machine.initial_state()
        search = make_tree_search("mcps", machine, 0, seed=1, memory_cap=cap)
        before = process_rss()
        search.start(state, legal_moves=machine.legal_moves(state, 0))
        arrays = [array for array in search.arena if array.nbytes >= LAZY_FROM_BYTES]  # its own mappings
        samples = []
        began = time.monotonic()
        while time.monotonic() - began < seconds:
            time.sleep(0.5)
            in_arena = sum(_written_bytes(array) for array in arrays)
            samples.append((search.stats().get("pool_full", 0), process_rss(), in_arena))
        stats = search.stats()
        search.stop()
        return {"before": before, "samples": samples, "stats": stats, "arena_bytes": arena_bytes(search.arena),
                "legal": search.best_move() in machine.legal_moves(state, 0)}
    finally:
        machine.close()


@pytest.mark.slow
def test_memory_stays_under_the_cap_over_a_60_s_search_on_connect_four():
    """A pondering search on connect four for 60 s (it fills its arena within
    seconds, then keeps searching): the process grows by the arena's pages plus
    a few MB of runtime (thread stack, numba), and outside the arena not at all
    once it is full. The arena's own pages come on first touch (4 KB each), so
    a full tree still maps statistics of edges first backed up late; they are
    inside the cap and not counted as growth. The search runs in a fresh
    process, so that what is measured is the search's memory alone."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    path = GAMES / "connectfour.kif"
    if not path.exists():
        pytest.skip("gdl_games/connectfour.kif comes with the games branch")
    cap = 24 << 20  # small enough that the search fills it well within the minute
    runtime = 24 << 20
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        run = pool.submit(_search_memory_samples, path, 60.0, cap).result(timeout=600)
    samples, stats = run["samples"], run["stats"]
    assert run["arena_bytes"] <= cap
    assert max(rss for _, rss, _ in samples) - run["before"] <= cap + runtime
    outside = [rss - in_arena for pool_full, rss, in_arena in samples if pool_full > 0]
    assert len(outside) > 10, "the arena never filled"
    assert max(outside) - min(outside) <= 2 << 20, "the process grew outside the arena after it was full"
    assert stats["nodes"] == stats["node_capacity"] or stats["pool_full"] > 0
    assert run["legal"]
