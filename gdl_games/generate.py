"""Write the sized game families of `gdl_games/` from one template each.

Why a generator: Hex, NoGo, AtariGo, Go, the wargame and breakthrough come in
several board sizes, and their fact tables (adjacency, liberty codes, tie-break
orders, turn counters) are too long and too easy to get wrong by hand. Each family is one
function of the board size in `kif_templates/` (one module per family, and the
KIF writing they share); the files this writes are committed, and
`tests/games/test_library.py` regenerates them into a temporary directory and
checks they are byte-identical, so a template edit without a regeneration fails.

Usage: `python gdl_games/generate.py [OUTPUT_DIR]` (default: this directory).
Standard library only, so it runs anywhere without the package installed.

Grounder-friendliness is the point of most choices here: explicit adjacency
facts instead of arithmetic, fixed tables instead of `succ` chains, and
recursions over one cell argument (Hex connectivity, Go liberties and regions)
so that a grounder instantiates O(cells) atoms, not O(cells^2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# The templates are a package beside this script: importable when it runs as
# `python gdl_games/generate.py` and when a test loads it from its path.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from kif_templates.breakthrough import breakthrough_game  # noqa: E402
from kif_templates.go_family import atarigo_game, go_game, nogo_game  # noqa: E402
from kif_templates.goofspiel import goofspiel_game  # noqa: E402
from kif_templates.hex import hex_game  # noqa: E402
from kif_templates.knights_tour import knights_tour_game  # noqa: E402
from kif_templates.wargame import wargame_game  # noqa: E402

#: Board sizes the library ships, per family.
HEX_SIZES = (5, 7, 9)
GO_SIZES = (5, 7, 9)
BREAKTHROUGH_SIZES = (6, 8)
WARGAME_SIZES = (5, 7, 9)
KNIGHTS_TOUR_SIZE = 5
GOOFSPIEL_PRIZES = (3, 5, 1, 4, 2)


def all_games() -> dict[str, str]:
    """Every generated file, by file name, in a fixed order."""
    games: dict[str, str] = {}
    for n in HEX_SIZES:
        games[f"hex_{n}x{n}.kif"] = hex_game(n)
    for n in GO_SIZES:
        games[f"nogo_{n}x{n}.kif"] = nogo_game(n)
    for n in GO_SIZES:
        games[f"atarigo_{n}x{n}.kif"] = atarigo_game(n)
    for n in GO_SIZES:
        games[f"go_{n}x{n}.kif"] = go_game(n)
    for n in BREAKTHROUGH_SIZES:
        games[f"breakthrough_{n}x{n}.kif"] = breakthrough_game(n)
    for n in WARGAME_SIZES:
        games[f"wargame_{n}x{n}.kif"] = wargame_game(n)
    games[f"knights_tour_{KNIGHTS_TOUR_SIZE}x{KNIGHTS_TOUR_SIZE}.kif"] = knights_tour_game(
        KNIGHTS_TOUR_SIZE)
    games[f"goofspiel_{len(GOOFSPIEL_PRIZES)}.kif"] = goofspiel_game(GOOFSPIEL_PRIZES)
    return games


def write_all(directory: Path) -> list[Path]:
    """Write every generated game into `directory`; return the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in all_games().items():
        path = directory / name
        path.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Write the files into the output directory (default: next to this script); print their paths."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="The files are committed; tests/games/test_library.py checks they match their templates.")
    parser.add_argument("output_dir", nargs="?", type=Path, default=Path(__file__).resolve().parent,
                        metavar="OUTPUT_DIR", help="where to write the .kif files (default: gdl_games/)")
    options = parser.parse_args(argv)
    for path in write_all(options.output_dir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
