"""Hi MiLo!'s rule set: the variant fields of ``docs/himilo.md`` section 9 as a frozen dataclass.

Presets: ``standard`` (every Win Card face up), ``medium`` (7 face up), ``difficult`` (5) and
``hardcore`` (3), the seed's harder variants. Start from a preset and override any field::

    RuleSet.preset("hardcore", num_players=5)
    resolve("standard", pass_cards=0)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from hilo_env.himilo.cards import NUM_WIN_CARDS, VALUES_IN_PLAY

MIN_PLAYERS, MAX_PLAYERS = 3, 5
HAND_SIZE = 14
"""Cards dealt to each player, and tricks in a round."""
NO_SHAPING, CONSTRAINT_SHAPING = "none", "constraints"
SHAPINGS = (NO_SHAPING, CONSTRAINT_SHAPING)


@dataclass(frozen=True)
class RuleSet:
    """One variant of Hi MiLo!. Field names match ``docs/himilo.md`` section 2."""

    num_players: int = 4
    """Seats, 3..5; sets the cards in play (values up to 12, 15, 18) and the Mi rule."""
    visible_win_cards: int = NUM_WIN_CARDS
    """Win Cards face up ahead of play, 1..14 (the current trick's included)."""
    pass_cards: int = 3
    """Cards each player passes to the left, 0..14 (0: no passing phase)."""
    dealer: int | None = None
    """The dealer's seat (``None``: seat ``num_players - 1``); the dealer's left bids first
    and leads trick 1."""
    shaping: str = NO_SHAPING
    """``none`` or ``constraints``: the per-trick shaping terms of section 6."""

    def __post_init__(self) -> None:
        _check(self)

    @property
    def dealer_seat(self) -> int:
        """The dealer's seat with the default applied."""
        return self.num_players - 1 if self.dealer is None else self.dealer

    @property
    def decisions_per_round(self) -> int:
        """Every round has exactly this many decisions: n bids, n × pass_cards passes and
        14 n plays."""
        n = self.num_players
        return n + n * self.pass_cards + HAND_SIZE * n

    @classmethod
    def preset(cls, name: str = "standard", **overrides: Any) -> RuleSet:
        """A preset by name with field overrides; unknown names and fields raise ValueError."""
        if name not in PRESETS:
            raise ValueError(f"unknown Hi MiLo! rules preset {name!r}; choose one of "
                             f"{list(PRESETS)}")
        return PRESETS[name].replace(**overrides)

    def replace(self, **overrides: Any) -> RuleSet:
        """A copy with some fields changed; unknown fields raise ValueError naming the known."""
        names = [f.name for f in dataclasses.fields(self)]
        unknown = sorted(set(overrides) - set(names))
        if unknown:
            raise ValueError(f"unknown Hi MiLo! rule field(s) {unknown}; fields are {names}")
        return dataclasses.replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        """Plain data, one key per field."""
        return dataclasses.asdict(self)


def resolve(rules: str | RuleSet | None = None, **overrides: Any) -> RuleSet:
    """A RuleSet from a preset name or a RuleSet (None: ``standard``), with field overrides."""
    if rules is None:
        rules = "standard"
    if isinstance(rules, RuleSet):
        return rules.replace(**overrides)
    if isinstance(rules, str):
        return RuleSet.preset(rules, **overrides)
    raise ValueError(f"Hi MiLo! rules are a preset name {list(PRESETS)} or a RuleSet, "
                     f"not {rules!r}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _require(ok: bool, field: str, got: Any, allowed: str) -> None:
    if not ok:
        raise ValueError(f"Hi MiLo! rule field {field!r} = {got!r} is not allowed: {allowed}")


def _check(r: RuleSet) -> None:
    _require(_is_int(r.num_players) and r.num_players in VALUES_IN_PLAY, "num_players",
             r.num_players, f"an integer {MIN_PLAYERS}..{MAX_PLAYERS}")
    _require(_is_int(r.visible_win_cards) and 1 <= r.visible_win_cards <= NUM_WIN_CARDS,
             "visible_win_cards", r.visible_win_cards, f"an integer 1..{NUM_WIN_CARDS}")
    _require(_is_int(r.pass_cards) and 0 <= r.pass_cards <= HAND_SIZE, "pass_cards",
             r.pass_cards, f"an integer 0..{HAND_SIZE}")
    _require(r.dealer is None or (_is_int(r.dealer) and 0 <= r.dealer < r.num_players),
             "dealer", r.dealer, f"null or a seat 0..{r.num_players - 1}")
    _require(r.shaping in SHAPINGS, "shaping", r.shaping, f"one of {list(SHAPINGS)}")


PRESETS: dict[str, RuleSet] = {
    "standard": RuleSet(),
    "medium": RuleSet(visible_win_cards=7),
    "difficult": RuleSet(visible_win_cards=5),
    "hardcore": RuleSet(visible_win_cards=3),
}
