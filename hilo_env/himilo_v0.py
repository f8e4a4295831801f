"""Hi MiLo!, version 0, named as PettingZoo names its environments:
``from hilo_env import himilo_v0; env = himilo_v0.env(num_players=5)``."""

from hilo_env.envs.himilo_aec import env, raw_env

__all__ = ["env", "raw_env"]
