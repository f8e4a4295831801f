"""Hi MiLo!'s rules engine against docs/himilo.md: table-driven tricks, the follow rule, bid
slots, the passing chain, whole rounds won and lost, bad input, and invariants over 20,000
random rounds."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hilo_env.himilo import actions as A
from hilo_env.himilo import cards, tricks
from hilo_env.himilo.engine import HIGH, LOSS, LOW, MIDDLE, NO_BID, WIN, Match, Phase, Round, replay
from hilo_env.himilo.rules import HAND_SIZE, PRESETS, RuleSet, resolve

RANDOM_ROUNDS = 20_000


def ids(texts: str) -> list[int]:
    return [cards.parse_card(t) for t in texts.split()]


def new_round(num_players: int = 4, seed: int = 0, **fields) -> Round:
    return Round(RuleSet(num_players=num_players, **fields), np.random.default_rng(seed))


def stacked_deck(hands: list[list[int]], num_players: int, dealer: int) -> list[int]:
    """A deck, top first, that deals ``hands`` (14 cards per seat) from the dealer's left."""
    deck = [0] * (HAND_SIZE * num_players)
    for k in range(HAND_SIZE):
        for j in range(num_players):
            deck[k * num_players + j] = hands[(dealer + 1 + j) % num_players][k]
    dealt = set(deck)
    return deck + [c for c in range(cards.cards_in_play(num_players)) if c not in dealt]


def play_texts(game: Round, moves: list[str]) -> None:
    for move in moves:
        game.step(A.string_to_action(move))


# ---- tricks ----------------------------------------------------------------------------------

@pytest.mark.parametrize("win, played, winner", [
    # K: the highest-ranked card; cards of the Win Card's suit rank above all others
    ("KS", "5H 3S 12C 2S", 1),
    ("KH", "5S 3S 12C 2S", 2),               # no heart: the highest value
    ("K*", "5H 12S 12C 2S", 1),              # neutral: equal values, the earlier ranks higher
    # J: the lowest-ranked card; an off-colour card is below every card of the suit
    ("JS", "5H 3S 12C 2S", 0),
    ("JS", "5S 3S 12S 2S", 3),
    ("JD", "7H 7S 7C 9D", 2),                # equal off-colour values: the later is lower
    ("J*", "5H 2C 12C 2S", 3),               # neutral: the later 2 ranks lower
    # Q with 4 players: Q♠ and Q♣ the 2nd highest, Q♥ and Q♦ the 3rd
    ("QS", "5H 3S 12C 2S", 3),               # 3S 2S 12C 5H
    ("QC", "5H 3S 12C 2S", 0),               # 12C 5H 3S 2S
    ("QH", "5H 3S 12C 2S", 1),               # 5H 12C 3S 2S
    ("QD", "5H 3S 12C 2S", 1),               # 12C 5H 3S 2S
    ("QS", "5H 7H 9C 1D", 1),                # no spade: 9C 7H 5H 1D
    # 3 players: the middle of three
    ("QH", "5H 3S 12C", 2),
    ("QS", "5H 3S 12C", 2),                  # 3S 12C 5H
    ("JH", "5H 3S 12C", 1),
    # 5 players: the 3rd of five
    ("QS", "5H 3S 12C 2S 18D", 4),           # 3S 2S 18D 12C 5H
    ("QD", "5H 3S 12C 2S 18D", 0),           # 18D 12C 5H 3S 2S
    ("K*", "5H 3S 12C 2S 18D", 4),
])
def test_trick_winner(win: str, played: str, winner: int) -> None:
    assert tricks.trick_winner(ids(played), cards.parse_win_card(win)) == winner


@pytest.mark.parametrize("win, hand, legal", [
    ("QH", "1S 5H 7H 9C", "5H 7H"),
    ("JD", "1S 5H 7H 9C", "1S 5H 7H 9C"),    # no diamond: anything
    ("K*", "1S 5H 7H 9C", "1S 5H 7H 9C"),    # neutral: anything
    ("J*", "2C", "2C"),
    ("KS", "1S", "1S"),
])
def test_follow_rule(win: str, hand: str, legal: str) -> None:
    assert tricks.follows(ids(hand), cards.parse_win_card(win)) == ids(legal)


def test_follow_rule_binds_the_leader_in_the_engine() -> None:
    game = new_round(3, pass_cards=0)
    play_texts(game, ["bid low", "bid middle", "bid high"])
    win, hand = game.win_card, game.hands[0]
    legal = [A.play(c) for c in tricks.follows(hand, win)]
    assert game.current_player == 0 and game.legal_actions() == legal
    off = [A.play(c) for c in hand if A.play(c) not in legal]
    if off:
        before = game.clone()
        with pytest.raises(ValueError, match="illegal"):
            game.step(off[0])
        assert game == before


@pytest.mark.parametrize("tricks_won, high, low, won, failed", [
    ([6, 4, 3, 1], 0, 3, True, 0),
    ([6, 4, 4, 0], 0, 3, True, 0),           # Middles may tie with each other
    ([6, 6, 1, 1], 0, 3, False, 2),          # ties for the most and for the fewest
    ([1, 4, 3, 6], 0, 3, False, 5),          # everything backwards: all 2n-3 fail
    ([5, 5, 4], 0, 2, False, 1),
    ([9, 5, 0], 0, 2, True, 0),
])
def test_team_outcome(tricks_won: list[int], high: int, low: int, won: bool,
                      failed: int) -> None:
    assert tricks.team_won(tricks_won, high, low) is won
    assert tricks.failed_constraints(tricks_won, high, low) == failed


# ---- bidding ---------------------------------------------------------------------------------

@pytest.mark.parametrize("n, bids, legal_after", [
    (4, ["bid high"], ["bid low", "bid middle"]),
    (4, ["bid high", "bid middle"], ["bid low", "bid middle"]),
    (4, ["bid high", "bid middle", "bid middle"], ["bid low"]),          # forced, still asked
    (4, ["bid middle", "bid low"], ["bid middle", "bid high"]),
    (3, ["bid middle"], ["bid low", "bid high"]),
    (3, ["bid low", "bid high"], ["bid middle"]),
    (5, ["bid middle", "bid middle", "bid middle"], ["bid low", "bid high"]),
    (5, [], ["bid low", "bid middle", "bid high"]),
])
def test_bid_slots(n: int, bids: list[str], legal_after: list[str]) -> None:
    game = new_round(n)
    play_texts(game, bids)
    assert game.phase == Phase.BID and game.current_player == len(bids)
    assert game.legal() == legal_after


def test_bids_start_at_the_dealers_left() -> None:
    game = new_round(4, dealer=1)
    assert game.current_player == 2 and game.leader == 2
    play_texts(game, ["bid high", "bid low", "bid middle", "bid middle"])
    assert game.bids == [MIDDLE, MIDDLE, HIGH, LOW]


# ---- passing ---------------------------------------------------------------------------------

def test_passing_chain() -> None:
    game = new_round(4, seed=3)
    play_texts(game, ["bid low", "bid high", "bid middle", "bid middle"])
    assert game.phase == Phase.PASS and game.current_player == 1  # the High bidder first
    start = [list(h) for h in game.hands]
    chosen = start[1][:3]
    for i, card in enumerate(chosen):
        game.step(A.pass_card(card))
        assert len(game.hands[1]) == HAND_SIZE - 1 - i
        assert len(game.hands[2]) == HAND_SIZE + (3 if i == 2 else 0)  # delivered together
    assert game.received[2] == chosen and game.current_player == 2
    # a passer may pass on the cards just received
    game.step(A.pass_card(chosen[0]))
    assert chosen[0] not in game.hands[2]
    for card in game.hands[2][:2]:
        game.step(A.pass_card(card))
    assert game.current_player == 3 and chosen[0] in game.hands[3]
    for seat in (3, 0):
        assert game.current_player == seat
        for _ in range(3):
            game.step(game.legal_actions()[0])
    assert [len(h) for h in game.hands] == [HAND_SIZE] * 4
    assert game.phase == Phase.PLAY and game.current_player == 0  # the dealer's left leads
    assert game.received[1] == game.passed[0] and game.received[0] == game.passed[3]


def test_no_passing_phase_without_pass_cards() -> None:
    game = new_round(3, pass_cards=0)
    play_texts(game, ["bid low", "bid middle", "bid high"])
    assert game.phase == Phase.PLAY


# ---- whole rounds ----------------------------------------------------------------------------

WIN_BIDS = ["bid middle", "bid middle", "bid low", "bid high"]
"""Seed 0's deal, 4 players, no passing, each player playing its first legal card: the
tricks end 4, 4, 1, 5, so Low for seat 2 and High for seat 3 win."""


@pytest.mark.parametrize("bids, outcome", [
    (WIN_BIDS, WIN),
    (["bid middle", "bid middle", "bid high", "bid low"], LOSS),   # High and Low swapped
    (["bid low", "bid middle", "bid middle", "bid high"], LOSS),   # Low ties for the most
])
def test_full_round_won_and_lost_on_the_same_cards(bids: list[str], outcome: int) -> None:
    rules = RuleSet(num_players=4, pass_cards=0)
    rng = np.random.default_rng(0)
    deck, line = cards.deck_order(4, None, rng), cards.line_order(None, rng)
    game = Round(rules, np.random.default_rng(), deck, line)
    play_texts(game, bids)
    while game.current_player is not None:
        game.step(game.legal_actions()[0])
    assert game.tricks_won() == [4, 4, 1, 5]
    assert game.outcome == outcome and game.phase == Phase.ROUND_OVER
    assert game.log[-1].data == outcome and game.legal_actions() == []


def test_deal_goes_around_from_the_dealers_left() -> None:
    hands = [list(range(s, 56, 4)) for s in range(4)]  # seat s holds suit s, 1..14
    game = Round(RuleSet(), np.random.default_rng(), stacked_deck(hands, 4, 3))
    assert game.hands == hands and game.undealt == [56, 57, 58, 59]
    game = Round(RuleSet(), np.random.default_rng(), stacked_deck(hands, 4, 1), dealer=1)
    assert game.hands == hands


@pytest.mark.parametrize("preset, visible", [("standard", 14), ("medium", 7),
                                             ("difficult", 5), ("hardcore", 3)])
def test_visible_win_cards(preset: str, visible: int) -> None:
    line = list(range(14))
    game = Round(resolve(preset, pass_cards=0), np.random.default_rng(), line=line)
    assert game.visible_line() == line[:visible]
    play_texts(game, ["bid low", "bid middle", "bid middle", "bid high"])
    for trick in range(HAND_SIZE):
        assert game.visible_line() == line[trick:trick + visible] and game.win_card == trick
        for _ in range(4):
            game.step(game.legal_actions()[0])
    assert game.visible_line() == [] and game.win_card is None


def test_match_is_best_of_five_with_the_dealer_moving() -> None:
    rng = random.Random(0)
    for seed in range(20):
        match = Match(RuleSet(num_players=3), np.random.default_rng(seed))
        dealers = []
        while True:
            game = match.round
            dealers.append(game.dealer)
            while game.current_player is not None:
                game.step(rng.choice(game.legal_actions()))
            if match.over:
                break
            match.next_round()
        outcomes = match.outcomes
        assert 3 <= len(outcomes) <= 5
        assert match.team_won == (outcomes.count(WIN) == 3)
        assert dealers == [(2 + i) % 3 for i in range(len(outcomes))]
        with pytest.raises(ValueError, match="over"):
            match.next_round()


# ---- state: clone, ==, replay; bad input ----------------------------------------------------

def test_clone_equality_and_replay() -> None:
    game = new_round(5, seed=7)
    rng = random.Random(7)
    for _ in range(40):
        game.step(rng.choice(game.legal_actions()))
    twin = game.clone()
    assert twin == game and twin is not game
    assert replay(game.log, game.rules) == game
    twin.step(twin.legal_actions()[0])
    assert twin != game


@pytest.mark.parametrize("action, error, match", [
    ("bid low", TypeError, "'bid low'"),
    (1.0, TypeError, "1.0"),
    (True, TypeError, "True"),
    (None, TypeError, "None"),
    (np.float32(144), TypeError, "144"),
    (147, ValueError, "outside"),
    (-1, ValueError, "outside"),
    (A.play(0), ValueError, "illegal .*'play 1S'"),
    (A.pass_card(0), ValueError, "illegal"),
])
def test_bad_actions_change_nothing(action, error: type, match: str) -> None:
    game = new_round(4, seed=1)
    before = game.clone()
    with pytest.raises(error, match=match):
        game.step(action)
    assert game == before and game.log == before.log


def test_numpy_integers_are_actions() -> None:
    game = new_round(4)
    game.step(np.int64(A.BID_HIGH))
    game.step(np.int16(A.BID_LOW))
    assert game.bids[:2] == [HIGH, LOW]


def test_no_action_after_the_round() -> None:
    game = new_round(3, pass_cards=0)
    while game.current_player is not None:
        game.step(game.legal_actions()[0])
    with pytest.raises(ValueError, match="nobody"):
        game.step(A.BID_LOW)


@pytest.mark.parametrize("fields, match", [
    ({"num_players": 6}, "num_players"),
    ({"num_players": 2}, "num_players"),
    ({"visible_win_cards": 0}, "visible_win_cards"),
    ({"pass_cards": -1}, "pass_cards"),
    ({"dealer": 4}, "dealer"),
    ({"shaping": "dense"}, "shaping"),
    ({"colour": "red"}, "unknown .*fields are"),
])
def test_bad_rules(fields: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        RuleSet.preset("standard", **fields)


def test_bad_decks_and_lines() -> None:
    rules, rng = RuleSet(num_players=3), np.random.default_rng()
    with pytest.raises(ValueError, match=r"each card id 0\.\.47"):
        Round(rules, rng, deck=list(range(60)))
    with pytest.raises(ValueError, match="14 Win Cards"):
        Round(rules, rng, line=[0] * 14)
    with pytest.raises(ValueError, match="value 19"):
        Round(rules, rng, deck=["19S"])
    with pytest.raises(ValueError, match="rules preset 'easy'"):
        resolve("easy")
    with pytest.raises(ValueError, match="dealer"):
        Round(rules, rng, dealer=3)


def test_texts_round_trip() -> None:
    for action in range(A.NUM_ACTIONS):
        assert A.string_to_action(A.action_to_string(action)) == action
    assert A.string_to_action("PLAY 7♠") == A.play(cards.card_id(7, 0))
    assert [cards.win_card_str(w) for w in (0, 5, 11, 12, 13)] == ["JS", "QH", "KD", "J*",
                                                                    "K*"]
    with pytest.raises(ValueError):
        A.string_to_action("bid maximum")


# ---- invariants over many random rounds -----------------------------------------------------

def check_accounted(game: Round) -> None:
    """Every card in play and every Win Card is in exactly one place."""
    n = game.num_players
    places = [*game.hands, *game.played, game.undealt]
    if game.phase == Phase.PASS:
        places.append(game.passed[game.current_player])  # chosen, not yet delivered
    held = sorted(c for place in places for c in place)
    assert held == list(range(cards.cards_in_play(n)))
    assert len(set(game.trick_cards) - {c for p in game.played for c in p}) == 0
    win = sorted(w for t in game.taken for w in t) + sorted(game.line[game.trick:])
    assert sorted(win) == list(range(cards.NUM_WIN_CARDS))


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_random_rounds_invariants(num_players: int) -> None:
    rounds = RANDOM_ROUNDS // 3 + 1
    rng, choose = np.random.default_rng(num_players), random.Random(num_players)
    presets = list(PRESETS.values())
    outcomes = {WIN: 0, LOSS: 0}
    for i in range(rounds):
        rules = presets[i % len(presets)].replace(num_players=num_players,
                                                  pass_cards=(0, 3, 1)[i % 3])
        game = Round(rules, rng)
        decisions, last_phase = 0, game.phase
        while game.current_player is not None:
            legal = game.legal_actions()
            assert legal  # the mask is never empty while the round runs
            if game.phase != last_phase or i % 100 == 0:
                check_accounted(game)
                last_phase = game.phase
            game.step(choose.choice(legal))
            decisions += 1
        check_accounted(game)
        assert decisions == game.decisions == rules.decisions_per_round
        assert sum(game.tricks_won()) == HAND_SIZE and game.hands == [[]] * num_players
        assert all(len(p) == HAND_SIZE for p in game.played)
        assert NO_BID not in game.bids and game.bids.count(HIGH) == game.bids.count(LOW) == 1
        won = tricks.team_won(game.tricks_won(), game.bids.index(HIGH), game.bids.index(LOW))
        assert game.outcome == (WIN if won else LOSS)
        outcomes[game.outcome] += 1
    assert outcomes[WIN] > 0 and outcomes[LOSS] > 0
