"""How the suite is shared among parallel workers (pytest-xdist, ``make test``).

``make test`` hands out whole test files (``--dist loadfile``): a file's module-scoped
fixtures (a trained model, a server and browser) and whatever it caches (compiled JAX
programs) are made once, in one process. The files holding tests marked ``slow`` go first,
the slowest first, so that no worker is left with a long file at the end while the others
wait.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist, the files with more slow tests before the others, each file's tests in
    their own order (every worker collects, and sorts alike)."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return  # one process: pytest's own order
    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    order = {item: index for index, item in enumerate(items)}
    items.sort(key=lambda item: (-slow[item.path], order[item]))
