"""The MCPS paper's figures as typed in (`referee/paper_mcps.py`), checked twice:
against every table of the paper's text when the paper is at hand, and against
the claims its prose makes about them (ratios, ranges, differences), always."""

import re

import pytest

from ggp_agent.referee.paper_mcps import (
    BUDGETS, LEAF_DEPTH, PLAYOUT_LENGTH, PLAYOUTS_PER_S, TABLES, WINRATE, paper_figure, paper_table,
)
from ..helpers import SHARED

_TITLES = {"Hex": "hex", "Go": "go", "AtariGo": "atarigo", "NoGo": "nogo", "Wargame": "wargame"}


def _paper_text() -> str:
    papers = sorted((SHARED / "seeds").glob("000_*.txt"))
    if not papers:
        pytest.skip("the MCPS paper is not at hand (../shared/seeds/000_*.txt)")
    return papers[0].read_text(encoding="utf-8")


def _tables_in_text(text: str) -> dict[int, tuple[str, list]]:
    """Each table of the text: its caption and rows (game, size, figures as written).

    The text gives a table's rows, then its caption "Table N: ...".
    """
    tables, rows = {}, []
    for line in text.splitlines():
        row = re.match(r"^(Hex|Go|AtariGo|NoGo|Wargame)\t\$\\displaystyle (\d+)\\times (\d+)\$\t(.*)$", line)
        if row:
            rows.append((_TITLES[row.group(1)], int(row.group(2)), [float(x) for x in row.group(4).split("\t")]))
            continue
        caption = re.match(r"^Table (\d+): (.*)$", line)
        if caption:
            tables[int(caption.group(1))] = (caption.group(2), rows)
            rows = []
    return tables


def test_every_figure_is_the_papers():
    in_text = _tables_in_text(_paper_text())
    assert sorted(in_text) == list(range(1, 36)) == sorted(table.number for table in TABLES)
    for table in TABLES:
        caption, rows = in_text[table.number]
        assert {game for game, _, _ in rows} == {table.game}, table.number
        assert caption.startswith("Winrate" if table.quantity == WINRATE else table.rule.upper()), table.number
        words = {WINRATE: "Winrate", PLAYOUTS_PER_S: "playouts per second", PLAYOUT_LENGTH: "playout length",
                 LEAF_DEPTH: "new-leaf depth"}[table.quantity]
        assert words in caption, (table.number, caption)
        assert {size: tuple(figures) for _, size, figures in rows} == table.rows, table.number


def test_the_budget_columns_are_the_papers():
    text = _paper_text()
    headers = re.findall(r"^Game\tSize\t(.*)$", text, flags=re.MULTILINE)
    assert len(headers) == 35
    assert set(headers) == {"\t".join(f"{b:g}s" for b in BUDGETS)}


def _ratio(game, quantity, size, budget):
    return paper_figure(game, quantity, "mcps", size, budget) / paper_figure(game, quantity, "grave", size, budget)


def _all_ratios(game, quantity):
    table = paper_table(game, quantity)
    return [_ratio(game, quantity, size, budget) for size in table.rows for budget in BUDGETS]


def _row(game, quantity, rule, size):
    return paper_table(game, quantity, rule).rows[size]


# The prose's claims, each recomputed from the figures (the paper's rounding kept).
CLAIMS = {
    "Hex: MCPS is below 50% on 5x5 at all four time budgets": lambda: max(_row("hex", WINRATE, "mcps", 5)) < 50,
    "Hex 5x5: MCPS runs around 85% of GRAVE's playouts per second":
        lambda: all(0.83 <= _ratio("hex", PLAYOUTS_PER_S, 5, b) <= 0.9 for b in BUDGETS),
    "Hex 15x15 at 1s: MCPS runs at 1.36x GRAVE's speed":
        lambda: round(_ratio("hex", PLAYOUTS_PER_S, 15, 1.0), 2) == 1.36,
    "Hex 15x15 at 2s: GRAVE playouts average 58.5 moves, MCPS 40.2, a 31% reduction":
        lambda: (paper_figure("hex", PLAYOUT_LENGTH, "grave", 15, 2.0), paper_figure("hex", PLAYOUT_LENGTH, "mcps", 15, 2.0),
                 round(100 * (1 - _ratio("hex", PLAYOUT_LENGTH, 15, 2.0)))) == (58.5, 40.2, 31),
    "Hex at 2s: MCPS leaves 4% deeper than GRAVE's on 5x5, 33% on 15x15":
        lambda: (round(100 * (_ratio("hex", LEAF_DEPTH, 5, 2.0) - 1)), round(100 * (_ratio("hex", LEAF_DEPTH, 15, 2.0) - 1)))
        == (4, 33),
    "Go: MCPS runs between 0.96 and 1.17 times GRAVE's playouts per second":
        lambda: (round(min(_all_ratios("go", PLAYOUTS_PER_S)), 2), round(max(_all_ratios("go", PLAYOUTS_PER_S)), 2))
        == (0.96, 1.17),
    "Go 13x13: the win rate climbs from 58.38 at the first budget to 63.75 at 2s":
        lambda: (_row("go", WINRATE, "mcps", 13)[0], _row("go", WINRATE, "mcps", 13)[-1]) == (58.38, 63.75),
    "Go: MCPS's leaf depth grows by 1.24 (7x7), 1.27 (13x13), 1.61 (15x15) from the first budget to 2s":
        lambda: [round(_row("go", LEAF_DEPTH, "mcps", s)[-1] / _row("go", LEAF_DEPTH, "mcps", s)[0], 2)
                 for s in (7, 13, 15)] == [1.24, 1.27, 1.61],
    "Go: MCPS leaves 1.8 deeper on 11x11 at the first budget and 7.1 at 2s; 13x13 +0.1 and 6.6":
        lambda: [round(paper_figure("go", LEAF_DEPTH, "mcps", s, b) - paper_figure("go", LEAF_DEPTH, "grave", s, b), 1)
                 for s in (11, 13) for b in (0.25, 2.0)] == [1.8, 7.1, 0.1, 6.6],
    "AtariGo: MCPS outperforms GRAVE in every cell": lambda: min(min(r) for r in paper_table("atarigo", WINRATE).rows.values()) > 50,
    "AtariGo at 2s: MCPS leaves 10-25% deeper than GRAVE's at every size":
        lambda: all(1.10 <= _ratio("atarigo", LEAF_DEPTH, s, 2.0) <= 1.255 for s in paper_table("atarigo", WINRATE).rows),
    "AtariGo 5x5: MCPS playouts about four moves, leaves at depth ten (2s)":
        lambda: (round(paper_figure("atarigo", PLAYOUT_LENGTH, "mcps", 5, 2.0)), paper_figure("atarigo", LEAF_DEPTH, "mcps", 5, 2.0))
        == (4, 10.0),
    "NoGo: every cell between 57.4% and 69.5%":
        lambda: (round(min(min(r) for r in paper_table("nogo", WINRATE).rows.values()), 1),
                 round(max(max(r) for r in paper_table("nogo", WINRATE).rows.values()), 1)) == (57.4, 69.5),
    "NoGo: MCPS runs 1.7-6.5% more playouts per second than GRAVE":
        lambda: (round(100 * (min(_all_ratios("nogo", PLAYOUTS_PER_S)) - 1), 1),
                 round(100 * (max(_all_ratios("nogo", PLAYOUTS_PER_S)) - 1), 1)) == (1.7, 6.5),
    "NoGo: MCPS playouts 3-10% shorter than GRAVE's":
        lambda: (round(100 * (1 - max(_all_ratios("nogo", PLAYOUT_LENGTH)))), round(100 * (1 - min(_all_ratios("nogo", PLAYOUT_LENGTH)))))
        == (3, 10),
    "NoGo: MCPS leaves 14-36% deeper than GRAVE's":
        lambda: (round(100 * (min(_all_ratios("nogo", LEAF_DEPTH)) - 1)), round(100 * (max(_all_ratios("nogo", LEAF_DEPTH)) - 1)))
        == (14, 36),
    "Wargame: MCPS outperforms GRAVE from 9x9 upward; 7x7 at 1s is 49.38":
        lambda: min(min(r) for s, r in paper_table("wargame", WINRATE).rows.items() if s >= 9) > 50
        and paper_figure("wargame", WINRATE, "mcps", 7, 1.0) == 49.38,
    "Wargame: MCPS runs 15 to 33% more playouts per second than GRAVE":
        lambda: (round(100 * (min(_all_ratios("wargame", PLAYOUTS_PER_S)) - 1)),
                 round(100 * (max(_all_ratios("wargame", PLAYOUTS_PER_S)) - 1))) == (15, 33),
    "Wargame: MCPS playouts at 78-91% of GRAVE's length":
        lambda: (round(100 * min(_all_ratios("wargame", PLAYOUT_LENGTH))), round(100 * max(_all_ratios("wargame", PLAYOUT_LENGTH))))
        == (78, 91),
    "Wargame: MCPS leaves 8-15% deeper than GRAVE's":
        lambda: (round(100 * (min(_all_ratios("wargame", LEAF_DEPTH)) - 1)), round(100 * (max(_all_ratios("wargame", LEAF_DEPTH)) - 1)))
        == (8, 15),
}


@pytest.mark.parametrize("claim", sorted(CLAIMS))
def test_the_prose_agrees_with_the_figures(claim):
    assert CLAIMS[claim](), claim


def test_the_tables_cover_the_papers_sizes():
    for table in TABLES:
        sizes = (5, 7, 9, 11, 13) if table.game == "wargame" else (5, 7, 9, 11, 13, 15)
        assert tuple(table.rows) == sizes, table.number
        assert all(len(row) == len(BUDGETS) for row in table.rows.values())
    assert paper_figure("go", WINRATE, "mcps", 17, 1.0) is None and paper_figure("hex", WINRATE, "mcps", 5, 0.05) is None
