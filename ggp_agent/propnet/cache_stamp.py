"""Numba's disk cache, keyed by every source a kernel may have inlined.

Numba stamps a cached kernel with its own source file only. A kernel inlines
the kernels it calls and freezes the module-level constants it reads (the
search's field indexes, the propnet's word sizes), and those live in other
files: after an edit to `mcps.py`, `tree.py`'s cached kernels went on running
the old `mcps` code until someone deleted the cache by hand, and a package
upgrade that changed only a callee's file would do the same to a user's
install.

`track_sources(folders)` makes the stamp of every kernel defined under those
folders cover the content of all their Python files: any edit there makes
every such kernel's cache stale, and numba compiles it again (a minute or two,
once). The propnet's and the search's folders, where all kernels and the
constants they read live, are tracked when `jit.py` is imported, before any
kernel is declared (numba picks a kernel's cache locator when the decorator
runs).

This extends numba through its cache locator classes, which numba does not
document as public: if they are not where this expects them, nothing is
installed and a warning says so (kernels are then stamped as numba does).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from pathlib import Path
from typing import Iterable

log = logging.getLogger(__name__)

#: Folders whose kernels carry the digest of all the folders' sources.
_tracked: list[Path] = []


@functools.lru_cache(maxsize=None)
def sources_digest(folders: tuple[Path, ...]) -> str:
    """A digest of every `*.py` file under `folders`: their paths and contents
    (read once per process and set of folders)."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            digest.update(str(path.relative_to(folder.parent)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _is_tracked(py_file: str) -> bool:
    path = Path(py_file).resolve()
    return any(path.is_relative_to(folder) for folder in _tracked)


class _TrackedStamp:
    """Mixed in before one of numba's source-file locators: claims the kernels
    of tracked files, and adds the tracked digest to their stamp."""

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _is_tracked(py_file):
            return None
        return super().from_function(py_func, py_file)

    def get_source_stamp(self):
        return (super().get_source_stamp(), sources_digest(tuple(_tracked)))


def track_sources(folders: Iterable[Path]) -> bool:
    """Stamp the kernels defined under `folders` with the digest of all their
    sources; True when installed (once per process; later folders are added)."""
    _tracked.extend(Path(folder).resolve() for folder in folders)
    try:
        from numba.core.caching import (
            CacheImpl, InTreeCacheLocator, UserProvidedCacheLocator, UserWideCacheLocator,
        )
    except ImportError:
        log.warning("numba's cache locators are not where expected: kernels keep numba's own stamp")
        return False
    if any(issubclass(locator, _TrackedStamp) for locator in CacheImpl._locator_classes):
        return True
    bases = (UserProvidedCacheLocator, InTreeCacheLocator, UserWideCacheLocator)
    CacheImpl._locator_classes[:0] = [type(f"Tracked{base.__name__}", (_TrackedStamp, base), {}) for base in bases]
    return True
