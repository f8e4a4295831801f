"""Text view of a game for people: stacks, pot, cards, whose turn, and the showdown."""

from __future__ import annotations

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.solver import OP_SYMBOLS, OPERATORS

DECLARATION_NAMES = {A.DECLARE_LOW: "Low", A.DECLARE_HIGH: "High", A.DECLARE_SWING: "Swing"}


def player_name(seat: int) -> str:
    """The agent name of a seat, as the environments use it."""
    return f"player_{seat}"


def hand_text(game: Game, seat: int, show_hidden: bool) -> str:
    """A seat's cards: hidden card (or ``??``), face-up cards, operators."""
    hidden = cards.card_str(game.hidden[seat]) if show_hidden and game.hidden[seat] >= 0 else "??"
    up = " ".join(cards.card_symbol(c) for c in game.up[seat])
    ops = " ".join(OP_SYMBOLS[o] for o in sorted(game.operators[seat], key=OPERATORS.index))
    return f"[{hidden}] {up:<22} ops {ops}"


def render_text(game: Game, viewer: int | None = None) -> str:
    """The table as text. Hidden cards show for ``viewer`` only, and for all at showdown."""
    showdown = game.result is not None and not game.result.fold_out
    pot = game.pot if game.result is None else sum(game.result.payouts) + game.result.house
    lines = [f"Hand {game.hand_number}/{game.rules.hands_per_episode}  pot {pot}  "
             f"cap {game.cap}  house {game.house}"]
    for seat in range(game.num_players):
        marks = ("D" if seat == game.button else " ") + (
            ">" if seat == game.current_player else " ")
        if game.eliminated[seat] and game.result is None:
            status = "out"
        elif not game.in_hand[seat]:
            status = "folded"
        else:
            status = f"bet {game.wagers[seat]:>3}" if game.result is None else ""
        cards_text = hand_text(game, seat, showdown or seat == viewer)
        lines.append(f"{marks} {player_name(seat):<9} stack {game.stacks[seat]:>4}  "
                     f"{status:<8} {cards_text}")
    if game.result is not None:
        lines.extend(result_lines(game))
    elif game.current_player is not None:
        legal = A.describe_legal(game.legal_actions())
        lines.append(f"{player_name(game.current_player)} to act ({game.phase.name.lower()}): "
                     f"{legal}")
    return "\n".join(lines)


def result_lines(game: Game) -> list[str]:
    """The end of a hand: declarations, equations, winners and payouts."""
    res = game.result
    assert res is not None
    if res.fold_out:
        winner = res.payouts.index(max(res.payouts))
        return [f"Everyone else folded: {player_name(winner)} takes {res.payouts[winner]}."]
    lines = []
    for seat, sol in enumerate(res.solutions):
        if sol is None:
            continue
        decl = DECLARATION_NAMES.get(res.declarations[seat], "?")
        parts = []
        for side, eq in (("Low", sol.low), ("High", sol.high)):
            if decl in (side, "Swing"):
                parts.append(f"{side}: {eq.equation} = {eq.value:.4g}" if eq else f"{side}: none")
        lines.append(f"  {player_name(seat)} declares {decl:<5}  " + "   ".join(parts))
    sides = []
    if res.low_winner is not None:
        sides.append(f"Low to {player_name(res.low_winner)}")
    if res.high_winner is not None:
        sides.append(f"High to {player_name(res.high_winner)}")
    if res.failed_swing:
        sides.append("failed Swing: " + ", ".join(player_name(s) for s in res.failed_swing))
    paid = ", ".join(f"{player_name(s)} +{c}" for s, c in enumerate(res.payouts) if c)
    lines.append("  " + "; ".join(sides) + f".  Paid: {paid}" +
                 (f", house +{res.house}" if res.house else ""))
    if game.phase == Phase.MATCH_OVER:
        lines.append("  Match over. Stacks: " + ", ".join(
            f"{player_name(s)} {c}" for s, c in enumerate(game.stacks)))
    return lines
