"""Equation Hi-Lo's table as one description (:class:`hilo_env.table.Table`): seats with
stacks, wagers, the button and the seat to act, face-up cards, the viewer's own hidden card
only (everyone's at a showdown), the legal actions (raises with their totals), and at a
showdown each declared side's best equation (the solver's) with its distance and the pot's
split."""

from __future__ import annotations

from dataclasses import replace

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.render import DECLARATION_NAMES, player_name
from hilo_env.equation_hilo.solver import OP_SYMBOLS, OPERATORS
from hilo_env.table import BACK, Action, Card, Seat, Table

SUIT_COLOURS = ("gold", "silver", "bronze", "black")
"""The colours of ``cards.SUIT_LETTERS`` (Gold, Silver, Bronze, Black) in order."""
PHASE_WORDS = {Phase.BET: "betting", Phase.DISCARD: "discarding", Phase.DECLARE: "declaring"}


def card(card_id: int) -> Card:
    """A face-up card: a number in its suit's colour, × in blue, √ in purple."""
    if cards.is_number(card_id):
        return Card(cards.card_symbol(card_id), SUIT_COLOURS[cards.suit(card_id)])
    return Card(cards.card_symbol(card_id), "blue" if cards.is_multiply(card_id) else "purple")


def legal_actions(game: Game) -> tuple[Action, ...]:
    """The legal actions, each raise with its total (``group`` ``raise``)."""
    if game.current_player is None:
        return ()
    return tuple(Action(a, A.action_to_string(a), "raise", A.raise_total(a))
                 if a >= A.FIRST_RAISE else Action(a, A.action_to_string(a))
                 for a in game.legal_actions())


def describe(game: Game, viewer: int | None = None) -> Table:
    """The table as ``viewer`` sees it (None: a spectator)."""
    res = game.result
    showdown = res is not None and not res.fold_out
    pot = game.pot if res is None else sum(res.payouts) + res.house
    seats = []
    for seat in range(game.num_players):
        hidden = game.hidden[seat]
        if hidden < 0:
            shown = []
        elif showdown:
            shown = [card(hidden)]
        else:
            shown = [replace(card(hidden), private=True) if seat == viewer else BACK]
        ops = " ".join(OP_SYMBOLS[o] for o in sorted(game.operators[seat], key=OPERATORS.index))
        if game.eliminated[seat] and res is None:
            state = "out of the match"
        elif res is not None:
            state = f"this hand {res.net[seat]:+d}"
        elif not game.in_hand[seat]:
            state = "folded"
        else:
            state = f"bet {game.wagers[seat]}"
        seats.append(Seat(
            name=player_name(seat),
            facts=(f"stack {game.stacks[seat]}", state, f"ops {ops}" if ops else "no ops"),
            cards=tuple(shown) + tuple(card(c) for c in game.up[seat]),
            to_act=seat == game.current_player,
            marks=("dealer",) if seat == game.button else (),
            out=not game.in_hand[seat],
            note=showdown_note(game, seat) if showdown else ""))
    status = ""
    if game.current_player is not None:
        status = f"{player_name(game.current_player)} to act ({PHASE_WORDS[game.phase]})"
    return Table(
        game="hilo", title="Equation Hi-Lo",
        headline=f"Hand {game.hand_number} of {game.rules.hands_per_episode} · pot {pot} · "
                 f"cap {game.cap}" + (f" · house {game.house}" if game.house else ""),
        seats=tuple(seats), viewer=viewer, to_act=game.current_player, pot=pot,
        status=status, legal=legal_actions(game), result=tuple(result_lines(game)))


def showdown_note(game: Game, seat: int) -> str:
    """A seat's declaration and its best equation of each declared side, with its distance
    from the target (``Low 3 + 4 ÷ 4 = 4, 3 off 1``)."""
    res = game.result
    sol = res.solutions[seat] if res is not None else None
    if sol is None:
        return ""
    decl = DECLARATION_NAMES.get(res.declarations[seat], "?")
    parts = [f"declares {decl}"]
    for side, eq in (("Low", sol.low), ("High", sol.high)):
        if decl in (side, "Swing"):
            parts.append(f"{side} {eq.equation} = {eq.value:.4g}, {eq.distance:.4g} off "
                         f"{eq.target}" if eq else f"{side}: no equation")
    return "; ".join(parts)


def result_lines(game: Game) -> list[str]:
    """The end of a hand: who took each side and the chips paid (and the match's end)."""
    res = game.result
    if res is None:
        return []
    if res.fold_out:
        winner = res.payouts.index(max(res.payouts))
        lines = [f"Everyone else folded: {player_name(winner)} takes {res.payouts[winner]}."]
    else:
        sides = [f"{side} to {player_name(w)}" for side, w in
                 (("Low", res.low_winner), ("High", res.high_winner)) if w is not None]
        if res.failed_swing:
            sides.append("failed Swing: " + ", ".join(map(player_name, res.failed_swing)))
        paid = ", ".join(f"{player_name(s)} +{c}" for s, c in enumerate(res.payouts) if c)
        lines = ["; ".join(sides) + f". Paid: {paid}" +
                 (f", house +{res.house}" if res.house else "") + "."]
    if game.phase == Phase.MATCH_OVER:
        lines.append("Match over. Stacks: " + ", ".join(
            f"{player_name(s)} {c}" for s, c in enumerate(game.stacks)) + ".")
    return lines
