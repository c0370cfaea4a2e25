"""The stall watch: a stretch in which no Python thread of the process ran is
logged with how much of it garbage collection took, and shown on the status
page. Stalls here are real: a libc sleep called with the GIL held (as a long
C call would hold it), and a real garbage collection of many objects."""

from __future__ import annotations

import gc
import json
import logging
import threading
import time

import pytest

from ggp_agent.server.stall_watch import StallWatch, overlap

from ..helpers import ServerThread, hold_the_gil, raw_request


def watched(watch: StallWatch, stall, collector: bool = True) -> dict:
    """The watch's snapshot after `stall`; with the collector off when
    `collector` is False (a full collection of the test process's many
    objects would be a stall of its own)."""
    if not collector:
        gc.disable()
    watch.start()
    try:
        time.sleep(3 * watch.tick)  # the watch is looking
        stall()
        time.sleep(3 * watch.tick)  # and has woken since
        return watch.snapshot()
    finally:
        watch.stop()
        if not collector:
            gc.enable()


def test_a_held_gil_is_a_stall_without_garbage_collection(caplog):
    with caplog.at_level(logging.WARNING, logger="ggp_agent.server.stall_watch"):
        seen = watched(StallWatch(tick=0.02, report_over=0.1), lambda: hold_the_gil(0.4), collector=False)
    assert seen["stalls"] == 1 and 0.3 <= seen["longest_s"] < 1.0, seen
    assert seen["last"]["garbage_collection_s"] == 0.0
    assert "the process stalled for 0.3" in caplog.text or "the process stalled for 0.4" in caplog.text
    assert "no garbage collection in it" in caplog.text


def test_a_long_garbage_collection_is_named_as_the_stall():
    heap = [[i] for i in range(3_000_000)]  # tracked containers: a full collection walks them all
    try:
        seen = watched(StallWatch(tick=0.005, report_over=0.01), lambda: gc.collect())
    finally:
        del heap
    assert seen["stalls"] >= 1, seen
    assert seen["last"]["garbage_collection_s"] > 0.5 * seen["last"]["seconds"], seen


def test_a_quiet_process_has_no_stall():
    seen = watched(StallWatch(tick=0.02, report_over=0.1), lambda: time.sleep(0.3), collector=False)
    assert seen["stalls"] == 0 and seen["last"] is None


def test_a_collection_inside_the_watchs_own_report_does_not_deadlock():
    """With a collection at every allocation, the report's own allocations
    (under the watch's lock) start collections whose callback takes the lock."""
    watch = StallWatch()
    watch.start()
    finished = []

    def report_under_collections():
        threshold = gc.get_threshold()
        gc.set_threshold(1)
        try:
            for _ in range(2000):
                watch._report(0.0, 1.0)
                watch.snapshot()
        finally:
            gc.set_threshold(*threshold)
        finished.append(True)

    logging.disable(logging.WARNING)
    try:
        worker = threading.Thread(target=report_under_collections, daemon=True)
        worker.start()
        worker.join(timeout=20)
    finally:
        logging.disable(logging.NOTSET)
        watch.stop()
    assert finished, "the watch deadlocked on its own lock"
    assert watch.snapshot()["stalls"] == 2000


def test_only_the_collections_within_a_stall_count_towards_it():
    collections = [(0.0, 1.0, 0), (2.0, 2.5, 2), (2.9, 3.4, 1), (5.0, 6.0, 2)]
    seconds, oldest = overlap(collections, 2.2, 3.0)
    assert seconds == pytest.approx(0.3 + 0.1) and oldest == 2
    assert overlap(collections, 1.0, 2.0) == (0.0, -1)


def test_the_status_page_reports_a_stall_of_the_server_process():
    with ServerThread(name="stalled", search="legal") as server:
        before = json.loads(raw_request(server.port, b"GET /status.json HTTP/1.0\r\n\r\n").text)["stalls"]
        hold_the_gil(0.5)
        time.sleep(0.2)
        after = json.loads(raw_request(server.port, b"GET /status.json HTTP/1.0\r\n\r\n").text)["stalls"]
        page = raw_request(server.port, b"GET / HTTP/1.0\r\n\r\n").text
    assert after["stalls"] >= before["stalls"] + 1 and after["longest_s"] >= 0.4, after
    assert "The process stalled" in page and "garbage collection" in page
