"""Hi MiLo! in the terminal: a person and bots make one team.

:func:`play` deals rounds (the dealer moving one seat clockwise each), renders the table
before each of the person's decisions, reads typed actions (``bid high``, ``pass 7S``,
``play 7S``; a bare card ``7S`` plays or passes it, a bare ``low``/``middle``/``high`` bids;
``help`` lists the legal ones, ``quit`` leaves) and answers a wrong one with the legal ones;
end of input or Ctrl-C ends cleanly. It writes to ``out`` and reads from ``read_line``, so
tests can script it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TextIO

import numpy as np

from hilo_env.agents.himilo import make
from hilo_env.agents.play import ask, terminal_reader
from hilo_env.himilo import actions as A
from hilo_env.himilo.engine import WIN, Round
from hilo_env.himilo.observation import Encoder, action_mask
from hilo_env.himilo.render import describe_legal, player_name, render_text
from hilo_env.himilo.rules import RuleSet, resolve


def parse_command(text: str, legal: Sequence[int]) -> int:
    """The legal action a typed command names; ValueError listing the legal ones otherwise."""
    words = text.strip().lower().split()
    if len(words) == 1 and words[0] in A.BID_NAMES.values():
        words = [A.BID_WORD, *words]
    elif len(words) == 1 and legal:
        words = [A.PASS_WORD if A.is_pass(legal[0]) else A.PLAY_WORD, *words]
    try:
        action = A.string_to_action(" ".join(words))
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not an action. Legal now: "
                         f"{describe_legal(list(legal))}") from None
    if action not in legal:
        raise ValueError(f"{text.strip()!r} is not legal now. Legal now: "
                         f"{describe_legal(list(legal))}")
    return action


def narrate(seat: int, action: int) -> str:
    """One line for a bot's bid or play: ``player_2 bids high``, ``player_1 plays 7S``."""
    verb, what = A.action_to_string(action).split()
    return f"  {player_name(seat)} {verb}s {what}"


def play(teammates: str = "team", rules: RuleSet | str = "standard", rounds: int = 1,
         seed: int = 0, seat: int = 0, read_line: Callable[[str], str] | None = None,
         out: TextIO | None = None) -> int:
    """A person (seat ``seat``) plays ``rounds`` rounds with ``teammates`` bots in the other
    seats; returns the rounds the team won. ``read_line(prompt)`` reads a command."""
    out = out or sys.stdout
    read_line = read_line or terminal_reader()
    rules = resolve(rules)
    n = rules.num_players
    if rounds < 1:
        raise ValueError(f"--hands (rounds) must be at least 1, not {rounds}")
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1} for {n} players, not {seat}")
    bots = {s: make(teammates, rules, seed=seed + 1 + s) for s in range(n) if s != seat}
    encoder = Encoder(rules)

    def say(text: str = "") -> None:
        print(text, file=out)

    say(f"You are {player_name(seat)}, in a team with {n - 1} {teammates} bots ({n} players, "
        f"{rounds} round{'s' if rounds > 1 else ''}). The team wins a round when the High "
        "bidder takes the most tricks and the Low bidder the fewest.")
    say("Type 'bid high', 'pass 7S', 'play 7S' (or just '7S', 'high'); 'help' lists the "
        "legal actions, 'quit' leaves.")
    won = 0
    for r in range(rounds):
        game = Round(rules, np.random.default_rng([seed, r]),
                     dealer=(rules.dealer_seat + r) % n)
        say()
        say(f"── Round {r + 1} of {rounds} " + "─" * 40)
        while game.current_player is not None:
            s = game.current_player
            if s != seat:
                action = bots[s].act(encoder.encode(game, s), action_mask(game))
                if not A.is_pass(action):  # the cards others pass stay hidden
                    say(narrate(s, action))
                game.step(action)
                continue
            say(render_text(game, viewer=seat))
            action = ask(game.legal_actions(), read_line, say, parse_command, _help_lines)
            if action is None:
                say("Bye.")
                return won
            game.step(action)
        say(render_text(game, viewer=seat))
        won += game.outcome == WIN
    say()
    say(f"The team won {won} of {rounds} round{'s' if rounds > 1 else ''}.")
    return won


def _help_lines(legal: list[int]) -> list[str]:
    return [f"Legal now: {describe_legal(legal)}"]
