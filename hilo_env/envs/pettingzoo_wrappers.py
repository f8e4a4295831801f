"""PettingZoo's wrappers for classic games, layered the same way on every game's AEC env."""

from __future__ import annotations

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


def wrap(raw: AECEnv) -> AECEnv:
    """``raw`` under PettingZoo's wrappers for classic games: an illegal action ends the
    episode with a penalty of -1, an action outside the space fails an assertion, and calls
    out of order raise."""
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
