"""Who plays a match: player specifications, in-process players, one match end to end.

A player is named on the command line either by its address (`HOST:PORT`, any
GGP player anywhere the controller can reach) or by an in-process configuration
(`KIND[:key=value,...]`), e.g. `random`, `legal`, `agent`,
`agent:search=mc,engine=prolog,time=0.5`. An in-process player is a real
`Player` behind a real server on 127.0.0.1 on a free port, started for the match
and stopped after it, so every match goes over HTTP through the same
GameController whichever kind of player sits in a seat.

Keys of an in-process configuration: `search` (a search rule), `engine`,
`time` (seconds of thinking per move, at most the clock minus the margin),
`margin` (safety margin in seconds), `name`, `seed`; for the tree searches
(mcps, grave, uct) also `ponder` (0 or 1), `mem` (arena cap in MB), `threads`
(cores; default every core), `parallel` (root: a tree per thread; tree: one shared
tree), `batch` (leaves at once on the lanes; 1: one at a time), `cpus`
(the cores its threads run on, `taskset -c` style with `+` for a comma:
`cpus=1`, `cpus=0+1`, `cpus=2-3`) and any
constant of `search.tree.params.SearchParams` by name (`c`, `rho`, `bias`,
`amaf_alloc`, `max_rollout`, `window`, `solver`, `max_depth`), e.g.
`agent:search=uct,c=0.7,ponder=0,time=0.5`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from ..cores import parse_cores
from ..engines import ENGINES
from ..gdl import ValidatedGame
from ..player.config import PLAYER_KINDS, PlayerConfig
from ..player.player import Player
from ..player.records import MatchRecord
from ..search.registry import CONSTANTS, checked_option
from ..search.tree.params import PARALLEL, RULES, SEARCH_RULES
from ..search.tree.settings import parse_flag
from ..search.warmup import ensure_warm
from ..server.app import RunningServer, start_server
from .controller import GameController, PlayerAddress


@dataclass(frozen=True)
class PlayerSpec:
    """A seat's player: a remote address, or the configuration of an in-process player."""

    label: str
    address: Optional[PlayerAddress] = None
    config: Optional[PlayerConfig] = None

    @property
    def is_remote(self) -> bool:
        return self.address is not None


def parse_player_spec(text: str) -> PlayerSpec:
    """Read `HOST:PORT` or `KIND[:key=value,...]`; ValueError says what is wrong.

    >>> parse_player_spec("127.0.0.1:9147").address
    PlayerAddress(host='127.0.0.1', port=9147)
    >>> parse_player_spec("agent:search=random,time=0.2").config.think_time
    0.2
    """
    text = text.strip()
    if PlayerAddress.looks_like(text):
        return PlayerSpec(text, address=PlayerAddress.parse(text))
    kind, _, options = text.partition(":")
    if kind not in PLAYER_KINDS:
        raise ValueError(
            f"player {text!r} is neither HOST:PORT nor one of {', '.join(PLAYER_KINDS)} "
            "(with optional :key=value,...)"
        )
    settings: dict = {"name": kind, "search": PLAYER_KINDS[kind]}
    search_options = []
    for item in filter(None, options.split(",")):
        key, equals, value = item.partition("=")
        if not equals:
            raise ValueError(f"player {text!r}: {item!r} is not key=value")
        key = key.strip()
        value = value.strip()
        try:
            if key in _SPEC_KEYS:
                field_name, read = _SPEC_KEYS[key]
                settings[field_name] = read(value)
            elif key in CONSTANTS:
                search_options.append(checked_option(key, value))
            else:
                raise ValueError(f"unknown key {key!r} (known: {', '.join(list(_SPEC_KEYS) + list(CONSTANTS))})")
        except ValueError as error:
            raise ValueError(f"player {text!r}: {error}") from None
    return PlayerSpec(text, config=PlayerConfig(search_options=tuple(search_options), **settings))


def _one_of(names, what: str):
    def read(value: str) -> str:
        if value not in names:
            raise ValueError(f"unknown {what} {value!r}; known: {', '.join(sorted(names))}")
        return value

    return read


def _at_least_one(value: str) -> int:
    number = int(value)
    if number < 1:
        raise ValueError(f"{value!r} is not a whole number of at least 1")
    return number


def _positive(value: str) -> float:
    number = float(value)
    if not number > 0 or number == float("inf"):
        raise ValueError(f"{value!r} is not a positive number of seconds")
    return number


#: The keys of an in-process player's spec (besides the search constants):
#: the `PlayerConfig` field each sets and how its text is read.
_SPEC_KEYS = {
    "search": ("search", _one_of(SEARCH_RULES, "search rule")),
    "engine": ("engine", _one_of(ENGINES, "engine")),
    "time": ("think_time", _positive),
    "margin": ("safety_margin", _positive),
    "name": ("name", str),
    "seed": ("seed", int),
    "ponder": ("ponder", parse_flag),
    "mem": ("memory_cap", lambda value: int(float(value) * 2**20)),
    "threads": ("threads", _at_least_one),
    "parallel": ("parallel", _one_of(PARALLEL, "parallel search")),
    "batch": ("batch", _at_least_one),
    "cpus": ("cpus", parse_cores),
}


@dataclass(frozen=True)
class PlayedMatch:
    """One match's records: the controller's, and each seat's own, in seat order:
    an in-process player's record of its turns with its search's figures, None
    for a player at an address (we cannot ask it)."""

    record: MatchRecord
    player_records: tuple[Optional[MatchRecord], ...]


async def play_match(game: ValidatedGame, seats: Sequence[PlayerSpec], start_clock: float, play_clock: float,
                     **options: Any) -> MatchRecord:
    """One match over HTTP; the controller's record (options as `play_match_with_players`)."""
    return (await play_match_with_players(game, seats, start_clock, play_clock, **options)).record


async def play_match_with_players(
    game: ValidatedGame,
    seats: Sequence[PlayerSpec],
    start_clock: float,
    play_clock: float,
    *,
    match_id: Optional[str] = None,
    game_name: str = "",
    record_dir: Optional[Path] = None,
    seed: Optional[int] = None,
    engine: str = "prolog",
    grace: Optional[float] = None,
    max_turns: Optional[int] = None,
    abandon_after: Optional[int] = None,
) -> PlayedMatch:
    """One match over HTTP: start the in-process players, run the controller, stop
    them, and collect the in-process players' own records of it."""
    if any(spec.config is not None and spec.config.search in RULES for spec in seats):
        ensure_warm()  # compiled kernels in memory before any START of this process
    servers: list[Optional[RunningServer]] = []
    try:
        addresses = []
        for spec in seats:
            if spec.is_remote:
                servers.append(None)
                addresses.append(spec.address)
            else:
                server = await start_server(Player(spec.config), "127.0.0.1", 0)
                servers.append(server)
                addresses.append(PlayerAddress(server.host, server.port))
        options = {} if grace is None else {"grace": grace}
        controller = GameController(
            game, addresses, start_clock, play_clock, match_id=match_id, game_name=game_name,
            engine=engine, record_dir=record_dir, seed=seed, max_turns=max_turns,
            player_names=[spec.label for spec in seats], abandon_after=abandon_after, **options,
        )
        record = await controller.run()
    finally:
        running = [server for server in servers if server is not None]
        await asyncio.gather(*(server.stop() for server in running), return_exceptions=True)
    # stop() waited for every clean-up: the players' records are written
    return PlayedMatch(record, tuple(None if server is None else server.player.finished_record(record.match_id)
                                     for server in servers))
