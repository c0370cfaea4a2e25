"""Settings given by name and as text (player specs, `--search-option`,
environment variables), applied to the frozen dataclasses that hold a
search's constants: `params.SearchParams` and `ensemble.EnsembleParams` read
them the same way, so both parse booleans and numbers alike."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Mapping, TypeVar

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")

Settings = TypeVar("Settings")


def parse_flag(text: str) -> bool:
    """An on/off setting written as text (a player spec, an environment variable).

    >>> parse_flag("yes"), parse_flag("0")
    (True, False)
    """
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"{text!r} is not on or off (use one of {', '.join(_TRUE + _FALSE)})")


def with_options(settings: Settings, options: Mapping[str, object], what: str) -> Settings:
    """A copy of the dataclass `settings` with `options` (field names, values as
    text or numbers, converted to each field's type) applied; an unknown name
    is a ValueError naming `what` and the known fields.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Demo:
    ...     on: bool = False
    ...     n: int = 1
    >>> with_options(Demo(), {"on": "yes", "n": "3"}, "demo")
    Demo(on=True, n=3)
    """
    known = [f.name for f in fields(settings)]
    changes: dict = {}
    for key, value in options.items():
        if key not in known:
            raise ValueError(f"unknown {what} setting {key!r} (known: {', '.join(known)})")
        current = getattr(settings, key)
        if isinstance(current, bool):
            changes[key] = value if isinstance(value, bool) else parse_flag(str(value))
        elif isinstance(current, int):
            changes[key] = int(value)
        elif isinstance(current, float):
            changes[key] = float(value)
        else:
            changes[key] = str(value)
    return replace(settings, **changes)
