"""The lo-hi engine against docs/lohi.md: one or more scenarios per rule, with exact outcomes,
bad input (state unchanged), clone, == and replay."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hilo_env.lohi import actions as A
from hilo_env.lohi.cards import parse_card, parse_deck, stack_deck
from hilo_env.lohi.engine import (
    CLOCKWISE,
    COUNTERCLOCKWISE,
    DRAW,
    NO_RANK,
    RESHUFFLE,
    TURN,
    Game,
    Need,
    Phase,
    RecordedShuffle,
    SeededShuffle,
    replay,
)
from hilo_env.lohi.rules import PRESETS, RuleSet, resolve
from tests.lohi_helpers import card_ids, legal_texts, play, step_text

R = {t: i for i, t in enumerate(("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
                                 "A"))}
P0 = ["3S", "7S", "9S", "9H", "KS"]
P1 = ["2H", "4H", "5S", "QH", "AD"]


def check(game: Game, **expected: object) -> None:
    """Compare named facts of the game: need, called, top, current, phase, direction,
    pickups, sizes, legal, round, wins, winner, payoffs, stock."""
    facts = {"need": game.need, "called": game.called, "top": game.top_rank,
             "current": game.current_player, "phase": game.phase, "direction": game.direction,
             "pickups": game.pickups, "sizes": game.hand_sizes, "legal": legal_texts(game),
             "round": game.round_number, "wins": game.wins, "winner": game.winner,
             "payoffs": game.payoffs, "stock": len(game.stock)}
    for key, value in expected.items():
        assert facts[key] == value, (key, facts[key], value)


# ---- one scenario (or more) per rule: (name, hands, face up, moves, expected facts) --------

SCENARIOS = [
    ("round starts with ANY, seat 0 first", [P0, P1], "6D", [],
     {"need": Need.ANY, "current": 0, "phase": Phase.PLAY, "top": R["6"],
      "legal": ["pick up", "play 3", "play 7", "play 9", "play 9 9", "play K"]}),
    ("a single above the card beneath: LOWER", [P0, P1], "6D", ["play 7"],
     {"need": Need.LOWER, "current": 1, "top": R["7"],
      "legal": ["pick up", "play 2", "play 4", "play 5"]}),
    ("a single below: HIGHER, equal ranks allowed", [P0, P1], "6D", ["play 3"],
     {"need": Need.HIGHER, "current": 1,
      "legal": ["pick up", "play 4", "play 5", "play Q", "play A"]}),
    ("a set on a different rank: a double, the choice", [P0, P1], "6D", ["play 9 9"],
     {"phase": Phase.CHOOSE, "current": 0, "legal": ["higher", "lower"], "sizes": [3, 5]}),
    ("the double's choice becomes the need", [P0, P1], "6D", ["play 9 9", "lower"],
     {"need": Need.LOWER, "current": 1, "phase": Phase.PLAY}),
    ("a single on the face-up card of its rank makes a double", [P0, P1], "7D", ["play 7"],
     {"phase": Phase.CHOOSE, "current": 0}),
    ("a double of Aces: ANY, no choice", [P1, ["AS", "3H", "4C", "8C", "JD"]], "AH",
     ["play A"], {"need": Need.ANY, "phase": Phase.PLAY, "current": 1}),
    ("a double of 2s: ANY, no choice", [P1, P0], "2C", ["play 2"],
     {"need": Need.ANY, "current": 1}),
    ("a triple: the call", [["8S", "8H", "3C", "4C", "JD"], P1], "8D", ["play 8 8"],
     {"phase": Phase.CALL, "current": 0,
      "legal": [f"call {r}" for r in R]}),
    ("the call becomes EXACT", [["8S", "8H", "3C", "4C", "JD"], P1], "8D",
     ["play 8 8", "call Q"],
     {"need": Need.EXACT, "called": R["Q"], "current": 1, "legal": ["pick up", "play Q"]}),
    ("a triple may call its own rank", [["8S", "8H", "3C", "4C", "JD"], P1], "8D",
     ["play 8 8", "call 8"], {"need": Need.EXACT, "called": R["8"]}),
    ("a quadruple: ANY and the same player again", [["8S", "8H", "8C", "4C", "JD"], P1], "8D",
     ["play 8 8 8"],
     {"need": Need.ANY, "current": 0, "phase": Phase.PLAY, "sizes": [2, 5],
      "legal": ["pick up", "play 4", "play J"]}),
    ("a run ascends under HIGHER and asks LOWER", [P1, ["6S", "7H", "8C", "9D", "JD"]], "4D",
     ["play 2", "play 6 7 8 9"],
     {"need": Need.LOWER, "top": R["9"], "direction": COUNTERCLOCKWISE, "current": 0,
      "sizes": [4, 1]}),
    ("under HIGHER only ascending runs", [P1, ["6S", "7H", "8C", "9D", "JD"]], "4D",
     ["play 2"],
     {"legal": ["pick up", "play 6", "play 7", "play 8", "play 9", "play J",
                "play 6 7 8", "play 6 7 8 9", "play 7 8 9"]}),
    ("under LOWER only descending runs, asking HIGHER",
     [P1, ["6S", "7H", "8C", "9D", "JD"]], "4D", ["play Q"],
     {"legal": ["pick up", "play 6", "play 7", "play 8", "play 9", "play J",
                "play 8 7 6", "play 9 8 7 6", "play 9 8 7"]}),
    ("a descending run asks HIGHER", [P1, ["6S", "7H", "8C", "9D", "JD"]], "4D",
     ["play Q", "play 9 8 7"], {"need": Need.HIGHER, "top": R["7"], "current": 0}),
    ("under ANY runs go either way", [["6S", "7H", "8C", "KD", "JD"], P1], "4D", [],
     {"legal": ["pick up", "play 6", "play 7", "play 8", "play J", "play K", "play 6 7 8",
                "play 8 7 6"]}),
    ("a run on a card of its first rank triggers nothing",
     [["5H", "6H", "7C", "KD", "JD"], P1], "5D", ["play 5 6 7"],
     {"need": Need.LOWER, "phase": Phase.PLAY, "current": 1}),
    ("the lowest ids of a rank leave the hand", [["7D", "7S", "7H", "KD", "JD"], P1], "4D",
     ["play 7"], {"sizes": [4, 5]}),
]


@pytest.mark.parametrize("name, hands, face_up, moves, expected", SCENARIOS,
                         ids=[s[0] for s in SCENARIOS])
def test_scenario(name: str, hands: list, face_up: str, moves: list, expected: dict) -> None:
    check(play(hands, face_up, moves), **expected)


def test_exact_with_runs_both_ways() -> None:
    game = play([["8S", "8H", "3C", "4C", "JD"], ["QS", "JH", "KC", "10D", "AD"]], "8D",
                ["play 8 8", "call Q"])
    assert legal_texts(game) == ["pick up", "play Q", "play Q J 10", "play Q K A"]


def test_lowest_ids_leave_first() -> None:
    game = play([["7D", "7S", "7H", "KD", "JD"], P1], "4D", ["play 7"])
    assert game.pile[-1] == parse_card("7S")
    assert game.hand(0) == card_ids(["7H", "7D", "JD", "KD"])


# ---- three pick ups, the empty stock and the reshuffle -------------------------------------

def test_three_pick_ups_turn_a_card_keeping_the_need() -> None:
    game = play([P0, P1], "6D", ["play 7"], stock=["AS", "KH", "10C", "3D"])
    assert game.need == Need.LOWER
    for move in ("pick up", "pick up"):
        step_text(game, move)
    check(game, pickups=2, sizes=[5, 6], current=1)
    step_text(game, "pick up")
    check(game, pickups=0, top=R["3"], need=Need.LOWER, current=0, sizes=[5, 7],
          stock=52 - 11 - 4)
    assert game.pile[-2:] == card_ids(["7S", "3D"])
    assert [e.data for e in game.log if e.kind == TURN] == card_ids(["3D"])


def test_a_play_resets_the_pick_up_count() -> None:
    game = play([P0, P1], "6D", ["pick up", "pick up", "play 3"])
    check(game, pickups=0, current=1, need=Need.HIGHER)


def test_exact_survives_the_turned_card() -> None:
    game = play([["8S", "8H", "3C", "4C", "JD"], P1], "8D",
                ["play 8 8", "call K", "pick up", "pick up", "pick up"])
    check(game, need=Need.EXACT, called=R["K"], current=0, pickups=0)


LOW = ["3S", "2S", "2H", "2C", "3H", "3C", "3D", "4S", "4H", "4C"]
"""Every 2 and 3 but the face-up 2D: the other four seats hold 4D and 5s..As."""
HIGH = ["4D"] + [f"{r}{s}" for r in ("5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
                 for s in "SHCD"]


def full_table(**kwargs: object) -> Game:
    """Five seats of ten cards (every seat at 5 wins): the stock holds one card, AD."""
    hands = [LOW] + [HIGH[i::4][:10] for i in range(4)]
    left = [c for c in HIGH if not any(c in h for h in hands)]
    return play(hands, "2D", stock=left, wins=[5] * 5, **kwargs)


def test_empty_stock_reshuffles_the_pile_under_its_top() -> None:
    seen: list[list[int]] = []

    def hook(cards: list[int]) -> list[int]:
        seen.append(cards)
        return cards[::-1]

    game = full_table(shuffle=hook)
    check(game, stock=1, current=0)
    step_text(game, "play 3")  # 3S on 2D: LOWER
    step_text(game, "pick up")  # seat 1 takes the stock's last card
    check(game, stock=0, need=Need.LOWER, current=2)
    step_text(game, "pick up")  # seat 2: 2D, under the top 3S, becomes the stock and is drawn
    assert seen == [card_ids(["2D"])]
    assert [e.data for e in game.log if e.kind == RESHUFFLE] == [tuple(card_ids(["2D"]))]
    assert game.pile == card_ids(["3S"]) and game.hand(2)[0] == parse_card("2D")
    check(game, stock=0, sizes=[9, 11, 11, 10, 10], top=R["3"], need=Need.LOWER, pickups=2)


def test_nothing_to_draw_and_nothing_to_play_is_a_pass_that_counts() -> None:
    game = full_table()
    for move in ("play 3", "pick up", "pick up"):
        step_text(game, move)
    assert not game.can_draw()
    check(game, current=3, legal=["pick up"], pickups=2)  # seat 3 holds nothing <= 3
    step_text(game, "pick up")
    assert game.log[-1].kind == DRAW and game.log[-1].data is None
    check(game, current=4, pickups=0, sizes=[9, 11, 11, 10, 10], legal=["pick up"])
    assert game.pile == card_ids(["3S"])  # nothing could be turned over


def test_nothing_to_draw_forces_a_play() -> None:
    game = full_table()
    for move in ("play 2", "pick up", "pick up"):  # 2S on 2D: a double of 2s, ANY
        step_text(game, move)
    check(game, current=3, need=Need.ANY)
    legal = legal_texts(game)
    assert "pick up" not in legal and "play 5" in legal


# ---- going out, rounds, the game's end ------------------------------------------------------

def test_going_out_wins_the_round_and_deals_the_next() -> None:
    game = play([["9S", "9H", "4C", "5C", "6C"], P1], "9D",
                ["play 6 5 4", "pick up", "play 9 9"])  # out on a double: no choice
    check(game, round=2, wins=[1, 0], sizes=[6, 5], current=1, phase=Phase.PLAY,
          need=Need.ANY, direction=CLOCKWISE, pickups=0, winner=None)
    assert game.round_winners == [0] and game.called == NO_RANK
    assert sum(game.hand_sizes) + len(game.stock) + len(game.pile) == 52


def test_the_first_player_of_a_round_has_fewest_cards_lowest_seat_on_ties() -> None:
    game = Game(RuleSet(num_players=4), SeededShuffle(1), wins=[2, 1, 3, 1])
    check(game, sizes=[7, 6, 8, 6], current=1)


@pytest.mark.parametrize("n, payoffs", [(2, [1.0, -1.0]), (3, [1.0, -0.5, -0.5])])
def test_single_round_game_ends_with_the_game_reward(n: int, payoffs: list[float]) -> None:
    hands = [["9S", "9H", "4C", "5C", "6C"], P1, ["3D", "7H", "10C", "JC", "KC"]][:n]
    # after the run play goes counterclockwise: with 3 players seat 2, then seat 1
    moves = ["play 6 5 4", *["pick up"] * (n - 1), "play 9 9"]
    game = play(hands, "8D", moves, final_cards=5)
    check(game, phase=Phase.GAME_OVER, winner=0, current=None, payoffs=payoffs, legal=[])


def test_a_round_won_from_final_cards_wins_the_game_with_round_rewards() -> None:
    ten = ["9S", "9H", "4C", "5C", "6C", "JS", "QS", "KS", "AS", "2C"]
    game = play([ten, P1], "7D", wins=[5, 0], round_reward=0.5)
    check(game, sizes=[10, 5], current=1)  # the fewest cards act first
    moves = ["pick up", "play 4 5 6", "pick up", "play 2", "pick up", "play J Q K A",
             "pick up", "play 9 9"]
    for move in moves:
        step_text(game, move)
    check(game, phase=Phase.GAME_OVER, winner=0, round=1, payoffs=[1.5, -1.5])


def test_a_round_won_from_fewer_cards_does_not_end_the_game() -> None:
    eight = ["10S", "10H", "4C", "5C", "6C", "7C", "8C", "3D"]
    ten = ["2H", "4H", "5S", "QH", "AD", "JS", "JH", "KS", "KH", "9D"]
    game = play([eight, ten], "7D", ["play 8 7 6 5 4 3", "pick up", "play 10 10"],
                wins=[3, 5])
    check(game, phase=Phase.PLAY, round=2, wins=[4, 5], winner=None, payoffs=[0.0, 0.0],
          sizes=[9, 10], current=0)


def test_the_cut_off_truncates_without_a_game_reward() -> None:
    game = play([P0, P1], "6D", ["pick up", "pick up", "pick up"], max_turns=3,
                round_reward=1.0)
    assert game.truncated and game.over and game.winner is None
    check(game, payoffs=[0.0, 0.0], legal=[], current=None)


def test_the_worked_example_of_the_seed_corrected() -> None:
    """The seed's example round with B's three Kings replaced by three 5s (LOHI section 11):
    seats clockwise C=0, B=1, A=2 (A won one round, B two, C none)."""
    c_hand = ["3C", "4H", "9H", "QH", "QD"]
    b_hand = ["2C", "10D", "5S", "5H", "5C", "AH", "AC"]
    a_hand = ["6H", "8C", "9C", "10S", "JH", "KD"]
    game = play([c_hand, b_hand, a_hand], "7H", stock=["2H", "AS", "JS", "10H", "3S", "7S"],
                wins=[0, 2, 1])
    check(game, sizes=[5, 7, 6], current=0)
    moves = ["play 9", "play 2", "play 8 9 10 J", "play 5 5 5", "call A", "pick up",
             "pick up", "play A A", "play Q Q", "higher", "pick up", "pick up", "pick up"]
    for move in moves:
        step_text(game, move)
    check(game, top=R["7"], need=Need.HIGHER, current=2, pickups=0)
    assert game.hand(2) == card_ids(["6H", "JS", "KD", "AS"])
    step_text(game, "play J")
    step_text(game, "play 10 10")
    check(game, round=2, wins=[0, 3, 1], sizes=[5, 8, 6], current=0)
    assert game.round_winners == [1]


# ---- bad input: a clear error, the state unchanged ------------------------------------------

@pytest.mark.parametrize("action, error", [
    ("play 7", TypeError), (7.0, TypeError), (True, TypeError), (None, TypeError),
    (np.float32(1), TypeError), (-1, ValueError), (200, ValueError),
    (A.string_to_action("play A"), ValueError), (A.HIGHER, ValueError),
    (np.int64(A.string_to_action("play K")), ValueError),
])
def test_bad_actions_raise_and_change_nothing(action: object, error: type) -> None:
    game = play([P0, P1], "6D", ["play 7"])
    before = game.clone()
    with pytest.raises(error, match=re.escape(repr(action)) if error is TypeError
                       else "illegal"):
        game.step(action)  # type: ignore[arg-type]
    assert game == before and game.log == before.log


def test_numpy_integers_are_actions() -> None:
    game = play([P0, P1], "6D")
    game.step(np.int16(A.string_to_action("play 7")))
    assert game.log[-1].data == A.string_to_action("play 7")
    assert type(game.log[-1].data) is int


def test_no_step_after_the_game() -> None:
    game = play([P0, P1], "6D", ["pick up"], max_turns=1)
    with pytest.raises(ValueError, match="game is over"):
        game.step(A.PICK_UP)


@pytest.mark.parametrize("deck, error, match", [
    (list(range(51)), ValueError, "missing"), ([0] * 52, ValueError, "repeated"),
    (["ZZ", *list(range(1, 52))], ValueError, "unknown card"), ("2S 3S", TypeError, "deck"),
    ([1.5, *list(range(1, 52))], TypeError, "card"), (list(range(1, 53)), ValueError, "52"),
])
def test_bad_decks(deck: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        Game(RuleSet(), SeededShuffle(0), deck)  # type: ignore[arg-type]


@pytest.mark.parametrize("wins", [[0], [0, 6], [0, -1], [0, 1.0], [True, 0]])
def test_bad_wins(wins: list) -> None:
    with pytest.raises(ValueError, match="wins"):
        Game(RuleSet(), SeededShuffle(0), wins=wins)


def test_a_hook_must_return_the_cards_it_was_given() -> None:
    with pytest.raises(ValueError, match="shuffle hook"):
        Game(RuleSet(), lambda cards: cards[:-1])


@pytest.mark.parametrize("fields, match", [
    ({"num_players": 1}, "num_players"), ({"num_players": 6}, "num_players"),
    ({"num_players": 5, "final_cards": 11}, r"num_players \* final_cards"),
    ({"start_cards": 0}, "start_cards"), ({"final_cards": 4}, "final_cards"),
    ({"min_run": 2}, "min_run"), ({"min_run": 14}, "min_run"),
    ({"pickups_to_turn": 0}, "pickups_to_turn"), ({"max_turns": 0}, "max_turns"),
    ({"round_reward": float("nan")}, "round_reward"), ({"num_players": 2.0}, "whole"),
    ({"num_player": 2}, "unknown rule field"),
])
def test_bad_rules(fields: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        resolve("standard", **fields)


def test_presets_and_unknown_preset() -> None:
    assert PRESETS["standard"] == RuleSet() and PRESETS["single_round"].final_cards == 5
    assert RuleSet().max_rounds == 11 and RuleSet(num_players=5).max_rounds == 26
    with pytest.raises(ValueError, match="presets are"):
        resolve("classic")


# ---- cards and actions: the public ids and texts -------------------------------------------

def test_action_ids_and_texts() -> None:
    assert A.NUM_ACTIONS == 200 and A.HIGHER == 185 and A.LOWER == 186
    assert A.FIRST_RUN == 53 and len(A.RUNS) == 132
    assert A.TEXTS[0] == "pick up" and A.TEXTS[1] == "play 2" and A.TEXTS[52] == "play A A A A"
    assert A.string_to_action("play 7 7") == 1 + 4 * 5 + 1
    assert A.TEXTS[53] == "play 2 3 4" and A.TEXTS[184] == "play A K Q"
    assert A.TEXTS[A.RUN_ID[R["J"], R["8"]]] == "play J 10 9 8"
    assert A.TEXTS[187] == "call 2" and A.TEXTS[199] == "call A"
    assert len(set(A.TEXTS)) == 200
    for f, last in A.RUNS[:20]:  # for each first rank, descending runs come first
        assert A.RUN_ID[f, last] == A.RUNS.index((f, last)) + A.FIRST_RUN
    assert A.RUNS[11:13] == ((1, 3), (1, 4)) and A.RUNS[21:23] == ((2, 0), (2, 4))
    for text in ("Pick up", "play 7  7", "play 2 3", "call 1", "play 8 7"):
        with pytest.raises(ValueError, match="unknown lo-hi action"):
            A.string_to_action(text)
    assert A.normalize("  PLAY j  q k ") == "play J Q K"


def test_card_ids_and_texts() -> None:
    assert parse_card("2S") == 0 and parse_card("10h") == 33 and parse_card("AD") == 51
    assert stack_deck(["AD"])[:2] == [51, 0] and sorted(parse_deck(stack_deck([]))) == list(
        range(52))


# ---- clone, ==, history and replay ----------------------------------------------------------

def random_game(rules: RuleSet, seed: int, steps: int | None = None) -> Game:
    rng = np.random.default_rng(seed)
    game = Game(rules, SeededShuffle(seed))
    while not game.over and (steps is None or game.turns < steps):
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
    return game


def test_clone_is_equal_and_independent() -> None:
    game = random_game(RuleSet(num_players=3), 3, steps=200)
    twin = game.clone()
    assert twin == game and twin is not game
    action = game.legal_actions()[-1]
    game.step(action)
    assert twin != game
    twin.step(action)
    assert twin == game
    while not game.over:  # the same actions give the same game, reshuffles and deals included
        action = game.legal_actions()[0]
        game.step(action)
        twin.step(action)
    assert twin == game and twin.payoffs == game.payoffs


@pytest.mark.parametrize("n", [2, 3, 5])
def test_replay_rebuilds_the_game_from_its_log(n: int) -> None:
    game = random_game(RuleSet(num_players=n), n)
    assert game.round_number > 1 and any(e.kind == RESHUFFLE for e in game.log)
    again = replay(game.log, game.rules)
    assert again == game and again.log == game.log


def test_the_same_seed_gives_the_same_game() -> None:
    assert random_game(RuleSet(), 7) == random_game(RuleSet(), 7)
    assert random_game(RuleSet(), 7) != random_game(RuleSet(), 8)


def test_recorded_shuffle_without_a_follower_is_used_up() -> None:
    hook = RecordedShuffle([])
    with pytest.raises(ValueError, match="used up"):
        hook([1, 2])
