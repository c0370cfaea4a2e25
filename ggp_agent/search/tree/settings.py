"""Settings given by name and as text (player specs, `--search-option`,
environment variables), applied to the frozen dataclasses that hold a
search's constants: `params.SearchParams` and `ensemble.EnsembleParams` read
them the same way, so both parse booleans and numbers alike."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Mapping, TypeVar, get_args, get_type_hints

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
    types = get_type_hints(type(settings))
    changes: dict = {}
    for key, value in options.items():
        if key not in known:
            raise ValueError(f"unknown {what} setting {key!r} (known: {', '.join(known)})")
        changes[key] = _converted(value, types[key])
    return replace(settings, **changes)


def _converted(value: object, kind: object) -> object:
    """`value` as the field type `kind` holds it: bool, int, float or str, or
    an optional one of those (None from "none" or an empty text: unset).

    >>> from typing import Optional
    >>> _converted("0", Optional[float]), _converted("none", Optional[float]), _converted("2", int)
    (0.0, None, 2)
    """
    choices = [choice for choice in get_args(kind) if choice is not type(None)]
    if choices:  # Optional[X]
        if value is None or str(value).strip().lower() in ("", "none"):
            return None
        kind = choices[0]
    if kind is bool:
        return value if isinstance(value, bool) else parse_flag(str(value))
    if kind is int:
        return int(value)
    if kind is float:
        return float(value)
    return str(value)
