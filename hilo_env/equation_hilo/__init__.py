"""Equation Hi-Lo, the betting-and-arithmetic game of *The Devil's Plan* (rules:
``docs/rules.md``): its cards, rule sets, actions, equation solver, showdown rules, engine,
observation, rendering, and the NumPy batch backend. Nothing here imports an RL library; the
PettingZoo env is :mod:`hilo_env.envs.equation_hilo_aec`."""
