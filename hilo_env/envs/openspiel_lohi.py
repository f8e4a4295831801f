"""lo-hi as an OpenSpiel game, ``python_lohi`` (the ``openspiel`` extra).

Importing this module registers the game with pyspiel, so ``pyspiel.load_game("python_lohi")``
and ``pyspiel.load_game("python_lohi(preset=single_round,players=3)")`` work. It is a thin
layer over the engine (:class:`lohi.engine.Game`): each decision is the engine's ``step``, and
the cards that step draws are chance outcomes chosen one at a time, stacked on the engine's
stock (top last) and handed out by its shuffle hook.

| property            | value                                                               |
|---------------------|---------------------------------------------------------------------|
| parameters          | ``preset`` (``standard``, ``single_round``) and every             |
|                     | :class:`lohi.rules.RuleSet` field, overriding the preset;           |
|                     | ``players`` is another name of ``num_players``                     |
| players             | 2..5; player ``i`` is the AEC env's ``player_i``                    |
| actions             | the AEC env's 200 action ids and texts (:mod:`lohi.actions`)        |
| chance              | explicit, at every card drawn: the card id, with its exact probability |
| returns             | the AEC env's rewards summed: the game's winner +1, every other seat |
|                     | -1/(n-1), and ``round_reward`` per round the same way               |
| rewards             | terminal, or per decision where ``round_reward`` is not 0          |
| information state   | perfect recall, as a string only (a game may run to ``max_turns``    |
|                     | decisions, too long for a tensor): every card the player was dealt  |
|                     | or picked up, every card turned face up, every action               |
| observation         | the AEC env's observation vector (tensor) and the player's table   |
|                     | text (string) at the last decision point                            |
| utility             | zero-sum                                                            |

**Chance, exactly.** Every deck is a uniform shuffle and no one sees the stock's order, so each
card drawn is uniform over the cards not yet drawn from it: a round's deal (each seat's cards,
then the face-up card) over the 52 cards not yet dealt in that round; a pick up's card and a
card turned face up over the cards in the stock; after a reshuffle of the discard pile, over
the cards reshuffled not yet drawn. Chance outcomes are card ids (``max_chance_outcomes``
52), their strings the card texts (``7D``). A step that needs no card (a play that wins no
round) has no chance node after it.

**Between decisions** the engine has drawn cards chance has not chosen yet, so the observation
tensor and string there are those of the last decision point (zeros and ``"dealing"`` before
the first). The information state is exact everywhere.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

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
from hilo_env.lohi import actions as A
from hilo_env.lohi import engine as E
from hilo_env.lohi.cards import DECK_SIZE, card_text
from hilo_env.lohi.observation import Encoder
from hilo_env.lohi.render import player_name, render_text
from hilo_env.lohi.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, RuleSet, resolve
from hilo_env.lohi.spec import SPEC

SHORT_NAME = SPEC.openspiel_name
PARAMETERS = Parameters(SHORT_NAME, RuleSet, resolve, PRESETS)
"""``preset``, every RuleSet field and ``players``."""
TABLE = -1
"""The seat of a card everyone sees (the face-up card of a deal, a card turned over)."""
DEAL, UP, DRAW, TURN, ACTION = "deal", "up", "draw", "turn", "action"
TOKEN_KINDS = (DEAL, UP, DRAW, TURN, ACTION)
"""What an information-state token records: a card dealt to a seat, the face-up card of a
deal, a card picked up, a card turned face up after the pick ups, an action."""
ROUND_SEPARATOR = "round"
"""The token that opens a round (its number)."""


def max_game_length(rules: RuleSet) -> int:
    """An upper bound on the moves of a game: ``max_turns`` decisions, at most two cards drawn
    per decision (a pick up's and a card turned over), and each round's deal (every seat's
    cards, at most ``final_cards``, and the face-up card)."""
    deal = rules.num_players * rules.final_cards + 1
    return 3 * rules.max_turns + rules.max_rounds * deal


def utility_bound(rules: RuleSet) -> float:
    """The most a seat can win or lose: the game reward 1, and ``round_reward`` for each of
    the at most ``max_rounds`` rounds."""
    return 1.0 + abs(rules.round_reward) * rules.max_rounds


GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python lo-hi",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS.specification(),
)
"""The registered type; a game without ``round_reward`` declares terminal rewards."""


class LohiGame(pyspiel.Game):
    """lo-hi under one rule set, as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        rules = PARAMETERS.rules_of(params)
        self.rules = rules
        n = rules.num_players
        rewards = pyspiel.GameType.RewardModel
        game_type = changed_type(GAME_TYPE, reward_model=rewards.REWARDS if rules.round_reward
                                 else rewards.TERMINAL)
        bound = utility_bound(rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=A.NUM_ACTIONS,
            max_chance_outcomes=DECK_SIZE,
            num_players=n,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=max_game_length(rules))
        super().__init__(game_type, info, PARAMETERS.game_params(rules))
        self.initial = Position.after(rules, None, None, ())
        """The position before the first card (every new state starts from it)."""

    def new_initial_state(self) -> LohiState:
        """A state before the first card is dealt."""
        return LohiState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The information-state observer (perfect recall, no tensor) or the observation
        observer."""
        rules = self.rules
        return make_observer(lambda: InfoStateObserver(TOKENS, rules.num_players, None),
                             lambda: TableObserver(table_view(rules)), SHORT_NAME,
                             iig_obs_type, params)


class Draw(NamedTuple):
    """One card an engine step draws: what kind of draw, for whom, from which cards."""

    kind: str
    """``deal``, ``up``, ``draw`` or ``turn`` (:data:`TOKEN_KINDS`)."""
    seat: int
    """The seat that gets the card; :data:`TABLE` for a card face up."""
    cards: tuple[int, ...]
    """The cards it is drawn from, ascending (each equally likely)."""


class StackedShuffle:
    """The engine's shuffle hook: the chosen cards it is given first, in the order chosen,
    then the rest ascending (cards chance has not chosen yet)."""

    def __init__(self, chosen: list[int]) -> None:
        self.chosen = chosen
        """The chosen cards not handed out yet, the next first (shared with the stacking of
        the stock)."""

    def __call__(self, cards: list[int]) -> list[int]:
        given = set(cards)
        top = []
        while self.chosen and self.chosen[0] in given:
            top.append(self.chosen.pop(0))
        return [*top, *sorted(given - set(top))]


@dataclasses.dataclass(frozen=True)
class Position:
    """The engine after a history, shared by copies of the state: a move makes a new one and
    never changes it (a deep copy keeps it)."""

    game: E.Game
    """The engine after the last decision's step, with the cards chosen so far; past the
    next draw at a chance node."""
    before: E.Game | None
    """The engine before that step (None for the first deal)."""
    action: int | None
    """The step's action (None for the first deal)."""
    chosen: tuple[int, ...]
    """The cards chance chose for the step's draws, in draw order."""
    draws: tuple[Draw, ...]
    """Every draw of the step."""
    tokens: tuple[Token, ...] = (Token(ROUND_SEPARATOR, TABLE, 1),)
    """Everything that happened, in order, for the information states."""
    rewards: tuple[float, ...] = ()
    """Each player's reward of the last decision, the draws after it included (OpenSpiel sums
    ``rewards()`` at decisions only); empty before the first."""
    text: str = "| round 1"
    """The tokens' text, every card shown (the state's string, made once per move)."""

    def __deepcopy__(self, memo: dict) -> Position:
        return self

    @property
    def next_draw(self) -> Draw | None:
        """The draw chance makes next; None at a decision or the end."""
        return self.draws[len(self.chosen)] if len(self.chosen) < len(self.draws) else None

    @property
    def decision_game(self) -> E.Game | None:
        """The engine at the last decision point (the observation between decisions)."""
        return self.game if self.next_draw is None else self.before

    @classmethod
    def after(cls, rules: RuleSet, before: E.Game | None, action: int | None,
              chosen: tuple[int, ...]) -> Position:
        """Step ``action`` from ``before`` (or deal the first round) with the ``chosen`` cards
        drawn first, in order, and cards not chosen after them."""
        queue = list(chosen)
        hook = StackedShuffle(queue)
        if before is None:
            game = E.Game(rules, hook)
            events = game.log
            stock: set[int] = set()
        else:
            game = before.clone()
            stock = set(game.stock)
            if action == A.PICK_UP:  # draws from the stock (a play that wins a round deals)
                top = []
                while queue and queue[0] in stock:
                    top.append(queue.pop(0))
                game.stock = [*sorted(stock - set(top), reverse=True), *reversed(top)]
            game.shuffle = hook
            game.step(action)
            events = game.log[len(before.log):]
        return cls(game, before, action, chosen, _draws(game, events, stock))


def _draws(game: E.Game, events: list[E.Event], stock: set[int]) -> tuple[Draw, ...]:
    """The draws of a step, from its log events: ``stock`` the cards in the stock before."""
    draws = []
    available = set(stock)
    for event in events:
        if event.kind == E.ROUND:  # a round's deal ends the step
            deck = event.data["deck"]
            dealt = DECK_SIZE - len(game.stock)
            holder = {c: seat for seat in range(game.num_players) for c in game.hand(seat)}
            for i, card in enumerate(deck[:dealt]):
                cards = tuple(sorted(set(deck) - set(deck[:i])))
                kind = UP if i == dealt - 1 else DEAL
                draws.append(Draw(kind, TABLE if kind == UP else holder[card], cards))
        elif event.kind == E.RESHUFFLE:
            available = set(event.data)
        elif (event.kind == E.DRAW and event.data is not None) or event.kind == E.TURN:
            card = event.data
            kind, seat = (DRAW, event.seat) if event.kind == E.DRAW else (TURN, TABLE)
            draws.append(Draw(kind, seat, tuple(sorted(available))))
            available.discard(card)
    return tuple(draws)


class LohiState(pyspiel.State):
    """A history of lo-hi: the engine after the decisions taken and the cards chance drew."""

    def __init__(self, game: LohiGame) -> None:
        super().__init__(game)
        self.rules = game.rules
        self.position: Position = game.initial

    @property
    def tokens(self) -> tuple[Token, ...]:
        """Everything that happened, in order, for the information states."""
        return self.position.tokens

    @property
    def game(self) -> E.Game:
        """The engine after the history (past the next draw at a chance node)."""
        return self.position.game

    @property
    def decision_game(self) -> E.Game | None:
        """The engine at the last decision point; None before the first."""
        return self.position.decision_game

    # ---- OpenSpiel's API -------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, CHANCE at a draw, TERMINAL once the game is over."""
        if self.position.next_draw is not None:
            return pyspiel.PlayerId.CHANCE
        if self.game.over:
            return pyspiel.PlayerId.TERMINAL
        return self.game.current_player

    def is_terminal(self) -> bool:
        return self.position.next_draw is None and self.game.over

    def _legal_actions(self, player: int) -> list[int]:
        """The acting player's legal actions, as the AEC env's mask (ascending ids)."""
        return list(self.game.legal_actions()) if player == self.game.current_player else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards the next draw can give, each with its exact probability."""
        return uniform(self.position.next_draw.cards)

    def _apply_action(self, action: int) -> None:
        """Apply a drawn card or a player's action; one the state refuses raises ValueError
        and changes nothing."""
        position, draw = self.position, self.position.next_draw
        if draw is not None:
            if action not in draw.cards:
                raise ValueError(f"{action} is not a chance outcome here; the next draw gives "
                                 f"one of the card ids {list(draw.cards)}")
            new = Position.after(self.rules, position.before, position.action,
                                 (*position.chosen, int(action)))
            tokens = (Token(draw.kind, draw.seat, int(action)),)
            rewards = position.rewards  # a draw pays nothing: still the last decision's
        else:
            game = self.game
            legal = [] if self.is_terminal() else game.legal_actions()
            if action not in legal:
                raise ValueError(f"action {action} is not legal here; legal: {legal}")
            new = Position.after(self.rules, game, int(action), ())
            tokens = (Token(ACTION, game.current_player, int(action)),)
            if new.game.round_number != game.round_number:
                tokens += (Token(ROUND_SEPARATOR, TABLE, new.game.round_number),)
            rewards = tuple(a - b for a, b in zip(new.game.payoffs, game.payoffs, strict=True))
        text = ", ".join([position.text, *(TOKENS.token_string(t, True) for t in tokens)])
        self.position = dataclasses.replace(new, tokens=(*self.tokens, *tokens), rewards=rewards,
                                            text=text)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return card_text(action)
        return A.action_to_string(action)

    def returns(self) -> list[float]:
        """Each player's rewards so far (all at the end unless ``round_reward`` is set)."""
        return [float(p) for p in self.game.payoffs]

    def rewards(self) -> list[float]:
        """Each player's reward since the last decision point (the draws pay nothing)."""
        return [float(r) for r in self.position.rewards or (0.0,) * self.rules.num_players]

    def __str__(self) -> str:
        """The whole history, every card shown."""
        return self.position.text


# ---- observers ---------------------------------------------------------------------------------


def shown(token: Token, player: int) -> bool:
    """Whether ``player`` sees a token's card: a card dealt or picked up is its seat's alone."""
    return token.kind not in (DEAL, DRAW) or token.seat == player


def _token_text(token: Token, seen: bool) -> str:
    if token.kind == ACTION:
        return f"{player_name(token.seat)} {A.action_to_string(token.value)}"
    card = card_text(token.value) if seen else "?"
    if token.seat == TABLE:
        return f"{token.kind} {card}"
    return f"{player_name(token.seat)} {token.kind} {card}"


TOKENS = TokenView(
    kinds=TOKEN_KINDS,
    value_offsets={**dict.fromkeys(TOKEN_KINDS, 0), ACTION: DECK_SIZE},
    value_width=DECK_SIZE + A.NUM_ACTIONS,
    shown=shown, text=_token_text, player_name=player_name)
"""Tokens of the information state (read as a string only)."""


def table_view(rules: RuleSet) -> TableView:
    """The AEC env's observation vector and the player's table text."""
    encoder = Encoder(rules)
    return TableView(encoder.size, encoder.encode, render_text)


def load(rules: RuleSet | str = "standard") -> LohiGame:
    """The ``python_lohi`` game of a RuleSet or preset name."""
    return PARAMETERS.load(rules)


pyspiel.register_game(GAME_TYPE, LohiGame)
