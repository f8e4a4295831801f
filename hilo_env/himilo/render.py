"""Hi MiLo! as text for people: the line of Win Cards, bids, trick counts, the trick on the
table, and one player's hand (never another's)."""

from __future__ import annotations

from hilo_env.himilo import actions as A
from hilo_env.himilo.cards import card_str, win_card_str
from hilo_env.himilo.engine import LOSS, NO_BID, WIN, Phase, Round
from hilo_env.himilo.rules import HAND_SIZE

BID_TEXT = {NO_BID: "-", 0: "Low", 1: "Middle", 2: "High"}
OUTCOME_TEXT = {WIN: "the team WINS", LOSS: "the team loses"}


def player_name(seat: int) -> str:
    """The agent name of a seat, as the environments use it."""
    return f"player_{seat}"


def cards_text(ids: list[int]) -> str:
    """Card ids as text, ``-`` for none."""
    return " ".join(card_str(c) for c in ids) or "-"


def line_text(game: Round) -> str:
    """The face-up Win Cards from the current trick's, and how many lie face down."""
    visible = game.visible_line()
    hidden = len(game.line) - game.trick - len(visible)
    text = " ".join(win_card_str(w) for w in visible) or "-"
    return text + (f"  (+{hidden} face down)" if hidden else "")


def render_text(game: Round, viewer: int | None = None) -> str:
    """The table as text; ``viewer``'s hand and passes show, nobody else's."""
    n = game.num_players
    head = {Phase.BID: "bidding", Phase.PASS: "passing",
            Phase.PLAY: f"trick {game.trick + 1}/{HAND_SIZE}",
            Phase.ROUND_OVER: "round over"}[game.phase]
    lines = [f"Hi MiLo! {n} players, {head}   Win Cards: {line_text(game)}"]
    tricks = game.tricks_won()
    for seat in range(n):
        marks = ("D" if seat == game.dealer else " ") + (
            ">" if seat == game.current_player else " ")
        lines.append(f" {marks} {player_name(seat)}  bid {BID_TEXT[game.bids[seat]]:<6}  "
                     f"tricks {tricks[seat]:>2}  cards {len(game.hands[seat]):>2}")
    if game.phase == Phase.PLAY:
        played = [f"{player_name((game.leader + i) % n)} {card_str(c)}"
                  for i, c in enumerate(game.trick_cards)]
        lines.append(f"Trick under {win_card_str(game.win_card)}: "
                     + (", ".join(played) or "nothing played yet"))
    if viewer is not None:
        lines.append(f"{player_name(viewer)}'s hand: {cards_text(game.hands[viewer])}")
        if game.passed[viewer] or game.received[viewer]:
            lines.append(f"  passed {cards_text(game.passed[viewer])}; "
                         f"received {cards_text(game.received[viewer])}")
    if game.phase == Phase.ROUND_OVER:
        lines.append(f"Round over: {OUTCOME_TEXT[game.outcome]} (tricks "
                     f"{', '.join(map(str, tricks))}).")
    else:
        lines.append(f"To act: {player_name(game.current_player)}")
    return "\n".join(lines)


def describe_legal(legal: list[int]) -> str:
    """The legal actions as one line of texts."""
    return ", ".join(A.action_to_string(a) for a in legal)
