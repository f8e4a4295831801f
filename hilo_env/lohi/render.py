"""The lo-hi table as text for people: public facts for all, one hand for its owner."""

from __future__ import annotations

from hilo_env.lohi.cards import NUM_SUITS, RANK_TEXTS, card_text
from hilo_env.lohi.engine import CLOCKWISE, Game, Need, Phase

PILE_SHOWN = 6
"""Cards of the discard pile's top shown, top last, by rank only (suits carry no meaning
and would hint at hands, ``docs/lohi.md`` section 7)."""


def player_name(seat: int) -> str:
    """The PettingZoo agent name of a seat."""
    return f"player_{seat}"


def need_text(game: Game) -> str:
    """``any card``, ``higher than or equal to 9``, ``exactly Q``..."""
    top = RANK_TEXTS[game.top_rank]
    if game.need == Need.HIGHER:
        return f"{top} or higher"
    if game.need == Need.LOWER:
        return f"{top} or lower"
    if game.need == Need.EXACT:
        return f"exactly {RANK_TEXTS[game.called]}"
    return "any rank"


def render_text(game: Game, viewer: int | None = None) -> str:
    """The table: round, seats (hand sizes, wins), the pile, the need; ``viewer``'s hand."""
    arrow = "clockwise" if game.direction == CLOCKWISE else "counterclockwise"
    lines = [f"lo-hi  round {game.round_number}  decision {game.turns}  play goes {arrow}"]
    for seat in range(game.num_players):
        mark = ">" if seat == game.current_player else " "
        won = "  game winner" if seat == game.winner else ""
        lines.append(f" {mark} {player_name(seat)}: {game.hand_sizes[seat]:2d} cards, "
                     f"{game.wins[seat]} round(s) won{won}")
    shown = " ".join(RANK_TEXTS[c // NUM_SUITS] for c in game.pile[-PILE_SHOWN:])
    more = "... " if len(game.pile) > PILE_SHOWN else ""
    lines.append(f"   pile: {more}{shown}   stock: {len(game.stock)}   "
                 f"pick ups in a row: {game.pickups}")
    if game.phase == Phase.GAME_OVER:
        lines.append("   game over" + ("  (cut off: max_turns)" if game.truncated else ""))
    else:
        waiting = {Phase.PLAY: "to play or pick up", Phase.CHOOSE: "to choose higher or lower",
                   Phase.CALL: "to call a rank"}[game.phase]
        lines.append(f"   next play: {need_text(game)}   "
                     f"{player_name(game.current_player)} {waiting}")
    if viewer is not None:
        lines.append(f"   {player_name(viewer)}'s hand: "
                     + " ".join(card_text(c) for c in game.hand(viewer)))
    return "\n".join(lines)
