"""The rules engine against docs/rules.md: stacked-deck scenarios, invariants, replay."""

from __future__ import annotations

import numpy as np
import pytest

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.engine import Game, Phase, replay
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.equation_hilo.solver import solve
from tests.helpers import make_game, play

# Hands (hidden card first). HIGH20 makes 10 + 10 − 0 ÷ 5 = 20; LOW1 makes 1 + 0 − 0 ÷ 5 = 1
# and at best 5 on High; ZEROS has no valid equation (every ÷ divides by zero).
HIGH20 = ["10G", "10S", "0G", "5G"]
HIGH20_B = ["10B", "10K", "0S", "5S"]
LOW1 = ["1G", "0S", "0B", "5S"]
LOW1_B = ["1S", "0G", "0K", "5G"]
ZEROS = ["0G", "0S", "0B", "0K"]
VALID = ["10G", "10S", "1G", "5G"]
WEAK = ["2G", "3G", "4G", "6G"]


def deal(*hands: list[str]) -> list[str]:
    """The stacked deck that gives each seat its hand (hidden card, then three face-up
    number cards) when seat 0 is first to be dealt: round-robin, one card per pass."""
    return [hand[i] for i in range(4) for hand in hands]


CHECKS = ("check",) * 4

SCENARIOS = {
    # name: (hands, moves, overrides, stacks after, house chips)
    "split pot": ((HIGH20, LOW1), (*CHECKS, "high", "low"), {}, [100, 100], 0),
    "split pot after raises": ((HIGH20, LOW1),
                               ("raise 5", "call", "check", "raise 10", "call", "high", "low"),
                               {}, [100, 100], 0),
    "odd chip to the house": ((HIGH20, LOW1, WEAK), ("check",) * 6 + ("high", "low", "high"),
                              {"num_players": 3}, [100, 100, 99], 1),
    "nobody on Low: all High": ((HIGH20, LOW1), (*CHECKS, "high", "high"), {}, [101, 99], 0),
    "nobody on High: all Low": ((HIGH20, LOW1), (*CHECKS, "low", "low"), {}, [99, 101], 0),
    "swing wins both": ((VALID, ZEROS), (*CHECKS, "swing", "low"), {}, [101, 99], 0),
    "swing fails Low, its High half goes to the Low winner":
        ((HIGH20, LOW1), (*CHECKS, "swing", "low"), {}, [99, 101], 0),
    "swing fails High, its Low half goes to the next best Low":
        ((LOW1, HIGH20, WEAK), ("check",) * 6 + ("swing", "high", "low"),
         {"num_players": 3}, [99, 100, 100], 1),
    "every swing fails: house rule split": (
        (HIGH20, LOW1, WEAK), ("raise 2", "call", "fold", "check", "check", "swing", "swing"),
        {"num_players": 3}, [100, 100, 99], 1),
    "High tie broken by the key card": ((HIGH20, HIGH20_B), (*CHECKS, "high", "high"), {},
                                        [101, 99], 0),
    "High tie, key card on the other seat": ((HIGH20_B, HIGH20), (*CHECKS, "high", "high"), {},
                                             [99, 101], 0),
    "Low tie broken by the key card (Black strongest)":
        ((["1S", "0S", "0B", "5G"], ["1G", "0G", "0K", "5S"]), (*CHECKS, "low", "low"), {},
         [99, 101], 0),
    "Low tie broken by suit order": ((["1S", "0S", "0B", "5G"], ["1G", "0G", "0K", "5S"]),
                                     (*CHECKS, "low", "low"), {"tiebreak": "suit"},
                                     [101, 99], 0),
    "fold-out": ((HIGH20, LOW1), ("raise 3", "fold"), {}, [101, 99], 0),
    "cap reached, second round skipped": ((HIGH20, LOW1), ("raise 5", "call", "high", "high"),
                                          {"starting_stack": 5}, [10, 0], 0),
    "ante all-in: no betting at all": ((HIGH20, LOW1), ("high", "high"),
                                       {"starting_stack": 1}, [2, 0], 0),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario_stacks(name: str) -> None:
    hands, moves, overrides, stacks, house = SCENARIOS[name]
    game = play(make_game(deal(*hands), **overrides), *moves)
    assert game.phase == Phase.MATCH_OVER
    assert game.stacks == stacks
    assert game.house == house
    total = game.rules.starting_stack * game.num_players
    assert sum(game.stacks) + game.house == total


# name: (low winner, high winner, failed Swings) in the HandResult; None where nobody is paid
SIDE_RESULTS = {
    "split pot": (1, 0, []),
    "nobody on Low: all High": (None, 0, []),
    "swing wins both": (0, 0, []),
    "swing fails Low, its High half goes to the Low winner": (1, None, [0]),
    "swing fails High, its Low half goes to the next best Low": (2, 1, [0]),
    "every swing fails: house rule split": (None, None, [0, 1]),
    "Low tie broken by suit order": (0, None, []),
}


@pytest.mark.parametrize("name", list(SIDE_RESULTS))
def test_scenario_side_results(name: str) -> None:
    hands, moves, overrides, _, _ = SCENARIOS[name]
    result = play(make_game(deal(*hands), **overrides), *moves).result
    assert (result.low_winner, result.high_winner, result.failed_swing) == SIDE_RESULTS[name]
    assert all(isinstance(chips, int) for chips in [*result.payouts, result.house])


def test_duel_uses_suit_tiebreak_and_its_schedule() -> None:
    game = make_game(deal(["1S", "0S", "0B", "5G"], ["1G", "0G", "0K", "5S"]), "duel")
    # duel: the first betting round comes right after the hidden card
    assert game.phase == Phase.BET and all(len(u) == 0 for u in game.up)
    play(game, *CHECKS, "low", "low")
    assert game.stacks == [101, 99]


def test_cap_skips_rounds_and_declaration_follows() -> None:
    game = play(make_game(deal(HIGH20, LOW1), starting_stack=5), "raise 5", "call")
    assert game.phase == Phase.DECLARE and game.current_player == 0
    assert game.legal_actions() == [A.DECLARE_LOW, A.DECLARE_HIGH, A.DECLARE_SWING]


def test_ante_all_in_goes_straight_to_declaration() -> None:
    game = make_game(deal(HIGH20, LOW1), starting_stack=1)
    assert game.phase == Phase.DECLARE and game.cap == 1 and game.pot == 2


def test_betting_actions_offered() -> None:
    game = make_game(deal(HIGH20, LOW1))
    assert game.legal_actions() == [A.FOLD, A.CHECK, *range(A.raise_to(2), A.raise_to(100) + 1)]
    play(game, "raise 7")
    assert game.legal_actions() == [A.FOLD, A.CALL, *range(A.raise_to(8), A.raise_to(100) + 1)]
    play(game, "raise 100")
    assert game.legal_actions() == [A.FOLD, A.CALL]


def test_raise_reopens_betting() -> None:
    game = play(make_game(deal(HIGH20, LOW1)), "check", "raise 4")
    assert game.current_player == 0 and A.CALL in game.legal_actions()
    play(game, "raise 9", "call")
    assert game.wagers == [9, 9] and game.round == 1


def test_elimination_ends_the_match() -> None:
    game = play(make_game(deal(HIGH20, LOW1), starting_stack=3, hands_per_episode=5),
                "raise 3", "call", "high", "high")
    assert game.stacks == [6, 0] and game.eliminated == [False, True]
    assert game.phase == Phase.MATCH_OVER


def test_button_moves_between_hands() -> None:
    game = play(make_game(deal(HIGH20, LOW1), hands_per_episode=2), "raise 3", "fold")
    assert game.phase == Phase.HAND_OVER and game.stacks == [101, 99]
    game.start_next_hand(deal(LOW1, HIGH20))
    assert game.button == 0 and game.current_player == 1
    # seat 1 is now dealt first
    assert game.hidden == [cards.parse_card("10G"), cards.parse_card("1G")]
    play(game, "raise 2", "fold")
    assert game.stacks == [100, 100] and game.phase == Phase.MATCH_OVER


def test_illegal_action_rejected_without_change() -> None:
    game = make_game(deal(HIGH20, LOW1))
    before = game.clone()
    with pytest.raises(ValueError, match=r"illegal action 'call'.*player_0.*"
                                         r"legal: fold, check, raise 2\.\.100$"):
        game.step(A.CALL)
    with pytest.raises(ValueError, match="illegal action 'low'"):
        game.step(A.DECLARE_LOW)
    assert game == before


def test_multiply_discard_decides_the_operators() -> None:
    # 8G hidden; face up a × with 3G as its extra card, then 1G and 4G: 8 × 3 ÷ 1 − 4 = 20
    deck = ["8G", "0G", "x", "3G", "0S", "1G", "0B", "4G", "0K"]
    for discard, ops in (("discard +", "*-/"), ("discard -", "+*/")):
        game = make_game(deck)
        assert game.phase == Phase.DISCARD and game.current_player == 0
        assert game.legal_actions() == [A.DISCARD_PLUS, A.DISCARD_MINUS]
        play(game, discard, *CHECKS, "high", "low")
        assert sorted(game.operators[0]) == sorted(ops)
        assert game.result.solutions[0] == solve([8, 3, 1, 4], ops)
        assert game.stacks == [101, 99]
    assert game.result.solutions[0].high.distance == 0.0


def test_chain_specials_are_set_aside() -> None:
    deck = ["8G", "0G", "r", "x", "r", "3G", "0S", "1G", "0B", "4G", "0K"]
    game = make_game(deck)
    assert game.phase == Phase.BET  # the × was an extra card: set aside, no discard
    assert game.set_aside == [44, 49]
    assert game.up[0] == [48, cards.parse_card("3G"), cards.parse_card("1G")]
    assert game.roots[0] == 1 and sorted(game.operators[0]) == ["+", "-", "/"]


def test_second_multiply_goes_back_under_max_one() -> None:
    deck = ["8G", "0G", "x", "3G", "0S", "x"]
    game = make_game(deck, seed=3)
    play(game, "discard +")
    assert [e for e in game.log if e.kind == "return"] == [("return", 0, 45)]
    assert game.multiplies[0] == 1
    _play_out(game, np.random.default_rng(0))
    assert len(game.number_cards(0)) == 4 and len(game.operators[0]) == 3


def test_classic_second_multiply_discards_plus_minus_or_times() -> None:
    deck = ["8G", "0G", "x", "3G", "0S", "x", "2G"]
    game = play(make_game(deck, "classic"), "discard +")
    assert game.phase == Phase.DISCARD and game.current_player == 0
    assert game.legal_actions() == [A.DISCARD_MINUS, A.DISCARD_MULTIPLY]
    play(game, "discard x")
    assert game.multiplies[0] == 2 and sorted(game.operators[0]) == ["*", "-", "/"]


def test_hidden_special_goes_back_and_is_redrawn() -> None:
    game = make_game(["r", "5G"], seed=7)
    assert cards.is_number(game.hidden[0])
    assert [e.kind for e in game.log[:4]] == ["hand", "ante", "ante", "return"]


def test_clone_is_independent_and_equal_by_value() -> None:
    game = make_game(deal(HIGH20, LOW1))
    twin = game.clone()
    assert twin == game and twin is not game
    play(twin, "raise 3")
    assert twin != game and game.wagers == [1, 1]
    play(game, "raise 3")
    assert twin == game


def _play_out(game: Game, rng: np.random.Generator) -> None:
    while game.phase < Phase.HAND_OVER:
        legal = game.legal_actions()
        assert legal, "legal actions empty while the hand runs"
        game.step(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("preset", ["standard", "classic", "duel"])
def test_invariants_over_random_hands(preset: str) -> None:
    rng = np.random.default_rng(99)
    hands = 10_000
    players = 2
    for i in range(hands):
        if preset != "duel":
            players = 2 + i % 7
        stack = int(rng.integers(1, 30))
        rules = RuleSet.preset(preset, num_players=players, starting_stack=stack)
        game = Game(rules, np.random.default_rng(i))
        total = rules.starting_stack * players
        while game.phase < Phase.HAND_OVER:
            assert sum(game.stacks) + game.pot + game.house == total
            legal = game.legal_actions()
            assert legal
            game.step(legal[rng.integers(len(legal))])
        assert sum(game.stacks) + game.house == total
        showdown = [] if game.result.fold_out else [s for s in range(players) if game.in_hand[s]]
        for seat in showdown:
            assert len(game.number_cards(seat)) == 4
            assert len(game.operators[seat]) == 3 and game.operators[seat].count("/") == 1
            assert 0 <= game.roots[seat] <= 3


def test_same_seed_same_hand() -> None:
    def run(seed: int) -> Game:
        game = Game(RuleSet.preset("standard", num_players=4), np.random.default_rng(seed))
        _play_out(game, np.random.default_rng(seed + 1))
        return game

    assert run(5) == run(5)
    assert run(5).log != run(6).log


def test_replay_reaches_an_equal_state() -> None:
    rules = RuleSet.preset("standard", num_players=3, hands_per_episode=4, starting_stack=20)
    game = Game(rules, np.random.default_rng(11), deal(HIGH20, LOW1, WEAK))
    rng = np.random.default_rng(12)
    while game.phase != Phase.MATCH_OVER:
        if game.phase == Phase.HAND_OVER:
            game.start_next_hand()
        _play_out(game, rng)
    again = replay(game.log, rules, game.rng_start)
    assert again == game
