"""lo-hi, the shedding game of the Hi-Lo family (rules: ``docs/lohi.md``): its cards, rule
sets, actions, engine, observation and rendering. Nothing here imports an RL library; the
PettingZoo env is :mod:`hilo_env.envs.lohi_aec`."""
