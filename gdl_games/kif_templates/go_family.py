"""The Go family's templates: NoGo, AtariGo and Go on one board section.

The three share the board, its adjacency and the liberty recursion
(`go_board_section`); they differ in what a move may capture and how a game
ends. Go adds captures, simple ko, passes, a move cap and area scoring.
"""

from __future__ import annotations

from math import ceil, log2

from .kif import (
    adjacency_facts, decisive_ending, directed_pairs, fact_lines, header, orthogonal_neighbours, point, points,
)


def liberty_bits(n: int) -> int:
    """Bits needed to give every point of an n x n board its own binary code."""
    return max(1, ceil(log2(n * n)))


#: The frame rule of stones in games that never remove one (NoGo, AtariGo).
STONES_STAY = "(<= (next (cell ?c ?p)) (true (cell ?c ?p)) (role ?p))"


def go_board_section(n: int, stone_frame: str = STONES_STAY) -> str:
    """Points, orthogonal adjacency, liberty codes and the group-liberty recursion.

    Shared by NoGo, AtariGo and Go; `stone_frame` is the rule (or rules) that
    keeps a stone on its point, the one place where Go, which removes captured
    stones, differs. The trick that keeps the ground size linear in the
    board: a group has two or more liberties exactly when, for some bit k of the
    points' binary codes, it has a liberty whose bit k is 0 and one whose bit k is
    1 (two distinct points differ in some bit). So (libcode ?stone ?k ?v) is a
    recursion over one point, with k and v from a table of log2(cells) bits.
    """
    bits = liberty_bits(n)
    facts = [f"(point {point(c, r)})" for c, r in points(n)]
    codes = []
    for index, (c, r) in enumerate(points(n)):
        codes.append(" ".join(
            f"(bit {point(c, r)} {k + 1} {(index >> k) & 1})" for k in range(bits)
        ))
    return f"""(role black)
(role white)
(opponent black white) (opponent white black)

; The board: points, orthogonal adjacency.
{fact_lines(facts)}
{fact_lines(adjacency_facts(n, orthogonal_neighbours), 6)}
; Each point's index (row by row from a1, 0-based) as {bits} bits: (bit ?point ?k ?value).
{chr(10).join(codes)}

(<= (base (cell ?c b)) (point ?c))
(<= (base (cell ?c ?p)) (point ?c) (role ?p))
(<= (base (control ?p)) (role ?p))
(<= (input ?p (place ?c)) (role ?p) (point ?c))
(<= (input ?p noop) (role ?p))

(<= (init (cell ?c b)) (point ?c))
(init (control black))

(<= (next (cell ?c ?p)) (does ?p (place ?c)))
{stone_frame}
(<= (next (cell ?c b)) (true (cell ?c b)) (not (placed ?c)))
(<= (placed ?c) (does ?p (place ?c)))
(<= (next (control ?q)) (true (control ?p)) (opponent ?p ?q))

; (libcode ?s ?k ?v): the group of the stone on ?s has a liberty whose code has
; bit ?k equal to ?v. (For an empty ?s the first rule also fires; nothing asks.)
(<= (libcode ?s ?k ?v) (adjacent ?s ?l) (true (cell ?l b)) (bit ?l ?k ?v))
(<= (libcode ?s ?k ?v) (true (cell ?s ?p)) (role ?p) (adjacent ?s ?d) (true (cell ?d ?p))
    (libcode ?d ?k ?v))
; (twolibs ?s): the group of the stone on ?s has at least two liberties.
(<= (twolibs ?s) (libcode ?s ?k 0) (libcode ?s ?k 1))

; For a move of ?p on the empty point ?c:
; (airy ?c): ?c has an empty neighbour, so the new stone has a liberty.
(<= (airy ?c) (adjacent ?c ?l) (true (cell ?l b)))
; (joins ?p ?c): ?c touches a group of ?p with another liberty than ?c.
(<= (joins ?p ?c) (adjacent ?c ?s) (true (cell ?s ?p)) (twolibs ?s))
; (captures ?p ?c): ?c is the last liberty of a neighbouring group of the opponent.
(<= (captures ?p ?c) (opponent ?p ?q) (adjacent ?c ?s) (true (cell ?s ?q)) (not (twolibs ?s)))
"""


def go_grounding_note(n: int) -> str:
    """The ground size of the liberty recursion, counted from the tables above."""
    cells = n * n
    bits = liberty_bits(n)
    pairs = directed_pairs(n, orthogonal_neighbours)
    atoms = cells * bits * 2
    instances = pairs * bits + pairs * bits * 2 * 2
    return f"""Grounding: liberties are a recursion over one point, (libcode ?stone ?bit ?value)
with {bits} bits: {atoms} atoms and {instances} ground rule instances ({pairs} directed
adjacencies x {bits} bits for the base case, x {bits} bits x 2 values x 2 colours for
the recursion), plus {cells * bits} for (twolibs ?stone). Carrying the hypothetical
point through the recursion ("the group of ?s has a liberty other than ?c")
would ground to about {cells * cells} atoms and {pairs * cells * 2 * 2} rule instances."""


def nogo_game(n: int) -> str:
    """NoGo: Go where capturing and suicide are both illegal; no legal move loses."""
    text = header(f"NoGo {n}x{n}", "nogo", f"""
What it is: NoGo on a {n}x{n} board, as in the MCPS paper. Black moves first and
players alternate placing a stone on an empty point. A move is illegal if it
captures (takes the last liberty of an opponent group) or is suicide (leaves the
placed stone's group without a liberty). No passing, no komi: the player to move
with no legal move loses (a real terminal state with goals 0 / 100).
What it is for: MCPS paper Table 4 (MCPS vs GRAVE on NoGo {n}x{n}).
Stones are never removed, so a group's liberties only shrink.
{go_grounding_note(n)}""")
    return text + "\n\n" + go_board_section(n) + """
(<= (ok ?p ?c) (role ?p) (true (cell ?c b)) (airy ?c) (not (captures ?p ?c)))
(<= (ok ?p ?c) (true (cell ?c b)) (joins ?p ?c) (not (captures ?p ?c)))

(<= (legal ?p (place ?c)) (true (control ?p)) (ok ?p ?c))
(<= (legal ?p noop) (opponent ?p ?q) (true (control ?q)))

; The player to move with no legal move loses.
(<= canmove (true (control ?p)) (ok ?p ?c))
(<= terminal (not canmove))
(<= (goal ?p 0) (true (control ?p)) (not canmove))
(<= (goal ?p 100) (opponent ?p ?q) (true (control ?q)) (not canmove))
(<= (goal ?p 50) (role ?p) canmove)
"""


#: (ok ?p ?c): ?p may place a stone on the empty point ?c when suicide is illegal
#: but captures are not (AtariGo, Go): the new stone has a liberty, joins a group
#: with another liberty, or takes an opponent group's last liberty.
SUICIDE_ILLEGAL = """
(<= (ok ?p ?c) (role ?p) (true (cell ?c b)) (airy ?c))
(<= (ok ?p ?c) (true (cell ?c b)) (joins ?p ?c))
(<= (ok ?p ?c) (true (cell ?c b)) (captures ?p ?c))
"""


def atarigo_game(n: int) -> str:
    """AtariGo: the first capture wins; suicide is illegal; no legal move loses."""
    text = header(f"AtariGo {n}x{n}", "atarigo", f"""
What it is: AtariGo (first-capture Go) on an empty {n}x{n} board, as in the MCPS
paper. Black moves first; players alternate placing a stone on an empty point.
The first player to capture (take the last liberty of an opponent group) wins;
the game ends at once, so captured stones are never removed. Suicide (a move
that leaves the placed group without a liberty and captures nothing) is illegal.
The player to move with no legal move loses (rare; it keeps the game finite and
every non-terminal state with a legal move for the mover).
What it is for: MCPS paper Table 3 (MCPS vs GRAVE on AtariGo {n}x{n}); the paper
adds a capture flag to AtariGo's move codes.
{go_grounding_note(n)}""")
    return text + "\n\n" + go_board_section(n) + SUICIDE_ILLEGAL + """
(<= (legal ?p (place ?c)) (true (control ?p)) (ok ?p ?c))
(<= (legal ?p noop) (opponent ?p ?q) (true (control ?q)))

; (captor ?p): ?p made the first capture.
(<= (base (captor ?p)) (role ?p))
(<= (next (captor ?p)) (does ?p (place ?c)) (captures ?p ?c))

(<= canmove (true (control ?p)) (ok ?p ?c))
(<= (won ?p) (true (captor ?p)))
(<= (won ?p) (opponent ?p ?q) (true (control ?q)) (not canmove))
(<= decided (won ?p))
""" + decisive_ending("won")


GO_KOMI = 6.5


def go_move_limit(n: int) -> int:
    """Joint moves after which a Go game ends and is scored as it stands: 4N^2.

    Measured with uniformly random legal moves (pass included, eye filling
    allowed) on 2,000 / 300 / 100 games of 5x5 / 7x7 / 9x9: 99% end by two
    passes within 99 / 183 / 244 moves, and 4N^2 (100 / 196 / 324) cut 19 of
    the 2,000 5x5 games and none of the others (300 propnet playouts per size:
    7, 2 and 1 reached the cap). Simple ko forbids only the immediate retake,
    so longer cycles (triple ko) are legal: without a cap a game need not end.
    """
    return 4 * n * n


def go_black_margin() -> int:
    """The least (black area - white area) that wins for black under the komi."""
    return int(GO_KOMI) + 1


def go_tally_start(n: int) -> int:
    """The tally before any point is counted: (points left) - (black's margin)."""
    return n * n - go_black_margin()


def go_ground_sizes(n: int) -> dict[str, tuple[int, int]]:
    """Atoms and ground rule instances of Go's region and tally relations, as a
    grounder that keeps only reachable instances gets them (counted here from
    the same tables the rules use)."""
    cells = n * n
    pairs = directed_pairs(n, orthogonal_neighbours)
    start = go_tally_start(n)
    atoms = instances = 1  # the origin's tally, a fact
    values = {start}
    for _ in range(cells):
        following = {t - d for t in values for d in (0, 1, 2) if t - d >= 0}
        instances += sum(1 for t in values for d in (0, 1, 2) if t - d >= 0)
        atoms += len(following)
        values = following
    return {
        "reaches": (2 * cells, 4 * pairs),
        "tally": (atoms, instances),
    }


def go_game(n: int) -> str:
    """Go with area scoring, simple ko, komi 6.5, passing and a move cap."""
    cells = n * n
    limit = go_move_limit(n)
    margin = go_black_margin()
    start = go_tally_start(n)
    order = [point(c, r) for c, r in points(n)]
    sizes = go_ground_sizes(n)
    reach_atoms, reach_instances = sizes["reaches"]
    tally_atoms, tally_instances = sizes["tally"]
    text = header(f"Go {n}x{n}", "go", f"""
What it is: Go on an empty {n}x{n} board under the MCPS paper's rules: Chinese
(area) scoring, simple ko, komi {GO_KOMI} for white. Black moves first; the player
to move places a stone on an empty point or passes. Opponent groups left
without a liberty are removed. Suicide is illegal (the usual choice in computer
Go): a move must leave its stone's group a liberty, possibly one its captures
make. Simple ko: after a move that captures exactly one stone with a stone that
joins no group of its own and is then left with that one liberty, the opponent
may not play on the captured point at once (the only immediate retake that
would repeat the position). The game ends after two passes in a row, or after
{limit} joint moves, and is scored as it stands. Why a cap: simple ko allows
longer cycles (triple ko), so without one a game need not end. Why 4N^2: more
than 98% of uniformly random games (pass included) end by two passes before it
on 5x5, nearly all on 7x7 and 9x9 (go_family.go_move_limit has the figures), and
it is the wargame's limit too. A player's area is its stones plus the empty
points whose empty region touches its stones only; black wins (100 / 0) when
its area exceeds white's by more than {GO_KOMI}, that is by {margin} or more, else
white wins. There is no draw. Dead stones are not removed before scoring: a
game ends by passes when both players agree to stop.
What it is for: MCPS paper Table 2 (MCPS vs GRAVE on Go {n}x{n}).
{go_grounding_note(n)}
Regions: (reaches ?player ?empty), a recursion over one point: {reach_atoms} atoms and
{reach_instances} ground rule instances. Score: (tally ?point ?t) walks the points in
a1-order with t = (black area - white area so far) + (points not yet counted)
- {margin}, which only decreases (by 0, 1 or 2 a point) and is dropped below 0,
where white has won: {tally_atoms} atoms and {tally_instances} ground rule instances from the
(minus ?t ?d ?u) table, and black wins when a tally reaches the last point.""")
    succ = [f"(succ {i} {i + 1})" for i in range(limit)]
    after = [f"(after origin {order[0]})"] + [
        f"(after {a} {b})" for a, b in zip(order, order[1:])]
    minus = [f"(minus {t} {d} {t - d})" for t in range(start + 1) for d in (0, 1, 2) if t - d >= 0]
    stone_frame = """(<= (next (cell ?c ?p)) (true (cell ?c ?p)) (role ?p) (not (dies ?c)))
(<= (next (cell ?c b)) (dies ?c))"""
    return text + "\n\n" + go_board_section(n, stone_frame) + SUICIDE_ILLEGAL + f"""
(<= (legal ?p (place ?c)) (true (control ?p)) (ok ?p ?c) (not (true (ko ?c))))
(<= (legal ?p pass) (true (control ?p)))
(<= (legal ?p noop) (opponent ?p ?q) (true (control ?q)))

(<= (input ?p pass) (role ?p))
(<= (base (ko ?c)) (point ?c))
(base (passes 1))
(base (passes 2))
(base (step 0))
(<= (base (step ?m)) (succ ?n ?m))
(init (step 0))

; Captures. (capturing ?p): ?p's stone takes the last liberty of some group
; (checked first, so that a reasoner asks nothing more on the many moves that
; capture nothing); (movebit ?k ?v): bit ?k of the placed point's code is ?v. A
; group with one liberty has it elsewhere when one of its liberty bits differs
; from the placed point's, so (dies ?s): the stone on ?s is in a group of the
; mover's opponent whose only liberty is the placed point.
(<= (capturing ?p) (does ?p (place ?c)) (captures ?p ?c))
(<= (movebit ?k ?v) (does ?p (place ?c)) (bit ?c ?k ?v))
(<= (elsewhere ?s) (libcode ?s ?k ?v) (movebit ?k ?w) (distinct ?v ?w))
(<= (dies ?s) (capturing ?p) (opponent ?p ?q) (true (cell ?s ?q)) (not (twolibs ?s))
    (not (elsewhere ?s)))

; Simple ko. (twodie): two or more stones die (their codes differ in some bit);
; (lonely): the placed stone touches no empty point and no stone of its own, so
; after a single capture its one liberty is the captured point.
(<= (diebit ?k ?v) (dies ?s) (bit ?s ?k ?v))
(<= twodie (diebit ?k 0) (diebit ?k 1))
(<= (friendly ?p ?c) (adjacent ?c ?s) (true (cell ?s ?p)))
(<= lonely (does ?p (place ?c)) (not (airy ?c)) (not (friendly ?p ?c)))
(<= (next (ko ?s)) (dies ?s) (not twodie) lonely)

; Passes and the move cap.
(<= (next (passes 1)) (does ?p pass) (not (true (passes 1))))
(<= (next (passes 2)) (does ?p pass) (true (passes 1)))
(step-limit {limit})
{fact_lines(succ, 10)}
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= over (true (passes 2)))
(<= over (step-limit ?n) (true (step ?n)))

; Area scoring. (reaches ?p ?e): the empty point ?e is in an empty region that
; touches a stone of ?p. (weight ?c ?d): ?c takes ?d from the tally: 0 when it
; is black's area, 2 when white's, 1 when neither's.
(<= (reaches ?p ?e) (true (cell ?e b)) (adjacent ?e ?s) (true (cell ?s ?p)) (role ?p))
(<= (reaches ?p ?e) (true (cell ?e b)) (adjacent ?e ?f) (reaches ?p ?f))
(<= (area ?p ?c) (true (cell ?c ?p)) (role ?p))
(<= (area ?p ?c) (reaches ?p ?c) (opponent ?p ?q) (not (reaches ?q ?c)))
(<= (weight ?c 0) (area black ?c))
(<= (weight ?c 2) (area white ?c))
(<= (weight ?c 1) (point ?c) (not (area black ?c)) (not (area white ?c)))
; The points in a1-order, and the tally before the first: {cells} points - {margin}.
{fact_lines(after, 8)}
(tally origin {start})
{fact_lines(minus, 8)}
(<= (tally ?c ?u) (after ?b ?c) (tally ?b ?t) (weight ?c ?d) (minus ?t ?d ?u))
(<= blackwins (tally {order[-1]} ?t))

(<= (won black) over blackwins)
(<= (won white) over (not blackwins))
(<= decided (won ?p))
""" + decisive_ending("won")
