"""Numba's cache in a folder the process cannot write (the Docker image under
`docker run --read-only`): the kernels compiled ahead of time load, and nothing
is compiled again.

"Read-only" is a real read-only mount made in a private namespace (see
`read_only_command`), for the cache and the sources alike, as in the container;
"nothing compiled" is numba's own compile events (`counting_compilations`) and
its dispatcher's cache hits. The whole image's course (the install script, the
warm-up of every kernel, then a read-only run that compiles none) is one run in
tests/test_docker.py, which pays the cold compile once."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ggp_agent.folders import write_problem
from ggp_agent.propnet.jit.cache_stamp import kernel_sources
from ggp_agent.propnet.jit.numba_cache import cache_description, use_readable_cache
from ..helpers import empty_folders, read_only_command, require_read_only_mounts

TINY_KERNELS = """
from numba import njit


@njit(cache=True)
def add(a, b):
    return a + b
"""

#: Calls the tiny kernel once; prints what numba compiled and how often its cache served.
PROBE = """
import json, sys
from ggp_agent.propnet.jit.numba_cache import counting_compilations, use_readable_cache
if sys.argv[1] == "mirror":
    use_readable_cache()
import tiny_kernels
with counting_compilations() as compiled:
    assert tiny_kernels.add(1, 2) == 3
print(json.dumps({"compiled": compiled, "hits": sum(tiny_kernels.add.stats.cache_hits.values())}))
"""


def _files(folder: Path) -> dict[str, int]:
    return {str(path.relative_to(folder)): path.stat().st_mtime_ns for path in folder.rglob("*") if path.is_file()}


def _probe(command: list[str], env: dict) -> dict:
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_read_only_cache_is_read_through_a_mirror_and_nothing_is_compiled(tmp_path):
    require_read_only_mounts(tmp_path)
    source, cache, home, scratch = empty_folders(tmp_path, "src", "cache", "home", "tmp")
    (source / "tiny_kernels.py").write_text(TINY_KERNELS)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(source), "HOME": str(home),
           "TMPDIR": str(scratch)}

    compiling = _probe([sys.executable, "-c", PROBE, "plain"], env)  # the image's build step
    assert compiling["compiled"] == ["tiny_kernels.add"] and compiling["hits"] == 0
    baked = _files(cache)
    assert any(name.endswith(".nbi") for name in baked)

    # Without the mirror numba passes the read-only cache over and compiles
    # into the home folder: what the container did.
    passed_over = _probe(read_only_command([cache, source], [sys.executable, "-c", PROBE, "plain"]), env)
    assert passed_over["compiled"] == ["tiny_kernels.add"]
    assert any(name.endswith(".nbi") for name in _files(home))

    for path in home.iterdir():
        subprocess.run(["rm", "-rf", str(path)], check=True)
    mirrored = _probe(read_only_command([cache, source], [sys.executable, "-c", PROBE, "mirror"]), env)
    assert mirrored == {"compiled": [], "hits": 1}
    assert _files(cache) == baked and _files(home) == {}
    assert list(scratch.iterdir()) == []  # the mirror is gone at exit


def test_the_mirror_is_made_only_for_a_cache_that_cannot_be_written(tmp_path, monkeypatch):
    writable = tmp_path / "writable"
    writable.mkdir()
    environ = {"NUMBA_CACHE_DIR": str(writable)}
    assert use_readable_cache(environ) is None and environ == {"NUMBA_CACHE_DIR": str(writable)}
    assert use_readable_cache({}) is None  # no NUMBA_CACHE_DIR: numba's own choice
    missing = {"NUMBA_CACHE_DIR": str(tmp_path / "missing")}
    assert use_readable_cache(missing) is None  # nothing to read: numba creates it
    assert cache_description(environ) == str(writable)
    assert "next to the package's sources" in cache_description({})


def test_write_problem_says_why_a_folder_cannot_be_written(tmp_path):
    assert write_problem(tmp_path / "new" / "folder") is None and (tmp_path / "new" / "folder").is_dir()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert write_problem(blocker / "records") == "Not a directory"
    assert write_problem(tmp_path / "absent", create=False) == "No such file or directory"
    require_read_only_mounts(tmp_path)
    probe = "import sys; from ggp_agent.folders import write_problem; print(write_problem(sys.argv[1]))"
    done = subprocess.run(read_only_command([tmp_path], [sys.executable, "-c", probe, str(tmp_path)]),
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "Read-only file system", done.stderr


#: A kernel in one file that inlines a kernel of another (`caller.py`, `callee.py`).
CALLER = """
from ggp_agent.propnet.jit.decorators import kernel
from .callee import base


@kernel
def plus_one():
    return base() + 1
"""
CALLEE = """
from ggp_agent.propnet.jit.decorators import kernel


@kernel
def base():
    return {value}
"""
#: Tracks the package's folder as `decorators.py` tracks ours, then calls the caller.
CALL_CALLER = """
import json, sys
from pathlib import Path
from ggp_agent.propnet.jit.cache_stamp import track_sources
sys.path.insert(0, sys.argv[1])
track_sources([Path(sys.argv[1]) / "kernels_pkg"])
from kernels_pkg.caller import plus_one
print(json.dumps({"value": plus_one(), "hits": sum(plus_one.stats.cache_hits.values())}))
"""


def test_an_edit_to_an_inlined_callee_makes_the_callers_cache_stale(tmp_path):
    """Numba stamps a cached kernel with its own file; the callee it inlined is
    in another. Tracked folders stamp every kernel with all their sources."""
    package = tmp_path / "kernels_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "caller.py").write_text(CALLER)
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def call(value: int) -> dict:
        (package / "callee.py").write_text(CALLEE.format(value=value))
        done = subprocess.run([sys.executable, "-c", CALL_CALLER, str(tmp_path)], capture_output=True,
                              text=True, env=environment, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    assert call(10) == {"value": 11, "hits": 0}
    assert call(10) == {"value": 11, "hits": 1}  # unchanged sources: loaded from the cache
    assert call(20)["value"] == 21  # the callee changed, the caller's file did not
    # A module of the package that no kernel module imports (the search's
    # threads and orchestration) is not in the stamp: editing it compiles nothing.
    (package / "driver.py").write_text("from .caller import plus_one\nEDITED = 1\n")
    assert call(20) == {"value": 21, "hits": 1}


def test_the_kernel_sources_are_the_kernel_modules_and_what_they_import(tmp_path):
    """The stamp's files: modules that declare a kernel, and the modules of the
    package they import, anywhere in the file and transitively."""
    package = tmp_path / "kernels_pkg"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "caller.py": CALLER,
        "callee.py": CALLEE.format(value=1) + "\ndef later():\n    from .sub import constants\n",
        "sub/__init__.py": "",
        "sub/constants.py": "from kernels_pkg import widths\nLIMIT = 3\n",
        "widths.py": "import numpy\nWORD = 64\n",
        "driver.py": "import threading\nfrom .caller import plus_one\n",
        "unused.py": "VALUE = 1\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    found = {str(path.relative_to(package.resolve())) for path in kernel_sources((package.resolve(),))}
    assert found == {"caller.py", "callee.py", "sub/__init__.py", "sub/constants.py", "widths.py", "__init__.py"}


def test_the_command_line_imports_numba_only_after_it_chose_the_cache():
    """`ggp-agent` points numba at a readable cache before numba reads its
    configuration (`use_readable_cache`), so nothing its parser imports may
    import numba: a settings module that did made every read-only run compile
    every kernel again."""
    probe = "import sys, ggp_agent.cli.main; print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba'))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


#: A kernel whose signature holds a NamedTuple defined in another module (as
#: the search's kernels take the propnet's `Net`); `{shapes}` is where it lives.
PAIR_KERNEL = """
from ggp_agent.propnet.jit.decorators import kernel
from {shapes} import Pair


@kernel
def total(pair):
    return pair.a + pair.b


def call():
    return total(Pair(2, 3))
"""
PAIR_TYPE = "from typing import NamedTuple\n\n\nclass Pair(NamedTuple):\n    a: int\n    b: int\n"
CALL_PAIR = """
import json, sys
from pathlib import Path
from ggp_agent.propnet.jit.cache_stamp import track_sources
sys.path.insert(0, sys.argv[1])
track_sources([Path(sys.argv[1]) / "pair_pkg"])
from pair_pkg.caller import call, total
print(json.dumps({"value": call(), "hits": sum(total.stats.cache_hits.values())}))
"""


def test_a_type_of_a_cached_signature_that_moved_compiles_again(tmp_path):
    """numba unpickles a kernel's cache index, its signatures' types included,
    before it checks the stamp: after the type's module moved, the index
    raised ModuleNotFoundError at the kernel's first call. It is stale instead."""
    package = tmp_path / "pair_pkg"
    (package / "rooms").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "rooms" / "__init__.py").write_text("")
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def call() -> dict:
        done = subprocess.run([sys.executable, "-c", CALL_PAIR, str(tmp_path)], capture_output=True,
                              text=True, env=environment, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    (package / "shapes.py").write_text(PAIR_TYPE)
    (package / "caller.py").write_text(PAIR_KERNEL.format(shapes="pair_pkg.shapes"))
    assert call() == {"value": 5, "hits": 0}
    assert call() == {"value": 5, "hits": 1}
    (package / "shapes.py").rename(package / "rooms" / "shapes.py")
    (package / "caller.py").write_text(PAIR_KERNEL.format(shapes="pair_pkg.rooms.shapes"))
    assert call() == {"value": 5, "hits": 0}  # compiled again, not an import error
    assert call() == {"value": 5, "hits": 1}
