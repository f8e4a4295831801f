"""The action space holds every action the engine offers: ``Discrete(num_actions(max_cap))``.

A hand's betting cap is the smallest stack still in the match. In a match of several hands
with 3 or more players an elimination can leave that smallest stack above the starting
stack (3 players, 4 chips: stacks 6, 6, 0 make a cap of 6), and every raise up to the cap is
legal, so the space is sized from ``RuleSet.max_cap``, not from ``starting_stack``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from gymnasium import spaces

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.equation_hilo.vector import VectorGame
from tests.conformance.harness import conform
from tests.conformance.test_equation_hilo import BACKENDS
from tests.helpers import make_game, play
from tests.test_engine import HIGH20, LOW1, WEAK, deal


@pytest.mark.parametrize("players, stack, hands, expected", [
    (2, 100, 1, 100), (2, 7, 50, 7),  # 2 players: the smaller stack is at most half the chips
    (3, 100, 1, 100), (8, 5, 1, 5),  # one hand: every stack is the starting stack
    (3, 4, 2, 6), (3, 5, 9, 7), (4, 3, 5, 6), (8, 100, 10, 400), (7, 1, 3, 3),
])
def test_max_cap(players: int, stack: int, hands: int, expected: int) -> None:
    rules = RuleSet.preset("standard", num_players=players, starting_stack=stack,
                           hands_per_episode=hands)
    assert rules.max_cap == expected
    assert rules.max_cap >= rules.starting_stack
    assert A.num_actions(rules.max_cap) == A.FIRST_RAISE + expected


def play_random_match(rules: RuleSet, rng: np.random.Generator, seen: Counter) -> None:
    """One match of random legal actions, checking every legal set against the space."""
    space = spaces.Discrete(A.num_actions(rules.max_cap))
    game = Game(rules, rng)
    while game.phase != Phase.MATCH_OVER:
        if game.phase == Phase.HAND_OVER:
            game.start_next_hand()
            continue
        assert game.cap <= rules.max_cap, (game.cap, rules.max_cap, game.stacks)
        legal = game.legal_actions()
        assert all(space.contains(a) for a in legal), (legal, space, game.stacks)
        if game.phase == Phase.BET:
            seen["bet"] += 1
            if game.cap > rules.starting_stack:
                seen["cap above the starting stack"] += 1
                if A.raise_to(game.cap) in legal:
                    seen["raise beyond the starting stack offered"] += 1
        game.step(int(rng.choice(legal)))
    assert sum(game.stacks) + game.house == rules.num_players * rules.starting_stack


@pytest.mark.parametrize("preset", ["standard", "classic"])
@pytest.mark.parametrize("players", range(3, 9))
def test_every_legal_action_is_in_the_space(preset: str, players: int) -> None:
    rng = np.random.default_rng(100 * players + len(preset))
    seen: Counter = Counter()
    for match in range(60):
        stack = 1 + match % 4  # small stacks: eliminations happen often
        rules = RuleSet.preset(preset, num_players=players, starting_stack=stack,
                               hands_per_episode=30)
        play_random_match(rules, rng, seen)
    assert seen["bet"] > 0
    # the case the space must cover did come up (the old Discrete(9 + starting_stack) failed)
    assert seen["raise beyond the starting stack offered"] > 0, seen


def test_cap_above_the_starting_stack_after_an_elimination() -> None:
    game = make_game(deal(HIGH20, LOW1, WEAK), num_players=3, starting_stack=4,
                     hands_per_episode=3)
    assert game.rules.max_cap == 6
    space = spaces.Discrete(A.num_actions(game.rules.max_cap))
    # all in at 4 chips; High and Low split the 12-chip pot, the third player is out
    play(game, "raise 4", "call", "call", "high", "low", "high")
    assert game.phase == Phase.HAND_OVER
    assert game.stacks == [6, 6, 0] and game.eliminated == [False, False, True]
    game.start_next_hand(deal(HIGH20, LOW1))
    assert game.phase == Phase.BET and game.cap == 6 > game.rules.starting_stack
    legal = game.legal_actions()
    assert legal[-1] == A.raise_to(6) >= A.num_actions(game.rules.starting_stack)
    assert all(space.contains(a) for a in legal)
    play(game, "raise 6", "call")
    assert sorted(game.wagers) == [0, 6, 6]


def test_vector_game_offers_the_raise_to_the_cap() -> None:
    tops = iter([deal(HIGH20, LOW1, WEAK), deal(HIGH20, LOW1)])

    def stacked(games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        top = next(tops)
        decks = [cards.shuffled_deck(np.random.default_rng(int(g)), top) for g in games]
        return np.array(decks), np.zeros(games.size, np.uint64)

    sim = VectorGame("standard", 1, num_players=3, starting_stack=4, hands_per_episode=3,
                     deal_source=stacked)
    assert sim.num_actions == A.num_actions(6)
    for move in ("raise 4", "call", "call", "high", "low", "high"):
        result = sim.step(np.array([A.string_to_action(move)]))
    assert result.hand_over[0] and not result.match_over[0]
    assert sim.state.stacks[:, 0].tolist() == [5, 5, 0] and sim.state.cap[0] == 6  # antes paid
    raise_6 = A.raise_to(6)
    assert sim.action_masks()[0, raise_6] == 1 and sim.legal([raise_6])[0]
    sim.step(np.array([raise_6]))
    sim.step(np.array([A.CALL]))
    assert sorted(sim.state.wagers[:, 0].tolist()) == [0, 6, 6]


@pytest.mark.parametrize("players, stack", [(4, 100), (6, 60)])
def test_vector_game_without_a_mask_table(players: int, stack: int) -> None:
    """A max_cap too big for the mask table (4 players, 100 chips: cap up to 200): masks and
    legality come from two smaller tables, and still match the engine's legal actions."""
    rules = RuleSet.preset("standard", num_players=players, starting_stack=stack,
                           hands_per_episode=4)
    assert VectorGame(rules, 1).mask_table.table is None
    seen: Counter = Counter()
    assert conform(BACKENDS["numpy"], rules, 32, 200, seed=players, seen=seen) >= 200
    assert seen["eliminated"] > 0 and seen["cap above the starting stack"] > 0, seen

@pytest.mark.parametrize("players", [3, 5, 8])
def test_aec_env_space_and_masks_cover_the_cap(players: int) -> None:
    import hilo_env

    env = hilo_env.raw_env("standard", num_players=players, starting_stack=3,
                           hands_per_episode=20)
    n = A.num_actions(env.rules.max_cap)
    rng = np.random.default_rng(players)
    seen = 0
    for seed in range(30):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            assert env.action_space(agent).n == n and obs["action_mask"].shape == (n,)
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.tolist() == sorted(env.game.legal_actions())
            seen += env.game.cap > env.rules.starting_stack
            env.step(int(rng.choice(legal)))
    assert seen > 0


def test_action_mask_offers_the_raise_to_the_cap() -> None:
    from hilo_env.equation_hilo.observation import action_mask

    game = make_game(deal(HIGH20, LOW1, WEAK), num_players=3, starting_stack=4,
                     hands_per_episode=3)
    play(game, "raise 4", "call", "call", "high", "low", "high")
    game.start_next_hand(deal(HIGH20, LOW1))
    mask = action_mask(game)
    assert mask.shape == (A.num_actions(6),) and mask[A.raise_to(6)] == 1
    assert np.flatnonzero(mask).tolist() == game.legal_actions()
