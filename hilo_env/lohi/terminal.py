"""lo-hi in the terminal: what ``hilo play --game lohi`` says and reads for this game.

The terminal view of :class:`hilo_env.agents.play.TerminalView` (the play loop's protocol,
documented there): ``count`` independent games, typed actions in their exact texts (``play 7
7``, ``play 8 9 10``, ``call A``) or shortcuts (``p`` / ``pick`` for ``pick up``, ``h`` /
``l`` for ``higher`` / ``lower``, bare ranks ``7 7`` for ``play 7 7``), a line for each round
won, and the winner of each game.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from hilo_env.lohi import actions as A
from hilo_env.lohi.cards import RANK_OF_TEXT
from hilo_env.lohi.engine import ACTION, ROUND_WON, TRUNCATED, Game, SeededShuffle
from hilo_env.lohi.render import player_name, render_text
from hilo_env.lohi.rules import RuleSet

DEFAULT_COUNT = 1
"""Games a match plays when no count is asked for."""
SHORTCUT_WORDS = {"p": A.PICK_UP_TEXT, "pick": A.PICK_UP_TEXT, "pickup": A.PICK_UP_TEXT,
                  "h": A.HIGHER_TEXT, "l": A.LOWER_TEXT}
SHORTCUTS = ("'p' (or 'pick') is 'pick up', 'h' is 'higher', 'l' is 'lower', and "
             "bare ranks are a play ('7 7' is 'play 7 7').")
"""What ``help`` prints after the legal actions and ``Shortcuts:`` (``hilo play --help``
repeats it)."""
CHOOSE_VERB = "choose"
"""The verb of ``higher`` and ``lower`` when a line tells who chose them."""
SEED_STRIDE = 1_000_003
"""Game ``k`` of a match seeded ``s`` shuffles with seed ``s * SEED_STRIDE + k``."""


def match_rules(rules: RuleSet, count: int) -> RuleSet:
    return rules  # every game of a match is an episode of its own


def deals(rules: RuleSet, seed: int, count: int) -> Iterator[Game]:
    """``count`` fresh games, each shuffled from its own seed."""
    for number in range(1, count + 1):
        yield Game(rules, SeededShuffle(seed * SEED_STRIDE + number))


def intro(rules: RuleSet) -> list[str]:
    return ["The first to empty the hand wins the round (and is dealt one card more in the "
            f"next); a round won from a hand of {rules.final_cards} cards wins the game. Type an "
            "action when asked: 'play 7 7', 'play 8 9 10', 'pick up' (p), 'higher' (h), "
            "'lower' (l), 'call A'."]


def parse_command(text: str, legal: Sequence[int]) -> int:
    """The legal action a typed command names; ValueError listing the legal ones otherwise."""
    t = A.normalize(SHORTCUT_WORDS.get(text.strip().lower(), text))
    words = t.split()
    if words and all(w.upper() in RANK_OF_TEXT for w in words):
        t = A.normalize(f"{A.PLAY_WORD} {t}")
    try:
        action = A.string_to_action(t)
    except ValueError:
        action = None
    if action is None or action not in legal:
        what = "is not legal now" if action is not None else "is not an action"
        raise ValueError(f"{text.strip()!r} {what}. Legal now: {legal_text(legal)}")
    return action


def legal_text(legal: Sequence[int]) -> str:
    return ", ".join(A.TEXTS[a] for a in legal)


def phrase(action: int, hidden: bool) -> str:
    """``play 7 7``, ``pick up``, ``call A``, ``choose higher``: nothing is hidden."""
    if action in (A.HIGHER, A.LOWER):
        return f"{CHOOSE_VERB} {A.TEXTS[action]}"
    return A.TEXTS[action]


def table(game: Game, seat: int) -> str:
    return render_text(game, viewer=seat)


def news(game: Game) -> list[str]:
    """What the last action caused besides itself: a round won, the game cut off."""
    lines = []
    for event in reversed(game.log):  # the events since the last action, newest first
        if event.kind == ACTION:
            break
        if event.kind == ROUND_WON:
            lines.append(f"  {player_name(event.seat)} goes out and wins round {event.data}.")
        elif event.kind == TRUNCATED:
            lines.append(f"  The game is cut off after {event.data} decisions.")
    return lines[::-1]


def outcome(game: Game, seat: int) -> list[str]:
    """The final table and who won the game."""
    if game.winner is None:
        return [render_text(game, viewer=seat), "The game was cut off."]
    who = "You win" if game.winner == seat else f"{player_name(game.winner)} wins"
    return [render_text(game, viewer=seat),
            f"{who} the game ({game.payoffs[seat]:+.2f} for you)."]


def score(game: Game, seat: int) -> float:
    """The seat's rewards in this game so far (round rewards, then the game's)."""
    return game.payoffs[seat]


def match_end(game: Game, seat: int, total: float, played: int) -> list[str]:
    return [f"Total over {played} game{'s' if played > 1 else ''}: {total:+.2f}"]
