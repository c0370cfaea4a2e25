"""How a subcommand fails: one error with its message and exit status, and reading a game."""

from __future__ import annotations

from pathlib import Path

from ..gdl import GdlError, ValidatedGame, load_game


class CommandError(Exception):
    """A subcommand cannot go on: `main` prints `error: <message>` and exits with `exit_code`."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def read_game(path: Path, invalid_exit: int = 2) -> ValidatedGame:
    """The validated game in `path`; a CommandError when it cannot be read (exit
    status 2) or is not valid GDL (`invalid_exit`)."""
    try:
        return load_game(path)
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}") from None
    except GdlError as error:
        raise CommandError(f"{path}: {error}", invalid_exit) from None
