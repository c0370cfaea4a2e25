"""The Breakthrough template: pawns stepping forward, from explicit step tables."""

from __future__ import annotations

from .kif import decisive_ending, fact_lines, header, on_board, point, points


def breakthrough_game(n: int) -> str:
    """Breakthrough on n x n: two rows of pawns each, first to the far row wins."""
    last = n
    text = header(f"Breakthrough {n}x{n}", "breakthrough", f"""
What it is: Breakthrough on a {n}x{n} board. White starts on rows 1-2 and moves
up, black on rows {n - 1}-{n} and moves down; white moves first. A pawn moves one
step straight forward to an empty cell, or one step diagonally forward to a cell
that is empty or holds an enemy pawn (capturing it). A player wins by reaching
the far row; a player to move with no legal move (no pawns left, or all blocked)
loses. There are no draws: every move advances a pawn, so games end.
What it is for: {"MCPS-vs-UCT matches and the search tests (a mid-sized board game)" if n == 6 else "a larger board for speed and scaling checks of the reasoner, the propnet and the search"}.
Grounding: no recursion; moves come from explicit (straight ?p ?from ?to) and
(diagonal ?p ?from ?to) facts.""")
    facts = [f"(point {point(c, r)})" for c, r in points(n)]
    straight, diagonal = [], []
    for c, r in points(n):
        for player, dr in (("white", 1), ("black", -1)):
            if on_board(n, c, r + dr):
                straight.append(f"(straight {player} {point(c, r)} {point(c, r + dr)})")
            for dc in (-1, 1):
                if on_board(n, c + dc, r + dr):
                    diagonal.append(f"(diagonal {player} {point(c, r)} {point(c + dc, r + dr)})")
    start = [f"(start white {point(c, r)})" for r in (1, 2) for c in range(1, n + 1)]
    start += [f"(start black {point(c, r)})" for r in (last - 1, last) for c in range(1, n + 1)]
    far = [f"(far white {point(c, last)})" for c in range(1, n + 1)]
    far += [f"(far black {point(c, 1)})" for c in range(1, n + 1)]
    return text + f"""

(role white)
(role black)
(opponent white black) (opponent black white)

; The board, and the steps each side's pawns may take.
{fact_lines(facts)}
{fact_lines(straight, 4)}
{fact_lines(diagonal, 4)}
{fact_lines(start)}
{fact_lines(far)}

(<= (base (cell ?c ?p)) (point ?c) (role ?p))
(<= (base (control ?p)) (role ?p))
(<= (input ?p (move ?f ?t)) (straight ?p ?f ?t))
(<= (input ?p (move ?f ?t)) (diagonal ?p ?f ?t))
(<= (input ?p noop) (role ?p))

(<= (init (cell ?c ?p)) (start ?p ?c))
(init (control white))

(<= (occupied ?c) (true (cell ?c ?p)))
(<= (movable ?p ?f ?t) (true (cell ?f ?p)) (straight ?p ?f ?t) (not (occupied ?t)))
(<= (movable ?p ?f ?t) (true (cell ?f ?p)) (diagonal ?p ?f ?t) (not (true (cell ?t ?p))))
(<= (legal ?p (move ?f ?t)) (true (control ?p)) (movable ?p ?f ?t))
(<= (legal ?p noop) (opponent ?p ?q) (true (control ?q)))

(<= (next (cell ?t ?p)) (does ?p (move ?f ?t)))
(<= (next (cell ?c ?p)) (true (cell ?c ?p)) (not (touched ?c)))
(<= (touched ?c) (does ?p (move ?c ?t)))
(<= (touched ?c) (does ?p (move ?f ?c)))
(<= (next (control ?q)) (true (control ?p)) (opponent ?p ?q))

(<= (canmove ?p) (movable ?p ?f ?t))
(<= (won ?p) (far ?p ?c) (true (cell ?c ?p)))
(<= (won ?p) (opponent ?p ?q) (true (control ?q)) (not (canmove ?q)))
(<= decided (won ?p))
""" + decisive_ending("won")
