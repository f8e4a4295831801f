"""Every backend of Equation Hi-Lo against the engine: the same decks, hand seeds and actions
give the same observations, masks, rewards, stacks and house (at least 10,000 hands per
preset), and the engine's stacked-deck scenarios replayed in a batch."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.equation_hilo.vector import VectorGame
from tests.conformance.harness import Backend, conform
from tests.test_engine import SCENARIOS, deal

try:
    from tests.conformance.jax_batch import JaxBatch
except ImportError as exc:  # the jax extra is not installed
    JaxBatch = None
    NO_JAX = f"jax is not importable ({exc}): pip install -e '.[jax]'"

BACKENDS = {
    "numpy": Backend(
        make=lambda rules, num_games, deal_source: VectorGame(rules, num_games,
                                                              deal_source=deal_source),
        phase=lambda sim: sim.state.phase, stacks=lambda sim: sim.state.stacks,
        house=lambda sim: sim.state.house),
    "jax": Backend(
        make=lambda rules, num_games, deal_source: JaxBatch(rules, num_games, deal_source),
        phase=lambda sim: np.asarray(sim.state.phase),
        stacks=lambda sim: np.asarray(sim.state.stacks).T,
        house=lambda sim: np.asarray(sim.state.house)),
}
"""Each batch backend by name."""


def require(backend: str) -> None:
    """Skip a JAX test, saying why, when jax is not importable."""
    if backend == "jax" and JaxBatch is None:
        pytest.skip(NO_JAX)


TWIN_CONFIGS = {
    # preset: [(num_players, starting_stack, hands_per_episode, num_games, hands)]
    "standard": [(2, 3, 1, 96, 2000), (3, 5, 6, 64, 1600), (4, 2, 8, 48, 1400),
                 (5, 12, 3, 48, 1000), (6, 1, 1, 32, 600), (8, 4, 10, 32, 1000),
                 (2, 40, 1, 96, 1600), (7, 6, 20, 32, 800)],
    "classic": [(2, 3, 1, 96, 2000), (3, 5, 6, 64, 1600), (4, 2, 8, 48, 1400),
                (5, 12, 3, 48, 1000), (6, 1, 1, 32, 600), (8, 4, 10, 32, 1000),
                (2, 40, 1, 96, 1600), (7, 6, 20, 32, 800)],
    "duel": [(2, 3, 1, 128, 3000), (2, 6, 10, 128, 3000), (2, 1, 1, 64, 1000),
             (2, 30, 4, 128, 3000)],
}
JAX_TWIN_CONFIGS = {
    # fewer table shapes than TWIN_CONFIGS, each a compile of its own (seconds each), and
    # more games per step (a step costs the JAX backend about as much at 256 games as at 64)
    "standard": [(2, 3, 1, 256, 7000), (7, 6, 20, 256, 3000)],
    "classic": [(2, 3, 1, 256, 7000), (7, 6, 20, 256, 3000)],
    "duel": [(2, 3, 1, 256, 5000), (2, 6, 10, 256, 5000)],
}
CONFIGS = {"numpy": TWIN_CONFIGS, "jax": JAX_TWIN_CONFIGS}


@pytest.mark.slow
@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("preset", list(TWIN_CONFIGS))
def test_backend_plays_as_the_engine(backend: str, preset: str) -> None:
    require(backend)
    seen: Counter = Counter()
    total = 0
    for j, (players, stack, hands_per_episode, games, hands) in enumerate(
            CONFIGS[backend][preset]):
        rules = RuleSet.preset(preset, num_players=players, starting_stack=stack,
                               hands_per_episode=hands_per_episode)
        total += conform(BACKENDS[backend], rules, games, hands, seed=1000 * j + len(preset),
                         seen=seen)
    assert total >= 10_000
    for what in ("return", "set_aside", "eliminated", "fold-out", "showdown", "cap reached",
                 "all-in on the ante"):
        assert seen[what] > 0, (what, seen)
    assert seen["odd chip"] > 0 or preset == "duel", seen  # 2 players: the pot is even
    # after an elimination (3+ players) a cap can exceed the starting stack: raises up to it
    assert seen["cap above the starting stack"] > 0 or preset == "duel", seen
    if preset != "classic":
        assert seen["failed swing"] > 0 and seen["swing won"] > 0, seen
    else:
        assert seen["second ×"] > 0, seen


# ---- stacked decks: the engine's scenarios, replayed in one batch -------------------------


def full_deck(top: list[str], seed: int) -> list[int]:
    return cards.shuffled_deck(np.random.default_rng(seed), top)


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_engine_scenarios_in_a_batch(backend: str, name: str) -> None:
    require(backend)
    hands, moves, overrides, stacks, house = SCENARIOS[name]
    rules = RuleSet.preset("standard", **overrides)
    games = 3  # the same hand three times, the rest of each deck shuffled differently
    sim = BACKENDS[backend].make(rules, games, None)
    sim.reset(decks=np.array([full_deck(deal(*hands), i) for i in range(games)]),
              hand_seeds=np.arange(games))
    for move in moves:
        result = sim.step(np.full(games, A.string_to_action(move)))
    assert result.hand_over.all() and result.match_over.all()
    assert (result.rewards == np.array(stacks) - rules.starting_stack).all()
    assert (-result.rewards.sum(1) == house).all()  # chips the house took
