"""The rule set of lo-hi: every variant point of ``docs/lohi.md`` section 9 as one frozen
dataclass, checked when built, and the presets.

    RuleSet()                                   # standard, 2 players
    resolve("single_round", num_players=4)      # a preset with fields overridden
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from hilo_env.lohi.cards import DECK_SIZE, NUM_RANKS

MIN_PLAYERS, MAX_PLAYERS = 2, 5
MIN_RUN_LOWEST = 3
"""Shorter runs would overlap doubles' ids and the 2-card ``play 7 8`` is no run."""
CARDS_AFTER_DEAL = 1
"""At least the face-up card must remain after the deal: ``num_players * final_cards`` is at
most ``DECK_SIZE - 1``."""


@dataclass(frozen=True)
class RuleSet:
    """One variant of lo-hi. Field names are those of ``docs/lohi.md`` section 9."""

    num_players: int = 2
    """Seats, 2..5."""
    start_cards: int = 5
    """Cards dealt to a seat that has won no round."""
    final_cards: int = 10
    """A round won by a seat that started it with this many cards wins the game."""
    pickups_to_turn: int = 3
    """Pick ups in a row that turn the stock's top card over onto the discard pile."""
    min_run: int = 3
    """The shortest run, 3..13."""
    round_reward: float = 0.0
    """Zero-sum reward per round: +round_reward to its winner, -round_reward/(n-1) to others."""
    max_turns: int = 20_000
    """Decisions in one game before it is cut off (truncated, no game reward)."""

    def __post_init__(self) -> None:
        _normalise(self)
        _check(self)

    @property
    def max_wins(self) -> int:
        """Rounds a seat can win without winning the game (its win count's largest value)."""
        return self.final_cards - self.start_cards

    @property
    def max_rounds(self) -> int:
        """The most rounds a game can have: every seat at ``max_wins``, then one more."""
        return self.num_players * self.max_wins + 1

    def replace(self, **overrides: Any) -> RuleSet:
        """A copy with some fields changed (checked again); unknown names are refused."""
        unknown = sorted(set(overrides) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise ValueError(f"unknown rule field(s) {unknown}; fields are "
                             f"{[f.name for f in dataclasses.fields(self)]}")
        return dataclasses.replace(self, **overrides)


def _normalise(rules: RuleSet) -> None:
    """NumPy numbers as their Python equal (a rule set compares and prints the same whatever
    number type built it)."""
    for field in dataclasses.fields(rules):
        value = getattr(rules, field.name)
        if isinstance(value, np.integer):
            object.__setattr__(rules, field.name, int(value))
        elif isinstance(value, np.floating):
            object.__setattr__(rules, field.name, float(value))
    if isinstance(rules.round_reward, int) and not isinstance(rules.round_reward, bool):
        object.__setattr__(rules, "round_reward", float(rules.round_reward))


def _whole(rules: RuleSet, name: str, low: int, high: int | None = None) -> None:
    value = getattr(rules, name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    if value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f"at least {low}"
        raise ValueError(f"{name} must be {span}, not {value}")


def _check(rules: RuleSet) -> None:
    """Every field in range, with a message naming the field and its allowed values."""
    _whole(rules, "num_players", MIN_PLAYERS, MAX_PLAYERS)
    _whole(rules, "start_cards", 1)
    _whole(rules, "final_cards", 1)
    if rules.start_cards > rules.final_cards:
        raise ValueError(f"start_cards ({rules.start_cards}) must be at most final_cards "
                         f"({rules.final_cards}): a seat starts a round with start_cards plus "
                         f"its wins, and wins the game from final_cards")
    _whole(rules, "pickups_to_turn", 1)
    _whole(rules, "min_run", MIN_RUN_LOWEST, NUM_RANKS)
    _whole(rules, "max_turns", 1)
    if rules.num_players * rules.final_cards > DECK_SIZE - CARDS_AFTER_DEAL:
        raise ValueError(f"num_players * final_cards must be at most "
                         f"{DECK_SIZE - CARDS_AFTER_DEAL} (a card must be left to turn face "
                         f"up), not {rules.num_players} * {rules.final_cards}")
    reward = rules.round_reward
    if isinstance(reward, bool) or not isinstance(reward, int | float) or not math.isfinite(
            reward):
        raise ValueError(f"round_reward must be a finite number, not {reward!r}")


PRESETS: dict[str, RuleSet] = {
    "standard": RuleSet(),
    "single_round": RuleSet(final_cards=5),
}
"""``standard``: the table of ``docs/lohi.md`` section 9; ``single_round``: one round is the
whole game (its winner wins)."""


def resolve(rules: str | RuleSet = "standard", **overrides: Any) -> RuleSet:
    """A RuleSet from a preset name or a RuleSet, with fields overridden."""
    if isinstance(rules, str):
        if rules not in PRESETS:
            raise ValueError(f"unknown lo-hi rules {rules!r}; presets are {sorted(PRESETS)}")
        rules = PRESETS[rules]
    elif not isinstance(rules, RuleSet):
        raise TypeError(f"rules must be a preset name or a lo-hi RuleSet, not {rules!r}")
    return rules.replace(**overrides) if overrides else rules
