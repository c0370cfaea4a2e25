"""Headless Chromium driven through Selenium, for the status page's tests and
the docs' screenshots (docs/screenshots/take.py).

The browser is Debian's `chromium` and its driver Debian's `chromium-driver`,
at their Debian paths; `make test` installs both (docker/install.sh, the test
extra). Selenium is handed the driver's path (`Service`), so Selenium Manager
never runs and nothing is downloaded, and it talks to the driver on
127.0.0.1. Chromium runs headless in a fresh profile with everything that
would reach the network at start turned off (`FLAGS`).

Without them a test skips, saying what is missing, except under CI
(CI=true), where it fails: a CI run whose browser tests all skipped would
say nothing about the page."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Optional

import pytest

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

#: A quiet headless run that sends nothing anywhere (the profile is given per session).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic")


def missing_browser() -> Optional[str]:
    """What this machine lacks to drive a browser, or None."""
    absent = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.is_file()]
    if absent:
        return (f"{' and '.join(absent)} not installed (Debian's chromium and chromium-driver; "
                "`make test` installs them)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (the test extra: `make test`, or pip install -e '.[test]')"
    return None


def require_browser() -> None:
    """Skip the calling test where no browser can be driven; under CI, fail it."""
    problem = missing_browser()
    if problem is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the status page's browser tests must run under CI: {problem}")
    pytest.skip(problem)


@contextmanager
def chromium(profile: Path, width: int = 1100, height: int = 800) -> Iterator["WebDriver"]:
    """A Chromium session in a fresh profile folder `profile` whose page is
    `width` x `height` pixels, quit on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    class LoopbackService(Service):
        """chromedriver addressed as 127.0.0.1 (Selenium says `localhost`)."""

        @property
        def service_url(self) -> str:
            return f"http://127.0.0.1:{self.port}"

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=LoopbackService(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        # --window-size is the window's: grow it by what the browser's frame takes, so the page gets the size.
        inner = driver.execute_script("return [window.innerWidth, window.innerHeight];")
        if inner != [width, height]:
            outer = driver.get_window_size()
            driver.set_window_size(outer["width"] + width - inner[0], outer["height"] + height - inner[1])
        yield driver
    finally:
        driver.quit()
