"""Equation Hi-Lo as an OpenSpiel game, ``python_hilo``: for CFR, MCCFR, NFSP, exact
exploitability and the rest of OpenSpiel's game-theory tools (the ``openspiel`` extra).

Importing this module registers the game with pyspiel, so ``pyspiel.load_game("python_hilo")``
and ``pyspiel.load_game("python_hilo(preset=tiny)")`` work. It is a thin layer over the engine
(:class:`equation_hilo.engine.Game`): a state is the cards chance dealt and the actions taken,
replayed through the engine with those cards stacked on its deck. lo-hi and Hi MiLo! are
``python_lohi`` and ``python_himilo`` (:mod:`envs.openspiel_lohi`, :mod:`envs.openspiel_himilo`);
what the three share (parameters, tokens, observers) is :mod:`envs.openspiel_common`.

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

from hilo_env.envs.openspiel_common import (
    InfoStateObserver,
    Parameters,
    TableObserver,
    TableView,
    Token,
    TokenView,
    changed_type,
    make_observer,
    uniform,
)
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
)
from hilo_env.equation_hilo.spec import SPEC

SHORT_NAME = SPEC.openspiel_name
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


def _to_param(name: str, value: Any) -> Any:
    """A RuleSet field as an OpenSpiel game parameter (an int, bool or text)."""
    if name in LIST_FIELDS:
        return " ".join(map(str, value))
    if name == "max_multiply":
        return UNLIMITED if value is None else value
    if name in OPERATOR_FIELDS:
        return " ".join(OPERATOR_WORDS[op] for op in value)
    return value


def _from_param(name: str, value: Any) -> Any:
    """A game parameter as its RuleSet field's value."""
    if name in LIST_FIELDS:
        items = str(value).replace(",", " ").split()
        return [int(v) if v.lstrip("-").isdigit() else v for v in items] \
            if name == "deck_values" else items
    if name == "max_multiply":
        return None if value == UNLIMITED else value
    if name in OPERATOR_FIELDS:
        return _operators_of(str(value), name)
    return value


def _operators_of(text: str, field: str) -> str:
    """Operator words (or symbols) -> the symbols: ``"plus minus"`` -> ``"+-"``; under
    ``multiply_discards`` a held × is ``x``."""
    symbols = {word: op for op, word in OPERATOR_WORDS.items() if op != "x"}
    if field == "multiply_discards":
        symbols["times"] = "x"
    return "".join(symbols.get(word, word) for word in text.split())


PARAMETERS = Parameters(SHORT_NAME, RuleSet, RuleSet.preset, PRESETS, _to_param, _from_param)
"""``preset``, every RuleSet field and ``players`` (the module docstring)."""
PARAMETER_SPECIFICATION = PARAMETERS.specification()
"""Every parameter with its default (the standard preset)."""


def params_of(rules: RuleSet) -> dict[str, Any]:
    """The game parameters of ``rules``: ``python_hilo(**params_of(rules))`` plays them."""
    return PARAMETERS.params_of(rules)


def rules_from_params(params: dict[str, Any] | None) -> RuleSet:
    """The RuleSet of some game parameters (:meth:`Parameters.rules_of`)."""
    return PARAMETERS.rules_of(params)


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
        game_type = changed_type(GAME_TYPE, utility=pyspiel.GameType.Utility.ZERO_SUM if fair
                                 else pyspiel.GameType.Utility.GENERAL_SUM)
        info = pyspiel.GameInfo(
            num_distinct_actions=A.num_actions(rules.max_cap),
            max_chance_outcomes=cards.DECK_SIZE,
            num_players=n,
            min_utility=float(-stack),
            max_utility=float((n - 1) * stack),
            utility_sum=0.0 if fair else None,
            max_game_length=max_game_length(rules))
        super().__init__(game_type, info, PARAMETERS.game_params(rules))

    def new_initial_state(self) -> HiloState:
        """A state before the first card is dealt."""
        return HiloState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The information-state observer (perfect recall) or the observation observer."""
        rules = self.rules
        return make_observer(
            lambda: InfoStateObserver(token_view(rules), rules.num_players, max_game_length(rules)),
            lambda: TableObserver(table_view(rules)), SHORT_NAME, iig_obs_type, params)


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
        return uniform(self.draw_outcomes())

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


def shown(token: Token, player: int) -> bool:
    """Whether ``player`` sees what a token holds (everyone sees that it happened): another
    player's hidden card and declaration are secret."""
    return token.seat == player or not (
        token.kind == "hidden" or (token.kind == "action" and token.value in A.DECLARATIONS))


def _token_text(token: Token, seen: bool) -> str:
    who = player_name(token.seat)
    if token.kind == "action":
        return f"{who} {A.action_to_string(token.value) if seen else 'declares'}"
    if token.kind == "set_aside":
        return f"{who} sets aside {cards.card_str(token.value)}"
    return f"{who} {token.kind} {cards.card_str(token.value) if seen else '?'}"


def token_view(rules: RuleSet) -> TokenView:
    """Tokens of the information state: a seat one-hot, a kind one-hot, then the card one-hot
    (zeros when hidden from the observer) or the action one-hot (zeros when secret)."""
    return TokenView(
        kinds=TOKEN_KINDS,
        value_offsets={**dict.fromkeys(TOKEN_KINDS, 0), "action": cards.DECK_SIZE},
        value_width=cards.DECK_SIZE + A.num_actions(rules.max_cap),
        shown=shown, text=_token_text, player_name=player_name)


def table_view(rules: RuleSet) -> TableView:
    """The AEC env's observation vector and the player's table text."""
    return TableView(observation_size(rules), Encoder(rules).encode, render_text)


def load(rules: RuleSet | str = "standard") -> HiloGame:
    """The ``python_hilo`` game of a RuleSet or preset name."""
    return PARAMETERS.load(rules)


pyspiel.register_game(GAME_TYPE, HiloGame)
