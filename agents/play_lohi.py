"""lo-hi in the terminal: a person against any lo-hi agent.

:func:`play` deals ``games`` games, renders the table before each of the person's decisions,
reads typed actions (the exact texts such as ``play 7 7``, ``play 8 9 10``, ``call A``; or
shortcuts: ``p`` / ``pick`` for ``pick up``, ``h`` / ``l`` for ``higher`` / ``lower``, bare
ranks ``7 7`` for ``play 7 7``; ``help`` lists the legal ones, ``quit`` leaves) and answers a
wrong one with the legal ones. It writes to ``out`` and reads from ``read_line``, so tests can
script it; end of input stops cleanly.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from hilo_env.agents.lohi import make
from hilo_env.agents.play import ask, terminal_reader
from hilo_env.lohi import actions as A
from hilo_env.lohi.cards import RANK_OF_TEXT
from hilo_env.lohi.engine import Game, SeededShuffle
from hilo_env.lohi.observation import Encoder, action_mask
from hilo_env.lohi.render import player_name, render_text
from hilo_env.lohi.rules import RuleSet, resolve

HELP_WORDS = ("", "help", "?")
"""The words that list the legal actions (not ``h``: that is ``higher``)."""
SHORTCUTS = {"p": A.PICK_UP_TEXT, "pick": A.PICK_UP_TEXT, "pickup": A.PICK_UP_TEXT,
             "h": A.HIGHER_TEXT, "l": A.LOWER_TEXT}


def parse_command(text: str, legal: Sequence[int]) -> int:
    """The legal action a typed command names; ValueError listing the legal ones otherwise."""
    t = A.normalize(SHORTCUTS.get(text.strip().lower(), text))
    words = t.split()
    if words and all(w.upper() in RANK_OF_TEXT for w in words):
        t = A.normalize(f"{A.PLAY_WORD} {t}")
    try:
        action = A.string_to_action(t)
    except ValueError:
        action = None
    if action is None or action not in legal:
        what = "is not legal now" if action is not None else "is not an action"
        raise ValueError(f"{text.strip()!r} {what}. Legal now: "
                         f"{', '.join(A.TEXTS[a] for a in legal)}")
    return action


def play(opponent: str = "heuristic", rules: RuleSet | str = "standard", games: int = 1,
         seed: int = 0, seat: int = 0, read_line: Callable[[str], str] | None = None,
         out: TextIO | None = None) -> float:
    """A person (seat ``seat``) plays ``games`` games against ``opponent`` in every other
    seat; returns the person's total reward. End of input or ``quit`` stop early (a game
    left unfinished scores what it has paid so far)."""
    out = out or sys.stdout
    read_line = read_line or terminal_reader()
    rules = resolve(rules)
    n = rules.num_players
    if games < 1:
        raise ValueError(f"--hands (games) must be at least 1, not {games}")
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1} for {n} players, not {seat}")
    bots = {s: make(opponent, rules, seed=seed + 1 + s) for s in range(n) if s != seat}
    encoder = Encoder(rules)

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(f"You are {player_name(seat)} against {opponent} ({n} players, {games} game"
        f"{'s' if games > 1 else ''}). Type an action when asked: 'play 7 7', "
        "'play 8 9 10', 'pick up' (p), 'higher' (h), 'lower' (l), 'call A'; 'help' lists "
        "the legal ones, 'quit' leaves.")
    total = 0.0
    for number in range(1, games + 1):
        game = Game(rules, SeededShuffle(seed * 1_000_003 + number))
        say(f"\n── Game {number} of {games} ──")
        rounds_won = 0
        while not game.over:
            s = game.current_player
            if s != seat:
                action = bots[s].act(encoder.encode(game, s), action_mask(game))
                say(f"  {player_name(s)} ({opponent}): {A.TEXTS[action]}")
            else:
                say(render_text(game, viewer=seat))
                action = ask(game.legal_actions(), read_line, say, parse_command, _help_lines,
                             HELP_WORDS)
                if action is None:
                    say("Bye.")
                    return total + game.payoffs[seat]
            game.step(action)
            if len(game.round_winners) != rounds_won:
                rounds_won = len(game.round_winners)
                say(f"  {player_name(game.round_winners[-1])} goes out and wins round "
                    f"{len(game.round_winners)}.")
        say(render_text(game, viewer=seat))
        won = game.winner == seat
        say(f"{'You win' if won else player_name(game.winner) + ' wins'} the game "
            f"({game.payoffs[seat]:+.2f} for you)." if game.winner is not None
            else "The game was cut off.")
        total += game.payoffs[seat]
    say(f"\nTotal over {games} game{'s' if games > 1 else ''}: {total:+.2f}")
    return total


def _help_lines(legal: list[int]) -> list[str]:
    return ["Legal now: " + ", ".join(A.TEXTS[a] for a in legal)]
