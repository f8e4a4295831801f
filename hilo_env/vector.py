"""Equation Hi-Lo's batched simulator and its training views, at the path user code imports
them from (``from hilo_env.vector import VectorGame, HiLoVectorEnv, make_sb3_vec_env``).

They live in :mod:`hilo_env.equation_hilo.vector`, :mod:`hilo_env.envs.vector_env` and
:mod:`hilo_env.envs.sb3`.
"""

from typing import Any

from hilo_env.envs.vector_env import HiLoVectorEnv
from hilo_env.equation_hilo.batch_state import BatchState
from hilo_env.equation_hilo.vector import StepResult, VectorGame

__all__ = ["BatchState", "HiLoVectorEnv", "StepResult", "VectorGame", "make_sb3_vec_env"]


def make_sb3_vec_env(env: HiLoVectorEnv) -> Any:
    """:func:`hilo_env.envs.sb3.make_sb3_vec_env`, imported when called (it needs the
    ``train`` extra: Stable-Baselines3)."""
    from hilo_env.envs.sb3 import make_sb3_vec_env as make

    return make(env)
