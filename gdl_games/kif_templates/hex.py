"""The Hex template: connectivity as a recursion over one cell."""

from __future__ import annotations

from .kif import (
    LETTERS, adjacency_facts, decisive_ending, directed_pairs, fact_lines, header, hex_neighbours, point, points,
)


def hex_game(n: int) -> str:
    """Hex on an n x n rhombus: red joins rows 1 and n, blue joins columns a and last."""
    last = LETTERS[n - 1]
    cells = n * n
    pairs = directed_pairs(n, hex_neighbours)
    text = header(f"Hex {n}x{n}", "hex", f"""
What it is: Hex on an {n}x{n} rhombus. Red moves first and wins by joining row 1
to row {n} with a chain of red cells; blue wins by joining column a to column {last}.
Adjacency is the usual six neighbours: (c+-1, r), (c, r+-1), (c+1, r-1), (c-1, r+1).
A full board always has exactly one winner, so there is no draw rule.
No swap (pie) rule: the first player wins with perfect play on every size, and
the MCPS paper's comparisons alternate who plays first (400 + 400 games)
instead; a swap move would also be the one move with no cell, which move codes
keyed by (player, cell) have no place for.
What it is for: MCPS paper Table 1 (MCPS vs GRAVE on Hex {n}x{n}). Hex is
permutation-invariant: any order of a playout's moves reaches the same end.
Grounding: connectivity is a recursion over one cell, (reach ?player ?cell):
{2 * cells} atoms and {2 * pairs + 2 * n} ground rule instances ({pairs} directed
adjacencies x 2 colours, plus the 2 x {n} edge cells that start a chain);
a two-cell path relation would need about {2 * cells * cells} atoms.""")
    facts = [f"(point {point(c, r)})" for c, r in points(n)]
    start = [f"(start red {point(c, 1)})" for c in range(1, n + 1)]
    start += [f"(start blue {point(1, r)})" for r in range(1, n + 1)]
    finish = [f"(finish red {point(c, n)})" for c in range(1, n + 1)]
    finish += [f"(finish blue {point(n, r)})" for r in range(1, n + 1)]
    return text + f"""

(role red)
(role blue)
(opponent red blue) (opponent blue red)

; The board.
{fact_lines(facts)}
{fact_lines(adjacency_facts(n, hex_neighbours), 6)}
; Each colour's two sides: chains grow from start and must reach finish.
{fact_lines(start)}
{fact_lines(finish)}

(<= (base (cell ?c b)) (point ?c))
(<= (base (cell ?c ?p)) (point ?c) (role ?p))
(<= (base (control ?p)) (role ?p))
(<= (input ?p (place ?c)) (role ?p) (point ?c))
(<= (input ?p noop) (role ?p))

(<= (init (cell ?c b)) (point ?c))
(init (control red))

(<= (legal ?p (place ?c)) (true (control ?p)) (true (cell ?c b)))
(<= (legal ?p noop) (opponent ?p ?q) (true (control ?q)))

(<= (next (cell ?c ?p)) (does ?p (place ?c)))
(<= (next (cell ?c ?p)) (true (cell ?c ?p)) (role ?p))
(<= (next (cell ?c b)) (true (cell ?c b)) (not (placed ?c)))
(<= (placed ?c) (does ?p (place ?c)))
(<= (next (control ?q)) (true (control ?p)) (opponent ?p ?q))

; (reach ?p ?c): the stone of ?p on ?c is chained to ?p's start side.
(<= (reach ?p ?c) (start ?p ?c) (true (cell ?c ?p)))
(<= (reach ?p ?c) (true (cell ?c ?p)) (adjacent ?c ?d) (reach ?p ?d))
(<= (connected ?p) (finish ?p ?c) (reach ?p ?c))
(<= decided (connected ?p))
""" + decisive_ending("connected")
