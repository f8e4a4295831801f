"""Swap's rules, actions, engine and observation (the game folder's layers, in one module)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

MIN_PLAYERS, MAX_PLAYERS = 2, 4
KEEP, SWAP = 0, 1
TEXTS = ("keep", "swap")
NUM_ACTIONS = len(TEXTS)


@dataclass(frozen=True)
class RuleSet:
    """One variant of Swap."""

    num_players: int = 2
    deck_size: int = 8
    """Card values 0..deck_size-1, each once; at least two per player."""


PRESETS = {"standard": RuleSet(), "big": RuleSet(deck_size=20)}


def resolve(rules: str | RuleSet = "standard", **overrides: Any) -> RuleSet:
    """A preset name or RuleSet with fields overridden; ValueError naming a bad one."""
    if isinstance(rules, str):
        if rules not in PRESETS:
            raise ValueError(f"unknown Swap rules {rules!r}; choose from {list(PRESETS)}")
        rules = PRESETS[rules]
    if not isinstance(rules, RuleSet):
        raise ValueError(f"Swap rules are a preset name or a RuleSet, not {rules!r}")
    rules = dataclasses.replace(rules, **overrides)
    if not MIN_PLAYERS <= rules.num_players <= MAX_PLAYERS:
        raise ValueError(f"Swap's num_players is {MIN_PLAYERS}..{MAX_PLAYERS}, not "
                         f"{rules.num_players}")
    if rules.deck_size < 2 * rules.num_players:
        raise ValueError(f"deck_size {rules.deck_size} is under two cards a player")
    return rules


def action_to_string(action: int) -> str:
    return TEXTS[int(action)]


def string_to_action(text: str) -> int:
    if text not in TEXTS:
        raise ValueError(f"unknown Swap action {text!r}; the actions: {list(TEXTS)}")
    return TEXTS.index(text)


class Game:
    """One deal: ``current_player`` (None once over), ``legal_actions()``, ``step(action)``,
    ``payoffs`` (set at the end)."""

    def __init__(self, rules: RuleSet, rng: np.random.Generator) -> None:
        self.rules = rules
        deck = rng.permutation(rules.deck_size).tolist()
        n = rules.num_players
        self.cards, self.deck = deck[:n], deck[n:]
        self.current_player: int | None = 0
        self.payoffs = [0.0] * n
        self.log: list[tuple[int, int]] = []

    def legal_actions(self) -> list[int]:
        return [] if self.current_player is None else [KEEP, SWAP]

    def step(self, action: int) -> None:
        seat = self.current_player
        if seat is None or action not in self.legal_actions():
            raise ValueError(f"action {action!r} is not legal now")
        if action == SWAP:
            self.cards[seat] = self.deck.pop(0)
        self.log.append((seat, action))
        n = self.rules.num_players
        self.current_player = seat + 1 if seat + 1 < n else None
        if self.current_player is None:
            winner = int(np.argmax(self.cards))
            self.payoffs = [1.0 if s == winner else -1.0 / (n - 1) for s in range(n)]

    @property
    def winner(self) -> int | None:
        return None if self.current_player is not None else int(np.argmax(self.cards))


def encode(game: Game, seat: int) -> np.ndarray:
    """The seat's observation: its own card, one-hot."""
    obs = np.zeros(game.rules.deck_size, dtype=np.float32)
    obs[game.cards[seat]] = 1.0
    return obs


def action_mask(game: Game) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions()] = 1
    return mask
