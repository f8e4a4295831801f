"""Swap in the terminal: the terminal view ``hilo play --game toy`` reads
(:class:`hilo_env.agents.play.TerminalView`; the seats' names and what the bots see come from
the AEC env)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from tests.toy_game import game as G

DEFAULT_COUNT = 2
SHORTCUTS = "'k' is keep, 's' is swap."
WORDS = {"k": "keep", "s": "swap"}


def match_rules(rules: G.RuleSet, count: int) -> G.RuleSet:
    return rules


def intro(rules: G.RuleSet) -> list[str]:
    return [f"Keep your card or swap it for the deck's top card; the highest of "
            f"{rules.deck_size} wins. Type 'keep' or 'swap'."]


def deals(rules: G.RuleSet, seed: int, count: int) -> Iterator[G.Game]:
    for number in range(count):
        yield G.Game(rules, np.random.default_rng([seed, number]))


def table(game: G.Game, seat: int) -> str:
    return f"Your card: {game.cards[seat]}"


def parse_command(text: str, legal: Sequence[int]) -> int:
    text = text.strip().lower()
    word = WORDS.get(text, text)
    if word not in G.TEXTS:
        raise ValueError(f"'{text}' is not an action. Legal now: {legal_text(legal)}")
    return G.string_to_action(word)


def legal_text(legal: Sequence[int]) -> str:
    return ", ".join(G.TEXTS[a] for a in legal)


def phrase(action: int, hidden: bool) -> str:
    return G.TEXTS[action]


def news(game: G.Game) -> list[str]:
    return []


def outcome(game: G.Game, seat: int) -> list[str]:
    return [f"Cards: {game.cards}; player_{game.winner} wins."]


def score(game: G.Game, seat: int) -> float:
    return game.payoffs[seat]


def match_end(game: G.Game | None, seat: int, total: float, played: int) -> list[str]:
    return [f"Your reward over {played} games: {total:+.2f}."]
