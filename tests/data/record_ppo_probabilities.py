"""Record what MaskablePPO models play, as sb3-contrib computes it, for tests/test_convert.py to
compare their NumPy conversions with: for each model, observations and masks of its game's
play (the model, deterministic, against the game's rule-based agent; every seat's decisions,
spread over several deals) and the model's action probabilities at them. Needs the train
extra and the models' ``.zip`` files (with their rules files beside them)::

    python tests/data/record_ppo_probabilities.py MODEL.zip ... -o tests/data/ppo_probabilities.npz

The archive keys each model by its file's stem: ``<stem>.observations``, ``<stem>.masks``,
``<stem>.probabilities``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from hilo_env import agents
from hilo_env.agents.ppo import PPOAgent, read_rules, rules_path

DECISIONS = 64
"""Decisions recorded per model."""
SPREAD = 4
"""One decision in this many is kept, so the record spans several deals."""


def record(path: Path) -> dict[str, np.ndarray]:
    """The observations, masks and SB3 action probabilities of one model's play."""
    game, rules = read_rules(rules_path(path))
    model = PPOAgent(rules, path, seed=0, deterministic=False, game=game.name)
    player = PPOAgent(rules, path, seed=0, game=game.name)
    others = agents.make(game.baseline, rules, seed=0, game=game.name)
    env = game.raw_env(rules)
    observations, masks = [], []
    seed = 0
    while len(observations) < DECISIONS * SPREAD:
        env.reset(seed=seed)
        seed += 1
        for seat in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            observations.append(np.asarray(obs["observation"], np.float32))
            masks.append(np.asarray(obs["action_mask"], np.int8))
            bot = player if env.possible_agents.index(seat) == 0 else others
            env.step(bot.act(observations[-1], masks[-1]))
    observations = np.array(observations[::SPREAD][:DECISIONS])
    masks = np.array(masks[::SPREAD][:DECISIONS])
    probabilities = np.array([model.action_probabilities(o, m)
                              for o, m in zip(observations, masks, strict=True)])
    return {"observations": observations, "masks": masks, "probabilities": probabilities}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    arrays = {f"{path.stem}.{key}": value for path in args.models
              for key, value in record(path).items()}
    np.savez_compressed(args.output, **arrays)


if __name__ == "__main__":
    main()
