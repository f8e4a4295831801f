"""A machine without Chromium: the browser tests skip there, saying why, and fail under CI.

The README's `make test` must pass on a fresh machine with Python and pip only, so the
browser module is collected in a child pytest with ``HILO_CHROMIUM`` pointing nowhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BROWSER_TESTS = Path(__file__).with_name("test_web_browser.py")


def run_browser_tests(ci: str | None) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["HILO_CHROMIUM"] = "/nonexistent/chromium"
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         "-p", "no:xdist", str(BROWSER_TESTS)],
        env=env, capture_output=True, text=True, timeout=120)


def test_without_chromium_the_browser_tests_skip_with_the_reason() -> None:
    result = run_browser_tests(ci=None)
    assert result.returncode == pytest.ExitCode.OK, result.stdout + result.stderr
    assert "skipped" in result.stdout
    assert "Chromium (/nonexistent/chromium) is missing" in result.stdout
    assert "apt-get install chromium" in result.stdout


def test_under_ci_a_missing_chromium_fails() -> None:
    result = run_browser_tests(ci="true")
    assert result.returncode != 0
    assert "CI runs the browser tests, but Chromium" in result.stdout + result.stderr
