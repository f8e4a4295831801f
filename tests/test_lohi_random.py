"""Invariants of lo-hi over many random games (docs/lohi.md): every card accounted for, the
mask never empty while the game runs, the game within its bounds, rewards as specified.

20,000 short games (one-round games, and full-rule games whose seats start near the last
win, so every deal size and the game's end come up) plus full games from no wins."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hilo_env.lohi.cards import DECK_SIZE
from hilo_env.lohi.engine import Game, Phase, SeededShuffle, replay
from hilo_env.lohi.observation import Encoder, action_mask
from hilo_env.lohi.rules import RuleSet

SHORT_GAMES = 20_000
FULL_GAMES = 300
ALL_CARDS = list(range(DECK_SIZE))


def check_cards(game: Game) -> None:
    """Every card in exactly one place; hand sizes match the hands."""
    held = [c for seat in range(game.num_players) for c in game.hand(seat)]
    assert sorted(held + game.stock + game.pile) == ALL_CARDS
    assert game.hand_sizes == [len(game.hand(s)) for s in range(game.num_players)]


def play_out(rules: RuleSet, seed: int, wins: list[int] | None = None,
             encoder: Encoder | None = None) -> Game:
    """One random game, checking the per-step invariants as it goes."""
    pick = random.Random(seed)
    game = Game(rules, SeededShuffle(seed), wins=wins)
    rounds = game.round_number
    while not game.over:
        legal = game.legal_actions()
        assert legal and legal == sorted(legal)
        assert sum(game.hand_sizes) + len(game.stock) + len(game.pile) == DECK_SIZE
        if encoder is not None:
            mask = action_mask(game)
            assert np.flatnonzero(mask).tolist() == legal
            obs = encoder.encode(game, game.current_player)
            assert obs.min() >= 0.0 and obs.max() <= 1.0
        game.step(legal[pick.randrange(len(legal))])
        if game.round_number != rounds:
            check_cards(game)
            rounds = game.round_number
    return game


def check_end(game: Game) -> None:
    rules, n = game.rules, game.num_players
    check_cards(game)
    assert game.phase == Phase.GAME_OVER and game.legal_actions() == []
    assert game.turns <= rules.max_turns and game.round_number <= rules.max_rounds
    assert not game.truncated, "random games never came near the cut-off"
    winner = game.winner
    assert game.round_winners[-1] == winner
    assert game.log[[e.kind for e in game.log].index("round")].data["wins"][winner] + \
        game.round_winners.count(winner) - 1 == rules.max_wins
    rounds_won = [game.round_winners.count(s) for s in range(n)]
    for seat in range(n):
        lost = len(game.round_winners) - rounds_won[seat]
        expected = (rules.round_reward * (rounds_won[seat] - lost / (n - 1))
                    + (1.0 if seat == winner else -1.0 / (n - 1)))
        assert game.payoffs[seat] == pytest.approx(expected)
    assert sum(game.payoffs) == pytest.approx(0.0, abs=1e-9)


def test_many_short_random_games() -> None:
    rng = np.random.default_rng(2024)
    presets = {n: (RuleSet(num_players=n, final_cards=5),
                   RuleSet(num_players=n, round_reward=0.25))
               for n in range(2, 6)}
    for seed in range(SHORT_GAMES):
        n = 2 + seed % 4
        single, full = presets[n]
        if seed % 2:
            game = play_out(single, seed)
        else:  # every seat one or two wins from the last: bigger deals, a short game
            wins = rng.integers(full.max_wins - 1, full.max_wins + 1, n).tolist()
            game = play_out(full, seed, wins)
        check_end(game)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_full_random_games_with_observations(n: int) -> None:
    rules = RuleSet(num_players=n)
    encoder = Encoder(rules)
    longest = 0
    for seed in range(FULL_GAMES // 4):
        game = play_out(rules, seed, encoder=encoder if seed < 3 else None)
        check_end(game)
        longest = max(longest, game.turns)
        if seed < 3:
            assert replay(game.log, rules) == game
    assert longest < rules.max_turns
