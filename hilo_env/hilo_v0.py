"""Equation Hi-Lo, version 0, named as PettingZoo names its environments:
``from hilo_env import hilo_v0; env = hilo_v0.env()``."""

from hilo_env.envs.equation_hilo_aec import env, raw_env

__all__ = ["env", "raw_env"]
