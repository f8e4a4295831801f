"""Equation Hi-Lo for reinforcement learning research.

``env()`` is the PettingZoo AEC environment with the standard wrappers, ``raw_env()`` the bare
one; both take ``rules`` (a preset name, a :class:`RuleSet` or a YAML path) and rule overrides.
"""

from hilo_env.aec import env, raw_env
from hilo_env.rules import PRESETS, RuleSet

__all__ = ["PRESETS", "RuleSet", "env", "raw_env"]
