"""The learner's games and the opponents in them: the pool of baselines and snapshots, and the
games it plays (the NumPy batch simulator where the game has one for the rules, else the AEC
env's games). Self-play (:mod:`training.selfplay`) builds them in its process, the overlapped
collectors (:mod:`training.overlap`) in theirs."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hilo_env import agents, games
from hilo_env.agents.base import Agent
from hilo_env.agents.ppo import PPOAgent
from hilo_env.envs.aec_learner import AECLearnerVectorEnv
from hilo_env.envs.vector_env import HiLoVectorEnv
from hilo_env.equation_hilo.rules import DECK_FIELDS, RuleSet
from hilo_env.training.config import TrainConfig


class OpponentPool:
    """The baselines plus frozen snapshots of the learner, dealt out over the games."""

    def __init__(self, config: TrainConfig, rules: Any) -> None:
        self.config = config
        self.rules = rules
        self.baselines: list[Agent] = [agents.make(name, rules, seed=config.seed + i,
                                                   game=config.game)
                                       for i, name in enumerate(config.baselines)]
        self.snapshots: list[Agent] = []

    def add_snapshot(self, path: Path) -> None:
        """Freeze the learner as saved at ``path`` and add it to the pool."""
        from sb3_contrib import MaskablePPO

        frozen = PPOAgent.of_model(self.rules, MaskablePPO.load(str(path), device="cpu"),
                                   name=path.stem, game=self.config.game)
        self.snapshots = [*self.snapshots, frozen][-self.config.max_snapshots:]

    def opponents(self, num_envs: int) -> list[Agent]:
        """One opponent per game: ``snapshot_share`` of games against snapshots, the rest
        against the baselines in turn."""
        if not self.snapshots:
            return self.baselines
        against_snapshots = round(num_envs * self.config.snapshot_share)
        return [self.snapshots[i % len(self.snapshots)] if i < against_snapshots
                else self.baselines[i % len(self.baselines)] for i in range(num_envs)]


@contextlib.contextmanager
def unchecked_distributions() -> Iterator[None]:
    """Torch's argument checks of distributions off inside the block (restored after).

    MaskablePPO builds a masked categorical distribution at every step and every minibatch,
    and checking its arguments (simplex, support) is about 5% of an update; the checks
    compute nothing the learning uses, so results are the same bit for bit.
    """
    from torch.distributions import Distribution

    before = Distribution._validate_args
    Distribution.set_default_validate_args(False)
    try:
        yield
    finally:
        Distribution.set_default_validate_args(before)


def batch_simulated(rules: RuleSet) -> bool:
    """Whether the NumPy batch simulator plays ``rules``: it refuses decks other than the
    standard one (``DECK_FIELDS``, as ``tiny``'s)."""
    default = RuleSet()
    return all(getattr(rules, name) == getattr(default, name) for name in DECK_FIELDS)


def learner_env(rules: Any, num_envs: int, opponents: list[Agent], seed: int,
                game: str | None = None, selfplay_share: float = 0.0
                ) -> HiLoVectorEnv | AECLearnerVectorEnv:
    """The learner's games of ``game`` (None: Equation Hi-Lo): the batch simulator
    (:class:`HiLoVectorEnv`) where it plays the rules, else the AEC env's games one by one
    (:class:`AECLearnerVectorEnv`: several hundred decisions a second for Equation Hi-Lo's
    ``tiny``, thousands for lo-hi and Hi MiLo!). In a cooperative game the last
    ``selfplay_share`` of the games have the learner in every seat (the first ones, where
    snapshots are dealt, keep the pool as partners)."""
    spec = games.get(game)
    if spec.can("numpy") and batch_simulated(rules):
        return HiLoVectorEnv(rules, num_envs, opponents=opponents, seed=seed)
    every = round(num_envs * selfplay_share) if spec.cooperative else 0
    seats = ["alternate"] * (num_envs - every) + ["every"] * every
    return AECLearnerVectorEnv(lambda: spec.raw_env(rules), num_envs, opponents=opponents,
                               seed=seed, seat=seats)
