"""Policies for Equation Hi-Lo behind one interface, ``act(observation, action_mask)``.

    from hilo_env import agents
    bot = agents.make("heuristic", "standard", seed=0)
    action = bot.act(observation, action_mask)

``agents.names()`` lists the registered names (``random``, ``caller``, ``heuristic``, and
``ppo:PATH`` for a saved MaskablePPO model).
"""

from hilo_env.agents.base import Agent, TableView, read_observation
from hilo_env.agents.baselines import CallerAgent, HeuristicAgent, RandomAgent, sample_legal
from hilo_env.agents.registry import check, make, names, register

__all__ = ["Agent", "CallerAgent", "HeuristicAgent", "RandomAgent", "TableView", "check",
           "make", "names", "read_observation", "register", "sample_legal"]
