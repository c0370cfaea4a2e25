"""The MCPS paper's figures, typed in from its tables, for comparison with our runs.

Source: T. Cazenave, "Monte Carlo Permutation Search" (2026): Tables 1-5 (the
win rate of MCPS against GRAVE, in percent, 800 games a cell) and the
appendix's Tables 6-35 (per algorithm: playouts per second per thread, the
mean number of moves of a playout from the new leaf to the end, the mean tree
depth at which a new leaf is added). Rows are board sizes, columns the time per
move, as in the paper; every row has one figure per budget of `BUDGETS`.

The paper's budgets are 0.25, 0.5, 1 and 2 s (its Go text says "0.2 s" once for
the first column). Its implementation is native C++ with hand-written game
rules and, for the Wargame, a biased playout policy; its move codes carry a
capture flag (AtariGo) or the destination and an attack flag (Wargame).

`tests/referee/test_paper_figures.py` checks every figure against the paper's
text when the paper is at hand, and the claims its prose makes about them
(ratios, ranges, differences) always.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

#: The paper's seconds per move, in the order of every row's figures.
BUDGETS = (0.25, 0.5, 1.0, 2.0)

#: The quantities, as this module and the experiment's summaries name them.
WINRATE = "winrate"  # MCPS against GRAVE, percent
PLAYOUTS_PER_S = "playouts_per_s"
PLAYOUT_LENGTH = "playout_length"
LEAF_DEPTH = "leaf_depth"
QUANTITIES = (WINRATE, PLAYOUTS_PER_S, PLAYOUT_LENGTH, LEAF_DEPTH)


@dataclass(frozen=True)
class PaperTable:
    """One table of the paper: its number, game, quantity, algorithm, and rows
    (board size -> one figure per budget of `BUDGETS`). A win-rate table's
    algorithm is MCPS (its win rate against GRAVE)."""

    number: int
    game: str
    quantity: str
    rule: str
    rows: dict[int, tuple[float, float, float, float]]

    def figure(self, size: int, budget: float) -> Optional[float]:
        """The figure at (size, budget), or None where the paper has none."""
        row = self.rows.get(size)
        if row is None or budget not in BUDGETS:
            return None
        return row[BUDGETS.index(budget)]


TABLES: tuple[PaperTable, ...] = (
    PaperTable(1, "hex", WINRATE, "mcps", {
        5: (43.12, 45.88, 46.62, 49.25),
        7: (53.00, 49.00, 55.62, 60.25),
        9: (64.00, 70.50, 67.50, 63.62),
        11: (68.12, 68.25, 72.12, 76.25),
        13: (64.25, 73.25, 72.00, 76.12),
        15: (61.75, 66.62, 71.88, 71.88),
    }),
    PaperTable(2, "go", WINRATE, "mcps", {
        5: (55.12, 55.50, 49.88, 50.00),
        7: (57.75, 55.88, 54.12, 52.50),
        9: (59.50, 58.12, 59.25, 60.62),
        11: (61.88, 63.25, 62.62, 62.12),
        13: (58.38, 60.12, 63.00, 63.75),
        15: (59.25, 62.25, 60.38, 63.00),
    }),
    PaperTable(3, "atarigo", WINRATE, "mcps", {
        5: (64.50, 69.00, 68.38, 60.25),
        7: (60.75, 66.50, 68.88, 67.50),
        9: (54.12, 55.75, 62.88, 68.38),
        11: (54.12, 54.00, 55.75, 58.50),
        13: (52.75, 54.50, 52.25, 54.00),
        15: (55.00, 52.38, 54.38, 54.00),
    }),
    PaperTable(4, "nogo", WINRATE, "mcps", {
        5: (61.75, 62.50, 63.88, 63.62),
        7: (60.12, 61.00, 65.12, 62.75),
        9: (59.62, 66.25, 65.12, 67.00),
        11: (60.75, 63.50, 62.75, 69.50),
        13: (59.12, 61.25, 63.25, 65.25),
        15: (57.38, 62.00, 61.00, 64.00),
    }),
    PaperTable(5, "wargame", WINRATE, "mcps", {
        5: (55.88, 51.12, 53.00, 57.75),
        7: (55.50, 52.12, 49.38, 51.75),
        9: (59.38, 60.50, 58.88, 58.38),
        11: (59.38, 59.25, 60.12, 61.62),
        13: (57.88, 57.88, 57.88, 61.88),
    }),
    PaperTable(6, "atarigo", PLAYOUTS_PER_S, "grave", {
        5: (218724, 216393, 216843, 226065),
        7: (83764, 80434, 78242, 77326),
        9: (31193, 32635, 32352, 31105),
        11: (14740, 14956, 16465, 17066),
        13: (8316, 8130, 8436, 8805),
        15: (4874, 5123, 4960, 4915),
    }),
    PaperTable(7, "atarigo", PLAYOUTS_PER_S, "mcps", {
        5: (227618, 231783, 231149, 223520),
        7: (85393, 84624, 83082, 79784),
        9: (32977, 33682, 34814, 34262),
        11: (15340, 16283, 17734, 18373),
        13: (8274, 8520, 8656, 9898),
        15: (5106, 5145, 5175, 5244),
    }),
    PaperTable(8, "atarigo", PLAYOUT_LENGTH, "grave", {
        5: (4.9, 4.9, 4.8, 4.6),
        7: (7.1, 7.4, 7.6, 7.6),
        9: (10.7, 10.2, 10.4, 10.8),
        11: (15.7, 15.4, 14.1, 13.7),
        13: (19.8, 20.0, 19.2, 18.4),
        15: (25.4, 23.9, 24.6, 24.8),
    }),
    PaperTable(9, "atarigo", PLAYOUT_LENGTH, "mcps", {
        5: (4.2, 4.2, 4.1, 4.1),
        7: (6.4, 6.4, 6.5, 6.6),
        9: (9.6, 9.4, 9.1, 9.2),
        11: (14.6, 13.7, 12.6, 12.1),
        13: (19.5, 18.7, 18.3, 15.9),
        15: (23.9, 23.5, 23.1, 22.8),
    }),
    PaperTable(10, "atarigo", LEAF_DEPTH, "grave", {
        5: (7.4, 7.9, 8.4, 9.0),
        7: (5.9, 6.5, 7.0, 7.6),
        9: (4.4, 4.9, 5.5, 6.1),
        11: (3.4, 3.8, 4.3, 4.8),
        13: (2.9, 3.2, 3.5, 3.9),
        15: (2.4, 2.8, 3.1, 3.4),
    }),
    PaperTable(11, "atarigo", LEAF_DEPTH, "mcps", {
        5: (8.4, 9.0, 9.6, 10.0),
        7: (6.9, 7.7, 8.4, 9.1),
        9: (5.0, 5.8, 6.7, 7.5),
        11: (3.7, 4.3, 5.2, 6.0),
        13: (3.0, 3.5, 4.0, 4.6),
        15: (2.5, 2.9, 3.4, 3.9),
    }),
    PaperTable(12, "hex", PLAYOUTS_PER_S, "grave", {
        5: (446446, 447809, 438283, 425890),
        7: (175196, 176288, 168189, 164351),
        9: (84086, 82740, 82297, 80768),
        11: (35687, 39805, 41496, 40715),
        13: (20380, 19782, 23157, 24233),
        15: (12883, 12606, 12659, 14295),
    }),
    PaperTable(13, "hex", PLAYOUTS_PER_S, "mcps", {
        5: (373260, 381576, 381487, 378534),
        7: (154108, 149815, 149945, 145970),
        9: (82690, 83425, 78084, 72962),
        11: (43264, 43904, 44910, 44049),
        13: (23820, 26331, 27924, 28275),
        15: (13620, 15388, 17162, 17688),
    }),
    PaperTable(14, "hex", PLAYOUT_LENGTH, "grave", {
        5: (4.4, 4.3, 4.3, 4.2),
        7: (8.6, 8.4, 8.4, 7.9),
        9: (16.2, 16.0, 15.7, 15.2),
        11: (30.2, 26.7, 25.2, 25.1),
        13: (48.9, 49.6, 41.2, 38.6),
        15: (68.4, 68.7, 66.1, 58.5),
    }),
    PaperTable(15, "hex", PLAYOUT_LENGTH, "mcps", {
        5: (4.1, 4.0, 4.0, 3.9),
        7: (7.5, 7.4, 7.0, 6.6),
        9: (13.2, 12.3, 12.4, 12.5),
        11: (21.5, 20.1, 18.7, 18.1),
        13: (37.5, 31.9, 28.4, 27.0),
        15: (59.9, 50.5, 43.1, 40.2),
    }),
    PaperTable(16, "hex", LEAF_DEPTH, "grave", {
        5: (7.1, 7.6, 8.1, 8.5),
        7: (6.1, 6.7, 7.1, 7.4),
        9: (5.3, 5.7, 6.1, 6.6),
        11: (4.6, 5.1, 5.5, 5.9),
        13: (4.2, 4.6, 5.0, 5.5),
        15: (3.9, 4.3, 4.6, 5.1),
    }),
    PaperTable(17, "hex", LEAF_DEPTH, "mcps", {
        5: (7.6, 8.1, 8.5, 8.8),
        7: (7.4, 8.1, 8.6, 9.1),
        9: (6.6, 7.3, 8.0, 8.6),
        11: (5.7, 6.4, 7.2, 7.9),
        13: (5.0, 5.8, 6.5, 7.3),
        15: (4.5, 5.2, 5.9, 6.8),
    }),
    PaperTable(18, "go", PLAYOUTS_PER_S, "grave", {
        5: (72748, 72639, 75655, 74691),
        7: (23971, 23657, 23870, 24147),
        9: (7853, 8102, 8244, 8138),
        11: (2889, 3033, 3116, 3164),
        13: (1381, 1407, 1392, 1370),
        15: (723, 696, 717, 679),
    }),
    PaperTable(19, "go", PLAYOUTS_PER_S, "mcps", {
        5: (83347, 81845, 76523, 77114),
        7: (24065, 23709, 22998, 23130),
        9: (8643, 8380, 8373, 8447),
        11: (3393, 3309, 3318, 3276),
        13: (1481, 1516, 1455, 1503),
        15: (768, 795, 799, 779),
    }),
    PaperTable(20, "go", PLAYOUT_LENGTH, "grave", {
        5: (7.8, 7.7, 7.4, 7.5),
        7: (12.4, 12.7, 12.5, 12.2),
        9: (21.4, 20.9, 20.7, 21.2),
        11: (32.0, 31.8, 32.2, 31.7),
        13: (42.7, 42.6, 43.7, 45.9),
        15: (56.3, 59.6, 59.2, 62.8),
    }),
    PaperTable(21, "go", PLAYOUT_LENGTH, "mcps", {
        5: (6.8, 6.8, 7.0, 7.0),
        7: (12.0, 12.2, 12.4, 12.2),
        9: (19.0, 19.6, 19.8, 19.8),
        11: (27.0, 28.5, 29.4, 30.0),
        13: (39.6, 39.3, 41.4, 41.2),
        15: (52.9, 51.8, 52.9, 54.1),
    }),
    PaperTable(22, "go", LEAF_DEPTH, "grave", {
        5: (6.6, 6.9, 7.3, 7.7),
        7: (5.5, 5.7, 6.0, 6.4),
        9: (6.9, 6.1, 5.9, 6.0),
        11: (10.4, 8.5, 7.0, 6.4),
        13: (11.6, 12.6, 10.2, 8.3),
        15: (9.8, 12.7, 13.7, 12.4),
    }),
    PaperTable(23, "go", LEAF_DEPTH, "mcps", {
        5: (8.9, 9.9, 11.0, 12.2),
        7: (8.2, 8.8, 9.4, 10.2),
        9: (10.8, 10.8, 10.7, 11.4),
        11: (12.2, 12.8, 13.3, 13.5),
        13: (11.7, 13.5, 14.0, 14.9),
        15: (9.8, 12.6, 14.5, 15.8),
    }),
    PaperTable(24, "nogo", PLAYOUTS_PER_S, "grave", {
        5: (220512, 221871, 219920, 217558),
        7: (90589, 89332, 87854, 87427),
        9: (37928, 37188, 36936, 36451),
        11: (19503, 19309, 18556, 18487),
        13: (11344, 11345, 11314, 11111),
        15: (6653, 6575, 6587, 6572),
    }),
    PaperTable(25, "nogo", PLAYOUTS_PER_S, "mcps", {
        5: (230489, 232577, 232463, 229608),
        7: (93288, 92005, 92473, 91364),
        9: (38971, 39033, 38585, 38510),
        11: (20177, 20112, 18957, 19684),
        13: (11612, 11679, 11668, 11565),
        15: (6764, 6806, 6773, 6813),
    }),
    PaperTable(26, "nogo", PLAYOUT_LENGTH, "grave", {
        5: (5.4, 5.4, 5.3, 5.2),
        7: (8.7, 8.7, 8.7, 8.6),
        9: (12.4, 12.6, 12.5, 12.5),
        11: (16.9, 17.0, 17.2, 17.3),
        13: (21.7, 21.7, 21.7, 21.9),
        15: (27.1, 27.3, 27.3, 27.4),
    }),
    PaperTable(27, "nogo", PLAYOUT_LENGTH, "mcps", {
        5: (4.9, 4.9, 4.8, 4.7),
        7: (8.1, 8.0, 7.8, 7.8),
        9: (11.7, 11.6, 11.4, 11.3),
        11: (16.1, 15.9, 16.3, 15.7),
        13: (20.9, 20.7, 20.6, 20.5),
        15: (26.4, 26.0, 26.1, 25.9),
    }),
    PaperTable(28, "nogo", LEAF_DEPTH, "grave", {
        5: (6.7, 7.1, 7.4, 7.7),
        7: (6.0, 6.3, 6.7, 6.9),
        9: (5.5, 5.8, 6.1, 6.4),
        11: (5.0, 5.3, 5.6, 5.9),
        13: (4.6, 4.9, 5.2, 5.5),
        15: (4.2, 4.5, 4.9, 5.1),
    }),
    PaperTable(29, "nogo", LEAF_DEPTH, "mcps", {
        5: (8.3, 8.9, 9.3, 9.6),
        7: (7.5, 8.2, 8.8, 9.2),
        9: (6.6, 7.3, 8.0, 8.6),
        11: (5.9, 6.6, 7.2, 8.0),
        13: (5.3, 6.0, 6.6, 7.3),
        15: (4.8, 5.4, 6.0, 6.7),
    }),
    PaperTable(30, "wargame", PLAYOUTS_PER_S, "grave", {
        5: (139746, 140123, 137823, 133624),
        7: (49174, 49154, 47577, 46425),
        9: (24122, 24990, 26735, 26729),
        11: (12705, 13207, 14140, 15091),
        13: (7487, 8073, 8477, 8724),
    }),
    PaperTable(31, "wargame", PLAYOUTS_PER_S, "mcps", {
        5: (179863, 173686, 171405, 169868),
        7: (58948, 57282, 54519, 53256),
        9: (29336, 29911, 30674, 30878),
        11: (16070, 16441, 17192, 18051),
        13: (9944, 9934, 10315, 10578),
    }),
    PaperTable(32, "wargame", PLAYOUT_LENGTH, "grave", {
        5: (8.6, 8.6, 8.6, 8.9),
        7: (18.8, 18.9, 19.2, 19.5),
        9: (31.0, 30.1, 28.6, 28.4),
        11: (47.4, 46.4, 44.2, 41.6),
        13: (64.5, 63.1, 61.5, 59.9),
    }),
    PaperTable(33, "wargame", PLAYOUT_LENGTH, "mcps", {
        5: (7.7, 7.8, 7.8, 7.9),
        7: (16.1, 16.4, 16.7, 16.8),
        9: (25.5, 24.7, 24.0, 23.6),
        11: (37.5, 36.7, 35.1, 33.1),
        13: (50.2, 50.6, 49.1, 47.2),
    }),
    PaperTable(34, "wargame", LEAF_DEPTH, "grave", {
        5: (11.9, 13.2, 14.5, 15.9),
        7: (11.8, 13.0, 14.2, 15.5),
        9: (10.9, 12.4, 13.8, 14.5),
        11: (8.9, 10.3, 11.7, 13.1),
        13: (8.2, 8.9, 10.2, 11.5),
    }),
    PaperTable(35, "wargame", LEAF_DEPTH, "mcps", {
        5: (13.4, 15.0, 16.5, 18.1),
        7: (13.3, 14.7, 16.1, 17.7),
        9: (11.9, 13.7, 15.3, 16.5),
        11: (9.7, 11.2, 12.9, 14.5),
        13: (9.4, 9.6, 11.0, 12.6),
    }),
)

#: The paper's game names, as in its tables, for our games' names.
GAME_TITLES = {"hex": "Hex", "go": "Go", "atarigo": "AtariGo", "nogo": "NoGo", "wargame": "Wargame"}


def paper_table(game: str, quantity: str, rule: str = "mcps") -> Optional[PaperTable]:
    """The paper's table of `quantity` for `rule` on `game`, or None.

    >>> paper_table("hex", WINRATE).number, paper_table("nogo", LEAF_DEPTH, "grave").number
    (1, 28)
    """
    for table in TABLES:
        if table.game == game and table.quantity == quantity and table.rule == rule:
            return table
    return None


def paper_figure(game: str, quantity: str, rule: str, size: int, budget: float) -> Optional[float]:
    """One figure of the paper, or None where it has none.

    >>> paper_figure("wargame", PLAYOUTS_PER_S, "mcps", 7, 0.25)
    58948
    """
    table = paper_table(game, quantity, rule)
    return None if table is None else table.figure(size, budget)
