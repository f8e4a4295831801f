"""lo-hi's table as one description (:class:`hilo_env.table.Table`): each seat's hand size
and rounds won, the viewer's own hand only, the discard pile's top by rank, what the next play
must be, and the legal actions."""

from __future__ import annotations

from hilo_env.lohi import actions as A
from hilo_env.lohi.cards import NUM_SUITS, RANK_TEXTS, SUIT_TEXTS, card_text
from hilo_env.lohi.engine import CLOCKWISE, Game, Phase
from hilo_env.lohi.render import PILE_SHOWN, need_text, player_name
from hilo_env.table import BACK, Action, Card, Seat, Table, count

RED_SUITS = "HD"
WAITING = {Phase.PLAY: "to play or pick up", Phase.CHOOSE: "to choose higher or lower",
           Phase.CALL: "to call a rank"}


def card(card_id: int, private: bool = False) -> Card:
    """A card face up: its rank and suit, hearts and diamonds in red."""
    suit = SUIT_TEXTS[card_id % NUM_SUITS]
    return Card(card_text(card_id), "red" if suit in RED_SUITS else "black", private=private)


def describe(game: Game, viewer: int | None = None) -> Table:
    """The table as ``viewer`` sees it (None: a spectator, who sees no hand)."""
    seats = tuple(Seat(
        name=player_name(seat),
        facts=(count(game.hand_sizes[seat], "card"), count(game.wins[seat], "round") + " won"),
        cards=tuple(card(c, private=True) for c in game.hand(seat)) if seat == viewer
        else (BACK,) * game.hand_sizes[seat],
        to_act=seat == game.current_player,
        note="wins the game" if seat == game.winner else "")
        for seat in range(game.num_players))
    over = game.phase == Phase.GAME_OVER
    arrow = "clockwise" if game.direction == CLOCKWISE else "counterclockwise"
    status = "" if over else (f"next play: {need_text(game)} · "
                              f"{player_name(game.current_player)} {WAITING[game.phase]}")
    result = ()
    if over:
        result = (("Game over: " + (f"{player_name(game.winner)} wins." if game.winner is not None
                                    else "no winner.")
                   + (" (Cut off: max_turns.)" if game.truncated else "")),)
    more = len(game.pile) - PILE_SHOWN
    return Table(
        game="lohi", title="lo-hi",
        headline=f"Round {game.round_number} · decision {game.turns} · play goes {arrow} · "
                 f"stock {len(game.stock)} · pick ups in a row {game.pickups}",
        seats=seats, viewer=viewer, to_act=None if over else game.current_player,
        centre_label="pile" + (f" (+{more} under)" if more > 0 else ""),
        centre=tuple(Card(RANK_TEXTS[c // NUM_SUITS]) for c in game.pile[-PILE_SHOWN:]),
        status=status,
        legal=() if over else tuple(Action(a, A.action_to_string(a))
                                    for a in game.legal_actions()),
        result=result)
