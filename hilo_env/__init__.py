"""Environments of the Hi-Lo family of card games for reinforcement learning research.

``env()`` is Equation Hi-Lo's PettingZoo AEC environment with the standard wrappers,
``raw_env()`` the bare one; both take ``rules`` (a preset name, a :class:`RuleSet` or a YAML
path) and rule overrides. Each game lives in its own folder (``hilo_env/equation_hilo/``);
``docs/architecture.md`` maps the package.
"""

from hilo_env.envs.equation_hilo_aec import env, raw_env
from hilo_env.equation_hilo.rules import PRESETS, RuleSet

__all__ = ["PRESETS", "RuleSet", "env", "raw_env"]
