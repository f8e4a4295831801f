"""The batched simulator and its training view, at the path user code imports them from."""

from hilo_env.equation_hilo.vector import HiLoVectorEnv, VectorGame, make_sb3_vec_env

__all__ = ["HiLoVectorEnv", "VectorGame", "make_sb3_vec_env"]
