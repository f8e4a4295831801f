"""lo-hi under misuse (issue 31): a bad shuffle hook is refused at reset or leaves the step
unapplied, win counts by seat, rule fields named in their errors, NumPy numbers accepted."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from hilo_env import lohi_v0
from hilo_env.lohi.engine import RESHUFFLE, Game, SeededShuffle
from hilo_env.lohi.rules import RuleSet, resolve
from tests.lohi_helpers import play, step_text
from tests.test_lohi_engine import full_table


def raising(cards: list[int]) -> list[int]:
    raise RuntimeError("the hook fell over")


def short(cards: list[int]) -> list[int]:
    return cards[:-1]


def doubled(cards: list[int]) -> list[int]:
    return [cards[0], *cards[:-1]]


def _unapplied(game: Game, move: str, error: type) -> None:
    """``move`` raises ``error`` and leaves the game as it was."""
    before = game.clone()
    with pytest.raises(error):
        step_text(game, move)
    assert game == before and game.log == before.log


@pytest.mark.parametrize("hook, error", [(raising, RuntimeError), (short, ValueError),
                                         (doubled, ValueError)], ids=["raises", "short", "twice"])
def test_a_failing_hook_at_a_round_end_leaves_the_step_unapplied(hook, error) -> None:
    game = play([["9S", "9H", "4C", "5C", "6C"], ["2S", "3S", "KS", "KH", "QD"]], "9D",
                ["play 6 5 4", "pick up"], shuffle=hook)
    _unapplied(game, "play 9 9", error)
    assert game.round_winners == [] and game.wins == [0, 0] and game.round_number == 1
    game.shuffle = SeededShuffle(0)
    step_text(game, "play 9 9")  # the same move, with a working hook, wins the round
    assert game.round_winners == [0] and game.wins == [1, 0] and game.round_number == 2


@pytest.mark.parametrize("hook", [raising, short])
def test_a_failing_hook_at_a_reshuffle_leaves_the_step_unapplied(hook) -> None:
    game = full_table(shuffle=hook)
    step_text(game, "play 3")
    step_text(game, "pick up")
    _unapplied(game, "pick up", (RuntimeError, ValueError))
    game.shuffle = SeededShuffle(0)
    step_text(game, "pick up")
    assert any(e.kind == RESHUFFLE for e in game.log)


@pytest.mark.parametrize("hook", [5, "shuffle", [3, 1, 2], 0])
def test_a_hook_that_is_not_callable_is_refused_at_reset(hook) -> None:
    with pytest.raises(TypeError, match="shuffle hook must be callable"):
        Game(RuleSet(), hook)
    env = lohi_v0.raw_env()
    env.reset(seed=1)
    twin = copy.deepcopy(env)
    with pytest.raises(TypeError, match="shuffle hook must be callable"):
        env.reset(seed=2, options={"shuffle": hook})
    assert env.game == twin.game


def test_wins_are_read_by_seat() -> None:
    env = lohi_v0.raw_env(num_players=3)
    env.reset(seed=0, options={"wins": {0: 2, 1: 0}})
    assert env.game.wins == [2, 0, 0] and env.game.hand_sizes == [7, 5, 5]
    env.reset(seed=0, options={"wins": {np.int64(2): 3}})
    assert env.game.wins == [0, 0, 3]
    env.reset(seed=0, options={"wins": np.array([1, 0, 2])})
    assert env.game.wins == [1, 0, 2]
    for bad in ({3: 1}, {"player_0": 1}, {0: 9}, {1, 2, 0}):
        with pytest.raises(ValueError, match="wins"):
            env.reset(seed=0, options={"wins": bad})


def test_rule_errors_name_the_field_given() -> None:
    with pytest.raises(ValueError, match=r"start_cards \(12\) must be at most final_cards \(10\)"):
        lohi_v0.env(start_cards=12)


@pytest.mark.parametrize("value", [np.float32(0.5), np.float64(0.5), 0.5, np.int64(1)])
def test_numpy_numbers_are_rule_values(value) -> None:
    rules = resolve("standard", round_reward=value)
    assert rules.round_reward == float(value) and type(rules.round_reward) is float
    assert resolve("standard", start_cards=np.int64(4)).start_cards == 4
    assert resolve("standard", round_reward=value) == RuleSet(round_reward=float(value))


@pytest.mark.parametrize("bad", [np.float32("nan"), True, np.bool_(True), "0.5", None])
def test_round_reward_must_be_a_finite_number(bad) -> None:
    with pytest.raises(ValueError, match="round_reward must be a finite number"):
        resolve("standard", round_reward=bad)
