"""Stacked lo-hi decks for scenarios: name the hands, the face-up card and the stock's top."""

from __future__ import annotations

from collections.abc import Sequence

from hilo_env.lohi import actions as A
from hilo_env.lohi.cards import parse_card, stack_deck
from hilo_env.lohi.engine import Game, SeededShuffle
from hilo_env.lohi.rules import RuleSet


def deck_for(hands: Sequence[Sequence[str]], face_up: str,
             stock: Sequence[str] = ()) -> list[int]:
    """A 52-card deck (top first) that deals exactly ``hands`` (dealt one card at a time from
    seat 0, full hands passed over), then ``face_up``, then ``stock`` on top of the stock; the
    other cards follow in ascending id order."""
    order, left = [], [list(h) for h in hands]
    while any(left):
        for cards in left:
            if cards:
                order.append(cards.pop(0))
    return stack_deck([*order, face_up, *stock])


def play(hands: Sequence[Sequence[str]], face_up: str, moves: Sequence[str] = (),
         stock: Sequence[str] = (), wins: Sequence[int] | None = None,
         shuffle=None, **rules: object) -> Game:
    """A game dealt from ``deck_for`` (seat count from ``hands``, sizes from ``wins``) after
    the action texts ``moves``, each checked legal first."""
    game = Game(RuleSet(num_players=len(hands), **rules), shuffle or SeededShuffle(0),
                deck_for(hands, face_up, stock), wins)
    for move in moves:
        step_text(game, move)
    return game


def step_text(game: Game, text: str) -> None:
    """Take the action ``text``; fail naming the legal ones when it is not legal."""
    action = A.string_to_action(text)
    legal = game.legal_actions()
    assert action in legal, (text, [A.TEXTS[a] for a in legal])
    game.step(action)


def legal_texts(game: Game) -> list[str]:
    return [A.TEXTS[a] for a in game.legal_actions()]


def card_ids(texts: Sequence[str]) -> list[int]:
    return [parse_card(t) for t in texts]
