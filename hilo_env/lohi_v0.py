"""lo-hi, version 0, named as PettingZoo names its environments:
``from hilo_env import lohi_v0; env = lohi_v0.env()``."""

from hilo_env.envs.lohi_aec import env, raw_env

__all__ = ["env", "raw_env"]
