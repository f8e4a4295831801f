"""How ``make test`` shares the suite among workers (tests/conftest.py): under xdist the files
with slow tests go first, the slowest first, and each file's tests stay together in their own
order; in one process pytest's order is kept. ``make test`` and ``make check`` run the same
pytest command, ``make check`` less the slow tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import pytest_collection_modifyitems

REPO = Path(__file__).resolve().parents[1]


class Item:
    """What the ordering reads of a collected test: its file and its ``slow`` mark."""

    def __init__(self, path: str, name: str, slow: bool = False) -> None:
        self.path, self.name, self.slow = Path(path), name, slow

    def get_closest_marker(self, name: str) -> object | None:
        return "slow" if name == "slow" and self.slow else None


def suite() -> list[Item]:
    return [Item("a.py", "a1"), Item("a.py", "a2"),
            Item("b.py", "b1", slow=True), Item("b.py", "b2"),
            Item("c.py", "c1"), Item("c.py", "c2", slow=True), Item("c.py", "c3", slow=True)]


def test_under_xdist_the_files_with_more_slow_tests_go_first(
        pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    items = suite()
    pytest_collection_modifyitems(pytestconfig, items)
    assert [item.name for item in items] == ["c1", "c2", "c3", "b1", "b2", "a1", "a2"]


def test_in_one_process_pytest_order_is_kept(pytestconfig: pytest.Config,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    items = suite()
    pytest_collection_modifyitems(pytestconfig, items)
    assert [item.name for item in items] == [item.name for item in suite()]


def test_the_slow_marker_is_registered(pytestconfig: pytest.Config) -> None:
    assert any(line.startswith("slow:") for line in pytestconfig.getini("markers"))


def test_make_test_and_make_check_run_one_pytest_command() -> None:
    """Both run ruff, then the same parallel pytest, whole files to a worker (the module-scoped
    fixtures made once); ``make check`` deselects the slow tests only."""
    makefile = (REPO / "Makefile").read_text()
    command = re.search(r"^PYTEST := (.*)$", makefile, flags=re.M).group(1)
    assert "-n auto" in command and "--dist loadfile" in command
    assert "--no-loadscope-reorder" in command  # the order tests/conftest.py gives
    targets = {name: body for name, body in re.findall(r"^(\w+):.*\n((?:\t.*\n)+)", makefile,
                                                       flags=re.M)}
    assert targets["test"] == "\t$(BIN)/ruff check .\n\t$(PYTEST)\n"
    assert targets["check"] == "\t$(BIN)/ruff check .\n\t$(PYTEST) -m \"not slow\"\n"
    assert "make test" in (REPO / ".ci" / "run").read_text()
