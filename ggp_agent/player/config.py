"""How a player plays: its name, engine, search rule, limits and clocks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

#: `--player` kinds the server offers, and the search rule each one runs.
PLAYER_KINDS = {"agent": "mcps", "random": "random", "legal": "legal"}


@dataclass(frozen=True)
class PlayerConfig:
    """How a player plays.

    `safety_margin` is the time in seconds kept back from every clock for the
    reply to travel; `think_time`, when set, caps the thinking per move (fast
    tournaments). `max_matches` bounds concurrent matches; a START beyond it
    gets `busy`. A match with no message for twice its longer clock plus
    `abandon_grace` seconds counts as abandoned by its manager (which never
    sent STOP or ABORT) and is freed when the next START comes.

    For the tree searches (mcps, grave, uct): `search_options` override the
    rule's constants by name (`SearchParams`), `ponder` lets the search think
    between messages (off: only from a new position where we have a choice until
    the move is asked for, as in equal-time experiments), `memory_cap`
    bounds its arenas in bytes (all threads together), `threads` is how many
    cores it searches on (None: every core, `search.registry.DEFAULT_THREADS`; one tree per thread,
    merged at the root, or one shared tree with `parallel="tree"`) and
    `cpus`, when set, keeps the player's threads (its engine work and its
    search) on those cores (`cores.py`), and a search with `threads` unset
    then takes one thread per core named; `batch` how many leaves it plays out at once on
    the propnet's lanes (None: as many as the tree's age and the time left
    allow, up to 256; 1: one at a time, the search before the lanes). The `auto` engine builds a propnet within
    `engines.propnet_budget` of the start clock (at most `propnet_time_limit`),
    else falls back to Prolog.
    """

    name: str = "ggp-agent"
    search: str = "mcps"
    engine: str = "auto"
    max_matches: int = 1
    safety_margin: float = 0.5
    think_time: Optional[float] = None
    record_dir: Optional[Path] = None
    seed: Optional[int] = None
    abandon_grace: float = 60.0
    search_options: tuple[tuple[str, str], ...] = ()
    ponder: bool = True
    memory_cap: Optional[int] = None
    threads: Optional[int] = None
    parallel: str = "root"
    batch: Optional[int] = None
    cpus: Optional[tuple[int, ...]] = None
    propnet_time_limit: float = 60.0

    @property
    def search_threads(self) -> Optional[int]:
        """The threads the search gets: `threads`, else one per core of `cpus`,
        else None (the search's default, every core of the process)."""
        if self.threads is None and self.cpus is not None:
            return len(self.cpus)
        return self.threads
