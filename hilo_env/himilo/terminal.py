"""Hi MiLo! in the terminal: what ``hilo play --game himilo`` says and reads for this game.

The terminal view of :class:`hilo_env.agents.play.TerminalView` (the play loop's protocol,
documented there): ``count`` rounds, the dealer moving one seat clockwise each, the person
and bots making one team; typed actions ``bid high``, ``pass 7S``, ``play 7S`` (a bare card
plays or passes it, a bare ``low`` / ``middle`` / ``high`` or its first letter bids); the cards
others pass stay hidden; a line for each trick taken.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from hilo_env.himilo import actions as A
from hilo_env.himilo.cards import card_str, win_card_str
from hilo_env.himilo.engine import WIN, Round
from hilo_env.himilo.render import describe_legal, player_name, render_text
from hilo_env.himilo.rules import RuleSet

DEFAULT_COUNT = 1
"""Rounds a match plays when no count is asked for."""
SHORTCUTS = ("a bare card ('7S') plays or passes it; a bare 'low', 'middle' or "
             "'high' bids, and so do their first letters ('h').")
"""What ``help`` prints after the legal actions and ``Shortcuts:`` (``hilo play --help``
repeats it)."""
ACTION, TRICK = "action", "trick"
"""The kinds of the engine's events for an action taken and a trick won."""


def match_rules(rules: RuleSet, count: int) -> RuleSet:
    return rules  # every round of a match is an episode of its own


def deals(rules: RuleSet, seed: int, count: int) -> Iterator[Round]:
    """``count`` rounds, the dealer one seat clockwise each time."""
    for r in range(count):
        yield Round(rules, np.random.default_rng([seed, r]),
                    dealer=(rules.dealer_seat + r) % rules.num_players)


def intro(rules: RuleSet) -> list[str]:
    return ["The team wins a round when the High bidder takes the most tricks and the Low "
            "bidder the fewest. Type 'bid high', 'pass 7S', 'play 7S' (or just '7S', 'high')."]


def parse_command(text: str, legal: Sequence[int]) -> int:
    """The legal action a typed command names; ValueError listing the legal ones otherwise."""
    words = text.strip().lower().split()
    bids = [b for b in A.BID_NAMES.values() if len(words) == 1 and b.startswith(words[0])]
    if len(bids) == 1:
        words = [A.BID_WORD, *bids]
    elif len(words) == 1 and legal:
        words = [A.PASS_WORD if A.is_pass(legal[0]) else A.PLAY_WORD, *words]
    try:
        action = A.string_to_action(" ".join(words))
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not an action. Legal now: "
                         f"{legal_text(legal)}") from None
    if action not in legal:
        raise ValueError(f"{text.strip()!r} is not legal now. Legal now: {legal_text(legal)}")
    return action


def legal_text(legal: Sequence[int]) -> str:
    return describe_legal(list(legal))


def phrase(action: int, hidden: bool) -> str:
    """``bid high``, ``play 7S``, ``pass 7S``; a passed card stays hidden from others."""
    if hidden and A.is_pass(action):
        return f"{A.PASS_WORD} a card"
    return A.action_to_string(action)


def table(game: Round, seat: int) -> str:
    return render_text(game, viewer=seat)


def news(game: Round) -> list[str]:
    """Who took the trick the last card finished, and the cards in it."""
    for event in reversed(game.log):  # the events since the last action, newest first
        if event.kind == ACTION:
            break
        if event.kind == TRICK:
            number, win_card, played = event.data
            return [f"  {player_name(event.seat)} takes trick {number + 1} under "
                    f"{win_card_str(win_card)} ({' '.join(card_str(c) for c in played)})."]
    return []


def outcome(game: Round, seat: int) -> list[str]:
    return [render_text(game, viewer=seat)]


def score(game: Round, seat: int) -> int:
    """1 for a round the team won, else 0."""
    return int(game.outcome == WIN)


def match_end(game: Round, seat: int, total: float, played: int) -> list[str]:
    return [f"The team won {total} of {played} round{'s' if played > 1 else ''}."]
