"""Numba's disk cache, keyed by every source a kernel may have inlined.

Numba stamps a cached kernel with its own source file only. A kernel inlines
the kernels it calls and freezes the module-level constants it reads (the
search's field indexes, the propnet's word sizes), and those live in other
files: after an edit to `mcps.py`, `iteration.py`'s cached kernels went on running
the old `mcps` code until someone deleted the cache by hand, and a package
upgrade that changed only a callee's file would do the same to a user's
install.

`track_sources(folders)` makes the stamp of every kernel defined under those
folders cover the content of its **kernel sources**: every module under the
folders that defines a kernel, and every module of the same package those
modules import, transitively (`kernel_sources`). A kernel can reach a callee
or a constant only through a module its own module imports, so an edit to
any of those makes every such kernel's cache stale, and numba compiles it
again (a minute or two, once). An edit to a module no kernel module imports
(the search's threads and orchestration: `tree_search.py`, `registry.py`)
leaves the cache as it is: before, any edit under the folders recompiled
every kernel, about three minutes of CPU at each developer's next run. The
propnet's and the search's folders, where all kernels live, are tracked when
`decorators.py` is imported, before any kernel is declared (numba picks a kernel's
cache locator when the decorator runs).

An index that names a module or class that no longer exists is stale too
(`_tolerant_index`): numba unpickles a kernel's whole index, the signatures'
types included, before it compares the stamp, so moving a type that a
cached signature holds (the propnet's `Net` went from `propnet/arrays.py`
into a room) made every kernel cached with it raise ModuleNotFoundError
instead of compiling again.

This extends numba through its cache locator classes and its index file,
which numba does not document as public: if they are not where this expects
them, nothing is installed and a warning says so (kernels are then stamped
and loaded as numba does).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
from pathlib import Path
from typing import Iterable, Optional

log = logging.getLogger(__name__)

#: Folders whose kernels carry the digest of their kernel sources.
_tracked: list[Path] = []

#: The index loaders `_tolerant_index` made (installed once per process), and
#: the indexes it found naming moved code (each logged once).
_tolerant_loaders: set = set()
_moved_indexes: set = set()

#: Decorators that make a function a numba kernel (ours from `decorators.py`, and numba's own).
KERNEL_DECORATORS = frozenset({
    "kernel", "allocating_kernel", "intrinsic", "njit", "jit", "generated_jit", "overload",
    "register_jitable", "vectorize", "guvectorize", "cfunc", "stencil",
})


_KERNEL_DECORATOR = re.compile(r"^[ \t]*@(?:[\w.]+\.)?(\w+)", re.M)
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.M)


def _module_file(base: Path, dotted: str) -> list[Path]:
    """The file a dotted name under `base` may name: a module, or a package's
    `__init__.py` (none when neither exists)."""
    target = base.joinpath(*dotted.split(".")) if dotted else base
    if target.with_suffix(".py").is_file():
        return [target.with_suffix(".py")]
    if (target / "__init__.py").is_file():
        return [target / "__init__.py"]
    return []


def _package_root(path: Path, top: str) -> Optional[Path]:
    """The folder that holds the top-level package `top` among `path`'s ancestors."""
    for folder in path.parents:
        if folder.name == top and (folder / "__init__.py").is_file():
            return folder.parent
    return None


@functools.lru_cache(maxsize=None)
def _defines_kernel_and_imports(path: Path) -> tuple[bool, frozenset[Path]]:
    """Whether the module at `path` declares a kernel, and the files of its own
    package it imports anywhere (at the top or inside a function). Read by
    pattern, not parsed: a line that only looks like an import (in a string)
    adds a file at most, and more files in the stamp is only a needless
    compile, never a stale one; parsing every module cost a second at start."""
    text = path.read_text(encoding="utf-8")
    defines = any(name in KERNEL_DECORATORS for name in _KERNEL_DECORATOR.findall(text))
    imported: set[Path] = set()
    for dots, dotted, names in _FROM_IMPORT.findall(text):
        if dots:
            base = path.parents[len(dots) - 1]
        else:
            root = _package_root(path, dotted.split(".")[0])
            if root is None:
                continue
            base = root
        imported.update(_module_file(base, dotted))
        for name in re.findall(r"\w+", re.sub(r"#[^\n]*", "", names)):  # `from . import module`
            imported.update(_module_file(base, f"{dotted}.{name}" if dotted else name))
    for names in _IMPORT.findall(text):
        for alias in names.split(","):
            dotted = alias.split()[0] if alias.split() else ""
            root = _package_root(path, dotted.split(".")[0]) if dotted else None
            if root is not None:
                imported.update(_module_file(root, dotted))
    return defines, frozenset(imported)


@functools.lru_cache(maxsize=None)
def kernel_sources(folders: tuple[Path, ...]) -> tuple[Path, ...]:
    """Every module under `folders` that declares a kernel, and every module of
    its package it imports, transitively: all a kernel may inline or freeze."""
    pending = []
    for folder in folders:
        for path in sorted(p.resolve() for p in folder.rglob("*.py")):
            defines, _ = _defines_kernel_and_imports(path)
            if defines:
                pending.append(path)
    found: set[Path] = set()
    while pending:
        path = pending.pop()
        if path in found:
            continue
        found.add(path)
        pending.extend(p.resolve() for p in _defines_kernel_and_imports(path)[1])
    return tuple(sorted(found))


@functools.lru_cache(maxsize=None)
def sources_digest(folders: tuple[Path, ...]) -> str:
    """A digest of the kernel sources of `folders`: their paths and contents
    (read once per process and set of folders)."""
    digest = hashlib.sha256()
    for path in kernel_sources(folders):
        digest.update("/".join(path.parts[-2:]).encode())
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


def _tolerant_index(load_index):
    """numba's index loader, with an index that names code that is gone read
    as stale (empty): the kernel compiles again and its index is rewritten."""

    @functools.wraps(load_index)
    def load(self):
        try:
            return load_index(self)
        except (ImportError, AttributeError) as error:
            if self._index_path not in _moved_indexes:  # read again when the new code is saved
                _moved_indexes.add(self._index_path)
                log.info("numba cache index %s names code that moved (%s): compiling again", self._index_path, error)
            return {}

    return load


def track_sources(folders: Iterable[Path]) -> bool:
    """Stamp the kernels defined under `folders` with the digest of all their
    sources, and read an index that names moved code as stale; True when
    installed (once per process; later folders are added)."""
    _tracked.extend(Path(folder).resolve() for folder in folders)
    try:
        from numba.core.caching import (
            CacheImpl, IndexDataCacheFile, InTreeCacheLocator, UserProvidedCacheLocator, UserWideCacheLocator,
        )
        load_index = IndexDataCacheFile._load_index
    except (ImportError, AttributeError):
        log.warning("numba's cache locators are not where expected: kernels keep numba's own stamp")
        return False
    if load_index not in _tolerant_loaders:
        IndexDataCacheFile._load_index = _tolerant_index(load_index)
        _tolerant_loaders.add(IndexDataCacheFile._load_index)
    if any(issubclass(locator, _TrackedStamp) for locator in CacheImpl._locator_classes):
        return True
    bases = (UserProvidedCacheLocator, InTreeCacheLocator, UserWideCacheLocator)
    CacheImpl._locator_classes[:0] = [type(f"Tracked{base.__name__}", (_TrackedStamp, base), {}) for base in bases]
    return True
