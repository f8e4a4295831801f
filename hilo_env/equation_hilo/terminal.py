"""Equation Hi-Lo in the terminal: what ``hilo play`` says and reads for this game.

The terminal view of :class:`hilo_env.agents.play.TerminalView` (the play loop's protocol,
documented there): a match of ``count`` hands with the stacks carried over (one
:class:`~equation_hilo.engine.Game` with ``hands_per_episode = count``), typed actions with
their shortcuts (a bare number is a raise, ``all-in`` raises to the cap, the first letters of
``fold check call low high swing`` are enough when unambiguous: ``h`` declares High), the
person's best equations before each decision, and the showdown after each hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import numpy as np

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.render import render_text
from hilo_env.equation_hilo.rules import RuleSet

DEFAULT_COUNT = 3
"""Hands a match plays when no count is asked for."""
ALL_IN_WORDS = ("allin", "all-in", "all in", "shove")
PREFIX_WORDS = ("fold", "check", "call", "low", "high", "swing")
"""The actions whose first letters are enough when only one legal action starts with them."""
SHORTCUTS = (
    "a bare number N is 'raise N'; 'all-in' (or 'allin', 'shove') raises to the cap; the first "
    "letters of fold, check, call, low, high, swing are enough when only one legal action "
    "starts with them ('f', 'h', 'sw'); 'bet N' is 'raise N'. In 'raise N', N is your total "
    "wager this hand (ante included), not the chips added.")
"""What ``help`` prints after the legal actions and ``Shortcuts:`` (``hilo play --help``
repeats it)."""
LEGEND = ("Table: a card is its number and suit letter (G gold, S silver, B bronze, K black), "
          "× and √ are the special cards, [??] a hidden card; D marks the dealer button, > the "
          "player to act.")
"""The intro's key to the rendered table."""
_RAISE = re.compile(r"(?:raise|bet) \d+")


def match_rules(rules: RuleSet, count: int) -> RuleSet:
    """A match of ``count`` hands is one episode: the stacks carry over from hand to hand."""
    return rules.replace(hands_per_episode=count)


def deals(rules: RuleSet, seed: int, count: int) -> Iterator[Game]:
    """The match's hands, one game moved to its next hand each time (``count`` is
    ``rules.hands_per_episode``; the match ends sooner once one player holds every chip)."""
    game = Game(rules, np.random.default_rng(seed))
    yield game
    while game.phase != Phase.MATCH_OVER:
        game.start_next_hand()
        yield game


def intro(rules: RuleSet) -> list[str]:
    return [f"Each player starts with {rules.starting_stack} chips. Type an action when asked: "
            "'check', 'call', 'fold', 'raise 5', 'low', 'high'"
            + (", 'swing'" if rules.swing else "") + ", 'discard +'.",
            LEGEND]


def parse_command(text: str, legal: Sequence[int]) -> int:
    """The legal action a typed command names; ValueError with the legal ones otherwise.

    Besides the action texts of :mod:`equation_hilo.actions`, a bare number is a raise to that
    total, ``all-in`` a raise to the cap, and the first letters of ``fold check call low high
    swing`` are enough when unambiguous (``h`` at a declaration is ``high``).
    """
    t = " ".join(text.strip().lower().split())
    raises = [a for a in legal if a >= A.FIRST_RAISE]
    if t in ALL_IN_WORDS and raises:
        return raises[-1]
    if t.isdigit():
        t = f"raise {t}"
    matches = [w for w in PREFIX_WORDS
               if t and w.startswith(t) and A.string_to_action(w) in legal]
    if len(matches) == 1 and t not in PREFIX_WORDS:
        t = matches[0]
    try:
        action = A.string_to_action(t)
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not an action{_raise_note(t, raises)}. Legal "
                         f"now: {A.describe_legal(legal)}") from None
    if action not in legal:
        raise ValueError(f"{text.strip()!r} is not legal now{_raise_note(t, raises)}. Legal "
                         f"now: {A.describe_legal(legal)}")
    return action


def _raise_note(command: str, raises: Sequence[int]) -> str:
    """For a refused ``raise N``: what N means, and the totals allowed now."""
    if not _RAISE.fullmatch(command):
        return ""
    if not raises:
        return " (no raise is allowed now)"
    lo, hi = A.raise_total(raises[0]), A.raise_total(raises[-1])
    return f" (N in 'raise N' is your total wager this hand, {lo}..{hi} now)"


def legal_text(legal: Sequence[int]) -> str:
    return A.describe_legal(legal)


def phrase(action: int, hidden: bool) -> str:
    """``raise to 5``, ``declare high``, ``discard +``; a declaration stays secret when
    ``hidden`` (others learn it at the showdown)."""
    if action in A.DECLARATIONS:
        return "declare (secretly)" if hidden else f"declare {A.action_to_string(action)}"
    if action >= A.FIRST_RAISE:
        return f"raise to {A.raise_total(action)}"
    return A.action_to_string(action)


def equations_text(game: Game, seat: int) -> str | None:
    """A seat's best Low and High equations once its four numbers are known, else None."""
    numbers = game.number_cards(seat)
    if len(numbers) < 4 or numbers[0] < 0 or (game.phase == Phase.DISCARD
                                               and game.current_player == seat):
        return None
    sol = solver.solve([c // cards.NUM_SUITS for c in numbers], game.operators[seat],
                       game.roots[seat], integer_results=game.rules.integer_results)
    parts = []
    for side, eq in (("Low", sol.low), ("High", sol.high)):
        parts.append(f"{side} {eq.equation} = {eq.value:.4g}" if eq else f"{side}: none valid")
    return "Your best equations: " + ";  ".join(parts)


def table(game: Game, seat: int) -> str:
    """The table as the person sees it, and its best equations once it holds four numbers."""
    hint = equations_text(game, seat)
    return render_text(game, viewer=seat) + (f"\n{hint}" if hint else "")


def news(game: Game) -> list[str]:
    return []  # the person sees the cards dealt in the table before its next decision


def outcome(game: Game, seat: int) -> list[str]:
    """The showdown (every hand shown) and the person's chips won or lost this hand."""
    net = game.result.net[seat]
    won = ("You broke even this hand." if net == 0 else
           f"You {'won' if net > 0 else 'lost'} {abs(net)} chip{'s' if abs(net) != 1 else ''} "
           "this hand.")
    return [render_text(game, viewer=seat), won]


def score(game: Game, seat: int) -> int:
    """Chips won this hand; in a hand left unfinished, the chips wagered are lost."""
    return game.result.net[seat] if game.result is not None else -game.wagers[seat]


def match_end(game: Game, seat: int, total: float, played: int) -> list[str]:
    return [f"Match over after {played} hand{'s' if played > 1 else ''}: you have "
            f"{game.stacks[seat]} chips ({total:+d})."]


def spectator_table(game: Game) -> str:
    """The table as a spectator sees it, without the hand counter of a single-hand game and
    the 'to act' line (the narration says who acts): the demo shows it."""
    lines = render_text(game, viewer=None).split("\n")
    lines[0] = lines[0].replace(f"Hand {game.hand_number}/{game.rules.hands_per_episode}  ", "")
    if game.result is None:
        lines = lines[:-1]
    return "\n".join(line for line in lines if not line.lstrip().startswith("Match over"))
