"""Behaviour cloning: the learner's policy is first trained to play as a registered agent plays,
then PPO goes on from there (``TrainConfig.imitate``).

Where learning from fresh weights is slow, PPO starts better from a copy of a rule-based
player: in Hi MiLo! a team of fresh players almost never wins a round, so self-play sees few
wins to learn from, while a team of ``team`` players wins about one round in four. The agent
plays every seat of ``imitate_decisions`` decisions of the game (the training rules, shaped
rewards included); the policy is fitted to its actions (cross-entropy of the masked
distribution) and the value to each decision's return to go (discounted by ``gamma``), for
``imitate_epochs`` passes in minibatches of ``batch_size``, with PPO's optimiser.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hilo_env import agents, games
from hilo_env.training.config import TrainConfig


def demonstrations(config: TrainConfig, rules: Any) -> tuple[np.ndarray, np.ndarray,
                                                              np.ndarray, np.ndarray]:
    """``config.imitate`` in every seat for at least ``config.imitate_decisions`` decisions:
    ``(observations, masks, actions, returns)``, one row per decision, the return being the
    acting seat's rewards from that decision to the episode's end (discounted by
    ``config.gamma`` per decision of that seat)."""
    spec = games.get(config.game)
    env = spec.raw_env(rules)
    players = {a: agents.make(config.imitate, rules, seed=config.seed + i, game=config.game)
               for i, a in enumerate(env.possible_agents)}
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    episode = 0
    while len(actions) < config.imitate_decisions:
        env.reset(seed=config.seed * 1_000_003 + episode)
        episode += 1
        rows: dict[str, list[int]] = {a: [] for a in env.possible_agents}  # each seat's rows
        rewards: dict[str, list[float]] = {a: [] for a in env.possible_agents}
        for agent in env.agent_iter():
            seen, reward, terminated, truncated, _ = env.last()
            if rows[agent]:
                rewards[agent][-1] += reward  # what came since this seat's last decision
            if terminated or truncated:
                env.step(None)
                continue
            action = int(players[agent].act(seen["observation"], seen["action_mask"]))
            rows[agent].append(len(actions))
            rewards[agent].append(0.0)
            obs.append(seen["observation"])
            masks.append(seen["action_mask"].astype(bool))
            actions.append(action)
            returns.append(0.0)
            env.step(action)
        for agent, mine in rows.items():
            to_go = 0.0
            for row, reward in zip(reversed(mine), reversed(rewards[agent]), strict=True):
                to_go = reward + config.gamma * to_go
                returns[row] = to_go
    return (np.asarray(obs, np.float32), np.asarray(masks), np.asarray(actions, np.int64),
            np.asarray(returns, np.float32) * config.reward_scale)


def clone(model: Any, config: TrainConfig, rules: Any) -> dict[str, float]:
    """Fit ``model``'s policy (an SB3 MaskablePPO) to ``config.imitate``'s play; returns the
    last epoch's mean cross-entropy, the agreement of the policy's most likely action with the
    agent's, and the value's mean squared error."""
    import torch

    obs, masks, actions, returns = demonstrations(config, rules)
    policy = model.policy
    policy.set_training_mode(True)
    rng = np.random.default_rng(config.seed)
    stats: dict[str, float] = {}
    for _ in range(config.imitate_epochs):
        order = rng.permutation(len(actions))
        totals = np.zeros(3)
        for start in range(0, len(order), config.batch_size):
            batch = order[start:start + config.batch_size]
            o = torch.as_tensor(obs[batch])
            a = torch.as_tensor(actions[batch])
            values, log_prob, _ = policy.evaluate_actions(o, a, action_masks=masks[batch])
            value_loss = torch.nn.functional.mse_loss(values.flatten(),
                                                      torch.as_tensor(returns[batch]))
            loss = -log_prob.mean() + config.vf_coef * value_loss
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), config.max_grad_norm)
            policy.optimizer.step()
            with torch.no_grad():
                best = policy.get_distribution(o, action_masks=masks[batch]).distribution.probs
                agree = (best.argmax(dim=1) == a).float().mean()
            totals += len(batch) * np.array([-log_prob.mean().item(), agree.item(),
                                             value_loss.item()])
        stats = dict(zip(("cross_entropy", "agreement", "value_mse"), totals / len(order),
                         strict=True))
    policy.set_training_mode(False)
    return stats
