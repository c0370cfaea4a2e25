#!/usr/bin/env bash
# Installs what ggp-agent needs and is missing: Debian's swi-prolog-nox (when
# `swipl` is absent), a virtual environment, and the package into it; with the
# test extra also Debian's chromium and chromium-driver, the browser the status
# page's tests drive (serving needs no browser).
# One script for every set-up path: `make serve`, `make test` and the Docker image
# all run it, so the steps a user runs are the steps CI proves.
#
# Usage: docker/install.sh [VENV_DIR] [EXTRAS]
#   VENV_DIR  where the virtual environment goes (default: .venv)
#   EXTRAS    pip extras to install, comma-separated, e.g. "test" (default: none)
# Environment: PYTHON (interpreter for the venv, default python3),
#   GGP_EDITABLE=0 to install a copy instead of an editable install.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-$root/.venv}"
extras="${2:-}"
python="${PYTHON:-python3}"

# Debian packages, as root or through sudo; apt's lists are updated once.
apt_updated=""
apt_install() {
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
            echo "install: need root or sudo to apt-get install $*" >&2; exit 1
        fi
    fi
    if [ -z "$apt_updated" ]; then
        $sudo apt-get update -qq
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}

if ! command -v swipl >/dev/null 2>&1; then
    echo "install: swipl not found, installing Debian's swi-prolog-nox" >&2
    apt_install swi-prolog-nox
fi

# The test extra's browser: Debian's build and its driver, at the paths the
# tests give Selenium (tests/server/browser.py), so nothing downloads one later.
case ",$extras," in
    *,test,*)
        if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
            echo "install: chromium or chromedriver not found, installing Debian's chromium and chromium-driver" >&2
            apt_install chromium chromium-driver
        fi
        ;;
esac

if [ ! -x "$venv/bin/python" ]; then
    echo "install: creating virtual environment $venv" >&2
    "$python" -m venv "$venv"
fi

spec="$root"
[ -n "$extras" ] && spec="$root[$extras]"
# Reinstall only when the project's metadata changed since the last install.
stamp="$venv/.ggp-agent-installed${extras:+-$extras}"
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ]; then
    "$venv/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
    if [ "${GGP_EDITABLE:-1}" = 1 ]; then
        "$venv/bin/python" -m pip install -q -e "$spec"
    else
        "$venv/bin/python" -m pip install -q "$spec"
    fi
    touch "$stamp"
fi
