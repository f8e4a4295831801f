"""Action ids and texts under misuse (issue 31, item 16), the same in every game and layer:
NumPy integers are ids, anything else that is no integer is a TypeError, an integer outside the
space a ValueError naming it, a text that is no string a TypeError; the PettingZoo-wrapped envs
and the batched views say the same instead of NumPy's or gymnasium's errors."""

from __future__ import annotations

import numpy as np
import pytest

import hilo_env
from hilo_env import himilo_v0, lohi_v0
from hilo_env.envs.single_env import HiLoEnv
from hilo_env.equation_hilo import actions as EA
from hilo_env.himilo import actions as HA
from hilo_env.lohi import actions as LA

MODULES = {"hilo": EA, "lohi": LA, "himilo": HA}
ENVS = {"hilo": hilo_env, "lohi": lohi_v0, "himilo": himilo_v0}
NOT_INTEGERS = [146.5, 5.0, True, np.bool_(True), None, "5", np.float32(1.0)]


@pytest.mark.parametrize("game", MODULES)
def test_action_texts_take_integers_of_any_kind(game) -> None:
    actions = MODULES[game]
    text = actions.action_to_string(5)
    assert actions.action_to_string(np.int64(5)) == text == actions.action_to_string(np.uint8(5))
    assert actions.string_to_action(text) == 5
    for bad in NOT_INTEGERS:
        with pytest.raises(TypeError, match="action id is an integer"):
            actions.action_to_string(bad)
    for bad in (None, 5, b"fold"):
        with pytest.raises(TypeError, match="action text is a string"):
            actions.string_to_action(bad)


@pytest.mark.parametrize("game", ENVS)
@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "wrapped"])
def test_env_steps_refuse_what_is_no_action_id(game, wrapped) -> None:
    module = ENVS[game]
    env = module.env() if wrapped else module.raw_env()
    env.reset(seed=0)
    agent = env.agent_selection
    for bad in NOT_INTEGERS:
        with pytest.raises(TypeError, match=r"integer action id, not .*\(\w+\)"):
            env.step(bad)
    n = int(env.action_space(agent).n)
    for bad in (10**20, 2**63, -1, n):
        with pytest.raises(ValueError, match=rf"action {bad} is outside the action space"):
            env.step(bad)
    assert env.agent_selection == agent and not any(env.terminations.values())
    assert env.unwrapped.action_to_string(np.int64(0)) == MODULES[game].action_to_string(0)
    with pytest.raises(TypeError, match="integer action id"):
        env.unwrapped.action_to_string(146.5)
    with pytest.raises(TypeError, match="action text is a string"):
        env.unwrapped.string_to_action(None)


def test_the_single_game_view_names_the_action_given() -> None:
    env = HiLoEnv(seed=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action 9223372036854775808 in game 0 is outside"):
        env.step(2**63)
    with pytest.raises(ValueError, match="actions must be integers"):
        env.step(10**20)
    env.step(int(np.flatnonzero(env.reset()[1]["action_mask"])[0]))
