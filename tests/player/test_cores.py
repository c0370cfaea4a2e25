"""A player kept on its own cores: a fair match beside another player on a shared machine.

The in-process player's threads (its engine work and the search threads they
start) run only on the cores of its `cpus`; the Prolog thread, which every
player of the process uses, stays on every core; `serve --cpus` pins the whole
process. Read from the kernel (`/proc/<pid>/task/<tid>/status`), not from our
own bookkeeping.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from ggp_agent.cores import allowed_cores, parse_cores
from ggp_agent.referee.lineup import parse_player_spec
from ..helpers import ServeProcess, ServerThread, start_message

pytestmark = pytest.mark.usefixtures("compiled_kernels")


def cores_of_thread(native_id: int, pid: int | None = None) -> frozenset[int]:
    """The cores the kernel lets one thread run on (its Cpus_allowed_list)."""
    status = Path(f"/proc/{pid or os.getpid()}/task/{native_id}/status").read_text()
    listed = next(line for line in status.splitlines() if line.startswith("Cpus_allowed_list:"))
    return frozenset(parse_cores_unchecked(listed.split(":", 1)[1].strip()))


def parse_cores_unchecked(text: str) -> set[int]:
    cores: set[int] = set()
    for item in text.split(","):
        low, _, high = item.partition("-")
        cores.update(range(int(low), int(high or low) + 1))
    return cores


def test_a_core_list_reads_as_taskset_writes_it():
    first = min(allowed_cores())
    assert parse_cores(f"{first}") == (first,)
    assert parse_cores(f"{first}-{first}") == (first,)
    assert parse_player_spec(f"agent:cpus={first}").config.cpus == (first,)
    assert parse_player_spec(f"agent:cpus={first}").config.search_threads == 1
    assert parse_player_spec(f"agent:cpus={first},threads=3").config.search_threads == 3


@pytest.mark.parametrize("text, reason", [
    ("", "no core named"),
    ("x", "not a core number"),
    ("3-1", "not a range"),
    ("4096", "may not run on 4096"),
])
def test_a_bad_core_list_is_refused_with_its_reason(text, reason):
    with pytest.raises(ValueError, match=reason):
        parse_cores(text)
    with pytest.raises(ValueError, match=reason):
        parse_player_spec(f"agent:cpus={text}" if text else "agent:cpus=")


@pytest.mark.skipif(len(allowed_cores()) < 2, reason="pinning shows only with two cores or more")
def test_an_in_process_player_searches_only_on_its_cores():
    core = max(allowed_cores())
    config = parse_player_spec(f"agent:cpus={core},ponder=1").config
    with ServerThread(player=None, **{name: getattr(config, name) for name in ("name", "search", "cpus", "ponder")}) \
            as server:
        assert server.post(start_message("pinned", "xplayer", start_clock=5, play_clock=2)).text == "ready"
        time.sleep(0.5)  # the search thinks on (pondering)
        threads = {thread.name: thread.native_id for thread in threading.enumerate()}
        searching = [name for name in threads if name.startswith("search-")]
        assert searching, f"no search thread running among {sorted(threads)}"
        for name in searching + [name for name in threads if name.startswith(("ggp-engine", "ggp-search"))]:
            assert cores_of_thread(threads[name]) == {core}, name
        assert cores_of_thread(threads["prolog"]) == allowed_cores()
        assert cores_of_thread(threading.main_thread().native_id) == allowed_cores()
        server.post("(ABORT pinned)")


@pytest.mark.skipif(len(allowed_cores()) < 2, reason="pinning shows only with two cores or more")
def test_serve_with_cpus_keeps_every_thread_on_those_cores(tmp_path):
    core = max(allowed_cores())
    with ServeProcess("--cpus", str(core), "--no-warmup", log_path=tmp_path / "serve.log") as served:
        assert "available" in served.post("(info)").text
        task_folder = Path(f"/proc/{served.process.pid}/task")
        tasks = [int(name) for name in os.listdir(task_folder)]
        assert len(tasks) > 1
        for task in tasks:
            assert cores_of_thread(task, served.process.pid) == {core}


def test_serve_refuses_a_core_it_may_not_use(tmp_path):
    with pytest.raises(RuntimeError, match="may not run on 4096"):
        ServeProcess("--cpus", "4096", "--no-warmup", log_path=tmp_path / "serve.log")
