"""The ``seed`` and ``options`` of every env's ``reset``, checked the same way for every game."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

API_TEST_PROBE = "options"
"""The one unknown reset option tolerated: ``pettingzoo.test.api_test`` calls
``reset(options={"options": 1})`` to check that the argument exists. Every other unknown key is
refused, so a misspelt ``deck`` cannot silently deal a random game."""


def reset_options(options: Any, known: Collection[str]) -> Mapping[str, Any]:
    """``options`` (None: none) once checked: a mapping whose keys are among ``known``; a
    TypeError or ValueError names what is wrong."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"reset options must be a dict, not {type(options).__name__}")
    unknown = sorted(map(str, set(options) - {*known, API_TEST_PROBE}))
    if unknown:
        raise ValueError(f"unknown reset option(s) {unknown}; known: {list(known)}")
    return options


def reset_seed(seed: Any) -> Any:
    """``seed`` unless it is a bool (Python's or NumPy's), which a TypeError refuses: NumPy
    would seed with ``True`` as 1. Anything else is NumPy's to take or refuse."""
    if isinstance(seed, bool | np.bool_):
        raise TypeError(f"a seed is an integer or None, not the bool {seed!r}")
    return seed
