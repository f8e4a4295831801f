"""Equation Hi-Lo's equation solver, at the path user code imports it from
(``from hilo_env.solver import solve``); it lives in :mod:`hilo_env.equation_hilo.solver`."""

from hilo_env.equation_hilo.solver import *  # noqa: F403
from hilo_env.equation_hilo.solver import __all__  # noqa: F401
