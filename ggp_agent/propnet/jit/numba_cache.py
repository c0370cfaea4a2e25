"""Keep numba loading the kernels compiled ahead of time, even from a folder it cannot write.

Numba caches compiled kernels on disk, in the first of these folders that it
can *write* (it checks by creating a file there): NUMBA_CACHE_DIR,
`__pycache__` next to the sources, the user's `~/.cache/numba`. A cache that is
only readable -- the Docker image's `/var/cache/ggp-agent/numba` under `docker
run --read-only`, an install owned by another user -- is therefore passed over
although it holds every kernel, and numba compiles them all again into the home
directory: a minute or two of compiling, during the first matches.

`use_readable_cache()` keeps such a cache in use. When NUMBA_CACHE_DIR names a
folder that exists but cannot be written, it builds a writable mirror in the
temporary directory (the same sub-folders, a symbolic link to each file) and
points NUMBA_CACHE_DIR there. Numba reads the indexes and the kernels through
the links and writes whatever it does compile beside them (a new index replaces
its link; the original folder is never written). The mirror is a few hundred
links, removed at exit.

It has to run before numba is imported, since numba reads NUMBA_CACHE_DIR then:
the command line calls it first thing, and the processes it starts inherit the
setting. The cache's entries are keyed by the source file's path and stamp
(its content in recent numba releases, its modification time and size in older
ones) and by the CPU name, which is why the image compiles them where the
package is installed, after the last change to its files, as the user that runs
it, with NUMBA_CPU_NAME=generic.

`counting_compilations()` collects the functions numba compiles meanwhile (one
loaded from the cache is not compiled); the warm-up reports the count, so a log
line says whether the cache served.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator, MutableMapping, Optional

from ...folders import write_problem

log = logging.getLogger(__name__)

#: The environment variable numba takes its cache folder from.
CACHE_VARIABLE = "NUMBA_CACHE_DIR"

#: (read-only cache, its mirror) once `use_readable_cache` made one in this process.
_mirrored: Optional[tuple[Path, Path]] = None


def use_readable_cache(environ: MutableMapping[str, str] = os.environ) -> Optional[Path]:
    """Point NUMBA_CACHE_DIR at a writable mirror of the folder it names when that
    folder exists but cannot be written; returns the mirror, or None when numba
    can use the folder as it is (or there is none, or no mirror can be made)."""
    global _mirrored
    configured = environ.get(CACHE_VARIABLE, "")
    if not configured:
        return None
    cache = Path(configured)
    problem = write_problem(cache, create=False) if cache.is_dir() else None
    if problem is None:
        return None
    try:
        mirror = Path(tempfile.mkdtemp(prefix="ggp-agent-numba-"))
    except OSError as error:
        log.warning("numba cache %s cannot be written (%s) and no temporary folder can be made (%s): "
                    "numba will compile the kernels elsewhere", cache, problem, error.strerror)
        return None
    atexit.register(shutil.rmtree, mirror, True)
    links = _link_tree(cache, mirror)
    environ[CACHE_VARIABLE] = str(mirror)
    _mirrored = (cache, mirror)
    log.info("numba cache %s cannot be written (%s): reading its %d files through links in %s",
             cache, problem, links, mirror)
    return mirror


def _link_tree(source: Path, mirror: Path) -> int:
    """Recreate `source`'s folders under `mirror` with a link to each file; returns the links."""
    links = 0
    for folder, _subfolders, files in os.walk(source):
        target = mirror / Path(folder).relative_to(source)
        target.mkdir(exist_ok=True)
        for name in files:
            (target / name).symlink_to(Path(folder) / name)
            links += 1
    return links


def cache_description(environ: MutableMapping[str, str] = os.environ) -> str:
    """Where numba keeps its compiled kernels, for a person reading the warm-up's output."""
    configured = environ.get(CACHE_VARIABLE, "")
    if not configured:
        return "__pycache__ folders next to the package's sources"
    if _mirrored is not None and Path(configured) == _mirrored[1]:
        return f"{_mirrored[0]} (read-only: read through links in {_mirrored[1]})"
    return configured


@contextlib.contextmanager
def counting_compilations() -> Iterator[list[str]]:
    """Yields a list that collects the name of each function numba compiles
    until the block ends, in any thread; a kernel loaded from the cache is not
    compiled and does not appear."""
    from numba.core import event

    compiled: list[str] = []

    class _Names(event.Listener):
        def on_start(self, compile_event) -> None:
            function = compile_event.data["dispatcher"].py_func
            compiled.append(f"{function.__module__}.{function.__qualname__}")

        def on_end(self, compile_event) -> None:
            pass

    with event.install_listener("numba:compile", _Names()):
        yield compiled


__all__ = ["CACHE_VARIABLE", "cache_description", "counting_compilations", "use_readable_cache"]
