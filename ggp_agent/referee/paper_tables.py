"""The MCPS experiment's results as the paper lays them out, with its figures beside ours.

A cell is (game, board size, seconds per move). `summarize_cell` reads a cell's
match lines (as `experiment.py` writes them, one per finished match) into a
`CellSummary`: MCPS's win rate against GRAVE with its Wilson 95% interval, and
per algorithm the appendix's quantities. `markdown_tables` prints, per game,
the paper's win-rate table (Tables 1-5) and its appendix tables (6-35) with
our figure and the paper's in each cell. Nothing here plays or reads files.

How the appendix quantities are measured: each player's own record holds, for
every move its search chose, the search's figures for that move (iterations,
iterations per second of thinking, mean playout length from the new leaf, mean
depth of the new leaves; `search/driver/tree_search.py`, reset at every root change).
Per algorithm and cell: playouts per second = all iterations / all seconds of
thinking; playout length and leaf depth = their per-move means weighted by the
move's iterations; playouts per move = iterations / searched moves. Forced
moves (one legal move) are not searched and not counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from .paper_mcps import GAME_TITLES, LEAF_DEPTH, PLAYOUT_LENGTH, PLAYOUTS_PER_S, WINRATE, paper_table
from .scores import PlayerSummary, tally

#: The two algorithms, in the order of `players` in every match line.
RULES = ("mcps", "grave")
#: The paper's games, in the order of its Tables 1-5 (our file names' stems).
PAPER_GAMES = ("hex", "go", "atarigo", "nogo", "wargame")


@dataclass(frozen=True)
class Cell:
    """One cell of the paper's tables: a game at a board size and a time per move."""

    game: str
    size: int
    budget: float

    @property
    def game_name(self) -> str:
        """The game file's stem in the library, e.g. `hex_7x7`."""
        return f"{self.game}_{self.size}x{self.size}"

    @property
    def key(self) -> str:
        """The cell's name in file names and match ids, e.g. `hex_7x7-0.25s`."""
        return f"{self.game_name}-{self.budget:g}s"


#: The sums a match line holds per seat (`experiment.search_sums`).
_SUMS = ("moves", "iterations", "seconds", "wall_seconds", "playout_moves", "playout_weight", "leaf_depth",
         "leaf_weight", "proven", "fallbacks")


@dataclass
class RuleFigures:
    """One algorithm's search figures in one cell, summed over its searched moves."""

    moves: int = 0
    iterations: int = 0
    seconds: float = 0.0
    wall_seconds: float = 0.0
    playout_moves: float = 0.0
    playout_weight: int = 0
    leaf_depth: float = 0.0
    leaf_weight: int = 0
    proven: int = 0
    fallbacks: int = 0

    def add(self, sums: dict) -> None:
        """Add one seat's sums (as `experiment.search_sums` makes them)."""
        for name in _SUMS:
            setattr(self, name, getattr(self, name) + sums[name])

    @property
    def playouts_per_s(self) -> Optional[float]:
        return self.iterations / self.seconds if self.seconds > 0 else None

    @property
    def playout_length(self) -> Optional[float]:
        return self.playout_moves / self.playout_weight if self.playout_weight else None

    @property
    def mean_leaf_depth(self) -> Optional[float]:
        return self.leaf_depth / self.leaf_weight if self.leaf_weight else None

    @property
    def playouts_per_move(self) -> Optional[float]:
        return self.iterations / self.moves if self.moves else None

    @property
    def search_share(self) -> Optional[float]:
        """The share of the time from PLAY to reply that the search spent iterating."""
        return self.seconds / self.wall_seconds if self.wall_seconds > 0 else None

    def quantity(self, name: str) -> Optional[float]:
        """The appendix quantity `name` (paper_mcps's names)."""
        return {PLAYOUTS_PER_S: self.playouts_per_s, PLAYOUT_LENGTH: self.playout_length,
                LEAF_DEPTH: self.mean_leaf_depth}[name]

    def to_json(self) -> dict:
        return {"moves": self.moves, "iterations": self.iterations, "seconds": round(self.seconds, 2),
                "playouts_per_s": _rounded(self.playouts_per_s, 1),
                "playouts_per_move": _rounded(self.playouts_per_move, 1),
                "playout_length": _rounded(self.playout_length, 2),
                "leaf_depth": _rounded(self.mean_leaf_depth, 2),
                "seconds_per_move": _rounded(self.wall_seconds / self.moves, 3) if self.moves else None,
                "search_share": _rounded(self.search_share, 3), "proven": self.proven,
                "fallbacks": self.fallbacks}


@dataclass
class CellSummary:
    """What a cell's finished matches say."""

    cell: Cell
    #: MCPS's and GRAVE's results (wins, draws, losses, errors), in `RULES` order
    players: list[PlayerSummary] = field(default_factory=lambda: [PlayerSummary(rule) for rule in RULES])
    #: MCPS's results when it had the first role, and the second
    by_seat: list[PlayerSummary] = field(default_factory=lambda: [PlayerSummary("first"), PlayerSummary("second")])
    figures: dict[str, RuleFigures] = field(default_factory=lambda: {rule: RuleFigures() for rule in RULES})
    finished: int = 0
    aborted: int = 0
    turns: int = 0

    @property
    def mcps(self) -> PlayerSummary:
        return self.players[0]

    def add(self, line: dict) -> None:
        """Count one finished match (one line of the cell's file)."""
        self.finished += 1
        seats = [RULES.index(label) for label in line["seats"]]
        for seat, sums in zip(seats, line["search"]):
            self.figures[RULES[seat]].add(sums)
        if line["aborted"] or not line["goals"]:
            self.aborted += 1
            return
        self.turns += line["turns"]
        tally(self.players, seats, line["goals"], line["errors"])
        tally([self.by_seat[seats.index(0)]], [0 if seat == 0 else 1 for seat in seats], line["goals"],
              line["errors"])

    def winrate_percent(self) -> tuple[Optional[float], Optional[float], Optional[float]]:
        """MCPS's win rate (draw = 1/2) and its 95% interval, in percent; Nones before any match."""
        if not self.mcps.matches:
            return None, None, None
        low, high = self.mcps.interval()
        return 100 * self.mcps.winrate, 100 * low, 100 * high

    def paper_winrate_outside(self) -> Optional[bool]:
        """True when the paper's win rate lies outside our 95% interval."""
        paper = paper_table(self.cell.game, WINRATE)
        figure = None if paper is None else paper.figure(self.cell.size, self.cell.budget)
        _, low, high = self.winrate_percent()
        if figure is None or low is None:
            return None
        return not low <= figure <= high

    def to_json(self) -> dict:
        rate, low, high = self.winrate_percent()
        mcps = self.mcps
        return {
            "game": self.cell.game_name, "budget": self.cell.budget, "finished": self.finished,
            "scored": mcps.matches, "aborted": self.aborted,
            "mcps": {"wins": mcps.wins, "draws": mcps.draws, "losses": mcps.losses,
                     "winrate": _rounded(rate, 2), "ci95": [_rounded(low, 2), _rounded(high, 2)],
                     "first_role": _rounded(100 * self.by_seat[0].winrate, 2) if self.by_seat[0].matches else None,
                     "second_role": _rounded(100 * self.by_seat[1].winrate, 2) if self.by_seat[1].matches else None},
            "paper_winrate": _figure(paper_table(self.cell.game, WINRATE), self.cell),
            "paper_outside_interval": self.paper_winrate_outside(),
            "errors": {rule: player.errors for rule, player in zip(RULES, self.players)},
            "mean_turns": _rounded(self.turns / mcps.matches, 1) if mcps.matches else None,
            "figures": {rule: figures.to_json() for rule, figures in self.figures.items()},
            "paper_figures": {rule: {quantity: _figure(paper_table(self.cell.game, quantity, rule), self.cell)
                                     for quantity in (PLAYOUTS_PER_S, PLAYOUT_LENGTH, LEAF_DEPTH)}
                              for rule in RULES},
        }


def summarize_cell(cell: Cell, lines: Iterable[dict]) -> CellSummary:
    """A cell's summary from its match lines."""
    summary = CellSummary(cell)
    for line in lines:
        summary.add(line)
    return summary


# ---------------------------------------------------------------------------- Markdown

_APPENDIX = ((PLAYOUTS_PER_S, "playouts per second (per thread)", "{:,.0f}"),
             (PLAYOUT_LENGTH, "average playout length (moves from the new leaf to the end)", "{:.1f}"),
             (LEAF_DEPTH, "average new-leaf depth (tree depth at which a node is added)", "{:.1f}"))


def markdown_tables(summaries: Sequence[CellSummary], missing: Sequence[Cell] = ()) -> str:
    """The paper's tables for the games, sizes and budgets of `summaries`, ours
    beside the paper's in each cell; `missing` cells had no game file."""
    by_cell = {summary.cell: summary for summary in summaries}
    cells = list(by_cell) + list(missing)
    budgets = sorted({cell.budget for cell in cells})
    games = [game for game in PAPER_GAMES if any(cell.game == game for cell in cells)]
    games += sorted({cell.game for cell in cells} - set(games))
    parts = []
    for game in games:
        sizes = sorted({cell.size for cell in cells if cell.game == game})
        parts.append(_game_tables(game, sizes, budgets, by_cell))
    if missing:
        parts.append("No game file (not played): " + ", ".join(sorted({cell.game_name for cell in missing})) + ".")
    return "\n\n".join(parts) + "\n"


def _game_tables(game: str, sizes: list[int], budgets: list[float], by_cell: dict) -> str:
    title = GAME_TITLES.get(game, game)
    header = "| Size | " + " | ".join(f"{budget:g}s" for budget in budgets) + " |"
    rule_header = "| Size | Algorithm | " + " | ".join(f"{budget:g}s" for budget in budgets) + " |"
    table = paper_table(game, WINRATE)
    number = f"Table {table.number}" if table else "not in the paper"
    lines = [f"### {title}", "",
             f"Win rate of MCPS against GRAVE, percent ({number}). Each cell: ours [95% interval] "
             "(matches) / the paper's (800 games); * where the paper's figure is outside our interval.", "",
             header, "|---" * (len(budgets) + 1) + "|"]
    for size in sizes:
        cells = [_winrate_cell(by_cell.get(Cell(game, size, budget)), table, size, budget) for budget in budgets]
        lines.append(f"| {size}x{size} | " + " | ".join(cells) + " |")
    for quantity, what, style in _APPENDIX:
        tables = [paper_table(game, quantity, rule) for rule in RULES]
        numbers = ", ".join(f"{rule.upper()} Table {t.number}" for rule, t in zip(RULES, tables) if t)
        lines += ["", f"{title}: {what} ({numbers or 'not in the paper'}). Each cell: ours / the paper's.", "",
                  rule_header, "|---" * (len(budgets) + 2) + "|"]
        for size in sizes:
            for rule, paper in zip(reversed(RULES), reversed(tables)):  # GRAVE first, as the paper
                cells = []
                for budget in budgets:
                    summary = by_cell.get(Cell(game, size, budget))
                    ours = None if summary is None else summary.figures[rule].quantity(quantity)
                    cells.append(f"{_number(ours, style)} / {_number(_figure(paper, Cell(game, size, budget)), style)}")
                lines.append(f"| {size}x{size} | {rule.upper()} | " + " | ".join(cells) + " |")
    lines += ["", f"{title}: playouts per move, ours / the paper's (its playouts per second times the budget).", "",
              rule_header, "|---" * (len(budgets) + 2) + "|"]
    for size in sizes:
        for rule in reversed(RULES):
            cells = []
            for budget in budgets:
                summary = by_cell.get(Cell(game, size, budget))
                ours = None if summary is None else summary.figures[rule].playouts_per_move
                paper = _figure(paper_table(game, PLAYOUTS_PER_S, rule), Cell(game, size, budget))
                cells.append(f"{_number(ours, '{:,.0f}')} / {_number(None if paper is None else paper * budget, '{:,.0f}')}")
            lines.append(f"| {size}x{size} | {rule.upper()} | " + " | ".join(cells) + " |")
    lines += ["", f"{title}: the matches. MCPS's win rate (percent) with the first role and with the second, "
              "wins/draws/losses, mean length in joint moves, replies in error (MCPS/GRAVE), moves "
              "played by the fallback (MCPS/GRAVE), seconds from PLAY to reply and the share of them the search "
              "spent iterating (MCPS/GRAVE, over searched moves).", "",
              "| Size | Budget | matches | MCPS first | MCPS second | W/D/L | turns | errors | fallbacks | "
              "s/move | iterating |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for size in sizes:
        for budget in budgets:
            summary = by_cell.get(Cell(game, size, budget))
            if summary is not None and summary.finished:
                lines.append(_match_row(summary))
    return "\n".join(lines)


def _winrate_cell(summary: Optional[CellSummary], table, size: int, budget: float) -> str:
    paper = _figure(table, Cell("", size, budget)) if table else None
    paper_text = "—" if paper is None else f"{paper:.2f}"
    if summary is None or not summary.mcps.matches:
        return f"— / {paper_text}"
    rate, low, high = summary.winrate_percent()
    flag = "*" if summary.paper_winrate_outside() else ""
    return f"{rate:.1f} [{low:.1f}, {high:.1f}] ({summary.mcps.matches}) / {paper_text}{flag}"


def _match_row(summary: CellSummary) -> str:
    mcps, grave = summary.players
    first, second = summary.by_seat
    cell = summary.cell
    seat = "{:.1f} ({})"
    turns = f"{summary.turns / mcps.matches:.1f}" if mcps.matches else "—"
    aborted = f" ({summary.aborted} aborted)" if summary.aborted else ""
    ours = [summary.figures[rule] for rule in RULES]
    fallbacks = "/".join(str(figures.fallbacks) for figures in ours)
    per_move = "/".join(_number(figures.wall_seconds / figures.moves if figures.moves else None, "{:.2f}")
                        for figures in ours)
    share = "/".join(_number(figures.search_share, "{:.0%}") for figures in ours)
    return (f"| {cell.size}x{cell.size} | {cell.budget:g}s | {mcps.matches}{aborted} | "
            f"{seat.format(100 * first.winrate, first.matches) if first.matches else '—'} | "
            f"{seat.format(100 * second.winrate, second.matches) if second.matches else '—'} | "
            f"{mcps.wins}/{mcps.draws}/{mcps.losses} | {turns} | {mcps.errors}/{grave.errors} | {fallbacks} | "
            f"{per_move} | {share} |")


def _figure(table, cell: Cell) -> Optional[float]:
    return None if table is None else table.figure(cell.size, cell.budget)


def _number(value: Optional[float], style: str) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else style.format(value)


def _rounded(value: Optional[float], digits: int) -> Optional[float]:
    return None if value is None or math.isnan(value) else round(value, digits)
