"""Every game's AEC env, and the Gymnasium views, under misuse: the arrays they hand out are
the caller's (changing them changes nothing in the env), and a call out of order (before the
first reset, after the episode's end) is one clear error."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

import hilo_env
from hilo_env import himilo_v0, lohi_v0
from hilo_env.envs.card_game_env import ILLEGAL_PENALTY
from hilo_env.envs.mask_in_info import mask_in_info
from hilo_env.envs.single_env import HiLoEnv
from hilo_env.envs.vector_env import HiLoVectorEnv
from hilo_env.equation_hilo.cards import parse_deck

GAMES = {"hilo": hilo_env, "lohi": lohi_v0, "himilo": himilo_v0}


def spoil(obs: dict[str, np.ndarray], mask: int) -> None:
    """What a careless caller does to an observation it was handed: the vector overwritten,
    every entry of the mask set to ``mask``."""
    obs["observation"][:] = 7.0
    obs["action_mask"][:] = mask


def legal_and_illegal(env: object) -> tuple[int, int]:
    """A legal action of the agent to act that ends no episode (the last legal one: a raise
    rather than a fold) and an illegal one."""
    mask = env.unwrapped.mask_of(env.unwrapped.game)
    return int(np.flatnonzero(mask)[-1]), int(np.flatnonzero(mask == 0)[0])


def play_to_the_end(env: object, seed: int = 0) -> None:
    """Random legal actions until every agent has left the episode."""
    rng = np.random.default_rng(seed)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("wrapped", [False, True], ids=["raw", "wrapped"])
def test_an_observation_changed_by_its_caller_changes_nothing_in_the_env(game, wrapped) -> None:
    module = GAMES[game]
    env = module.env() if wrapped else module.raw_env(illegal_action="lose")
    env.reset(seed=0)
    agent = env.agent_selection
    kept = {key: array.copy() for key, array in env.observe(agent).items()}
    for obs in (env.observe(agent), env.last()[0]):
        spoil(obs, 0)
    again = env.observe(agent)
    np.testing.assert_array_equal(again["observation"], kept["observation"])
    np.testing.assert_array_equal(again["action_mask"], kept["action_mask"])
    legal, _ = legal_and_illegal(env)
    env.step(legal)  # played, although the caller zeroed every mask it was handed
    assert not any(env.terminations.values())


@pytest.mark.parametrize("game", GAMES)
def test_a_mask_set_to_ones_by_its_caller_lets_no_illegal_action_through(game) -> None:
    env = GAMES[game].env()
    env.reset(seed=0)
    agent = env.agent_selection
    spoil(env.last()[0], 1)
    _, illegal = legal_and_illegal(env)
    env.step(illegal)  # the documented end: the offender -1, not an error from the raw env
    assert env.rewards[agent] == ILLEGAL_PENALTY and all(env.terminations.values())


@pytest.mark.parametrize("game", GAMES)
def test_masks_in_infos_are_the_callers(game) -> None:
    env = mask_in_info(GAMES[game].env())
    env.reset(seed=0)
    agent = env.agent_selection
    with pytest.raises(ValueError, match="read-only"):  # the same object at every read
        env.infos[agent]["action_mask"][:] = 0
    env.observe(agent)[:] = 7.0
    assert env.infos[agent]["action_mask"].any() and (env.observe(agent) != 7.0).any()


def test_the_vector_envs_masks_are_the_callers() -> None:
    env = HiLoVectorEnv(num_envs=3, seed=0)
    env.reset(seed=0)
    kept = env.action_masks().copy()
    env.action_masks()[:] = False
    np.testing.assert_array_equal(env.action_masks(), kept)


@pytest.mark.parametrize("mask", ["info", "obs"])
def test_the_single_game_views_arrays_are_the_callers(mask) -> None:
    env = HiLoEnv(seed=0, mask=mask)
    first = env.reset(seed=0)
    kept = [a.copy() for a in views(first, mask)]
    for array in views(first, mask):
        array[:] = 0
    for array, before in zip(views(env.reset(), mask), kept, strict=True):  # dealt once
        np.testing.assert_array_equal(array, before)


def views(out: tuple, mask: str) -> tuple[np.ndarray, np.ndarray]:
    """The observation vector and the mask of the single game view's ``reset`` or ``step``."""
    obs, info = out[0], out[-1]
    return (obs, info["action_mask"]) if mask == "info" else (obs["obs"], obs["mask"])


@pytest.mark.parametrize("game", GAMES)
def test_calls_before_the_first_reset_say_to_reset(game) -> None:
    env = GAMES[game].raw_env(render_mode="ansi")
    for call, name in ((lambda: env.step(0), "step"), (lambda: env.observe("player_0"),
                                                       "observe"),
                       (env.last, "last"), (env.render, "render")):
        with pytest.raises(RuntimeError, match=rf"reset\(\) needs to be called before {name}"):
            call()
    env.reset(seed=0)
    env.observe("player_0")


@pytest.mark.parametrize("game", GAMES)
def test_a_step_after_the_episodes_end_says_so(game) -> None:
    env = GAMES[game].raw_env()
    env.reset(seed=0)
    play_to_the_end(env)
    final = env.observe("player_0")  # the last state stays observable
    for action in (None, 0):
        with pytest.raises(RuntimeError, match=r"step\(\) after the episode's end"):
            env.step(action)
    with pytest.raises(RuntimeError, match=r"last\(\) after the episode's end"):
        env.last()
    np.testing.assert_array_equal(env.observe("player_0")["observation"], final["observation"])
    env.reset(seed=1)
    assert env.agents


@pytest.mark.parametrize("module", GAMES.values(), ids=list(GAMES))
def test_an_unknown_agent_is_named(module: ModuleType) -> None:
    env = module.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent 'player_9'; the agents are"):
        env.observe("player_9")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("deck", [[True, False], [np.bool_(True)], ["7S", True]],
                         ids=["bools", "numpy bool", "a bool among texts"])
def test_bools_are_no_card_ids(game, deck) -> None:
    env = GAMES[game].raw_env()
    env.reset(seed=0)
    before = env.observe(env.agent_selection)
    with pytest.raises((TypeError, ValueError), match="True"):
        env.reset(seed=1, options={"deck": deck})
    np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"],
                                  before["observation"])


def test_equation_hilos_card_parser_takes_no_bool() -> None:
    for bad in (True, False, np.bool_(True)):
        with pytest.raises(ValueError, match=f"card {bad!r} is not a card id"):
            parse_deck([5, bad])


@pytest.mark.parametrize("game", GAMES)
def test_a_bool_is_no_seed(game) -> None:
    seeded, refused = GAMES[game].raw_env(), GAMES[game].raw_env()
    for env in (seeded, refused):
        env.reset(seed=3)
    for bad in (True, np.bool_(False)):
        with pytest.raises(TypeError, match="a seed is an integer or None, not the bool"):
            refused.reset(seed=bad)
    seeded.reset()
    refused.reset()  # the generator as it was: the same deal as an env never refused
    np.testing.assert_array_equal(refused.observe(refused.agent_selection)["observation"],
                                  seeded.observe(seeded.agent_selection)["observation"])


def test_the_vector_views_take_no_bool_seed() -> None:
    with pytest.raises(TypeError, match="not the bool True"):
        HiLoVectorEnv(num_envs=2, seed=True)
    with pytest.raises(TypeError, match="not the bool True"):
        HiLoVectorEnv(num_envs=2, seed=0).reset(seed=True)
    with pytest.raises(TypeError, match="not the bool True"):
        HiLoEnv(seed=0).reset(seed=True)


def test_a_deck_array_with_a_bool_among_its_ids_is_refused() -> None:
    """NumPy reads ``[False, True, 2, ...]`` as the ids 0, 1, 2...: refused all the same."""
    from hilo_env.equation_hilo.rules import RuleSet
    from hilo_env.equation_hilo.vector import VectorGame

    deck = [False, True, *range(2, 52)]
    game = VectorGame(RuleSet(), 1, seed=0)
    with pytest.raises(ValueError, match="not bools"):
        game.reset(decks=[deck])
    jax_backend = pytest.importorskip("hilo_env.equation_hilo.jax_backend")
    with pytest.raises(ValueError, match="not bools"):
        jax_backend.check_deal(deck, np.zeros(2, np.uint32))
