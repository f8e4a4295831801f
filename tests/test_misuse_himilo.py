"""Hi MiLo! under misuse (issue 31): non-finite reward weights refused, stacked decks and lines
must be ordered sequences."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hilo_env import himilo_v0
from hilo_env.himilo.cards import cards_in_play


@pytest.mark.parametrize("weight", [math.inf, -math.inf, math.nan, np.float32("nan"), True,
                                    "1.0", None])
@pytest.mark.parametrize("shaping", ["none", "constraints"])
def test_shaping_weight_must_be_a_finite_number(weight, shaping) -> None:
    with pytest.raises(ValueError, match="shaping_weight must be a finite number"):
        himilo_v0.raw_env(shaping=shaping, shaping_weight=weight)
    with pytest.raises(ValueError, match="shaping_weight must be a finite number"):
        himilo_v0.env(shaping=shaping, shaping_weight=weight)


def test_finite_weights_of_any_number_type_give_finite_rewards() -> None:
    for weight in (0, 2, 0.5, np.float32(0.5), np.int64(3)):
        env = himilo_v0.raw_env(shaping="constraints", shaping_weight=weight)
        assert env.shaping_weight == float(weight) and type(env.shaping_weight) is float
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        while not any(env.terminations.values()):
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            assert all(math.isfinite(r) for r in env.rewards.values())


@pytest.mark.parametrize("option, bad", [
    ("deck", 7), ("deck", set(range(60))), ("deck", frozenset(range(60))),
    ("deck", dict.fromkeys(range(60))), ("deck", "1S 2S"), ("line", 3), ("line", set(range(14))),
])
def test_stacked_cards_are_ordered_sequences(option, bad) -> None:
    env = himilo_v0.raw_env()
    with pytest.raises(TypeError, match=f"a stacked {option} is an ordered sequence"):
        env.reset(seed=0, options={option: bad})


def test_stacked_decks_in_any_ordered_form() -> None:
    order = list(range(cards_in_play(4)))[::-1]
    reference = himilo_v0.raw_env()
    reference.reset(seed=1, options={"deck": order})
    for form in (tuple(order), np.array(order), iter(order), (c for c in order)):
        env = himilo_v0.raw_env()
        env.reset(seed=1, options={"deck": form})
        assert env.game == reference.game


@pytest.mark.parametrize("scale", [math.inf, math.nan, "0.01", None, True])
def test_rllibs_reward_scale_must_be_a_finite_number(scale) -> None:
    pytest.importorskip("ray", reason="the rllib extra is not installed")
    from hilo_env.envs.rllib_env import RLlibHiLoEnv, TurnBasedRLlibEnv

    with pytest.raises(ValueError, match="reward_scale must be a finite number"):
        TurnBasedRLlibEnv(himilo_v0.raw_env(), reward_scale=scale)
    with pytest.raises(ValueError, match="reward_scale must be a finite number"):
        RLlibHiLoEnv({"reward_scale": scale})
    assert TurnBasedRLlibEnv(himilo_v0.raw_env(), reward_scale=np.float32(0.5)).reward_scale == 0.5
