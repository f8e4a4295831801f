"""``cfr_tiny``: OpenSpiel's CFR+ solution of the ``tiny`` rules, as an agent.

The policy was solved on ``python_hilo``'s information states (perfect recall) by
``python bench/openspiel.py --write-model`` (``envs.openspiel_policy.write_cfr_tiny``) and is
kept in ``agents/models/cfr_tiny.json``, keyed by the observation each information state
shows. An agent of our interface sees the AEC env's observation; on tiny it tells every
information state apart (the ``round_raises`` slice says who raised, which the chips alone do
not), so the agent plays the CFR+ policy itself. The model file records the NashConv of both
(``nash_conv_cfr``, ``nash_conv_agent``) and the game value."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from hilo_env.agents.base import Agent
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.rules import PRESETS, RuleSet

MODEL = Path(__file__).resolve().parent / "models" / "cfr_tiny.json"
"""The shipped policy: observation key -> action id -> probability, and its figures."""
RULES = "tiny"


def observation_key(observation: np.ndarray, action_mask: np.ndarray) -> str:
    """What the policy table is keyed by: a digest of the observation (float32) and mask."""
    digest = hashlib.blake2b(digest_size=12)
    digest.update(np.asarray(observation, np.float32).tobytes())
    digest.update(np.asarray(action_mask, np.int8).tobytes())
    return digest.hexdigest()


def read_model(path: str | Path = MODEL) -> dict[str, Any]:
    """The model file's data (JSON); a ValueError names a missing or unreadable file."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the cfr_tiny model {str(path)!r}: {exc}") from None


class CFRTinyAgent(Agent):
    """The CFR+ policy of the tiny rules, read by observation (see the module docstring)."""

    name = "cfr_tiny"

    def __init__(self, rules: RuleSet, seed: int | None = 0, path: str | Path = MODEL) -> None:
        tiny = PRESETS[RULES]
        if rules != tiny:
            differ = [f.name for f in dataclasses.fields(RuleSet)
                      if getattr(rules, f.name) != getattr(tiny, f.name)]
            raise ValueError(f"agent 'cfr_tiny' plays only the tiny rules (it is their solved "
                             f"policy); these rules differ in {differ}")
        super().__init__(rules, seed)
        data = read_model(path)
        self.figures = {k: v for k, v in data.items() if k != "policy"}
        """The model file's figures: iterations, NashConv of the CFR+ policy and of this agent,
        the game value."""
        self._size = A.num_actions(rules.max_cap)
        self._table = {key: {int(a): float(p) for a, p in probs.items()}
                       for key, probs in data["policy"].items()}

    def action_probabilities(self, observation: np.ndarray,
                             action_mask: np.ndarray) -> np.ndarray:
        """The distribution it plays at one observation, over the action space."""
        probs = self._table.get(observation_key(observation, action_mask))
        if probs is None:
            raise ValueError("cfr_tiny has no policy for this observation: it plays only the "
                             "tiny rules' decision points, as the AEC env shows them")
        out = np.zeros(self._size)
        out[list(probs)] = list(probs.values())
        return out

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        probs = self.action_probabilities(observation, action_mask)
        return int(self.rng.choice(self._size, p=probs / probs.sum()))
