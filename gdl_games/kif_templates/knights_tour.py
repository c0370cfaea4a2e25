"""The knight's tour template: the library's single-player puzzle."""

from __future__ import annotations

from .kif import fact_lines, header, on_board, point, points


def knights_tour_game(n: int) -> str:
    """A single-player knight's tour: visit as many squares as possible."""
    cells = n * n
    text = header(f"Knight's tour {n}x{n}", "knights tour", f"""
What it is: a single-player puzzle. A knight starts on a1 of a {n}x{n} board and
jumps (chess knight moves) to squares it has not visited yet; the game ends when
it has no such jump. Goal: 4 points per visited square, so a full tour of all
{cells} squares scores 100 (tours from a corner exist on {n}x{n}).
What it is for: the single-player case of the search (one role, graded goal,
random playouts rarely find the full tour) and the reasoner's one-role paths.
Grounding: no recursion; knight jumps and the visit counter are fact tables.""")
    facts = [f"(point {point(c, r)})" for c, r in points(n)]
    jumps = []
    for c, r in points(n):
        for dc, dr in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
            if on_board(n, c + dc, r + dr):
                jumps.append(f"(jump-from {point(c, r)} {point(c + dc, r + dr)})")
    succ = [f"(succ {i} {i + 1})" for i in range(1, cells)]
    score = [f"(score {i} {i * 100 // cells})" for i in range(1, cells + 1)]
    return text + f"""

(role player)

{fact_lines(facts)}
{fact_lines(jumps, 6)}
{fact_lines(succ, 10)}
; (score ?visited ?goal)
{fact_lines(score, 10)}

(<= (base (at ?c)) (point ?c))
(<= (base (visited ?c)) (point ?c))
(base (count 1))
(<= (base (count ?m)) (succ ?n ?m))
(<= (input player (jump ?c)) (point ?c))

(init (at a1))
(init (visited a1))
(init (count 1))

(<= (legal player (jump ?t)) (true (at ?f)) (jump-from ?f ?t) (not (true (visited ?t))))

(<= (next (at ?t)) (does player (jump ?t)))
(<= (next (visited ?t)) (does player (jump ?t)))
(<= (next (visited ?c)) (true (visited ?c)))
(<= (next (count ?m)) (true (count ?n)) (succ ?n ?m))

(<= canjump (legal player (jump ?t)))
(<= terminal (not canjump))
(<= (goal player ?g) (true (count ?n)) (score ?n ?g))
"""
