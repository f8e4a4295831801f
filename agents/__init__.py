"""Policies of every game behind one interface, ``act(observation, action_mask)``.

    from hilo_env import agents
    bot = agents.make("heuristic", "standard", seed=0)            # Equation Hi-Lo
    bot = agents.make("team", "standard", seed=0, game="himilo")  # any registered game
    action = bot.act(observation, action_mask)

``agents.names(game)`` lists a game's agents by name (for Equation Hi-Lo ``random``,
``caller``, ``heuristic``..., and ``ppo:PATH`` for a saved MaskablePPO model).
"""

from hilo_env.agents.base import Agent
from hilo_env.agents.baselines import CallerAgent, HeuristicAgent, RandomAgent, sample_legal
from hilo_env.agents.registry import check, make, names, register
from hilo_env.agents.table_view import TableView, read_observation

__all__ = ["Agent", "CallerAgent", "HeuristicAgent", "RandomAgent", "TableView", "check",
           "make", "names", "read_observation", "register", "sample_legal"]
