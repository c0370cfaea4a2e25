"""What a reply guesses from when our engine is behind the match.

A stale reply is a guess, but a guess from the legal moves of a state the
match has left is an illegal move almost surely in a game that alternates:
there our last known moves are a single noop. A soak run under load sent
exactly that once (NoGo, our noop in a state where we had to place a stone).
"""

from ggp_agent.engines import make_state_machine
from ggp_agent.gdl import load_game
from ggp_agent.player.match import Following

from ..helpers import TICTACTOE


def test_a_stale_reply_guesses_from_our_last_choice_less_the_cells_taken_since():
    machine = make_state_machine("prolog", load_game(TICTACTOE))
    try:
        x, o = 0, 1
        state = machine.initial_state()
        following = Following(machine, x, machine.roles, state, machine.legal_moves(state, x), None)
        marks = set(following.legal_now)
        assert len(marks) == 9 and following.stale_choices() == following.legal_now

        ours = sorted(marks, key=str)[4]  # (mark 2 2)
        joint = (ours, machine.legal_moves(state, o)[0])
        state = machine.next_state(state, joint)
        following.take_state(joint, state, machine.legal_moves(state, x))
        assert [str(move) for move in following.legal_now] == ["noop"]

        # O's reply is reported but not applied yet: our next moves are the
        # marks of our last choice, less ours and less the one O reports
        theirs = next(move for move in machine.legal_moves(state, o) if str(move) == "(mark 1 1)")
        following.pending.append((following.legal_now[0], theirs))
        guesses = {str(move) for move in following.stale_choices()}
        assert guesses == {str(move) for move in marks} - {"(mark 2 2)", "(mark 1 1)"}
        assert guesses <= {str(move) for move in machine.legal_moves(machine.next_state(state, following.pending[0]), x)}
    finally:
        machine.close()
