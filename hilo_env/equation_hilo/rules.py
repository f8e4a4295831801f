"""The rule set: every point on which the rule documents differ, as one frozen dataclass.

Three presets pick the values (see ``docs/rules.md``): ``standard`` (the complete rulebook,
the default), ``classic`` and ``duel``. Start from a preset and override any field::

    RuleSet.preset("classic", num_players=4)
    RuleSet.from_yaml("my_rules.yaml", ante=2)  # a rule file of your own

YAML files (rule files here, training configs in ``training.config``) are read by
:func:`read_yaml_mapping`, which refuses files over ``MAX_YAML_BYTES`` and YAML aliases, so a
small hostile file cannot cost seconds or gigabytes, and a key set twice; every error names the
file and the field.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

HIDDEN, UP, BET = "hidden", "up", "bet"
DEAL_STEPS = (HIDDEN, UP, BET)
"""The steps of a deal schedule (``RuleSet.deal``)."""
TIEBREAKS = ("key_card", "suit")
ODD_CHIP_RULES = ("house", "low", "high")
"""Where the odd chip of a split goes (``RuleSet.odd_chip``): to the house, or to a player:
``low`` (the Low half's winner) or ``high`` (the High half's winner); see ``docs/rules.md``."""
NUM_CARD_VALUES, NUM_CARD_SUITS, SPECIALS_PER_KIND = 11, 4, 4
"""The full deck: values 0..10 in 4 suits, 4 × and 4 √ (``cards`` holds the ids)."""
OPERATOR_ORDER = "+-*/"
"""The binary operators in ASCII, in the order ``base_operators`` is written."""
_OPERATOR_ALIASES = {"+": "+", "-": "-", "−": "-", "*": "*", "×": "*", "x": "*", "X": "*",
                     "/": "/", "÷": "/"}
MIN_BASE_OPERATORS, MAX_BASE_OPERATORS = 1, 3
"""``base_operators`` holds 1 to 3 operators, so a hand has 2 to 4 number cards."""
MIN_PLAYERS, MAX_PLAYERS = 2, 8
MAX_STARTING_STACK = 10_000
"""The largest ``starting_stack``: the action space (and each observation's mask) grows with
it, up to ``MAX_PLAYERS * MAX_STARTING_STACK // 2`` raises (``RuleSet.max_cap``)."""
MAX_YAML_BYTES = 64 * 1024
"""The largest rule file or training config read (64 KiB; the shipped ones are under 1 KiB)."""
MAX_REPR = 60
"""Characters of a bad value quoted in an error message (the rest is cut: ``...``)."""


@dataclass(frozen=True)
class RuleSet:
    """One variant of Equation Hi-Lo. Field names match ``docs/rules.md`` section 9.

    Bounds, checked when a RuleSet is made: ``num_players`` 2..8 (``MAX_PLAYERS``),
    ``starting_stack`` 1..10,000 (``MAX_STARTING_STACK``: the action space grows with it),
    ``ante`` 0..``starting_stack``, and ``deal`` has at least one ``bet`` round.
    """

    num_players: int = 2
    """Players at the table, 2..8."""
    deal: tuple[str, ...] = (HIDDEN, UP, UP, BET, UP, BET)
    """Deal and betting schedule: one ``hidden`` first, then as many ``up`` deals as
    ``base_operators`` has operators (three by default), at least one ``bet`` round."""
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
    """Chips each player starts an episode with, 1..10,000 (``MAX_STARTING_STACK``)."""
    ante: int = 1
    """Chips every player puts in the pot before the deal."""
    hands_per_episode: int = 1
    """Hands in one episode (a match); it ends early when one player is left."""
    deck_values: tuple[int, ...] = tuple(range(NUM_CARD_VALUES))
    """The number-card values in the deck, distinct, from 0..10 (kept sorted)."""
    deck_suits: int = NUM_CARD_SUITS
    """Suits in the deck, 1..4: the first ones of Gold, Silver, Bronze, Black."""
    deck_multiply: int = SPECIALS_PER_KIND
    """× cards in the deck, 0..4."""
    deck_roots: int = SPECIALS_PER_KIND
    """√ cards in the deck, 0..4."""
    base_operators: str = "+-/"
    """The operators every player starts a hand with, 1..3 of ``+ - * /`` (kept in that
    order); a hand ends with one number card more than that."""

    def __post_init__(self) -> None:
        _require(isinstance(self.deal, list | tuple)
                 and all(isinstance(step, str) for step in self.deal), "deal", self.deal,
                 f"a list of steps from {list(DEAL_STEPS)}")
        object.__setattr__(self, "deal", tuple(self.deal))
        _require(isinstance(self.deck_values, list | tuple)
                 and all(_is_int(v) for v in self.deck_values), "deck_values", self.deck_values,
                 f"a list of distinct integers 0..{NUM_CARD_VALUES - 1}")
        object.__setattr__(self, "deck_values", tuple(sorted(self.deck_values)))
        object.__setattr__(self, "base_operators", _read_operators(self.base_operators))
        _check(self)

    @property
    def num_bet_rounds(self) -> int:
        """How many betting rounds a hand has."""
        return self.deal.count(BET)

    @property
    def numbers_per_hand(self) -> int:
        """Number cards each player ends a hand with: one more than ``base_operators``."""
        return len(self.base_operators) + 1

    @property
    def full_deck(self) -> bool:
        """Whether the deck is the full 52 cards (the deck fields at their defaults)."""
        return (self.deck_values == tuple(range(NUM_CARD_VALUES))
                and self.deck_suits == NUM_CARD_SUITS
                and self.deck_multiply == self.deck_roots == SPECIALS_PER_KIND)

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
        """A preset by name (``standard``, ``classic``, ``duel``, ``tiny``), with field
        overrides."""
        if not isinstance(name, str) or name not in PRESETS:
            raise ValueError(f"unknown rules preset {short_repr(name)}; choose one of "
                             f"{sorted(PRESETS)}")
        rules = PRESETS[name].replace(**overrides)
        if name == "duel" and rules.num_players != 2:
            raise ValueError(f"rule field 'num_players' = {rules.num_players!r} is not allowed: "
                             "the duel preset is for exactly 2 players")
        return rules

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> RuleSet:
        """Read a rule set from YAML: an optional ``preset`` key (the preset the file starts
        from, ``standard`` if absent), then field overrides. ValueError names the file."""
        data = read_yaml_mapping(path, "rule fields")
        try:
            name = data.pop("preset", "standard")
            return cls.preset(name, **{**data, **overrides})
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    def replace(self, **overrides: Any) -> RuleSet:
        """A copy with some fields changed; unknown fields raise ValueError."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(short_text(k) for k in set(overrides) - names)
        if unknown:
            raise ValueError(f"unknown rule field(s) {unknown}; fields are {sorted(names)}")
        if overrides.get("max_multiply") == "unlimited":
            overrides["max_multiply"] = None
        return dataclasses.replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as written in YAML."""
        d = dataclasses.asdict(self)
        d["deal"] = list(self.deal)
        d["deck_values"] = list(self.deck_values)
        return d


DECK_FIELDS = ("deck_values", "deck_suits", "deck_multiply", "deck_roots", "base_operators")
"""The fields that shrink the deck or the hand; a backend that supports only the full game
refuses them with :func:`require_defaults`."""


def require_defaults(rules: RuleSet, fields: tuple[str, ...], backend: str) -> None:
    """Raise ValueError naming each of ``fields`` whose value in ``rules`` is not its default:
    for a backend (``backend`` names it) that does not support that variant point."""
    default = RuleSet()
    changed = [f"{name}={short_repr(getattr(rules, name))}" for name in fields
               if getattr(rules, name) != getattr(default, name)]
    if changed:
        raise ValueError(f"the {backend} does not support rule field(s) {', '.join(changed)} "
                         f"(only their defaults); play these rules with the engine or the AEC "
                         f"env")


def resolve(rules: str | Path | RuleSet | None = None, **overrides: Any) -> RuleSet:
    """A RuleSet from a preset name, a YAML path or a RuleSet, with field overrides."""
    if rules is None:
        rules = "standard"
    if isinstance(rules, RuleSet):
        return rules.replace(**overrides)
    text = str(rules)
    if text in PRESETS:
        return RuleSet.preset(text, **overrides)
    if text.endswith((".yaml", ".yml")) or _is_file(text):
        return RuleSet.from_yaml(text, **overrides)
    raise ValueError(f"unknown rules {short_repr(rules)}: give a preset {sorted(PRESETS)}, a "
                     "RuleSet or a path to a YAML file")


def _is_file(text: str) -> bool:
    """Whether ``text`` names a file; False for a name the system refuses (too long...)."""
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def short_repr(value: Any) -> str:
    """``repr(value)`` cut to ``MAX_REPR`` characters, for error messages about user input."""
    return short_text(repr(value))


def short_text(text: str) -> str:
    """``text`` cut to ``MAX_REPR`` characters (the cut marked ``...``)."""
    return text if len(text) <= MAX_REPR else text[:MAX_REPR - 3] + "..."


class _StrictLoader(yaml.SafeLoader):
    """YAML's safe loader made strict where PyYAML is loose: no aliases (``*name``: a few bytes
    of nested aliases can expand to gigabytes, the "billion laughs", and no rule file or
    config needs them); no key twice in a mapping (PyYAML keeps the last silently, so a
    field set twice would take the value further down); and ``3e-4``, ``2e6`` read as numbers,
    as YAML 1.2 reads them (YAML 1.1, PyYAML's, wants a dot: ``3.0e-4``) rather than text."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed",
                                              event.start_mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                twice = key in seen
            except TypeError:  # an unhashable key: SafeLoader's own check refuses it
                continue
            if twice:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {short_repr(key)} is set twice (each field once)",
                    key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"))


def read_yaml_mapping(path: str | Path, what: str) -> dict[str, Any]:
    """A YAML file's top-level mapping of ``what`` (such as "rule fields"), read with bounds:
    at most ``MAX_YAML_BYTES``, no aliases, string keys. An empty file is ``{}``. Every
    failure, a missing file included, is a ValueError naming the file."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_YAML_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if len(raw) > MAX_YAML_BYTES:
        raise ValueError(f"{path}: larger than {MAX_YAML_BYTES // 1024} KiB; not read")
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=_StrictLoader)  # safe: a SafeLoader
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ValueError(f"{path}: not valid YAML{where}: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML: {short_repr(str(exc))}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of {what} (name: value lines), "
                         f"got {type(data).__name__}")
    bad = [key for key in data if not isinstance(key, str)]
    if bad:
        raise ValueError(f"{path}: field names are text, not {short_repr(bad[0])}")
    return data


def _require(ok: bool, field: str, got: Any, allowed: str) -> None:
    if not ok:
        raise ValueError(f"rule field {field!r} = {short_repr(got)} is not allowed: {allowed}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _read_operators(text: Any) -> str:
    """``base_operators`` as people write it (a string or a list of symbols, ``− × ÷`` and
    ``x`` allowed) -> ASCII in ``+ - * /`` order; a ValueError names the field."""
    allowed = (f"{MIN_BASE_OPERATORS} to {MAX_BASE_OPERATORS} operators from + - * / "
               "(or − × ÷, x for ×), such as '+-/'")
    items = [c for c in text if c not in " ,\t"] if isinstance(text, str) else text
    ok = isinstance(items, list | tuple) and all(
        isinstance(c, str) and c.strip() in _OPERATOR_ALIASES for c in items)
    _require(ok, "base_operators", text, allowed)
    ops = sorted((_OPERATOR_ALIASES[c.strip()] for c in items), key=OPERATOR_ORDER.index)
    _require(MIN_BASE_OPERATORS <= len(ops) <= MAX_BASE_OPERATORS, "base_operators", text,
             allowed)
    return "".join(ops)


def _check(r: RuleSet) -> None:
    _require(_is_int(r.num_players) and MIN_PLAYERS <= r.num_players <= MAX_PLAYERS,
             "num_players", r.num_players, f"an integer {MIN_PLAYERS}..{MAX_PLAYERS}")
    _check_deck(r)
    ups = len(r.base_operators)
    steps_ok = (all(s in DEAL_STEPS for s in r.deal) and r.deal[:1] == (HIDDEN,)
                and r.deal.count(HIDDEN) == 1 and r.deal.count(UP) == ups and BET in r.deal)
    _require(steps_ok, "deal", list(r.deal),
             f"a list of steps 'hidden' (exactly once, first), 'up' (exactly {ups}: one per "
             "operator of base_operators) and 'bet' (at least once)")
    _require(r.max_multiply is None or (_is_int(r.max_multiply) and r.max_multiply >= 1),
             "max_multiply", r.max_multiply, "an integer >= 1, or 'unlimited' (null)")
    _require(r.multiply_discards in ("+-", "+-x"), "multiply_discards", r.multiply_discards,
             "'+-' or '+-x'")
    plus_minus = sum(op in "+-" for op in r.base_operators)
    if r.deck_multiply:  # each × kept forces a discard, which must be possible
        _require(plus_minus >= 1, "base_operators", r.base_operators,
                 "at least one + or − while the deck holds × cards (deck_multiply > 0): a "
                 "drawn × discards one")
        _require(r.multiply_discards == "+-x" or (r.max_multiply is not None
                                                  and r.max_multiply <= plus_minus),
                 "max_multiply", r.max_multiply,
                 f"at most {plus_minus} when multiply_discards is '+-' (each × needs a + or − "
                 f"of base_operators {r.base_operators!r} to discard)")
    _require(isinstance(r.integer_results, bool), "integer_results", r.integer_results,
             "true or false")
    _require(isinstance(r.swing, bool), "swing", r.swing, "true or false")
    _require(r.tiebreak in TIEBREAKS, "tiebreak", r.tiebreak, f"one of {list(TIEBREAKS)}")
    _require(r.odd_chip in ODD_CHIP_RULES, "odd_chip", r.odd_chip,
             f"one of {list(ODD_CHIP_RULES)}")
    _require(_is_int(r.starting_stack) and 1 <= r.starting_stack <= MAX_STARTING_STACK,
             "starting_stack", r.starting_stack, f"an integer 1..{MAX_STARTING_STACK:,}")
    _require(_is_int(r.ante) and 0 <= r.ante <= r.starting_stack, "ante", r.ante,
             f"an integer from 0 to the starting stack ({r.starting_stack})")
    _require(_is_int(r.hands_per_episode) and r.hands_per_episode >= 1, "hands_per_episode",
             r.hands_per_episode, "an integer >= 1")


def _check_deck(r: RuleSet) -> None:
    """The deck fields, and a deck that holds every number card a full table needs."""
    values = r.deck_values
    _require(len(values) >= 1 and len(set(values)) == len(values)
             and all(0 <= v < NUM_CARD_VALUES for v in values), "deck_values", list(values),
             f"a non-empty list of distinct integers 0..{NUM_CARD_VALUES - 1}")
    _require(_is_int(r.deck_suits) and 1 <= r.deck_suits <= NUM_CARD_SUITS, "deck_suits",
             r.deck_suits, f"an integer 1..{NUM_CARD_SUITS} (the first suits of Gold, Silver, "
             "Bronze, Black)")
    for name in ("deck_multiply", "deck_roots"):
        count = getattr(r, name)
        _require(_is_int(count) and 0 <= count <= SPECIALS_PER_KIND, name, count,
                 f"an integer 0..{SPECIALS_PER_KIND}")
    needed = r.num_players * r.numbers_per_hand
    _require(len(values) * r.deck_suits >= needed, "deck_values", list(values),
             f"enough number cards for {r.num_players} players of {r.numbers_per_hand} each "
             f"({needed}); deck_values × deck_suits gives {len(values) * r.deck_suits}")


PRESETS: dict[str, RuleSet] = {
    "standard": RuleSet(),
    "classic": RuleSet(max_multiply=None, multiply_discards="+-x", integer_results=True,
                       swing=False, tiebreak="suit"),
    "duel": RuleSet(deal=(HIDDEN, BET, UP, UP, UP, BET), tiebreak="suit"),
    "tiny": RuleSet(deck_values=(0, 1, 2), deck_suits=2, deck_multiply=0, deck_roots=0,
                    base_operators="/", deal=(HIDDEN, UP, BET), starting_stack=2, ante=1),
}
"""The presets by name. ``tiny`` (2 players, one hand: a 6-card deck, 2 number cards and ÷
each, one betting round, 2 chips) is small enough for OpenSpiel to solve exactly."""
