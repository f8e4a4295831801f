"""Hi MiLo!'s table as one description (:class:`hilo_env.table.Table`): the face-up Win
Cards, each seat's bid, tricks and cards left, the trick on the table, the viewer's own hand
and passes only, and the legal actions."""

from __future__ import annotations

from hilo_env.himilo import actions as A
from hilo_env.himilo.cards import SUIT_LETTERS, card_str, suit, win_card_str
from hilo_env.himilo.engine import Phase, Round
from hilo_env.himilo.render import BID_TEXT, OUTCOME_TEXT, cards_text, line_text, player_name
from hilo_env.himilo.rules import HAND_SIZE
from hilo_env.table import BACK, Action, Card, Seat, Table, count

RED_SUITS = "HD"
PHASE_WORDS = {Phase.BID: "bidding", Phase.PASS: "passing", Phase.ROUND_OVER: "round over"}


def card(card_id: int, private: bool = False) -> Card:
    """A card face up: its value and suit, hearts and diamonds in red; ``private``: in the
    viewer's own hand."""
    return Card(card_str(card_id), "red" if SUIT_LETTERS[suit(card_id)] in RED_SUITS
                else "black", private=private)


def describe(game: Round, viewer: int | None = None) -> Table:
    """The table as ``viewer`` sees it (None: a spectator, who sees no hand)."""
    n = game.num_players
    tricks = game.tricks_won()
    seats = []
    for seat in range(n):
        note = ""
        if seat == viewer and (game.passed[seat] or game.received[seat]):
            note = (f"passed {cards_text(game.passed[seat])}; "
                    f"received {cards_text(game.received[seat])}")
        seats.append(Seat(
            name=player_name(seat),
            facts=(f"bid {BID_TEXT[game.bids[seat]]}", f"tricks {tricks[seat]}",
                   count(len(game.hands[seat]), "card")),
            cards=tuple(card(c, private=True) for c in game.hands[seat]) if seat == viewer
            else (BACK,) * len(game.hands[seat]),
            to_act=seat == game.current_player,
            marks=("dealer",) if seat == game.dealer else (), note=note))
    phase = PHASE_WORDS.get(game.phase, f"trick {game.trick + 1} of {HAND_SIZE}")
    centre_label, centre = "", ()
    if game.phase == Phase.PLAY:
        played = ", ".join(player_name((game.leader + i) % n)
                           for i in range(len(game.trick_cards)))
        centre_label = (f"trick under Win Card {win_card_str(game.win_card)}"
                        + (f", played by {played}" if played else
                           f", {player_name(game.leader)} leads"))
        centre = tuple(map(card, game.trick_cards))
    over = game.phase == Phase.ROUND_OVER
    result = (f"Round over: {OUTCOME_TEXT[game.outcome]} (tricks "
              f"{', '.join(map(str, tricks))}).",) if over else ()
    return Table(
        game="himilo", title="Hi MiLo!",
        headline=f"{n} players · {phase} · Win Cards: {line_text(game)}",
        seats=tuple(seats), viewer=viewer, to_act=game.current_player,
        centre_label=centre_label, centre=centre,
        status="" if over else f"{player_name(game.current_player)} to act ({phase})",
        legal=() if over else tuple(Action(a, A.action_to_string(a))
                                    for a in game.legal_actions()),
        result=result)

