"""Policies for lo-hi behind :class:`hilo_env.agents.Agent`, and their names (the game's
``agents`` table, which :func:`hilo_env.agents.registry.make` reads).

| name          | agent                                                                   |
|---------------|-------------------------------------------------------------------------|
| ``random``    | :class:`hilo_env.agents.RandomAgent`: uniform over the mask              |
| ``heuristic`` | :class:`ShedderAgent`: sheds the most cards it can, keeps middle ranks,  |
|               | picks up only when it cannot play (the project's name for the           |
|               | rule-based baseline of each game)                                       |
| ``ppo``       | the shipped MaskablePPO policy, one model per player count it was       |
|               | trained for (``agents/models/lohi_ppo_*p.npz``, played in NumPy)        |

    from hilo_env.agents import make
    bot = make("heuristic", "standard", seed=0, game="lohi")
    action = bot.act(observation, action_mask)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hilo_env.agents.base import Agent, check_observations
from hilo_env.agents.baselines import RandomAgent
from hilo_env.agents.registry import MODELS, shipped_model
from hilo_env.lohi import actions as A
from hilo_env.lohi.cards import NUM_RANKS, NUM_SUITS
from hilo_env.lohi.engine import Phase
from hilo_env.lohi.observation import layout
from hilo_env.lohi.rules import RuleSet

MIDDLE_RANK = (NUM_RANKS - 1) / 2
"""The 8: a card near it answers both HIGHER and LOWER most often, so it is kept longest."""


def _play_ranks(action: int) -> list[int]:
    """The ranks a set or run action puts down, in order."""
    if action < A.FIRST_RUN:
        rank, count = A.set_of(action)
        return [rank] * count
    return A.run_ranks(*A.RUNS[action - A.FIRST_RUN])


class ShedderAgent(Agent):
    """Rule-based: get rid of cards fast, keep the flexible ones, make the next player's
    life hard.

    * **Play.** The legal play that sheds the most cards (the longest run or the largest set;
      going out sheds everything). Among equals, the one whose cards lie farthest from the
      middle rank: middle ranks answer both directions, so they are kept.
    * **Pick up** only when no play is legal.
    * **After a double** the direction with fewer unseen cards that answer it (cards neither
      in its hand nor on the pile), so the next player is least likely to follow.
    * **After a triple** the rank with the fewest unseen cards, preferring one it holds.
    """

    name = "heuristic"

    def __init__(self, rules: RuleSet, seed: int | None = 0) -> None:
        super().__init__(rules, seed)
        self.where = layout(rules)
        self.observation_size = max(part.stop for part in self.where.values())

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("the action mask allows no action: nobody may act in this state")
        obs = check_observations(self, observation, self.observation_size)
        phase = int(np.argmax(obs[self.where["phase"]]))
        hand = np.rint(obs[self.where["hand"]] * NUM_SUITS)
        unseen = NUM_SUITS - hand - np.rint(obs[self.where["pile"]] * NUM_SUITS)
        if phase == Phase.CHOOSE:
            top = int(np.argmax(obs[self.where["top"]]))
            return A.HIGHER if unseen[top:].sum() < unseen[:top + 1].sum() else A.LOWER
        if phase == Phase.CALL:
            best = min(range(NUM_RANKS), key=lambda r: (unseen[r], -hand[r], r))
            return A.call_action(best)
        plays = [int(a) for a in legal if a != A.PICK_UP]
        if not plays:
            return A.PICK_UP
        return max(plays, key=self._value)

    @staticmethod
    def _value(action: int) -> tuple[int, float]:
        ranks = _play_ranks(action)
        return len(ranks), sum(abs(r - MIDDLE_RANK) for r in ranks)


AgentFactory = Callable[[RuleSet, "int | None"], Agent]
AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent, "heuristic": ShedderAgent,
    "ppo": shipped_model("ppo", {n: MODELS / f"lohi_ppo_{n}p.npz" for n in (2, 4)},
                         game="lohi"),
}
"""The lo-hi agents by name."""

