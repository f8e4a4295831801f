"""The deck and hand fields (deck_values, deck_suits, deck_multiply, deck_roots,
base_operators), odd_chip to a player, and the tiny preset: checks, engine, solver, AEC env."""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

from hilo_env.envs.equation_hilo_aec import raw_env
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo import showdown as S
from hilo_env.equation_hilo.actions import DECLARE_HIGH, DECLARE_LOW
from hilo_env.equation_hilo.engine import Game
from hilo_env.equation_hilo.rules import PRESETS, RuleSet, resolve
from hilo_env.equation_hilo.solver import evaluate, solve
from hilo_env.equation_hilo.vector import VectorGame

ROOT = Path(__file__).resolve().parents[1]
THREE_NUMBERS = dict(base_operators="+/", deal=["hidden", "up", "bet", "up", "bet"])


def test_defaults_are_the_full_game():
    r = RuleSet()
    assert r.deck_values == tuple(range(11)) and r.deck_suits == 4
    assert r.deck_multiply == r.deck_roots == 4 and r.base_operators == "+-/"
    assert r.full_deck and r.numbers_per_hand == 4
    assert cards.deck_ids() == tuple(range(cards.DECK_SIZE))


def test_tiny_preset_is_the_issue_yaml():
    tiny = PRESETS["tiny"]
    assert resolve(ROOT / "configs/rules/tiny.yaml") == tiny == resolve("tiny")
    assert tiny.to_dict() == {**RuleSet().to_dict(), "deck_values": [0, 1, 2], "deck_suits": 2,
                              "deck_multiply": 0, "deck_roots": 0, "base_operators": "/",
                              "deal": ["hidden", "up", "bet"], "starting_stack": 2, "ante": 1}
    assert cards.deck_ids(tiny.deck_values, tiny.deck_suits, 0, 0) == (0, 1, 4, 5, 8, 9)


@pytest.mark.parametrize("field, value, message", [
    ("deck_values", [0, 0, 1, 2, 3], "distinct integers"),
    ("deck_values", [0, 11], "distinct integers 0..10"),
    ("deck_values", 5, "a list of distinct integers"),
    ("deck_values", [0, "1"], "a list of distinct integers"),
    ("deck_values", [7], "enough number cards for 2 players of 4"),
    ("deck_suits", 5, "an integer 1..4"),
    ("deck_suits", True, "an integer 1..4"),
    ("deck_multiply", -1, "an integer 0..4"),
    ("deck_roots", 5, "an integer 0..4"),
    ("base_operators", "+-/*", "1 to 3 operators"),
    ("base_operators", "", "1 to 3 operators"),
    ("base_operators", "%", "1 to 3 operators"),
    ("odd_chip", "dealer", "one of \\['house', 'low', 'high'\\]"),
])
def test_bad_fields_are_named(field, value, message):
    with pytest.raises(ValueError, match=f"rule field '{field}'.*{message}"):
        RuleSet.preset("standard", **{field: value})


def test_yaml_reads_the_fields_and_names_bad_ones(tmp_path):
    good = tmp_path / "three.yaml"
    good.write_text('deck_values: [10, 0, 5]\ndeck_suits: 3\nbase_operators: "÷ x"\n'
                    'deal: [hidden, up, bet, up, bet]\ndeck_roots: 0\ndeck_multiply: 0\n')
    r = resolve(good)
    assert r.deck_values == (0, 5, 10) and r.base_operators == "*/" and r.deck_roots == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("deck_suits: seven\n")
    with pytest.raises(ValueError, match=r"bad\.yaml: rule field 'deck_suits'"):
        resolve(bad)


def test_a_times_needs_an_operator_to_discard():
    with pytest.raises(ValueError, match=r"rule field 'deal'.*'up' \(exactly 1: one per operator "
                                         r"of base_operators"):
        RuleSet(base_operators="/", deck_multiply=0)
    with pytest.raises(ValueError, match=r"rule field 'base_operators'.*at least one"):
        RuleSet(base_operators="*/", deal=["hidden", "up", "up", "bet"])
    with pytest.raises(ValueError, match=r"rule field 'max_multiply'.*at most 1"):
        RuleSet(base_operators="+/", deal=["hidden", "up", "up", "bet"], max_multiply=2)
    # without × cards any base operators do
    RuleSet(base_operators="*/", deal=["hidden", "up", "up", "bet"], deck_multiply=0)


def test_batch_simulator_refuses_naming_the_field():
    with pytest.raises(ValueError, match="base_operators='/'"):
        VectorGame(RuleSet.preset("tiny"))
    with pytest.raises(ValueError, match="deck_roots=0"):
        VectorGame(RuleSet(deck_roots=0))


@pytest.mark.parametrize("numbers, ops", [
    ((0, 0), "/"), ((2, 1), "/"), ((7, 3), "-"), ((5, 9, 2), "+/"), ((0, 4, 4), "*-"),
    ((10, 1, 3), "//"),
])
def test_solver_on_two_and_three_numbers_is_exhaustive_search(numbers, ops):
    """Smaller hands against every equation written out and evaluated as text."""
    for roots in range(len(numbers)):
        sol = solve(numbers, ops, roots)
        for target, got in ((1, sol.low), (20, sol.high)):
            best = math.inf
            for order in itertools.permutations(numbers):
                for op_order in set(itertools.permutations(ops)):
                    for rooted in itertools.combinations(range(len(numbers)), roots):
                        text = " ".join(
                            ("√" if i in rooted else "") + str(n) + (f" {o}" if o else "")
                            for i, (n, o) in enumerate(itertools.zip_longest(order, op_order)))
                        value = evaluate(text)
                        if not math.isnan(value):
                            best = min(best, abs(value - target))
            if math.isinf(best):
                assert got is None
            else:
                assert got.distance == pytest.approx(best, abs=1e-12)
                assert evaluate(got.equation) == pytest.approx(got.value)


def _play_random(rules: RuleSet, games: int, seed: int = 0) -> list[Game]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        game = Game(rules, rng)
        while game.current_player is not None:
            game.step(int(rng.choice(game.legal_actions())))
        out.append(game)
    return out


@pytest.mark.parametrize("rules", [
    PRESETS["tiny"],
    RuleSet(num_players=3, deck_values=[0, 1, 5, 9], deck_suits=3, deck_multiply=2,
            deck_roots=1, **THREE_NUMBERS),
    RuleSet.preset("classic", num_players=4, deck_suits=2, deck_roots=0),
], ids=["tiny", "three-numbers", "classic-small-deck"])
def test_engine_deals_only_the_deck_and_the_hand_size(rules):
    ids = set(cards.deck_ids(rules.deck_values, rules.deck_suits, rules.deck_multiply,
                             rules.deck_roots))
    for game in _play_random(rules, 150):
        dealt = [e.data[1] for e in game.log if e.kind == "deal"]
        assert set(dealt) <= ids
        assert sum(game.stacks) + game.house == rules.num_players * rules.starting_stack
        for seat in range(rules.num_players):
            if game.declarations[seat] is not None:  # reached the showdown
                assert len(game.number_cards(seat)) == rules.numbers_per_hand
                assert len(game.operators[seat]) == len(rules.base_operators)


def test_a_stacked_card_outside_the_deck_is_refused():
    with pytest.raises(ValueError, match=r"\['3G'\] are not in this deck"):
        Game(PRESETS["tiny"], np.random.default_rng(0), ["0G", "3G"])
    game = Game(PRESETS["tiny"], np.random.default_rng(0), ["2G", "0G", "1S", "1G"])
    assert game.hidden == [8, 0] and game.up == [[5], [4]]


def test_odd_chip_to_the_high_winner():
    """Three players, pot 3 cut in halves: the odd chip goes to the High winner, not the house
    (and to the Low winner under ``low``); the house rule's remainder by tie-break rank."""
    live = np.ones(3, bool)
    decl = np.array([DECLARE_LOW, DECLARE_HIGH, DECLARE_HIGH])
    dist = np.array([[0.5, np.inf, np.inf], [np.inf, 3.0, 4.0]])
    ranks = np.array([[1, 2, 3], [1, 2, 3]])
    for odd, payouts in (("house", [1, 1, 0]), ("high", [1, 2, 0]), ("low", [2, 1, 0])):
        split = S.split_pot(np.array(3), live, decl, dist, ranks, odd_chip=odd)
        assert split.payouts.tolist() == payouts
        assert int(split.house) == (1 if odd == "house" else 0)
    # nobody has a valid equation: 5 chips among 3, the 2 left to the best High ranks
    nothing = np.full((2, 3), np.inf)
    split = S.split_pot(np.array(5), live, decl, nothing, np.array([[3, 1, 2], [2, 9, 5]]),
                        odd_chip="high")
    assert split.payouts.tolist() == [1, 2, 2] and int(split.house) == 0
    # batches: the same games in any batch shape
    many = S.split_pot(np.array([3, 3]), np.stack([live, live]), np.stack([decl, decl]),
                       np.stack([dist, dist]), np.stack([ranks, ranks]), odd_chip="high")
    assert many.payouts.tolist() == [[1, 2, 0]] * 2 and many.house.tolist() == [0, 0]


def test_odd_chip_to_a_player_makes_the_game_zero_sum():
    house = RuleSet(num_players=3, starting_stack=5)
    high = house.replace(odd_chip="high")
    assert sum(g.house for g in _play_random(house, 300, seed=1)) > 0
    for game in _play_random(high, 300, seed=1):
        assert game.house == 0 and sum(game.result.net) == 0


@pytest.mark.parametrize("rules", [PRESETS["tiny"], RuleSet(**THREE_NUMBERS)],
                         ids=["tiny", "three-numbers"])
def test_aec_env_passes_the_api_test(rules):
    api_test(raw_env(rules), num_cycles=200)


def test_batch_simulator_pays_the_odd_chip_as_the_engine():
    """The conformance harness on odd_chip variants: the NumPy batch simulator against the
    engine on the same decks and actions, stacks and house compared at every hand. The same
    deals and actions that pay the house under ``house`` pay it nothing under ``low`` and
    ``high``."""
    from collections import Counter

    from tests.conformance.harness import Backend, conform

    numpy = Backend(make=lambda rules, games, source: VectorGame(rules, games,
                                                                 deal_source=source),
                    phase=lambda sim: sim.state.phase, stacks=lambda sim: sim.state.stacks,
                    house=lambda sim: sim.state.house)
    for odd_chip, hands_per_episode in (("house", 1), ("low", 1), ("high", 1), ("high", 4)):
        seen: Counter = Counter()
        rules = RuleSet(num_players=3, starting_stack=5, hands_per_episode=hands_per_episode,
                        odd_chip=odd_chip)
        assert conform(numpy, rules, num_games=48, min_hands=300, seed=7, seen=seen) >= 300
        assert seen["showdown"] > 0
        assert (seen["odd chip"] > 0) == (odd_chip == "house"), (odd_chip, seen)
