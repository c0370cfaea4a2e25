"""`ggp-agent profile`: where a search's CPU time goes, by kernel, with perf and gdb.

Why a command of its own: the kernels are numba code, which Python's
profilers do not see and `perf` sees only as anonymous addresses (the JIT's
code has no symbol file). LLVM's JIT registers every object it loads with
gdb's JIT interface, though, so gdb attached to the running process names
the function that holds an address. This command runs the workload in a
child process (`--child`), samples it with `perf record`, asks gdb for the
function of every hot address and sums the samples by kernel
(`search.tree.descend`, `propnet.kernels.lane_gates.post_move_sparse`, ...). Callees
that LLVM inlined count in their caller.

It needs Linux's `perf` (perf_event_paranoid at most 2) and `gdb`; a
developer's tool, not a player's. Speed claims still go through `bench`.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterable

from .errors import CommandError, read_game

#: Hot addresses resolved (by share of samples): the rest is a long tail of
#: single samples.
TOP_ADDRESSES = 400
#: perf's sampling frequency (Hz).
SAMPLE_HZ = 4000


def register(commands: argparse._SubParsersAction) -> None:
    profile = commands.add_parser("profile", help="where a search's CPU time goes, by kernel (needs perf and gdb)")
    profile.add_argument("game", type=Path)
    profile.add_argument("--search", default="mcps", help="a tree search rule, or 'lanes' for random lane playouts")
    profile.add_argument("--seconds", type=float, default=6.0, help="seconds sampled (after a 0.5 s warm search)")
    profile.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                         help="a search setting, e.g. codes=effects (repeatable)")
    profile.add_argument("--top", type=int, default=15, help="kernels listed")
    profile.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    profile.set_defaults(run=run_profile)


def _options(args) -> dict:
    """The --option items as search options, by the parser `serve` and `bench` use."""
    from ..search.registry import checked_options

    try:
        return dict(checked_options(args.option))
    except ValueError as error:
        raise CommandError(f"--option: {error}") from None


def run_profile(args) -> int:
    if args.child:
        return _child(args)
    read_game(args.game)  # a broken game is named before anything starts
    _options(args)  # so is a bad option
    missing = [tool for tool in ("perf", "gdb") if shutil.which(tool) is None]
    if missing:
        raise CommandError(f"profile needs {' and '.join(missing)} (Debian: linux-perf, gdb)")
    command = [sys.executable, "-m", "ggp_agent.cli", "-q", "profile", str(args.game), "--child",
               "--search", args.search, "--seconds", str(args.seconds + 30.0)]
    for option in args.option:
        command += ["--option", option]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        if not line.startswith("ready"):
            raise CommandError(f"the workload did not start: {line.strip() or 'no output'}")
        with tempfile.TemporaryDirectory() as folder:
            data = Path(folder) / "perf.data"
            _run(["perf", "record", "-q", "-F", str(SAMPLE_HZ), "-p", str(child.pid), "-o", str(data),
                  "--", "sleep", str(args.seconds)])
            report = _run(["perf", "report", "-i", str(data), "--stdio", "--no-children", "--sort", "sym"])
        hot = hot_addresses(report)[:TOP_ADDRESSES]
        names = _gdb_names(child.pid, [address for _, address in hot if address.startswith("0x")])
    finally:
        child.kill()
        child.wait()
    totals = by_kernel(hot, names)
    covered = sum(share for share, _ in hot)
    print(f"{args.game.stem}, {args.search}: {args.seconds:g} s sampled, "
          f"the top {len(hot)} addresses hold {covered:.1f}% of the samples")
    for name, share in totals.most_common(args.top):
        print(f"  {share:6.2f}%  {name}")
    return 0


def _run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise CommandError(f"{command[0]} failed: {done.stderr.strip()[:300]}")
    return done.stdout


def hot_addresses(report: str) -> list[tuple[float, str]]:
    """(share %, symbol or 0x address) per line of `perf report --sort sym`, largest first."""
    rows = []
    for line in report.splitlines():
        match = re.match(r"\s*([0-9.]+)%\s+\[[.k]\]\s+(\S+)", line)
        if match:
            rows.append((float(match.group(1)), match.group(2)))
    return sorted(rows, reverse=True)


def kernel_name(symbol: str) -> str:
    """A numba function's readable name from its mangled one (length-prefixed
    parts after `_ZN`): `_ZN9ggp_agent6search4tree7descendB4v199...` ->
    `search.tree.descend`; any other symbol as it is."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts = []
    i = 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while j < len(symbol) and symbol[j].isdigit():
            j += 1
        length = int(symbol[i:j])
        parts.append(symbol[j:j + length])
        i = j + length
    if parts and parts[0] == "ggp_agent":
        parts = parts[1:]
    return ".".join(parts) or symbol


def _gdb_names(pid: int, addresses: Iterable[str]) -> dict[str, str]:
    """The function holding each address, as gdb attached to `pid` names it."""
    addresses = list(addresses)
    if not addresses:
        return {}
    script = ["set pagination off"]
    for address in addresses:
        script += [f"echo @@{address}\\n", f"info symbol {address}"]
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as handle:
        handle.write("\n".join(script) + "\n")
    try:
        output = subprocess.run(["gdb", "-p", str(pid), "-batch", "-x", handle.name],
                                capture_output=True, text=True, timeout=180).stdout
    finally:
        os.unlink(handle.name)
    names = {}
    for chunk in output.split("@@")[1:]:
        address, _, rest = chunk.partition("\n")
        symbol = re.search(r"(_ZN\S+|\S+) \+ \d+ in section", rest)
        if symbol:
            names[address.strip()] = kernel_name(symbol.group(1))
    return names


def by_kernel(hot: list[tuple[float, str]], names: dict[str, str]) -> collections.Counter:
    """Shares summed by function; an address gdb could not name stays 'unresolved'."""
    totals: collections.Counter = collections.Counter()
    for share, symbol in hot:
        totals[names.get(symbol, "unresolved") if symbol.startswith("0x") else symbol] += share
    return totals


def _child(args) -> int:
    """The workload: the game's opening searched (or random lane playouts) for
    `seconds`, after a warm 0.5 s so that loading the kernels is not sampled."""
    from ..engines import make_state_machine
    from ..propnet.machine.bench import bench_net
    from ..reasoner.statemachine import ReasonerError

    try:
        machine = make_state_machine("propnet", read_game(args.game))
    except ReasonerError as error:
        print(f"no propnet: {error}", flush=True)
        return 1
    if args.search == "lanes":
        bench_net(machine.net, 0.5, 1000, strategies=("lanes",))
        print("ready", flush=True)
        bench_net(machine.net, args.seconds, 1000, strategies=("lanes",))
        return 0
    from ..search.bench import opening_chooser
    from ..search.registry import make_tree_search

    options = _options(args)
    state = machine.initial_state()
    role = opening_chooser(machine, state)
    search = make_tree_search(args.search, machine, role, seed=1, options=options)
    search.prepare(state)
    search.run_for(0.5)
    print("ready", flush=True)
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        search.run_for(1.0)
    return 0
