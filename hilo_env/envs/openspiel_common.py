"""What the family's OpenSpiel games share (the ``openspiel`` extra): game parameters read from
a rule set's fields, a game type changed per rule set, the tokens of a history, and the two
observers every game gives (perfect recall over tokens, and the AEC env's view).

Each game's module (``openspiel_game`` for ``python_hilo``, ``openspiel_lohi``,
``openspiel_himilo``) declares a :class:`Parameters`, a :class:`TokenView` and a
:class:`TableView` of its own and keeps only its chance and its replay through the engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pyspiel

PRESET_PARAM = "preset"
"""The game parameter naming the preset the other parameters override."""
PLAYERS_PARAM = "players"
"""OpenSpiel's usual name of the player count (``games_sim_test`` loads every multiplayer game
with it): an alias of ``num_players``."""


@dataclasses.dataclass(frozen=True)
class Parameters:
    """A game's parameters: ``preset``, every field of its RuleSet (overriding the preset),
    and ``players``. A field whose value is no OpenSpiel parameter type (a list, None) has its
    spelling in ``to_param`` and ``from_param``."""

    short_name: str
    rule_class: type
    resolve: Callable[..., Any]
    """``resolve(preset_name, **overrides) -> RuleSet``."""
    presets: dict[str, Any]
    to_param: Callable[[str, Any], Any] = lambda name, value: value
    """A field's value as a game parameter (an int, float, bool or text)."""
    from_param: Callable[[str, Any], Any] = lambda name, value: value
    """A game parameter as the field's value."""

    @property
    def default_rules(self) -> Any:
        return self.presets["standard"]

    def params_of(self, rules: Any) -> dict[str, Any]:
        """The game parameters of ``rules``: ``load_game(short_name, params_of(rules))`` plays
        them."""
        return {f.name: self.to_param(f.name, getattr(rules, f.name))
                for f in dataclasses.fields(self.rule_class)}

    def specification(self) -> dict[str, Any]:
        """Every parameter with its default (the standard preset)."""
        standard = self.default_rules
        return {PRESET_PARAM: "standard", **self.params_of(standard),
                PLAYERS_PARAM: standard.num_players}

    def rules_of(self, params: dict[str, Any] | None) -> Any:
        """The RuleSet of some game parameters: the ``preset`` (standard by default), with
        every other parameter given overriding its field. Bad values raise ValueError naming
        the field.

        pyspiel hands a Python game every parameter: those given, in key order, then the
        defaults of the others, in key order (``RegisterPyGame`` in OpenSpiel's
        ``python_games.cc``). So in a dict holding every parameter the given ones are its first
        run of keys in order (:func:`given_keys`); a dict with fewer is read as all given."""
        params = dict(params or {})
        spec = self.specification()
        unknown = sorted(set(params) - set(spec))
        if unknown:
            raise ValueError(f"unknown {self.short_name} parameter(s) {unknown}; parameters "
                             f"are {sorted(spec)}")
        given = given_keys(params, spec)
        name = params.pop(PRESET_PARAM, "standard") if PRESET_PARAM in given else "standard"
        if name not in self.presets:
            raise ValueError(f"unknown {self.short_name} preset {name!r}; presets are "
                             f"{sorted(self.presets)}")
        players = params.pop(PLAYERS_PARAM, None)
        if PLAYERS_PARAM in given:
            if "num_players" in given and params["num_players"] != players:
                raise ValueError(f"players={players} and num_players={params['num_players']} "
                                 "disagree: players is another name of num_players")
            params["num_players"] = players
            given.append("num_players")
        overrides = {key: self.from_param(key, value) for key, value in params.items()
                     if key in given}
        return self.resolve(name, **overrides)

    def shown_preset(self, rules: Any) -> str:
        """The preset a game string names: the one equal to ``rules``, else ``standard`` (every
        field is in the string then)."""
        return next((name for name, preset in self.presets.items() if preset == rules),
                    "standard")

    def game_params(self, rules: Any) -> dict[str, Any]:
        """The parameters a game of ``rules`` hands to ``pyspiel.Game`` (its game string)."""
        return {**self.params_of(rules), PRESET_PARAM: self.shown_preset(rules)}

    def load(self, rules: Any = "standard") -> pyspiel.Game:
        """The game of a RuleSet or preset name."""
        if isinstance(rules, str):
            if rules not in self.presets:
                raise ValueError(f"unknown rules preset {rules!r:.60}; choose one of "
                                 f"{sorted(self.presets)}")
            return pyspiel.load_game(self.short_name, {PRESET_PARAM: rules})
        if not isinstance(rules, self.rule_class):
            raise TypeError(f"load takes a RuleSet or a preset name {sorted(self.presets)}, "
                            f"got {rules!r:.60}")
        return pyspiel.load_game(self.short_name, self.params_of(rules))


def given_keys(params: dict[str, Any], specification: dict[str, Any]) -> list[str]:
    """The parameters given, of a dict as pyspiel hands it to the game (see
    :meth:`Parameters.rules_of`): with every parameter present, the keys up to the first one
    out of order (the defaults pyspiel added follow, in order again); otherwise all of them."""
    keys = list(params)
    if set(keys) != set(specification):
        return keys
    for i in range(1, len(keys)):
        if keys[i] < keys[i - 1]:
            return keys[:i]
    return keys


_TYPE_FIELDS = ("short_name", "long_name", "dynamics", "chance_mode", "information", "utility",
                "reward_model", "max_num_players", "min_num_players",
                "provides_information_state_string", "provides_information_state_tensor",
                "provides_observation_string", "provides_observation_tensor",
                "parameter_specification")


def changed_type(game_type: pyspiel.GameType, **changes: Any) -> pyspiel.GameType:
    """A copy of a GameType with some fields changed (a game declares what its own rules
    are: zero-sum, terminal rewards)."""
    fields = {name: getattr(game_type, name) for name in _TYPE_FIELDS}
    return pyspiel.GameType(**{**fields, **changes})


class Token(NamedTuple):
    """One thing that happened, as an information state records it (a tuple of text and
    ints, which a deep copy does not copy)."""

    kind: str
    """A kind of the game's :class:`TokenView`, or a separator (a new hand or round)."""
    seat: int
    """Who received the card, or acted; -1 for the table."""
    value: int
    """The card id or action id (a separator's number)."""


@dataclasses.dataclass(frozen=True)
class TokenView:
    """How a game's tokens read: which kinds there are, where each kind's value lies in a
    token's one-hot, who sees a token's value, and its text."""

    kinds: tuple[str, ...]
    """The kinds of token; any other kind is a separator (``| hand 2``), not in the tensor."""
    value_offsets: dict[str, int]
    """Where each kind's values start in the value part of a token's tensor row."""
    value_width: int
    shown: Callable[[Token, int], bool]
    """``shown(token, player)``: whether the player sees the token's value (everyone sees that
    it happened)."""
    text: Callable[[Token, bool], str]
    """``text(token, seen)``: what the token says, its value hidden when not seen."""
    player_name: Callable[[int], str]
    texts: dict[tuple[Token, bool], str] = dataclasses.field(default_factory=dict,
                                                             compare=False, repr=False)
    """The texts made so far (a history's strings repeat the same tokens at every move)."""

    def width(self, num_players: int) -> int:
        """The size of one token's tensor row: seat one-hot, kind one-hot, value one-hot
        (zeros when hidden from the observer)."""
        return num_players + len(self.kinds) + self.value_width

    def token_string(self, token: Token, seen: bool) -> str:
        """A token's text; a separator's is ``| round 2``."""
        text = self.texts.get((token, seen))
        if text is None:
            text = f"| {token.kind} {token.value}" if token.kind not in self.value_offsets \
                else self.text(token, seen)
            self.texts[token, seen] = text
        return text


class InfoStateObserver:
    """Perfect recall: the tokens a player saw, in order (OpenSpiel's observer interface).

    Tensor: the observer's seat one-hot, then ``length`` tokens of :meth:`TokenView.width`
    each (unused ones zero); no tensor where ``length`` is None (a game too long for one)."""

    def __init__(self, view: TokenView, num_players: int, length: int | None) -> None:
        self.view = view
        self._n = num_players
        self._width = view.width(num_players)
        size = 0 if length is None else num_players + length * self._width
        self.tensor = np.zeros(size, np.float32)
        self.dict = {} if length is None else {
            "observer": self.tensor[:num_players],
            "tokens": self.tensor[num_players:].reshape(length, self._width)}

    def set_from(self, state: Any, player: int) -> None:
        if not self.dict:
            return
        self.tensor.fill(0)
        self.dict["observer"][player] = 1
        view, n = self.view, self._n
        kinds = len(view.kinds)
        rows = self.dict["tokens"]
        i = 0
        for token in state.tokens:
            if token.kind not in view.value_offsets:
                continue
            row = rows[i]
            if token.seat >= 0:
                row[token.seat] = 1
            row[n + view.kinds.index(token.kind)] = 1
            if view.shown(token, player):
                row[n + kinds + view.value_offsets[token.kind] + token.value] = 1
            i += 1

    def string_from(self, state: Any, player: int) -> str:
        view = self.view
        return ", ".join([view.player_name(player), *(
            view.token_string(token, view.shown(token, player)) for token in state.tokens)])


@dataclasses.dataclass(frozen=True)
class TableView:
    """The AEC env's view of a game: its observation vector and the player's table text."""

    size: int
    encode: Callable[[Any, int], np.ndarray]
    """``encode(engine, seat)``: the AEC env's observation vector."""
    render: Callable[..., str]
    """``render(engine, viewer=seat)``: the player's table text."""


class TableObserver:
    """The AEC env's view at the last decision point (``state.decision_game``; zeros and
    ``"dealing"`` before the first: between decisions the engine is past cards chance has not
    chosen yet)."""

    def __init__(self, view: TableView) -> None:
        self.view = view
        self.tensor = np.zeros(view.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: Any, player: int) -> None:
        if state.decision_game is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = self.view.encode(state.decision_game, player)

    def string_from(self, state: Any, player: int) -> str:
        if state.decision_game is None:
            return "dealing"
        return self.view.render(state.decision_game, viewer=player)


def make_observer(info_state: Callable[[], InfoStateObserver],
                  table: Callable[[], TableObserver], short_name: str,
                  iig_obs_type: Any = None, params: Any = None) -> Any:
    """``Game.make_py_observer``: the information-state observer (perfect recall) or the
    observation observer."""
    if params:
        raise ValueError(f"{short_name} observers take no parameters, got {params!r}")
    if iig_obs_type is None or iig_obs_type.perfect_recall:
        return info_state()
    return table()


def uniform(outcomes: Sequence[int]) -> list[tuple[int, float]]:
    """Chance outcomes, each equally likely."""
    p = 1.0 / len(outcomes)
    return [(int(o), p) for o in outcomes]

