"""Rules from the network are data: Prolog syntax in symbols executes nothing,
and runaway recursion ends in a clear error, not a hang."""

import os

import pytest

from ggp_agent.gdl import load_game, parse_term
from ggp_agent.reasoner import ReasonerError
from ggp_agent.reasoner.prolog_machine import PrologStateMachine

from ..helpers import LEFT_RECURSION, prolog_syntax_game


def test_prolog_syntax_in_symbols_plays_as_plain_gdl(tmp_path):
    marker = tmp_path / "pwned"
    with PrologStateMachine(load_game(prolog_syntax_game(str(marker)))) as machine:
        assert [str(r) for r in machine.roles] == ["'o''neil'", "halt"]
        state = machine.initial_state()
        assert "(:- (assertz (pwned)) true)" in {str(f) for f in state}  # (pwned) as the rules write it
        assert [str(m) for m in machine.legal_moves(state, 0)] == ['(a,b "c" [] {} |)', "(call 1)"]
        assert [str(m) for m in machine.legal_moves(state, 1)] == [f"(consult {marker})", "halt"]
        state = machine.next_state(state, (parse_term("(call 1)"), parse_term(f"(consult {marker})")))
        state = machine.next_state(state, (parse_term('(a,b "c" [] {} |)'), parse_term("halt")))
        assert machine.is_terminal(state)
        assert machine.goal_values(state) == (100, 100)
    assert not marker.exists()
    assert os.getpid()  # the process is still here: `halt` halted nothing


def test_left_recursion_over_a_cycle_terminates():
    with PrologStateMachine(load_game(LEFT_RECURSION)) as machine:
        state = machine.initial_state()
        assert [str(m) for m in machine.legal_moves(state, 0)] == ["(go a)", "(go b)", "(go c)"]
        state = machine.next_state(state, (parse_term("(go c)"),))
        assert [str(m) for m in machine.legal_moves(state, 0)] == ["(go a)", "(go b)", "(go c)"]


RUNAWAY = """
(role r)
(nat 0)
(<= (nat (s ?x)) (nat ?x))
(init go)
(legal r wait)
(<= terminal (nat ?x) (true never))
(goal r 0)
"""


def test_runaway_recursion_raises_a_clear_error_and_the_engine_survives():
    with PrologStateMachine(load_game(RUNAWAY), query_time_limit=1.0) as machine:
        with pytest.raises(ReasonerError) as error:
            machine.is_terminal(machine.initial_state())
        assert "time limit" in str(error.value) or "resource" in str(error.value)
        assert [str(m) for m in machine.legal_moves(machine.initial_state(), 0)] == ["wait"]
    with PrologStateMachine(load_game(LEFT_RECURSION)) as other:
        assert len(other.legal_moves(other.initial_state(), 0)) == 3


def test_games_are_isolated_from_each_other():
    one = PrologStateMachine(load_game("(role r) (init a) (legal r x) (<= terminal (true b)) (goal r 1) (p 1)"))
    two = PrologStateMachine(load_game("(role r) (init b) (legal r y) (<= terminal (true b)) (goal r 2) (p 2)"))
    try:
        assert [str(m) for m in one.legal_moves(one.initial_state(), 0)] == ["x"]
        assert [str(m) for m in two.legal_moves(two.initial_state(), 0)] == ["y"]
        assert not one.is_terminal(one.initial_state())
        assert two.is_terminal(two.initial_state())
    finally:
        one.close()
        two.close()
    with pytest.raises(ReasonerError, match="closed"):
        one.initial_state()


GROWING = "(role r) (init (c 0)) (<= (next (c (f ?x ?x))) (true (c ?x))) (legal r wait) (<= terminal (true never)) (goal r 0)"


def test_exhausted_prolog_stack_is_a_resource_error(tmp_path):
    """In a child process with a 64 MiB stack: terms that double each step overflow it."""
    import subprocess
    import sys

    script = tmp_path / "grow.py"
    script.write_text(
        "from ggp_agent.reasoner.prolog_machine import PrologStateMachine\n"
        "from ggp_agent.reasoner import ReasonerResourceError\n"
        f"m = PrologStateMachine.from_text({GROWING!r})\n"
        "try:\n"
        "    m.random_playout(m.initial_state(), max_steps=60)\n"
        "except ReasonerResourceError as error:\n"
        "    print('resource error:', str(error)[:80])\n"
        "print('still answering:', m.legal_moves(m.initial_state(), 0))\n"
    )
    env = dict(os.environ, GGP_PROLOG_STACK_MB="64", GGP_PROLOG_TABLE_MB="64")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert "resource error: Prolog ran out of a bounded resource" in done.stdout, done.stderr
    assert "still answering: (Symbol(name='wait'),)" in done.stdout


def test_terms_deeper_than_the_bound_are_an_error_not_a_crash():
    deep = "(role r) (init (c 0)) (<= (next (c (s ?x))) (true (c ?x))) (legal r wait) (<= terminal (true never)) (goal r 0)"
    with PrologStateMachine(load_game(deep)) as machine:
        state = machine.initial_state()
        with pytest.raises(ReasonerError, match="nested deeper"):
            for _ in range(400):
                state = machine.next_state(state, (parse_term("wait"),))


#: `(level40 x)` has 2^40 proofs: each level is proved by two rules, each
#: through the level below (a relation per level: no recursion, so nothing is
#: tabled). Every proof gives the same ground atom.
MANY_PROOFS = "(role r) (level0 x) (way a) (way b)\n" + "\n".join(
    f"(<= (level{n + 1} ?x) (level{n} ?x) (way {way}))" for n in range(40) for way in "ab"
) + """
(init (at x))
(<= (legal r go) (true (at ?x)) (level40 ?x))
(<= (next (at 0)) (does r go))
(<= terminal (true (at 0)))
(goal r 100)
"""


def test_a_ground_atom_with_exponentially_many_proofs_is_proved_once():
    """A ground call needs one proof: the engine stops at the first instead of
    enumerating 2^40 of them (or holding a choice point for each)."""
    with PrologStateMachine(load_game(MANY_PROOFS), query_time_limit=5.0) as machine:
        state = machine.initial_state()
        assert [str(m) for m in machine.legal_moves(state, 0)] == ["go"]
        assert machine.is_terminal(machine.next_state(state, (parse_term("go"),)))
