"""The `ggp-agent` parser: the subcommands of `games`, `service`, `matches`, `experiment` and `profile`, and logging."""

from __future__ import annotations

import argparse
import logging
import logging.handlers
import sys
from typing import Optional, Sequence

from ..propnet.jit.numba_cache import use_readable_cache
from . import experiment, games, matches, profile, service
from .errors import CommandError

_LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="ggp-agent", description="A General Game Playing agent.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at debug level")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings and errors only")
    parser.set_defaults(log_file=None, uses_numba=True)
    commands = parser.add_subparsers(dest="command", required=True)
    for group in (games, service, matches, experiment, profile):
        group.register(commands)
    args = parser.parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.WARNING if args.quiet else logging.INFO
    logging.basicConfig(level=level, format=_LOG_FORMAT)
    if args.log_file:
        handler = logging.handlers.RotatingFileHandler(args.log_file, maxBytes=10 << 20, backupCount=5)
        handler.setFormatter(logging.Formatter(_LOG_FORMAT))
        logging.getLogger().addHandler(handler)
    if args.uses_numba:
        use_readable_cache()  # before anything imports numba
    try:
        return args.run(args)
    except CommandError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
