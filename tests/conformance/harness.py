"""The conformance suite's machinery for Equation Hi-Lo: every batch backend plays the same
decks, hand seeds and actions as the engine, one engine game per batch game, and must show the
same observations (every seat's), masks, rewards, stacks and house at every step.

A backend joins by one :class:`Backend` entry in ``test_equation_hilo.BACKENDS``: how to build
it for a rule set, a number of games and a ``deal_source``, and how to read its phases, stacks
and house. Everything else it is asked is the batch API of
:class:`hilo_env.equation_hilo.vector.VectorGame` (``observe``, ``action_masks``, ``step``,
``current_player``, ``reset(decks=, hand_seeds=)``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np

from hilo_env.agents import sample_legal
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.observation import Encoder, action_mask
from hilo_env.equation_hilo.rules import RuleSet


class Backend(NamedTuple):
    """One batch backend of Equation Hi-Lo, as the suite drives it."""

    make: Callable[[RuleSet, int, Callable], Any]
    """``make(rules, num_games, deal_source)``: the backend, its first hands dealt."""
    phase: Callable[[Any], np.ndarray]
    """(N,) each game's phase."""
    stacks: Callable[[Any], np.ndarray]
    """(n, N) chips behind."""
    house: Callable[[Any], np.ndarray]
    """(N,) the house's chips of the match."""


class ScriptedRng:
    """Stands in for the engine's Generator: the deck is stacked whole, so the engine only
    asks for the hand seed, which this hands out."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.bit_generator = SimpleNamespace(state={})

    def permutation(self, rest: np.ndarray) -> np.ndarray:
        assert len(rest) == 0, "the whole deck is stacked"
        return np.asarray(rest)

    def integers(self, low: int, high: int) -> int:
        assert (low, high) == (0, 2**63)
        seed, self.seed = self.seed, None
        assert seed is not None, "one hand seed per hand"
        return seed


class Dealer:
    """A ``deal_source`` that remembers the last deck and seed it gave each game. A third of
    the decks have their specials pulled towards the top, so specials come often: hidden
    specials, chains, a second ×."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.last: dict[int, tuple[list[int], int]] = {}

    def __call__(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = games.size
        keys = self.rng.random((k, cards.DECK_SIZE))
        pull = self.rng.choice([1.0, 1.0, 0.3, 0.08], size=k)
        keys[:, cards.FIRST_MULTIPLY:] *= pull[:, None]
        decks = np.argsort(keys, axis=1)
        seeds = self.rng.integers(0, 2**63, size=k, dtype=np.uint64)
        for i, g in enumerate(games.tolist()):
            self.last[g] = (decks[i].tolist(), int(seeds[i]))
        return decks, seeds


def engine_for(rules: RuleSet, dealt: tuple[list[int], int]) -> tuple[Game, Encoder]:
    """The reference: an engine game dealt ``dealt`` (deck, hand seed), with its encoder."""
    deck, seed = dealt
    return Game(rules, ScriptedRng(seed), deck), Encoder(rules)


def engine_mask(game: Game, num_actions: int) -> np.ndarray:
    """The engine's mask (``observation.action_mask``), checked against its legal actions:
    the space has ``num_actions`` ids and every legal action has one."""
    mask = action_mask(game)
    assert mask.shape == (num_actions,)
    assert np.flatnonzero(mask).tolist() == sorted(game.legal_actions())
    return mask


def conform(backend: Backend, rules: RuleSet, num_games: int, min_hands: int, seed: int,
            seen: Counter) -> int:
    """Play random legal actions in a batch backend and in one engine per game, comparing
    observations, masks, rewards, stacks and the house at every step; returns the hands
    played and counts in ``seen`` what they exercised."""
    dealer = Dealer(seed)
    sim = backend.make(rules, num_games, dealer)
    engines = [engine_for(rules, dealer.last[g]) for g in range(num_games)]
    rng = np.random.default_rng(seed + 1)
    n, num_actions = rules.num_players, sim.num_actions
    hands = 0
    while hands < min_hands:
        obs, masks = sim.observe(), sim.action_masks()
        all_seats = sim.observe(np.repeat(np.arange(2), n), np.tile(np.arange(n), 2))
        for i, (game, enc) in enumerate(engines):
            seat = game.current_player
            assert sim.current_player[i] == seat and backend.phase(sim)[i] == game.phase
            np.testing.assert_array_equal(obs[i], enc.encode(game, seat), err_msg=f"game {i}")
            np.testing.assert_array_equal(masks[i], engine_mask(game, num_actions))
            if game.phase == Phase.BET and game.cap > rules.starting_stack:
                seen["cap above the starting stack"] += 1
            if game.phase == Phase.BET and max(game.wagers) == game.cap:
                seen["cap reached"] += 1
            if i < 2:
                for s in range(n):
                    np.testing.assert_array_equal(all_seats[i * n + s], enc.encode(game, s))
        actions = sample_legal(masks, rng)
        result = sim.step(actions)
        for i, (game, _) in enumerate(engines):
            game.step(int(actions[i]))
            over = game.phase >= Phase.HAND_OVER
            assert result.hand_over[i] == over
            assert result.match_over[i] == (game.phase == Phase.MATCH_OVER)
            if not over:
                assert not result.rewards[i].any()
                continue
            hands += 1
            assert result.rewards[i].tolist() == game.result.net
            _count(seen, game)
            if game.phase == Phase.MATCH_OVER:
                engines[i] = engine_for(rules, dealer.last[i])
            else:
                deck, hand_seed = dealer.last[i]
                game.rng.seed = hand_seed
                game.start_next_hand(deck)
            assert backend.stacks(sim)[:, i].tolist() == engines[i][0].stacks
            assert backend.house(sim)[i] == engines[i][0].house
    return hands


def _count(seen: Counter, game: Game) -> None:
    """What the finished hand exercised (for the coverage assertions)."""
    res = game.result
    seen.update(e.kind for e in game.log[-60:]
                if e.kind in ("return", "set_aside", "eliminated"))
    seen["fold-out" if res.fold_out else "showdown"] += 1
    if game.cap <= game.rules.ante:
        seen["all-in on the ante"] += 1
    if res.house:
        seen["odd chip"] += 1
    if res.failed_swing:
        seen["failed swing"] += 1
    if A.DECLARE_SWING in res.declarations and not res.failed_swing:
        seen["swing won"] += 1
    if max(game.multiplies) > 1:
        seen["second ×"] += 1
