"""Uniformly random legal actions, in batches: what every random player draws with (the
agents' ``RandomAgent``, the learner envs' default opponent)."""

from __future__ import annotations

import numpy as np


def sample_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) one uniformly random legal action per mask row (every row needs one).

    Rejection sampling over the whole row first (most betting rows are mostly legal), then an
    exact draw among the listed legal actions of the rows left (few legal actions each).
    """
    m = np.asarray(masks)
    m = m.view(bool) if m.dtype in (np.int8, np.uint8) else m.astype(bool)
    b, width = m.shape
    flat = m.reshape(-1)
    out = rng.integers(0, width, b)
    left = (~flat.take(np.arange(b) * width + out)).nonzero()[0]
    for _ in range(2):
        if not left.size:
            return out
        pick = rng.integers(0, width, left.size)
        ok = flat.take(left * width + pick)
        out[left[ok]] = pick[ok]
        left = left[~ok]
    if left.size:
        legal = m.take(left, axis=0).reshape(-1).nonzero()[0]  # row * width + action
        count = np.bincount(legal // width, minlength=left.size)
        if (count == 0).any():
            raise ValueError(f"mask row {int(left[np.argmax(count == 0)])} has no legal action")
        start = np.cumsum(count) - count
        out[left] = legal[start + (rng.random(left.size) * count).astype(np.int64)] % width
    return out
