"""Hi MiLo!'s after-states are the settled observations the engine gives once a bid, a pass
card or a trick is done (:mod:`hilo_env.himilo.afterstate`)."""

from __future__ import annotations

import numpy as np
import pytest

from hilo_env.agents.himilo import TeamAgent
from hilo_env.himilo import actions as A
from hilo_env.himilo import tricks
from hilo_env.himilo.afterstate import Afterstates
from hilo_env.himilo.engine import Phase, Round
from hilo_env.himilo.observation import Encoder, action_mask
from hilo_env.himilo.rules import resolve


@pytest.mark.parametrize("n", [3, 4, 5])
def test_after_states_are_the_observations_that_follow(n: int) -> None:
    rules = resolve("standard", num_players=n)
    encoder, after = Encoder(rules), Afterstates(n)
    players = [TeamAgent(rules, seed=s) for s in range(n)]
    checked = {"bid": 0, "pass": 0, "trick": 0, "end": 0}
    for deal in range(4):
        game = Round(rules, np.random.default_rng(deal))
        waiting: list[tuple[int, np.ndarray, int]] = []  # (seat, observation, card) this trick
        while game.phase != Phase.ROUND_OVER:
            seat, phase, trick = game.current_player, game.phase, game.trick
            seen = encoder.encode(game, seat)
            action = players[seat].act(seen, action_mask(game))
            if phase == Phase.BID:
                expected = after.after_bid(seen, [action])[0]
            elif phase == Phase.PASS:
                expected = after.after_pass(seen, [action - A.FIRST_PASS])[0]
            else:
                waiting.append((seat, seen, action))
            game.step(action)
            if phase != Phase.PLAY:
                np.testing.assert_array_equal(expected, after.settled(encoder.encode(game, seat)))
                checked["bid" if phase == Phase.BID else "pass"] += 1
            elif game.trick != trick:
                for i, (who, before, card) in enumerate(waiting):
                    later = [game.played[(who + 1 + j) % n][trick] for j in range(n - 1 - i)]
                    state, counts = after.after_trick(before, [card], np.array([later]))
                    assert counts[0].tolist() == [len(game.taken[(who + k) % n])
                                                  for k in range(n)]
                    if game.phase == Phase.ROUND_OVER:
                        assert after.team_won(before, counts[0]) == (game.outcome > 0)
                        checked["end"] += 1
                    else:
                        np.testing.assert_array_equal(
                            state[0], after.settled(encoder.encode(game, who)))
                        checked["trick"] += 1
                waiting = []
    assert min(checked.values()) > 0, checked


def test_after_trick_weighs_many_guesses_at_once() -> None:
    rules = resolve("standard", num_players=4)
    game = Round(rules, np.random.default_rng(0))
    while game.phase != Phase.PLAY:
        game.step(game.legal_actions()[0])
    game.step(game.legal_actions()[0])  # the leader plays: three to come, the observer second
    seat = game.current_player
    seen = Encoder(rules).encode(game, seat)
    after = Afterstates(4)
    assert after.trick_so_far(seen)[1:] == ([(3, game.trick_cards[0])], 2)
    cards = game.legal_actions()[:2]
    later = np.array([[c for c in range(60) if c not in game.hands[seat]
                       and c != game.trick_cards[0]][:2]] * 2)
    states, counts = after.after_trick(seen, cards, later)
    assert states.shape == (2, seen.size) and counts.sum(axis=1).tolist() == [1, 1]
    for row, card in enumerate(cards):
        alone, _ = after.after_trick(seen, [card], later[row:row + 1])
        np.testing.assert_array_equal(states[row], alone[0])


@pytest.mark.parametrize("n", [3, 4, 5])
def test_trick_winners_of_many_tricks_are_each_tricks_winner(n: int) -> None:
    rng = np.random.default_rng(n)
    for win in range(14):
        played = np.array([rng.choice(18 * 4, n, replace=False) for _ in range(200)])
        expected = [tricks.trick_winner(row.tolist(), win) for row in played]
        assert tricks.trick_winners(played, win).tolist() == expected
