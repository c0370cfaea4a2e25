"""The experiment's summaries and tables, from match lines written here: the win
rate, its interval and the seats; the appendix quantities weighted by
iterations; the paper's layout with its figures beside ours."""

import pytest

from ggp_agent.referee.paper_tables import Cell, markdown_tables, summarize_cell


def sums(moves, iterations, seconds, playout, depth, fallbacks=0):
    return {"moves": moves, "iterations": iterations, "seconds": seconds, "wall_seconds": 2 * seconds,
            "playout_moves": playout * iterations, "playout_weight": iterations, "leaf_depth": depth * iterations,
            "leaf_weight": iterations, "proven": 1, "fallbacks": fallbacks}


def line(number, mcps_wins, mcps_sums, grave_sums, turns=20, aborted=False):
    """Match `number` (MCPS first in the even ones); MCPS wins or loses."""
    mcps_first = number % 2 == 0
    seats = ["mcps", "grave"] if mcps_first else ["grave", "mcps"]
    first_wins = mcps_wins == mcps_first
    return {"matchId": f"mcps-vs-grave.hex_7x7-0.25s.{number:04d}", "roles": ["red", "blue"],
            "goals": None if aborted else ([100, 0] if first_wins else [0, 100]), "errors": [0, 0],
            "turns": turns, "aborted": aborted, "seats": seats,
            "search": [mcps_sums, grave_sums] if mcps_first else [grave_sums, mcps_sums]}


def test_a_cell_summary_counts_wins_seats_and_weighted_figures():
    cell = Cell("hex", 7, 0.25)
    lines = [line(0, True, sums(10, 1000, 0.5, 8.0, 4.0), sums(10, 3000, 1.0, 10.0, 3.0)),
             line(1, True, sums(10, 3000, 1.0, 6.0, 6.0), sums(10, 1000, 0.5, 12.0, 5.0, fallbacks=1)),
             line(2, False, sums(10, 1000, 0.5, 8.0, 4.0), sums(10, 1000, 0.5, 10.0, 3.0)),
             line(3, True, sums(10, 1000, 0.5, 8.0, 4.0), sums(10, 1000, 0.5, 10.0, 3.0), aborted=True)]
    summary = summarize_cell(cell, lines)
    assert summary.finished == 4 and summary.aborted == 1 and summary.mcps.matches == 3
    assert (summary.mcps.wins, summary.mcps.losses) == (2, 1)
    rate, low, high = summary.winrate_percent()
    assert rate == pytest.approx(200 / 3) and low < rate < high
    first, second = summary.by_seat
    assert (first.matches, first.wins, second.matches, second.wins) == (2, 1, 1, 1)
    mcps = summary.figures["mcps"]  # the aborted match's searches count too: they were played
    assert mcps.iterations == 6000 and mcps.moves == 40
    assert mcps.playouts_per_s == pytest.approx(6000 / 2.5)
    assert mcps.playout_length == pytest.approx((3 * 1000 * 8.0 + 3000 * 6.0) / 6000)
    assert mcps.mean_leaf_depth == pytest.approx((3 * 1000 * 4.0 + 3000 * 6.0) / 6000)
    assert summary.figures["grave"].fallbacks == 1 and mcps.proven == 4
    assert mcps.search_share == pytest.approx(0.5)
    data = summary.to_json()
    assert data["paper_winrate"] == 53.00 and data["mcps"]["ci95"][0] < data["mcps"]["winrate"]
    assert data["paper_figures"]["grave"]["playouts_per_s"] == 175196  # Table 12, 7x7, 0.25 s


def test_the_tables_follow_the_papers_layout_with_its_figures_beside_ours():
    hex7 = summarize_cell(Cell("hex", 7, 0.25), [line(n, n != 3, sums(10, 1500, 1.0, 9.0, 5.0),
                                                      sums(10, 1200, 1.0, 11.0, 4.0)) for n in range(4)])
    nogo5 = summarize_cell(Cell("nogo", 5, 0.25), [line(n, False, sums(10, 100, 1.0, 9.0, 5.0),
                                                        sums(10, 100, 1.0, 11.0, 4.0)) for n in range(10)])
    markdown = markdown_tables([hex7, nogo5, summarize_cell(Cell("hex", 5, 0.25), [])],
                               missing=[Cell("go", 5, 0.25)])
    # the paper's order: Hex (Table 1), Go (Table 2), NoGo (Table 4)
    assert markdown.index("### Hex") < markdown.index("### Go") < markdown.index("### NoGo")
    assert "Win rate of MCPS against GRAVE, percent (Table 1)" in markdown
    assert "(Table 2)" in markdown and "(Table 4)" in markdown
    assert "| Size | 0.25s |" in markdown
    # ours [interval] (matches) / the paper's; our 3 of 4 wins holds the paper's 53.00
    assert "| 7x7 | 75.0 [30.1, 95.4] (4) / 53.00 |" in markdown
    assert "| 5x5 | — / 43.12 |" in markdown  # a cell with no match yet still shows the paper's figure
    # NoGo 5x5: 0 of 10 lies far below the paper's 61.75: marked
    assert "| 5x5 | 0.0 [0.0, 27.8] (10) / 61.75* |" in markdown
    # the appendix: GRAVE then MCPS, with the table numbers
    assert "(MCPS Table 13, GRAVE Table 12)" in markdown
    assert "| 7x7 | GRAVE | 1,200 / 175,196 |" in markdown
    assert "| 7x7 | MCPS | 1,500 / 154,108 |" in markdown
    assert "| 7x7 | MCPS | 9.0 / 7.5 |" in markdown  # playout length, Table 15
    assert "| 7x7 | MCPS | 5.0 / 7.4 |" in markdown  # leaf depth, Table 17
    assert "| 7x7 | MCPS | 150 / 38,527 |" in markdown  # playouts per move; the paper's 154,108 x 0.25
    assert "| 7x7 | 0.25s | 4 | 100.0 (2) | 50.0 (2) | 3/0/1 | 20.0 | 0/0 | 0/0 | 0.20/0.20 | 50%/50% |" in markdown
    assert "No game file (not played): go_5x5." in markdown
    assert "| 5x5 | — / 55.12 |" in markdown  # Go: the paper's figure beside no result


def test_sizes_and_budgets_beyond_the_papers_show_no_paper_figure():
    cell = summarize_cell(Cell("hex", 5, 0.05), [line(0, True, sums(5, 500, 0.1, 4.0, 3.0),
                                                      sums(5, 500, 0.1, 4.0, 3.0))])
    markdown = markdown_tables([cell])
    assert "| 5x5 | 100.0 [20.7, 100.0] (1) / — |" in markdown
    assert "| 5x5 | GRAVE | 5,000 / — |" in markdown
