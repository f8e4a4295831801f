"""The rule set: every point on which the rule documents differ, as one frozen dataclass.

Three presets pick the values (see ``docs/rules.md``): ``standard`` (the complete rulebook,
the default), ``classic`` and ``duel``. Start from a preset and override any field::

    RuleSet.preset("classic", num_players=4)
    RuleSet.from_yaml("configs/rules/duel.yaml", ante=2)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

HIDDEN, UP, BET = "hidden", "up", "bet"
DEAL_STEPS = (HIDDEN, UP, BET)
"""The steps of a deal schedule (``RuleSet.deal``)."""
TIEBREAKS = ("key_card", "suit")
ODD_CHIP_RULES = ("house",)
MIN_PLAYERS, MAX_PLAYERS = 2, 8


@dataclass(frozen=True)
class RuleSet:
    """One variant of Equation Hi-Lo. Field names match ``docs/rules.md`` section 9."""

    num_players: int = 2
    """Players at the table, 2..8."""
    deal: tuple[str, ...] = (HIDDEN, UP, UP, BET, UP, BET)
    """Deal and betting schedule: one ``hidden`` first, three ``up`` deals, ``bet`` rounds."""
    max_multiply: int | None = 1
    """How many × a player may hold; ``None`` is unlimited. A × over the limit goes back."""
    multiply_discards: str = "+-"
    """Operators a drawn × may force out: ``+-`` or ``+-x`` (x: the × already held)."""
    integer_results: bool = False
    """Only whole-number equation results are valid."""
    swing: bool = True
    """The Swing declaration (both sides at once) is allowed."""
    tiebreak: str = "key_card"
    """``key_card`` (the rulebook's win order) or ``suit`` (compare cards by suit)."""
    odd_chip: str = "house"
    """Where the odd chip of a split goes."""
    starting_stack: int = 100
    """Chips each player starts an episode with."""
    ante: int = 1
    """Chips every player puts in the pot before the deal."""
    hands_per_episode: int = 1
    """Hands in one episode (a match); it ends early when one player is left."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "deal", tuple(self.deal))
        _check(self)

    @property
    def num_bet_rounds(self) -> int:
        """How many betting rounds a hand has."""
        return self.deal.count(BET)

    @property
    def discardable_operators(self) -> str:
        """The operators a drawn × may force out, in the solver's ASCII (``x`` read as ``*``)."""
        return self.multiply_discards.replace("x", "*")

    @property
    def max_cap(self) -> int:
        """The largest betting cap any hand of this rule set can have; action spaces are
        sized from it (raises ``1..max_cap``).

        A hand's cap is the smallest stack among the players still in the match. In the
        first hand every stack is ``starting_stack``, and with 2 players the smaller of two
        stacks is at most half the chips, so the cap never exceeds ``starting_stack`` when
        ``hands_per_episode == 1`` or ``num_players == 2``. Otherwise eliminations move chips
        to fewer players (3 players, 4 chips: stacks 6, 6, 0 make a cap of 6): with ``k >= 2``
        players left (a match ends with one) the smallest stack is at most the chips in play
        over ``k``, so at most ``num_players * starting_stack // 2``.
        """
        if self.hands_per_episode == 1 or self.num_players == 2:
            return self.starting_stack
        return self.num_players * self.starting_stack // 2

    @classmethod
    def preset(cls, name: str = "standard", **overrides: Any) -> RuleSet:
        """A preset by name (``standard``, ``classic``, ``duel``), with field overrides."""
        if name not in PRESETS:
            raise ValueError(f"unknown rules preset {name!r}; choose one of {sorted(PRESETS)}")
        rules = PRESETS[name].replace(**overrides)
        if name == "duel" and rules.num_players != 2:
            raise ValueError(f"rule field 'num_players' = {rules.num_players!r} is not allowed: "
                             "the duel preset is for exactly 2 players")
        return rules

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> RuleSet:
        """Read a rule set from YAML: an optional ``preset`` key, then field overrides."""
        with open(path) as f:
            data = yaml.safe_load(f) or {}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a mapping of rule fields, "
                             f"got {type(data).__name__}")
        name = data.pop("preset", "standard")
        return cls.preset(name, **{**data, **overrides})

    def replace(self, **overrides: Any) -> RuleSet:
        """A copy with some fields changed; unknown fields raise ValueError."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise ValueError(f"unknown rule field(s) {unknown}; fields are {sorted(names)}")
        if overrides.get("max_multiply") == "unlimited":
            overrides["max_multiply"] = None
        return dataclasses.replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as written in YAML."""
        d = dataclasses.asdict(self)
        d["deal"] = list(self.deal)
        return d


def resolve(rules: str | Path | RuleSet | None = None, **overrides: Any) -> RuleSet:
    """A RuleSet from a preset name, a YAML path or a RuleSet, with field overrides."""
    if rules is None:
        rules = "standard"
    if isinstance(rules, RuleSet):
        return rules.replace(**overrides)
    text = str(rules)
    if text in PRESETS:
        return RuleSet.preset(text, **overrides)
    if text.endswith((".yaml", ".yml")) or Path(text).is_file():
        return RuleSet.from_yaml(text, **overrides)
    raise ValueError(f"unknown rules {rules!r}: give a preset {sorted(PRESETS)}, a RuleSet "
                     "or a path to a YAML file")


def _require(ok: bool, field: str, got: Any, allowed: str) -> None:
    if not ok:
        raise ValueError(f"rule field {field!r} = {got!r} is not allowed: {allowed}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check(r: RuleSet) -> None:
    _require(_is_int(r.num_players) and MIN_PLAYERS <= r.num_players <= MAX_PLAYERS,
             "num_players", r.num_players, f"an integer {MIN_PLAYERS}..{MAX_PLAYERS}")
    steps_ok = (all(s in DEAL_STEPS for s in r.deal) and r.deal[:1] == (HIDDEN,)
                and r.deal.count(HIDDEN) == 1 and r.deal.count(UP) == 3)
    _require(steps_ok, "deal", list(r.deal),
             "a list of steps 'hidden' (exactly once, first), 'up' (exactly three) and 'bet'")
    _require(r.max_multiply is None or (_is_int(r.max_multiply) and r.max_multiply >= 1),
             "max_multiply", r.max_multiply, "an integer >= 1, or 'unlimited' (null)")
    _require(r.multiply_discards in ("+-", "+-x"), "multiply_discards", r.multiply_discards,
             "'+-' or '+-x'")
    _require(r.multiply_discards == "+-x" or r.max_multiply in (1, 2), "max_multiply",
             r.max_multiply, "1 or 2 when multiply_discards is '+-' (each × needs a + or − "
             "to discard)")
    _require(isinstance(r.integer_results, bool), "integer_results", r.integer_results,
             "true or false")
    _require(isinstance(r.swing, bool), "swing", r.swing, "true or false")
    _require(r.tiebreak in TIEBREAKS, "tiebreak", r.tiebreak, f"one of {list(TIEBREAKS)}")
    _require(r.odd_chip in ODD_CHIP_RULES, "odd_chip", r.odd_chip,
             f"one of {list(ODD_CHIP_RULES)}")
    _require(_is_int(r.starting_stack) and r.starting_stack >= 1, "starting_stack",
             r.starting_stack, "an integer >= 1")
    _require(_is_int(r.ante) and 0 <= r.ante <= r.starting_stack, "ante", r.ante,
             f"an integer from 0 to the starting stack ({r.starting_stack})")
    _require(_is_int(r.hands_per_episode) and r.hands_per_episode >= 1, "hands_per_episode",
             r.hands_per_episode, "an integer >= 1")


PRESETS: dict[str, RuleSet] = {
    "standard": RuleSet(),
    "classic": RuleSet(max_multiply=None, multiply_discards="+-x", integer_results=True,
                       swing=False, tiebreak="suit"),
    "duel": RuleSet(deal=(HIDDEN, BET, UP, UP, UP, BET), tiebreak="suit"),
}
