"""Equation Hi-Lo as an OpenSpiel game, ``python_hilo``: for CFR, MCCFR, NFSP, exact
exploitability and the rest of OpenSpiel's game-theory tools (the ``openspiel`` extra).

Importing this module registers the game with pyspiel, so ``pyspiel.load_game("python_hilo")``
and ``pyspiel.load_game("python_hilo(preset=tiny)")`` work. It is a thin layer over the engine
(:class:`equation_hilo.engine.Game`): a state is the cards chance dealt and the actions taken,
replayed through the engine with those cards stacked on its deck.

| property            | value                                                               |
|---------------------|---------------------------------------------------------------------|
| parameters          | ``preset`` (``standard``, ``classic``, ``duel``, ``tiny``) and every  |
|                     | :class:`RuleSet` field, overriding the preset (:func:`rules_from_params`) |
|                     | in a game string's spelling: lists as words (``deal=hidden up bet``,  |
|                     | ``deck_values=0 1 2``), operators as words (``base_operators=div``,   |
|                     | ``multiply_discards=plus minus``), ``max_multiply=0`` for unlimited   |
| players             | ``num_players`` (or ``players``, OpenSpiel's own name for it, as its    |
|                     | multiplayer tests pass it); player ``i`` is the AEC env's ``player_i``  |
| actions             | the AEC env's action ids and strings (:mod:`equation_hilo.actions`)   |
| chance              | explicit, at every draw: the card id drawn, with its exact probability |
| returns             | each player's net chips over the episode (terminal rewards only)       |
| information state   | perfect recall: every card the player saw dealt (its own hidden card,   |
|                     | face-up cards, specials set aside) and every action, other players'   |
|                     | declarations as "declared" only; string and tensor                    |
| observation         | the AEC env's observation vector (tensor) and the player's table text  |
|                     | (string) at the last decision point                                   |
| utility             | zero-sum where no chip can go to the house (2 players, or ``odd_chip``  |
|                     | to a player); general-sum otherwise                                  |

**Chance, exactly.** The deck is a uniformly shuffled subset of the 52 cards (the rule's deck
fields), so each draw is uniform over the cards not yet drawn, and the rules' reshuffles and
set-asides give these outcomes (``docs/rules.md`` section 3): the hidden card is uniform over
the undrawn number cards (a special drawn there goes back, the deck is reshuffled, and the
player draws again, until a number comes); a face-up card of a player who holds the most ×
``max_multiply`` allows is uniform over the undrawn cards other than × (a × goes back, the same
way); any other draw, the extra card of a √ or × included, is uniform over every undrawn card,
and a special drawn as an extra card is set aside (out of the hand, seen by everyone), then
chance draws again. A card that goes back is never seen, so these outcomes are what a player can
know. Chance outcomes are card ids (``max_chance_outcomes`` 52); their strings are card texts
(``7G``; specials with their id, ``x#45``, so that every outcome has its own string).

**Observation at a chance node.** The engine deals every card up to the next decision at once,
so between decisions there is no engine state to show: there the observation tensor and string
are those of the last decision point (zeros and ``"dealing"`` before the first). The information
state is exact everywhere.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.engine import Event, Game, Phase
from hilo_env.equation_hilo.observation import Encoder, observation_size
from hilo_env.equation_hilo.render import player_name, render_text
from hilo_env.equation_hilo.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    PRESETS,
    RuleSet,
    short_repr,
)
from hilo_env.equation_hilo.spec import SPEC

SHORT_NAME = SPEC.openspiel_name
PRESET_PARAM = "preset"
"""The game parameter naming the preset the other parameters override."""
LIST_FIELDS = ("deal", "deck_values")
"""RuleSet fields that are lists: text in a game parameter, items separated by spaces (a comma
would end the parameter in a game string; commas are read too where they fit)."""
UNLIMITED = 0
"""``max_multiply`` without a limit, as its (integer) game parameter."""
OPERATOR_FIELDS = ("base_operators", "multiply_discards")
"""RuleSet fields of operators: words in a game parameter (OpenSpiel reads ``+-`` as a
malformed number), ``plus minus div``; symbols are read too."""
OPERATOR_WORDS = {"+": "plus", "-": "minus", "*": "times", "x": "times", "/": "div"}
_DRAWS = ("deal", "set_aside", "return")
"""The engine's log events of a draw: each card drawn logs exactly one of them."""
TOKEN_KINDS = ("hidden", "up", "extra", "set_aside", "action")
"""What an information-state token records: a card dealt (hidden, face up, as the extra card
of a √ or ×), a special set aside, or an action."""
_SEED = 0
"""The engine's generator seed: it shuffles only cards past those chance chose, never drawn."""


def _param_value(rules: RuleSet, name: str) -> Any:
    """A RuleSet field as an OpenSpiel game parameter (an int, bool or text)."""
    value = getattr(rules, name)
    if name in LIST_FIELDS:
        return " ".join(map(str, value))
    if name == "max_multiply":
        return UNLIMITED if value is None else value
    if name in OPERATOR_FIELDS:
        return " ".join(OPERATOR_WORDS[op] for op in value)
    return value


def params_of(rules: RuleSet) -> dict[str, Any]:
    """The game parameters of ``rules``: ``python_hilo(**params_of(rules))`` plays them."""
    return {f.name: _param_value(rules, f.name) for f in dataclasses.fields(RuleSet)}


PLAYERS_PARAM = "players"
"""OpenSpiel's usual name of the player count (``games_sim_test`` loads every multiplayer game
with it): an alias of ``num_players``."""

PARAMETER_SPECIFICATION = {PRESET_PARAM: "standard", **params_of(RuleSet()),
                           PLAYERS_PARAM: RuleSet().num_players}
"""Every parameter with its default (the standard preset)."""


def rules_from_params(params: dict[str, Any] | None) -> RuleSet:
    """The RuleSet of some game parameters: the ``preset`` (standard by default), with every
    other parameter given overriding its field. Bad values raise ValueError naming the field.

    pyspiel hands a Python game every parameter: those given, in key order, then the defaults
    of the others, in key order (``RegisterPyGame`` in OpenSpiel's ``python_games.cc``). So in a
    dict holding every parameter the given ones are its first run of keys in order
    (:func:`given_keys`); a dict with fewer is read as all given."""
    params = dict(params or {})
    unknown = sorted(set(params) - set(PARAMETER_SPECIFICATION))
    if unknown:
        raise ValueError(f"unknown {SHORT_NAME} parameter(s) {unknown}; parameters are "
                         f"{sorted(PARAMETER_SPECIFICATION)}")
    given = given_keys(params)
    name = params.pop(PRESET_PARAM, "standard") if PRESET_PARAM in given else "standard"
    players = params.pop(PLAYERS_PARAM, None)
    if PLAYERS_PARAM in given:
        if "num_players" in given and params["num_players"] != players:
            raise ValueError(f"players={players} and num_players={params['num_players']} "
                             "disagree: players is another name of num_players")
        params["num_players"] = players
        given.append("num_players")
    overrides: dict[str, Any] = {}
    for key, value in params.items():
        if key not in given:
            continue
        if key in LIST_FIELDS:
            items = str(value).replace(",", " ").split()
            value = [int(v) if v.lstrip("-").isdigit() else v for v in items] \
                if key == "deck_values" else items
        elif key == "max_multiply":
            value = None if value == UNLIMITED else value
        elif key in OPERATOR_FIELDS:
            value = _operators_of(str(value), key)
        overrides[key] = value
    return RuleSet.preset(name, **overrides)


def given_keys(params: dict[str, Any]) -> list[str]:
    """The parameters given, of a dict as pyspiel hands it to the game (see
    :func:`rules_from_params`): with every parameter present, the keys up to the first one out
    of order (the defaults pyspiel added follow, in order again); otherwise all of them."""
    keys = list(params)
    if set(keys) != set(PARAMETER_SPECIFICATION):
        return keys
    for i in range(1, len(keys)):
        if keys[i] < keys[i - 1]:
            return keys[:i]
    return keys


def _operators_of(text: str, field: str) -> str:
    """Operator words (or symbols) -> the symbols: ``"plus minus"`` -> ``"+-"``; under
    ``multiply_discards`` a held × is ``x``."""
    symbols = {word: op for op, word in OPERATOR_WORDS.items() if op != "x"}
    if field == "multiply_discards":
        symbols["times"] = "x"
    return "".join(symbols.get(word, word) for word in text.split())


def zero_sum(rules: RuleSet) -> bool:
    """Whether no chip can go to the house: with 2 players every split pot is even (both
    wager the same to reach a showdown), and ``odd_chip`` ``low`` or ``high`` gives every odd
    chip to a player."""
    return rules.num_players == 2 or rules.odd_chip != "house"


def max_game_length(rules: RuleSet) -> int:
    """An upper bound on the moves (chance and decisions) of an episode.

    Per hand: every chance move draws a different card (none goes back), at most one per card
    of the deck; a betting round has at most (raises + 1) actions per player, the raises of a
    hand lift the highest wager at least one chip each up to the cap; a discard per × and a
    declaration per player."""
    n = rules.num_players
    deck = len(rules.deck_values) * rules.deck_suits + rules.deck_multiply + rules.deck_roots
    chance = min(deck, n * rules.numbers_per_hand + rules.deck_multiply + rules.deck_roots)
    decisions = (rules.max_cap + rules.num_bet_rounds) * n + rules.deck_multiply + n
    return rules.hands_per_episode * (chance + decisions)


GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Equation Hi-Lo",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETER_SPECIFICATION,
)
"""The registered type: general-sum, as the family holds variants that pay the house; each
game declares zero-sum when its rules are (:func:`zero_sum`)."""


class HiloGame(pyspiel.Game):
    """Equation Hi-Lo under one rule set, as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        rules = rules_from_params(params)
        self.rules = rules
        self.initial: Replay | None = None
        """The engine before the first card (every new state shares it)."""
        self.fixed = Fixed(rules, cards.deck_ids(rules.deck_values, rules.deck_suits,
                                                 rules.deck_multiply, rules.deck_roots))
        n, stack = rules.num_players, rules.starting_stack
        fair = zero_sum(rules)
        game_type = pyspiel.GameType(
            **{**_type_fields(GAME_TYPE),
               "utility": pyspiel.GameType.Utility.ZERO_SUM if fair
               else pyspiel.GameType.Utility.GENERAL_SUM})
        info = pyspiel.GameInfo(
            num_distinct_actions=A.num_actions(rules.max_cap),
            max_chance_outcomes=cards.DECK_SIZE,
            num_players=n,
            min_utility=float(-stack),
            max_utility=float((n - 1) * stack),
            utility_sum=0.0 if fair else None,
            max_game_length=max_game_length(rules))
        shown = next((name for name, preset in PRESETS.items() if preset == rules), "standard")
        super().__init__(game_type, info, {**params_of(rules), PRESET_PARAM: shown})

    def new_initial_state(self) -> HiloState:
        """A state before the first card is dealt."""
        return HiloState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The information-state observer (perfect recall) or the observation observer."""
        if params:
            raise ValueError(f"{SHORT_NAME} observers take no parameters, got {params!r}")
        if iig_obs_type is None or iig_obs_type.perfect_recall:
            return InfoStateObserver(self)
        return TableObserver(self)


def _type_fields(game_type: Any) -> dict[str, Any]:
    """The constructor arguments of a GameType (to copy one with a field changed)."""
    names = ("short_name", "long_name", "dynamics", "chance_mode", "information", "utility",
             "reward_model", "max_num_players", "min_num_players",
             "provides_information_state_string", "provides_information_state_tensor",
             "provides_observation_string", "provides_observation_tensor",
             "parameter_specification")
    return {name: getattr(game_type, name) for name in names}


@dataclasses.dataclass(frozen=True)
class Fixed:
    """What every state of a game shares and never changes (a deep copy keeps it)."""

    rules: RuleSet
    deck_ids: tuple[int, ...]
    """The card ids of the deck, ascending."""

    def __deepcopy__(self, memo: dict) -> Fixed:
        return self


@dataclasses.dataclass(frozen=True)
class Replay:
    """The engine after a history, shared by copies of the state: a move makes a new one and
    never changes it, so ``clone()`` (a deep copy of the state's attributes) copies no engine.
    """

    game: Game
    """The engine after the history; past the next draw at a chance node."""
    decision_game: Game | None
    """The engine at the last decision point (the observation shown at chance nodes)."""
    next_draw: Event | None
    """At a chance node, the engine's log event of the next draw (its kind and seat)."""

    def __deepcopy__(self, memo: dict) -> Replay:
        return self


class History(NamedTuple):
    """A state's history, immutable: a move makes a new one, so copies share it."""

    hand_cards: tuple[tuple[int, ...], ...]
    """Per hand, the cards chance dealt, in draw order."""
    actions: tuple[int, ...]
    """The players' actions, in order."""
    tokens: tuple[Token, ...]
    """Everything that happened, in order, for the information states."""
    hand_tokens: int
    """Where this hand's tokens start."""

    def __deepcopy__(self, memo: dict) -> History:
        return self


class Token(NamedTuple):
    """One thing that happened, as the information state records it (a tuple of text and
    ints, which a deep copy does not copy)."""

    kind: str
    """One of :data:`TOKEN_KINDS`."""
    seat: int
    """Who received the card, or acted."""
    value: int
    """The card id or action id."""


class HiloState(pyspiel.State):
    """A history of Equation Hi-Lo: the cards chance dealt in each hand and the actions taken,
    with the engine's state after them (:attr:`game`)."""

    def __init__(self, game: HiloGame) -> None:
        super().__init__(game)
        self.fixed = game.fixed
        self.record = History(((),), (), (), 0)
        """The history as this module keeps it (pyspiel's ``history()`` is its list of moves)."""
        if game.initial is None:
            self.record, game.initial = self._replayed(self.record, None)
        self.replay: Replay = game.initial

    @property
    def hand_cards(self) -> tuple[tuple[int, ...], ...]:
        """Per hand, the cards chance dealt, in draw order."""
        return self.record.hand_cards

    @property
    def player_actions(self) -> tuple[int, ...]:
        """The players' actions, in order."""
        return self.record.actions

    @property
    def tokens(self) -> tuple[Token, ...]:
        """Everything that happened, in order, for the information states."""
        return self.record.tokens

    @property
    def rules(self) -> RuleSet:
        return self.fixed.rules

    @property
    def _deck_ids(self) -> tuple[int, ...]:
        return self.fixed.deck_ids

    @property
    def game(self) -> Game:
        """The engine after the history (past the next draw at a chance node)."""
        return self.replay.game

    @property
    def decision_game(self) -> Game | None:
        """The engine at the last decision point; None before the first."""
        return self.replay.decision_game

    @property
    def _next_draw(self) -> Event | None:
        return self.replay.next_draw

    # ---- OpenSpiel's API -------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, CHANCE at a draw, TERMINAL once the match is over."""
        if self._next_draw is not None:
            return pyspiel.PlayerId.CHANCE
        if self.game.phase == Phase.MATCH_OVER:
            return pyspiel.PlayerId.TERMINAL
        return self.game.current_player

    def is_terminal(self) -> bool:
        return self._next_draw is None and self.game.phase == Phase.MATCH_OVER

    def _legal_actions(self, player: int) -> list[int]:
        """The acting player's legal actions, as the AEC env's mask (ascending ids)."""
        return list(self.game.legal_actions()) if player == self.game.current_player else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards the next draw can give, each with its exact probability."""
        outcomes = self.draw_outcomes()
        p = 1.0 / len(outcomes)
        return [(card, p) for card in outcomes]

    def _apply_action(self, action: int) -> None:
        """Apply a draw's card or a player's action; one the state refuses raises ValueError
        and changes nothing."""
        h = self.record
        if self._next_draw is not None:
            outcomes = self.draw_outcomes()
            if action not in outcomes:
                raise ValueError(f"{action} is not a chance outcome here; the next draw gives "
                                 f"one of the card ids {outcomes}")
            kind, seat = self.draw_kind()
            if kind == "extra" and not cards.is_number(action):
                kind = "set_aside"
            record = h._replace(hand_cards=(*h.hand_cards[:-1], (*h.hand_cards[-1], action)),
                                tokens=(*h.tokens, Token(kind, seat, int(action))))
        else:
            legal = [] if self.is_terminal() else list(self.game.legal_actions())
            if action not in legal:
                raise ValueError(f"action {action} is not legal here; legal: {legal}")
            seat = self.game.current_player
            record = h._replace(actions=(*h.actions, int(action)),
                                tokens=(*h.tokens, Token("action", seat, int(action))))
        self.record, self.replay = self._replayed(record, self.replay)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            text = cards.card_str(action)
            return text if cards.is_number(action) else f"{text}#{action}"
        return A.action_to_string(action)

    def returns(self) -> list[float]:
        """Each player's net chips over the episode once it is over (zeros before)."""
        if not self.is_terminal():
            return [0.0] * self.rules.num_players
        return [float(s - self.rules.starting_stack) for s in self.game.stacks]

    def __str__(self) -> str:
        hands = " / ".join(" ".join(cards.card_str(c) for c in h) for h in self.hand_cards)
        acts = " ".join(A.action_to_string(a) for a in self.player_actions)
        return f"cards: {hands} | actions: {acts}"

    # ---- chance ------------------------------------------------------------------------------

    def draw_kind(self) -> tuple[str, int] | None:
        """At a chance node, what is drawn and for whom: ``("hidden" | "up" | "extra", seat)``;
        None elsewhere."""
        if self._next_draw is None:
            return None
        return self._next_draw.data[0], self._next_draw.seat

    def draw_outcomes(self) -> list[int]:
        """The card ids the next draw can give, ascending (equally likely)."""
        kind, seat = self.draw_kind()
        dealt = set(self.hand_cards[-1])
        undrawn = [c for c in self._deck_ids if c not in dealt]
        if kind == "hidden":
            return [c for c in undrawn if cards.is_number(c)]
        limit = self.rules.max_multiply
        if kind == "up" and limit is not None and self._multiplies_held(seat) >= limit:
            return [c for c in undrawn if not cards.is_multiply(c)]
        return undrawn

    def _multiplies_held(self, seat: int) -> int:
        """× cards the seat keeps in this hand (from the tokens: the engine is past them)."""
        return sum(t.kind == "up" and t.seat == seat and cards.is_multiply(t.value)
                   for t in self.tokens[self.record.hand_tokens:])

    # ---- replay through the engine ------------------------------------------------------------

    def _stacked(self, dealt: tuple[int, ...]) -> list[int]:
        """A hand's deck top: the cards dealt, then a number card not dealt (the probe) whose
        draw shows what the engine draws next (a number is kept whatever the draw). With
        every number dealt the hand needs no more cards, and there is no probe."""
        taken = set(dealt)
        probe = [c for c in self._deck_ids if cards.is_number(c) and c not in taken][:1]
        return [*dealt, *probe]

    def _replayed(self, record: History, last: Replay | None) -> tuple[History, Replay]:
        """Replay a history through the engine, the chosen cards stacked on each hand's deck
        and a probe card after them, and find whether the next move is a draw: the history
        (with a new hand opened where one ended) and its replay. ``last`` is the replay before
        the move (its decision point is shown at chance nodes)."""
        hands = record.hand_cards
        game = Game(self.rules, np.random.default_rng(_SEED), self._stacked(hands[0]))
        hand = 0
        for action in record.actions:
            while game.phase == Phase.HAND_OVER:
                hand += 1
                game.start_next_hand(self._stacked(hands[hand]))
            game.step(action)
        if game.phase == Phase.HAND_OVER:  # the next hand starts by itself, with a draw
            if len(hands) == hand + 1:
                hands = (*hands, ())
                record = record._replace(
                    hand_cards=hands, hand_tokens=len(record.tokens),
                    tokens=(*record.tokens, Token("hand", -1, len(hands))))
            hand += 1
            game.start_next_hand(self._stacked(hands[hand]))
        draws = [e for e in game.log[_hand_start(game.log):] if e.kind in _DRAWS]
        dealt = len(hands[hand])
        next_draw = draws[dealt] if len(draws) > dealt else None
        decision_game = game if next_draw is None else last and last.decision_game
        return record, Replay(game, decision_game, next_draw)


def _hand_start(log: list[Event]) -> int:
    """Where the last hand's events start in the engine's log."""
    for i in range(len(log) - 1, -1, -1):
        if log[i].kind == "hand":
            return i
    return 0


# ---- observers ---------------------------------------------------------------------------------


def token_width(rules: RuleSet) -> int:
    """The size of one token of the information-state tensor: seat one-hot, kind one-hot,
    card one-hot (zeros when hidden from the observer), action one-hot (zeros when secret)."""
    return (rules.num_players + len(TOKEN_KINDS) + cards.DECK_SIZE
            + A.num_actions(rules.max_cap))


def shown(token: Token, player: int) -> bool:
    """Whether ``player`` sees what a token holds (everyone sees that it happened): another
    player's hidden card and declaration are secret."""
    return token.seat == player or not (
        token.kind == "hidden" or (token.kind == "action" and token.value in A.DECLARATIONS))


class InfoStateObserver:
    """Perfect recall: the tokens a player saw, in order (OpenSpiel's observer interface).

    Tensor: the observer's seat one-hot, then :func:`max_game_length` tokens of
    :func:`token_width` each (unused ones zero)."""

    def __init__(self, game: HiloGame) -> None:
        rules = game.rules
        self.rules = rules
        self._n = rules.num_players
        self._width = token_width(rules)
        length = max_game_length(rules)
        self.tensor = np.zeros(self._n + length * self._width, np.float32)
        self.dict = {"observer": self.tensor[:self._n],
                     "tokens": self.tensor[self._n:].reshape(length, self._width)}

    def set_from(self, state: HiloState, player: int) -> None:
        self.tensor.fill(0)
        self.dict["observer"][player] = 1
        n, kinds = self._n, len(TOKEN_KINDS)
        rows = self.dict["tokens"]
        i = 0
        for token in state.tokens:
            if token.kind == "hand":
                continue
            row = rows[i]
            row[token.seat] = 1
            row[n + TOKEN_KINDS.index(token.kind)] = 1
            if shown(token, player):
                offset = n + kinds + (0 if token.kind != "action" else cards.DECK_SIZE)
                row[offset + token.value] = 1
            i += 1

    def string_from(self, state: HiloState, player: int) -> str:
        words = [player_name(player)]
        for token in state.tokens:
            if token.kind == "hand":
                words.append(f"| hand {token.value}")
                continue
            who, seen = player_name(token.seat), shown(token, player)
            if token.kind == "action":
                what = A.action_to_string(token.value) if seen else "declares"
            elif token.kind == "set_aside":
                what = f"sets aside {cards.card_str(token.value)}"
            else:
                what = f"{token.kind} {cards.card_str(token.value) if seen else '?'}"
            words.append(f"{who} {what}")
        return ", ".join(words)


class TableObserver:
    """The AEC env's view: its observation vector and the player's table text, at the last
    decision point (see the module docstring)."""

    def __init__(self, game: HiloGame) -> None:
        self.rules = game.rules
        self._encoder = Encoder(game.rules)
        self.tensor = np.zeros(observation_size(game.rules), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: HiloState, player: int) -> None:
        if state.decision_game is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = self._encoder.encode(state.decision_game, player)

    def string_from(self, state: HiloState, player: int) -> str:
        if state.decision_game is None:
            return "dealing"
        return render_text(state.decision_game, viewer=player)


def load(rules: RuleSet | str = "standard") -> HiloGame:
    """The ``python_hilo`` game of a RuleSet or preset name."""
    if isinstance(rules, str):
        if rules not in PRESETS:
            raise ValueError(f"unknown rules preset {short_repr(rules)}; choose one of "
                             f"{sorted(PRESETS)}")
        return pyspiel.load_game(SHORT_NAME, {PRESET_PARAM: rules})
    if not isinstance(rules, RuleSet):
        raise TypeError(f"load takes a RuleSet or a preset name {sorted(PRESETS)}, got "
                        f"{short_repr(rules)}")
    return pyspiel.load_game(SHORT_NAME, params_of(rules))


pyspiel.register_game(GAME_TYPE, HiloGame)
