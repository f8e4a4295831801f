"""Hi MiLo! as an OpenSpiel game, ``python_himilo`` (the ``openspiel`` extra): one round, the
AEC env's episode, for the cooperative tools (identical utility) as well as the others.

Importing this module registers the game with pyspiel, so ``pyspiel.load_game("python_himilo")``
and ``pyspiel.load_game("python_himilo(preset=hardcore,players=5)")`` work. It is a thin layer
over the engine (:class:`himilo.engine.Round`): the cards chance chose are stacked on the
round's deck and line, and the decisions are the engine's ``step``.

| property            | value                                                               |
|---------------------|---------------------------------------------------------------------|
| parameters          | ``preset`` (``standard``, ``medium``, ``difficult``, ``hardcore``)  |
|                     | and every :class:`himilo.rules.RuleSet` field, overriding the       |
|                     | preset: ``dealer=-1`` is the default dealer (the last seat);        |
|                     | ``players`` is another name of ``num_players``                     |
| players             | 3..5; player ``i`` is the AEC env's ``player_i``                    |
| actions             | the AEC env's 147 action ids and texts (:mod:`himilo.actions`)      |
| chance              | explicit: each card dealt (a card id), then each Win Card as it     |
|                     | turns face up (a Win Card id), with its exact probability           |
| returns             | the AEC env's rewards summed: the team outcome, +1 to every player  |
|                     | or -1; with ``shaping=constraints`` also the shaping term of each   |
|                     | trick (``shaping_weight`` 1, the env's default)                     |
| rewards             | terminal, or per decision under ``shaping=constraints``            |
| information state   | perfect recall (string and tensor): the player's cards dealt and    |
|                     | received, the Win Cards face up, every action (another player's     |
|                     | passed card as ``passes``)                                          |
| observation         | the AEC env's observation vector (tensor) and the player's table   |
|                     | text (string) at the last decision point                            |
| utility             | identical: the team shares every reward                             |

**Chance, exactly.** The deck of the cards in play and the line of Win Cards are uniform
shuffles. The deal is the deck's first ``14 n`` cards, one at a time to the seats in the
engine's order, each uniform over the cards in play not dealt yet (the cards left undealt are
never seen, so chance never chooses them). The line's first ``visible_win_cards`` Win Cards
turn face up before the bids, and one more after each trick while any is face down, each
uniform over the Win Cards not face up yet. Outcomes are card ids or Win Card ids
(``max_chance_outcomes``: the cards in play); their strings are the card texts (``7S``,
``QH``, ``K*``).

**Between decisions** (a Win Card turning face up after a trick) the observation tensor and
string are those of the last decision point (zeros and ``"dealing"`` before the first); the
information state is exact everywhere.
"""

from __future__ import annotations

import dataclasses
from typing import Any

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
from hilo_env.himilo import actions as A
from hilo_env.himilo import tricks
from hilo_env.himilo.cards import (
    NUM_CARD_IDS,
    NUM_WIN_CARDS,
    card_str,
    cards_in_play,
    win_card_str,
)
from hilo_env.himilo.engine import Phase, Round
from hilo_env.himilo.observation import Encoder, observation_size
from hilo_env.himilo.render import player_name, render_text
from hilo_env.himilo.rules import (
    CONSTRAINT_SHAPING,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PRESETS,
    RuleSet,
    resolve,
)
from hilo_env.himilo.spec import SPEC

SHORT_NAME = SPEC.openspiel_name
DEFAULT_DEALER = -1
"""``dealer`` as a game parameter where the rule is None: the last seat, ``num_players - 1``."""


def _to_param(name: str, value: Any) -> Any:
    return DEFAULT_DEALER if name == "dealer" and value is None else value


def _from_param(name: str, value: Any) -> Any:
    return None if name == "dealer" and value == DEFAULT_DEALER else value


PARAMETERS = Parameters(SHORT_NAME, RuleSet, resolve, PRESETS, _to_param, _from_param)
"""``preset``, every RuleSet field and ``players``."""
TABLE = -1
"""The seat of what everyone sees (a Win Card face up)."""
DEAL, RECEIVE, LINE, BID, PASS, PLAY = "deal", "receive", "line", "bid", "pass", "play"
TOKEN_KINDS = (DEAL, RECEIVE, LINE, BID, PASS, PLAY)
"""What an information-state token records: a card dealt to a seat, a card passed to a seat,
a Win Card face up, a bid (its index, low 0 .. high 2), a card set aside to pass, a card
played."""
_SEED = 0
"""The engine's generator seed: every card it would draw is stacked, so it draws none."""


def max_game_length(rules: RuleSet) -> int:
    """The moves of a round at most: the deal, the Win Cards and the decisions."""
    return HAND_SIZE * rules.num_players + NUM_WIN_CARDS + rules.decisions_per_round


def max_tokens(rules: RuleSet) -> int:
    """The tokens of a round at most: its moves and every card passed to a seat."""
    return max_game_length(rules) + rules.num_players * rules.pass_cards


GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Hi MiLo!",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.IDENTICAL,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS.specification(),
)
"""The registered type; a game without shaping declares terminal rewards."""


@dataclasses.dataclass(frozen=True)
class Fixed:
    """What every state of a game shares and never changes (a deep copy keeps it)."""

    rules: RuleSet
    deal_seats: tuple[int, ...]
    """The seat that gets the deck's i-th card, for each card dealt (read off the engine)."""

    def __deepcopy__(self, memo: dict) -> Fixed:
        return self

    @classmethod
    def of(cls, rules: RuleSet) -> Fixed:
        size = cards_in_play(rules.num_players)
        probe = Round(rules, np.random.default_rng(_SEED), list(range(size)),
                      list(range(NUM_WIN_CARDS)))
        holder = {card: seat for seat, hand in enumerate(probe.hands) for card in hand}
        return cls(rules, tuple(holder[i] for i in range(HAND_SIZE * rules.num_players)))


class HimiloGame(pyspiel.Game):
    """Hi MiLo! under one rule set, as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        rules = PARAMETERS.rules_of(params)
        self.rules = rules
        self.fixed = Fixed.of(rules)
        shaped = rules.shaping == CONSTRAINT_SHAPING
        rewards = pyspiel.GameType.RewardModel
        game_type = changed_type(GAME_TYPE, reward_model=rewards.REWARDS if shaped
                                 else rewards.TERMINAL)
        bound = 2.0 if shaped else 1.0  # the outcome, and shaping terms summing to at most 1
        info = pyspiel.GameInfo(
            num_distinct_actions=A.NUM_ACTIONS,
            max_chance_outcomes=cards_in_play(rules.num_players),
            num_players=rules.num_players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=None,
            max_game_length=max_game_length(rules))
        super().__init__(game_type, info, PARAMETERS.game_params(rules))

    def new_initial_state(self) -> HimiloState:
        """A state before the first card is dealt."""
        return HimiloState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The information-state observer (perfect recall) or the observation observer."""
        rules = self.rules
        return make_observer(
            lambda: InfoStateObserver(TOKENS, rules.num_players, max_tokens(rules)),
            lambda: TableObserver(table_view(rules)), SHORT_NAME, iig_obs_type, params)


@dataclasses.dataclass(frozen=True)
class Position:
    """A history and the engine after it, shared by copies of the state: a move makes a new
    one and never changes it (a deep copy keeps it)."""

    deck: tuple[int, ...] = ()
    """The cards dealt, in deal order."""
    line: tuple[int, ...] = ()
    """The Win Cards face up so far, in line order."""
    actions: tuple[int, ...] = ()
    game: Round | None = None
    """The engine after the history (None before the deal is complete); at a chance node
    for a Win Card, its line is past the cards chosen."""
    previous: Round | None = None
    """The engine before the last action (the last decision point, at a chance node)."""
    tokens: tuple[Token, ...] = ()
    text: str = ""
    """The tokens' text, every card shown (the state's string, made once per move)."""
    rewards: tuple[float, ...] = ()
    """Each player's reward of the last decision, the chance moves after it included
    (OpenSpiel sums ``rewards()`` at decisions only); empty before the first."""
    returns: tuple[float, ...] = ()
    """Each player's rewards so far (empty: none yet)."""

    def __deepcopy__(self, memo: dict) -> Position:
        return self


class HimiloState(pyspiel.State):
    """A history of Hi MiLo!: the cards chance dealt, the Win Cards face up, the actions."""

    def __init__(self, game: HimiloGame) -> None:
        super().__init__(game)
        self.fixed = game.fixed
        self.position = Position()

    @property
    def rules(self) -> RuleSet:
        return self.fixed.rules

    @property
    def tokens(self) -> tuple[Token, ...]:
        """Everything that happened, in order, for the information states."""
        return self.position.tokens

    @property
    def game(self) -> Round | None:
        """The engine after the history (None before the deal is complete)."""
        return self.position.game

    @property
    def decision_game(self) -> Round | None:
        """The engine at the last decision point; None before the first."""
        return self.game if self.next_draw() is None else self.position.previous

    # ---- chance --------------------------------------------------------------------------

    def next_draw(self) -> tuple[str, int, list[int]] | None:
        """At a chance node, what is drawn, for whom and from which ids:
        ``(DEAL, seat, cards)`` or ``(LINE, TABLE, Win Cards)``; None elsewhere."""
        position, rules = self.position, self.rules
        dealt = len(position.deck)
        if dealt < len(self.fixed.deal_seats):
            undealt = sorted(set(range(cards_in_play(rules.num_players))) - set(position.deck))
            return DEAL, self.fixed.deal_seats[dealt], undealt
        game = position.game
        if game is None:
            face_up = rules.visible_win_cards
        elif game.phase == Phase.ROUND_OVER:
            return None
        else:
            face_up = game.trick + rules.visible_win_cards
        if len(position.line) < min(face_up, NUM_WIN_CARDS):
            return LINE, TABLE, sorted(set(range(NUM_WIN_CARDS)) - set(position.line))
        return None

    def _built(self, deck: tuple[int, ...], line: tuple[int, ...],
               actions: tuple[int, ...]) -> Round:
        """The engine after a history: the chosen cards stacked on the deck and the line, the
        cards not chosen after them, then the actions."""
        rest = sorted(set(range(cards_in_play(self.rules.num_players))) - set(deck))
        later = sorted(set(range(NUM_WIN_CARDS)) - set(line))
        game = Round(self.rules, np.random.default_rng(_SEED), [*deck, *rest], [*line, *later])
        for action in actions:
            game.step(action)
        return game

    # ---- OpenSpiel's API -------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, CHANCE at a draw, TERMINAL once the round is over."""
        if self.next_draw() is not None:
            return pyspiel.PlayerId.CHANCE
        if self.game.phase == Phase.ROUND_OVER:
            return pyspiel.PlayerId.TERMINAL
        return self.game.current_player

    def is_terminal(self) -> bool:
        return self.next_draw() is None and self.game.phase == Phase.ROUND_OVER

    def _legal_actions(self, player: int) -> list[int]:
        """The acting player's legal actions, as the AEC env's mask (ascending ids)."""
        game = self.game
        if self.next_draw() is not None or player != game.current_player:
            return []
        return list(game.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The ids the next draw can give, each with its exact probability."""
        return uniform(self.next_draw()[2])

    def _apply_action(self, action: int) -> None:
        """Apply a card dealt, a Win Card turned face up or a player's action; one the state
        refuses raises ValueError and changes nothing."""
        position, draw = self.position, self.next_draw()
        n = self.rules.num_players
        zeros = (0.0,) * n
        if draw is not None:
            kind, seat, ids = draw
            if action not in ids:
                raise ValueError(f"{action} is not a chance outcome here; the next draw gives "
                                 f"one of the ids {ids}")
            deck, line = position.deck, position.line
            if kind == DEAL:
                deck = (*deck, int(action))
            else:
                line = (*line, int(action))
            changes: dict[str, Any] = {"deck": deck, "line": line}  # the rewards stay
            tokens = (Token(kind, seat, int(action)),)
            if kind == LINE:  # the deal is complete: the engine with this Win Card
                changes["game"] = self._built(deck, line, position.actions)
        else:
            game = self.game
            legal = [] if self.is_terminal() else game.legal_actions()
            if action not in legal:
                raise ValueError(f"action {action} is not legal here; legal: {legal}")
            after = game.clone()
            after.step(int(action))
            reward = float(after.outcome) + self._shaping_term(game, after)
            tokens = (action_token(game.current_player, int(action)),)
            delivered = after.log[-1] if after.log[-1].kind == "deliver" else None
            if delivered is not None:
                tokens += tuple(Token(RECEIVE, delivered.seat, c) for c in delivered.data)
            changes = {"actions": (*position.actions, int(action)), "game": after,
                       "previous": game, "rewards": (reward,) * n,
                       "returns": tuple(r + reward for r in position.returns or zeros)}
        text = ", ".join([*([position.text] if position.text else []),
                          *(TOKENS.token_string(t, True) for t in tokens)])
        self.position = dataclasses.replace(position, tokens=(*position.tokens, *tokens),
                                            text=text, **changes)

    def _shaping_term(self, before: Round, after: Round) -> float:
        """The shaping term of a step (``docs/himilo.md`` section 6, as the AEC env adds it
        at ``shaping_weight`` 1): on a step that ends a trick, the failed inequalities of a
        team win it removed over their number; 0 on any other step or without shaping."""
        if self.rules.shaping != CONSTRAINT_SHAPING or after.trick == before.trick:
            return 0.0
        return (before.failed_constraints() - after.failed_constraints()) \
            / tricks.num_constraints(self.rules.num_players)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            draw = self.next_draw()
            return win_card_str(action) if draw is not None and draw[0] == LINE \
                else card_str(action)
        return A.action_to_string(action)

    def returns(self) -> list[float]:
        """Each player's rewards so far (all at the end unless shaping is on)."""
        return list(self.position.returns or (0.0,) * self.rules.num_players)

    def rewards(self) -> list[float]:
        """Each player's reward since the last decision point (chance pays nothing)."""
        return list(self.position.rewards or (0.0,) * self.rules.num_players)

    def __str__(self) -> str:
        """The whole history, every card shown."""
        return self.position.text


# ---- observers ---------------------------------------------------------------------------------


def action_token(seat: int, action: int) -> Token:
    """An action as a token: its kind and its card id (or bid index)."""
    if action in A.BIDS:
        return Token(BID, seat, action - A.BID_LOW)
    if action >= A.FIRST_PASS:
        return Token(PASS, seat, A.card_of(action))
    return Token(PLAY, seat, action)


def token_action(token: Token) -> int:
    """The action id of an action's token."""
    if token.kind == BID:
        return A.BID_LOW + token.value
    return A.pass_card(token.value) if token.kind == PASS else A.play(token.value)


def shown(token: Token, player: int) -> bool:
    """Whether ``player`` sees a token's value: the cards dealt or passed to a seat, and the
    card a seat sets aside to pass, are that seat's alone."""
    return token.kind not in (DEAL, RECEIVE, PASS) or token.seat == player


def _token_text(token: Token, seen: bool) -> str:
    if token.kind == LINE:
        return f"line {win_card_str(token.value)}"
    who = player_name(token.seat)
    if token.kind in (BID, PASS, PLAY):
        return f"{who} {A.action_to_string(token_action(token)) if seen else 'passes'}"
    return f"{who} {token.kind} {card_str(token.value) if seen else '?'}"


TOKENS = TokenView(
    kinds=TOKEN_KINDS,
    value_offsets={DEAL: 0, RECEIVE: 0, PASS: 0, PLAY: 0, LINE: NUM_CARD_IDS,
                   BID: NUM_CARD_IDS + NUM_WIN_CARDS},
    value_width=NUM_CARD_IDS + NUM_WIN_CARDS + len(A.BIDS),
    shown=shown, text=_token_text, player_name=player_name)
"""Tokens of the information state: a seat one-hot (none for a Win Card), a kind one-hot,
then the card, Win Card or bid one-hot (zeros when hidden from the observer)."""


def table_view(rules: RuleSet) -> TableView:
    """The AEC env's observation vector and the player's table text."""
    return TableView(observation_size(rules.num_players), Encoder(rules).encode, render_text)


def load(rules: RuleSet | str = "standard") -> HimiloGame:
    """The ``python_himilo`` game of a RuleSet or preset name."""
    return PARAMETERS.load(rules)


pyspiel.register_game(GAME_TYPE, HimiloGame)
