"""The template of the MCPS paper's asymmetric wargame, on a board with hex adjacency."""

from __future__ import annotations

from .kif import LETTERS, adjacency_facts, fact_lines, header, hex_distance, hex_neighbours, point, points


def wargame_game(n: int) -> str:
    """The MCPS paper's asymmetric wargame on an n x n board with hex adjacency."""
    units = n - 1
    setup_moves = 2 * units
    limit = 4 * n * n
    hq = (n, n // 2 + 1)  # paper: (row, col) = (floor(N/2), N-1), 0-based
    last = LETTERS[n - 1]
    text = header(f"Wargame {n}x{n}", "wargame", f"""
What it is: the asymmetric wargame of the MCPS paper's appendix on a {n}x{n} board
with hex adjacency (c+-1, r), (c, r+-1), (c+1, r-1), (c-1, r+1). Columns are letters
(paper column 0 = a), rows numbers (paper row 0 = 1). Red attacks, blue defends;
each has {units} units of 2 health points.
Setup: players alternate, red first, placing one unit per turn on an empty cell
of their own columns (red: a, b; blue: {LETTERS[n - 2]}, {last}) until all {setup_moves} are placed.
Movement: players alternate, red first. The player to move moves one of its
units to an adjacent empty cell, (move FROM TO). Red may also enter blue's
headquarters {point(*hq)} when a blue unit holds it (the blue unit is removed).
A player none of whose units can move plays noop (a pass; the paper does not
say, and this keeps the game going as the turn limit expects).
Combat: after a move, the moved unit attacks the weakest enemy unit adjacent to
its new cell: lowest health first, then nearest (hex distance) to {point(*hq)},
then first in row-by-row order from a1 (the paper leaves this last tie open).
The attacked unit loses one health point and is removed at zero.
End: red wins at once when a red unit stands on {point(*hq)}, or when no blue unit
is left after setup. Blue wins when no red unit is left after setup, or when
{limit} half-moves (4N^2, counting the {setup_moves} setup turns) have been played
without a red win. Winner 100, loser 0.
What it is for: MCPS paper Table 5 (MCPS vs GRAVE on the wargame {n}x{n}); the
paper's move codes are (player, destination, attacks or not).
Grounding: no recursion. The attack target uses (ranked ?to ?first ?second), a
static order of the neighbours of each cell; the turn counter is a table of
{limit} (succ ?n ?m) facts.""")
    cells = points(n)
    facts = [f"(point {point(c, r)})" for c, r in cells]
    camps = [f"(camp red {point(c, r)})" for c in (1, 2) for r in range(1, n + 1)]
    camps += [f"(camp blue {point(c, r)})" for c in (n - 1, n) for r in range(1, n + 1)]
    order = {cell: index for index, cell in enumerate(cells)}

    def rank(cell):
        return (hex_distance(cell, hq), order[cell])

    ranked = []
    for c, r in cells:
        near = sorted(hex_neighbours(n, c, r), key=rank)
        for i, first in enumerate(near):
            for second in near[i + 1:]:
                ranked.append(f"(ranked {point(c, r)} {point(*first)} {point(*second)})")
    succ = [f"(succ {i} {i + 1})" for i in range(limit)]
    setup = [f"(setup-step {i})" for i in range(setup_moves)]
    return text + f"""

(role red)
(role blue)
(opponent red blue) (opponent blue red)
(health 1) (health 2)
(hq {point(*hq)})

; The board.
{fact_lines(facts)}
{fact_lines(adjacency_facts(n, hex_neighbours), 6)}
; Where each side places its units during setup.
{fact_lines(camps)}
; (ranked ?to ?a ?b): around ?to, neighbour ?a is attacked before ?b when both
; hold enemy units of equal health (nearer to the headquarters first, then a1-order).
{fact_lines(ranked, 5)}
; The turn counter, and the turns that belong to setup.
(step-limit {limit})
{fact_lines(succ, 10)}
{fact_lines(setup, 10)}

(<= (base (unit ?c ?p ?h)) (point ?c) (role ?p) (health ?h))
(<= (base (control ?p)) (role ?p))
(base (step 0))
(<= (base (step ?m)) (succ ?n ?m))
(<= (input ?p (place ?c)) (camp ?p ?c))
(<= (input ?p (move ?f ?t)) (role ?p) (adjacent ?f ?t))
(<= (input ?p noop) (role ?p))

(init (control red))
(init (step 0))

(<= setup (true (step ?n)) (setup-step ?n))
(<= (occupied ?c) (true (unit ?c ?p ?h)))
(<= (movable ?p ?f ?t) (true (unit ?f ?p ?h)) (adjacent ?f ?t) (not (occupied ?t)))
(<= (movable red ?f ?t) (true (unit ?f red ?h)) (adjacent ?f ?t) (hq ?t) (true (unit ?t blue ?g)))
(<= (canmove ?p) (movable ?p ?f ?t))

(<= (legal ?p (place ?c)) (true (control ?p)) setup (camp ?p ?c) (not (occupied ?c)))
(<= (legal ?p (move ?f ?t)) (true (control ?p)) (not setup) (movable ?p ?f ?t))
(<= (legal ?p noop) (true (control ?p)) (not setup) (not (canmove ?p)))
(<= (legal ?p noop) (opponent ?p ?q) (true (control ?q)))

; Movement and combat.
(<= (vacated ?f) (does ?p (move ?f ?t)))
(<= (entered ?t) (does ?p (move ?f ?t)))
(<= (foe ?q) (true (control ?p)) (opponent ?p ?q))
; wounded-near: an enemy unit with 1 health point stands next to the moved unit.
(<= wounded-near (entered ?t) (adjacent ?t ?b) (foe ?q) (true (unit ?b ?q 1)))
; (spared ?a): the enemy unit on ?a, next to the moved unit, is not the weakest.
(<= (spared ?a) (entered ?t) (adjacent ?t ?a) (foe ?q) (true (unit ?a ?q 2)) wounded-near)
(<= (spared ?a) (entered ?t) (ranked ?t ?b ?a) (foe ?q) (true (unit ?a ?q ?h))
    (true (unit ?b ?q ?h)))
(<= (hit ?a) (entered ?t) (adjacent ?t ?a) (foe ?q) (true (unit ?a ?q ?h)) (not (spared ?a)))

(<= (next (unit ?c ?p 2)) (does ?p (place ?c)))
(<= (next (unit ?t ?p ?h)) (does ?p (move ?f ?t)) (true (unit ?f ?p ?h)))
(<= (next (unit ?c ?p ?h)) (true (unit ?c ?p ?h))
    (not (vacated ?c)) (not (entered ?c)) (not (hit ?c)))
(<= (next (unit ?c ?p 1)) (true (unit ?c ?p 2)) (hit ?c))
(<= (next (control ?q)) (true (control ?p)) (opponent ?p ?q))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))

; The end.
(<= (alive ?p) (true (unit ?c ?p ?h)))
(<= redwins (hq ?c) (true (unit ?c red ?h)))
(<= redwins (not setup) (not (alive blue)))
(<= bluewins (not redwins) (not setup) (not (alive red)))
(<= bluewins (not redwins) (step-limit ?n) (true (step ?n)))

(<= terminal redwins)
(<= terminal bluewins)
(<= (goal red 100) redwins)
(<= (goal red 0) bluewins)
(<= (goal red 50) (not redwins) (not bluewins))
(<= (goal blue 100) bluewins)
(<= (goal blue 0) redwins)
(<= (goal blue 50) (not redwins) (not bluewins))
"""
