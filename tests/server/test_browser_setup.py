"""The browser tests' own set-up (`browser.py`): where Chromium is missing they
skip, saying what is missing, except under CI, where they fail."""

from __future__ import annotations

import pytest

from . import browser


def test_a_missing_browser_skips_outside_ci_and_fails_under_ci(monkeypatch, tmp_path):
    monkeypatch.setattr(browser, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="must run under CI: .*no-chromium not installed"):
        browser.require_browser()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no-chromium not installed"):
        browser.require_browser()
