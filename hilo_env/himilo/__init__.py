"""Hi MiLo!, the cooperative trick-taking game of the Hi-Lo family (``docs/himilo.md``).

Everything that belongs to the game lives here: cards, rules, actions, the trick math, the
engine, the observation and the text render. Nothing here imports an RL library.
"""
