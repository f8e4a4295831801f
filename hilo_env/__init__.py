"""Equation Hi-Lo for reinforcement learning research."""

from hilo_env.rules import PRESETS, RuleSet

__all__ = ["PRESETS", "RuleSet"]
