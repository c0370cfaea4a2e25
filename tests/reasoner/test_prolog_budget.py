"""The one Prolog thread is never held long by the search: bounded playouts,
urgent calls ahead of queued ones, and a process that exits with machines open."""

import subprocess
import sys
import threading
import time

from ggp_agent.gdl import load_game, parse_term
from ggp_agent.reasoner.prolog_machine import PrologStateMachine
from ggp_agent.reasoner.prolog_thread import PrologThread, urgent_calls
from ggp_agent.reasoner.statemachine import PlayoutOutcome

#: One role counts to 300 by steps of one or two: long playouts, always a choice.
LONG_GAME = "(role r) (init (at 0))\n" + "\n".join(
    f"(succ {n} {n + 1})" for n in range(300)
) + """
(<= (legal r one) (true (at ?n)))
(<= (legal r two) (true (at ?n)))
(<= (next (at ?m)) (does r one) (true (at ?n)) (succ ?n ?m))
(<= (next (at ?m)) (does r two) (true (at ?n)) (succ ?n ?k) (succ ?k ?m))
(<= (next (at 300)) (does r two) (true (at 299)))
(<= terminal (true (at 300)))
(<= (goal r 100) (true (at 300)))
(<= (goal r 0) (not (true (at 300))))
"""


def test_a_bounded_playout_hands_back_the_state_reached_and_goes_on_from_it():
    with PrologStateMachine(load_game(LONG_GAME)) as machine:
        state = machine.initial_state()
        calls, steps = 0, 0
        while True:
            progress = machine.bounded_playout(state, 1000, budget=0.0)  # one step per call
            calls += 1
            steps += progress.steps
            if progress.finished:
                break
            assert progress.steps == 1 and progress.goals is None
            state = progress.reached
        assert progress.outcome is PlayoutOutcome.TERMINAL and progress.goals == (100,)
        assert calls == steps and 150 <= steps <= 300
        # With a budget to spare it is one call; with a step cap it stops there.
        whole = machine.bounded_playout(machine.initial_state(), 1000, budget=60.0)
        assert whole.outcome is PlayoutOutcome.TERMINAL and whole.reached is None
        cut = machine.bounded_playout(machine.initial_state(), 5, budget=60.0)
        assert (cut.outcome, cut.steps, cut.goals) == (PlayoutOutcome.STEP_LIMIT, 5, (0,))


def test_urgent_calls_go_ahead_of_queued_ones():
    thread = PrologThread.instance()
    gate = threading.Event()
    order: list[str] = []
    thread_started = threading.Event()

    def blocker():
        thread_started.set()
        gate.wait(10)

    holder = threading.Thread(target=thread.call, args=(blocker,))
    holder.start()
    thread_started.wait(10)  # the Prolog thread is busy: what comes next waits in the queue

    def submit(name: str, urgent: bool) -> threading.Thread:
        def run():
            if urgent:
                with urgent_calls():
                    thread.call(order.append, name)
            else:
                thread.call(order.append, name)

        worker = threading.Thread(target=run)
        worker.start()
        return worker

    workers = []
    for index in range(5):
        workers.append(submit(f"search{index}", urgent=False))
        time.sleep(0.02)  # arrival order
    workers.append(submit("player", urgent=True))
    time.sleep(0.05)
    gate.set()
    for worker in workers + [holder]:
        worker.join(10)
    assert order[0] == "player"
    assert order[1:] == [f"search{index}" for index in range(5)]


def test_a_process_with_open_machines_exits():
    script = (
        "from ggp_agent.reasoner.prolog_machine import PrologStateMachine\n"
        "a = PrologStateMachine.from_text('(role r) (init p) (legal r x) (<= terminal (true q)) (goal r 1)')\n"
        "b = PrologStateMachine.from_text('(role r) (init p) (legal r y) (<= terminal (true q)) (goal r 2)')\n"
        "print(a.legal_moves(a.initial_state(), 0), b.legal_moves(b.initial_state(), 0))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Symbol(name='x')" in done.stdout


def test_the_search_leaves_the_engine_to_the_player_within_a_short_call():
    """A Monte Carlo search runs on a game with long playouts; the player's calls
    (urgent) each wait for one bounded call of the search at most."""
    from ggp_agent.search.flat import MonteCarloSearch

    with PrologStateMachine(load_game(LONG_GAME)) as machine:
        search = MonteCarloSearch(machine, 0, seed=1)
        state = machine.initial_state()
        search.start(state)
        try:
            time.sleep(0.3)
            waits = []
            for _ in range(20):
                began = time.monotonic()
                with urgent_calls():
                    machine.legal_moves(state, 0)
                waits.append(time.monotonic() - began)
                time.sleep(0.02)
            # The search made progress meanwhile: a playout ends within a
            # minute even on a slow machine (its calls were the ones waiting).
            deadline = time.monotonic() + 60
            while search.stats()["total_playouts"] == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            figures = search.stats()
            assert figures["total_playouts"] > 0 and figures["errors"] == 0, figures
        finally:
            search.stop()
        # Each wait is the tail of one call of CALL_BUDGET seconds, plus our own
        # call: far under the half second a 1 s play clock leaves.
        assert max(waits) < 0.5, waits
        assert parse_term("one") in machine.legal_moves(state, 0)
