"""Fixtures of the referee's tests: a real Dask cluster on 127.0.0.1 (the tournament
and the experiment run on it)."""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest


@pytest.fixture
def dask_cluster(tmp_path):
    """A real Dask scheduler and two workers, all on 127.0.0.1, stopped afterwards."""
    dask = Path(sys.executable).with_name("dask")
    if not dask.exists():
        pytest.skip("the dask command is not installed (pip install 'ggp-agent[cluster]')")
    scheduler_file = tmp_path / "scheduler.json"
    logs = (tmp_path / "scheduler.log").open("w")
    processes = [subprocess.Popen(
        [str(dask), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
         "--scheduler-file", str(scheduler_file)],
        stdout=logs, stderr=subprocess.STDOUT,
    )]
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        processes.append(subprocess.Popen(
            [str(dask), "worker", "--scheduler-file", str(scheduler_file), "--host", "127.0.0.1",
             "--nworkers", "2", "--nthreads", "1", "--no-dashboard", "--memory-limit", "4GiB"],
            stdout=(tmp_path / "workers.log").open("w"), stderr=subprocess.STDOUT,
        ))
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in reversed(processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        logs.close()
