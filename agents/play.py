"""Equation Hi-Lo in the terminal: a person against any registered agent, and the bot demo.

:func:`play` deals a match, renders the table before each of the person's decisions, reads
typed actions (``call``, ``raise 5``, ``low``, ``discard +``; ``help`` lists the legal ones
and the shortcuts of ``SHORTCUTS_HELP``, ``quit`` leaves) and answers a wrong one with the
legal ones; end of input or Ctrl-C ends the match cleanly. At a terminal, keys typed while an
agent thinks are dropped before each prompt, so they are never read as the next action.
:func:`demo` lets agents play a few seeded hands and narrates them.
Both write to ``out`` and read from ``read_line``, so tests can script them.
"""

from __future__ import annotations

import contextlib
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import TextIO

import numpy as np

from hilo_env.agents.base import Agent
from hilo_env.agents.registry import make, needs_extra
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.observation import Encoder, action_mask
from hilo_env.equation_hilo.render import (
    DECLARATION_NAMES,
    player_name,
    render_text,
)
from hilo_env.equation_hilo.rules import RuleSet, resolve

QUIT_WORDS = ("quit", "exit", "q")
HELP_WORDS = ("", "help", "?", "h")
ALL_IN_WORDS = ("allin", "all-in", "all in", "shove")
PROMPT = "your action> "
WIDTH = 80
"""Columns the intro and help texts are wrapped to."""
DEMO_AGENTS = ("heuristic", "caller")
"""The demo's agents, seated in turn (repeated when the rules have more players)."""
SHORTCUTS_HELP = (
    "Shortcuts: a bare number N is 'raise N'; 'all-in' (or 'allin', 'shove') raises to the "
    "cap; the first letters of fold, check, call, low, high, swing are enough when only one "
    "legal action starts with them ('f', 'l', 'sw'); 'bet N' is 'raise N'. In 'raise N', N "
    "is your total wager this hand (ante included), not the chips added.")
"""What ``help`` prints after the legal actions (and ``hilo play --help`` repeats)."""
LEGEND = ("Table: a card is its number and suit letter (G gold, S silver, B bronze, K black), "
          "× and √ are the special cards, [??] a hidden card; D marks the dealer button, > the "
          "player to act.")
"""The intro's key to the rendered table."""
_RAISE = re.compile(r"(?:raise|bet) \d+")
_ACTION_ARGUMENT = re.compile(r"\b(?:raise|bet|discard) (?:N\b|\d+|[-+*/×÷−])")


def parse_command(text: str, legal: Sequence[int]) -> int:
    """The legal action a typed command names; ValueError with the legal ones otherwise.

    Besides the action texts of :mod:`equation_hilo.actions`, a bare number is a raise to that
    total, ``all-in`` a raise to the cap, and the first letters of ``fold check call low high
    swing`` are enough when unambiguous.
    """
    t = " ".join(text.strip().lower().split())
    raises = [a for a in legal if a >= A.FIRST_RAISE]
    if t in ALL_IN_WORDS and raises:
        return raises[-1]
    if t.isdigit():
        t = f"raise {t}"
    words = ("fold", "check", "call", "low", "high", "swing")
    matches = [w for w in words if t and w.startswith(t) and A.string_to_action(w) in legal]
    if len(matches) == 1 and t not in words:
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


def _rule(title: str, width: int = 64) -> str:
    head = f"── {title} "
    return head + "─" * max(3, width - len(head))


class _Seats:
    """The agents at the table, and their decisions from the engine's state."""

    def __init__(self, game: Game, agents: dict[int, Agent]) -> None:
        self.encoder = Encoder(game.rules)
        self.agents = agents

    def act(self, game: Game) -> int:
        seat = game.current_player
        return int(self.agents[seat].act(self.encoder.encode(game, seat), action_mask(game)))


def _narrate(game: Game, seat: int, action: int, label: str, secret: bool) -> str:
    who = f"{player_name(seat)} ({label})"
    if action in A.DECLARATIONS:
        return f"  {who} declares" + (" (secretly)" if secret else
                                      f" {DECLARATION_NAMES[action]}")
    if action >= A.FIRST_RAISE:
        return f"  {who} raises to {A.raise_total(action)}"
    text = {A.FOLD: "folds", A.CHECK: "checks", A.CALL: "calls"}.get(action)
    return f"  {who} {text or A.action_to_string(action)}"


def play(opponent: str = "heuristic", rules: RuleSet | str = "standard", hands: int = 3,
         seed: int = 0, seat: int = 0, read_line: Callable[[str], str] | None = None,
         out: TextIO | None = None) -> int:
    """A person (seat ``seat``) plays ``hands`` hands against ``opponent`` in every other
    seat; returns the person's chips won. End of input, Ctrl-C or ``quit`` stop early.
    ``read_line(prompt)`` reads a command (default: :func:`terminal_reader`)."""
    out = out or sys.stdout
    read_line = read_line or terminal_reader()
    rules = resolve(rules)
    if hands < 1:
        raise ValueError(f"--hands must be at least 1, not {hands}")
    rules = rules.replace(hands_per_episode=hands)
    n = rules.num_players
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1} for {n} players, not {seat}")

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    if needs_extra(opponent):  # a model loads when made, in seconds: say so before the wait
        say(f"Loading the {opponent} model...")
    bots = {s: make(opponent, rules, seed=seed + 1 + s) for s in range(n) if s != seat}
    game = Game(rules, np.random.default_rng(seed))
    seats = _Seats(game, bots)

    say(_wrap(f"You are {player_name(seat)} against {opponent} ({n} players, {hands} hand"
              f"{'s' if hands > 1 else ''}, {rules.starting_stack} chips each)."))
    say(_wrap("Type an action when asked: check, call, fold, raise 5, low, high"
              + (", swing" if rules.swing else "") + ", discard +; 'help' lists the legal "
              "ones and the shortcuts, 'quit' leaves."))
    say(_wrap(LEGEND))
    while True:
        say()
        say(_rule(f"Hand {game.hand_number} of {hands}"))
        while game.phase < Phase.HAND_OVER:
            s = game.current_player
            if s != seat:
                action = seats.act(game)
                say(_narrate(game, s, action, opponent, secret=True))
                game.step(action)
                continue
            say(render_text(game, viewer=seat))
            hint = equations_text(game, seat)
            if hint:
                say(hint)
            action = ask(game.legal_actions(), read_line, say, parse_command, _help_lines)
            if action is None:
                say("Bye.")
                return game.stacks[seat] - rules.starting_stack  # the wager is forfeit
            game.step(action)
        say(render_text(game, viewer=seat))
        net = game.result.net[seat]
        say("You broke even this hand." if net == 0 else
            f"You {'won' if net > 0 else 'lost'} {abs(net)} chip{'s' if abs(net) != 1 else ''} "
            "this hand.")
        if game.phase == Phase.MATCH_OVER:
            break
        game.start_next_hand()
    won = game.stacks[seat] - rules.starting_stack
    say()
    say(f"Match over after {game.hand_number} hand{'s' if game.hand_number > 1 else ''}: "
        f"you have {game.stacks[seat]} chips ({won:+d}).")
    return won


def _wrap(text: str) -> str:
    """``text`` wrapped to ``WIDTH`` columns, never between an action and its argument."""
    glued = _ACTION_ARGUMENT.sub(lambda m: m[0].replace(" ", "\0"), text)
    return textwrap.fill(glued, WIDTH).replace("\0", " ")


def drain_pending_input(stream: TextIO) -> None:
    """Drop keys typed while the program was busy (an agent thinking, a model loading), so
    they are not read as the next action. Does nothing off a Unix terminal."""
    try:
        import termios
    except ImportError:  # Windows
        return
    with contextlib.suppress(termios.error, OSError, ValueError):  # not a terminal after all
        termios.tcflush(stream.fileno(), termios.TCIFLUSH)


def terminal_reader(stream: TextIO | None = None) -> Callable[[str], str]:
    """At a terminal, ``input`` after dropping the keys typed since the last prompt; otherwise
    each line read is echoed (piped or scripted input then reads like a session)."""
    stream = stream or sys.stdin
    if stream.isatty():
        def ask(prompt: str) -> str:
            drain_pending_input(stream)
            return input(prompt)

        return ask

    def read(prompt: str) -> str:
        print(prompt, end="", flush=True)
        line = stream.readline()
        if not line:
            raise EOFError
        print(line.rstrip("\n"))
        return line

    return read


def ask(legal: list[int], read_line: Callable[[str], str], say: Callable[[str], None],
        parse: Callable[[str, list[int]], int], help_lines: Callable[[list[int]], list[str]],
        help_words: Sequence[str] = HELP_WORDS) -> int | None:
    """Read commands until ``parse`` takes one as a legal action (its ValueError is said and
    the prompt asked again); ``help_words`` say ``help_lines(legal)``; None to stop (a quit
    word, end of input, Ctrl-C). Every game's terminal play asks through it."""
    while True:
        try:
            text = read_line(PROMPT)
        except (EOFError, KeyboardInterrupt):
            say("")
            return None
        word = " ".join(text.strip().lower().split())
        if word in QUIT_WORDS:
            return None
        if word in help_words:
            for line in help_lines(legal):
                say(line)
            continue
        try:
            return parse(text, legal)
        except ValueError as exc:
            say(str(exc))


def _help_lines(legal: list[int]) -> list[str]:
    return [f"Legal now: {A.describe_legal(legal)}", _wrap(SHORTCUTS_HELP)]


def demo(names: Sequence[str] | None = None, rules: RuleSet | str = "standard",
         hands: int = 3, seed: int = 0, out: TextIO | None = None) -> dict[str, int]:
    """Agents play ``hands`` seeded single hands (fresh stacks, seats rotating each hand),
    narrated: the table at each new deal, every action, the equations at showdown, and a
    one-line summary. ``names`` defaults to ``DEMO_AGENTS`` in turn, one per seat the rules
    have. Returns the chips each agent won, by label (``heuristic``, ``heuristic #2``...)."""
    out = out or sys.stdout
    rules = resolve(rules).replace(hands_per_episode=1)
    n = rules.num_players
    if hands < 1:
        raise ValueError(f"--hands must be at least 1, not {hands}")
    chosen = names is not None
    names = list(names) if chosen else [DEMO_AGENTS[i % len(DEMO_AGENTS)] for i in range(n)]
    if len(names) != n:
        raise ValueError(f"these rules seat {n} agents, got {len(names)}: {names}")
    players = [make(nm, rules, seed=seed + i) for i, nm in enumerate(names)]
    labels = [nm if names[:i].count(nm) == 0 else f"{nm} #{names[:i].count(nm) + 1}"
              for i, nm in enumerate(names)]
    won = dict.fromkeys(labels, 0)

    def say(text: str = "") -> None:
        print(text, file=out)

    say(f"Equation Hi-Lo: {' vs '.join(labels)}, {hands} hand{'s' if hands > 1 else ''}, "
        f"seed {seed}.")
    if not chosen and n > len(DEMO_AGENTS):
        say(_wrap(f"These rules seat {n} players, so the demo's agents "
                  f"({' and '.join(DEMO_AGENTS)}) take the seats in turn."))
    say(_wrap("Each player gets a hidden card and face-up cards, bets, then declares Low (an "
              "equation near 1), High (near 20) or Swing (both); the best equation of each "
              "side takes half the pot."))
    for h in range(hands):
        order = [(s + h) % n for s in range(n)]  # seat s holds labels[order[s]]
        label = [labels[i] for i in order]
        game = Game(rules, np.random.default_rng([seed, h]))
        seats = _Seats(game, {s: players[i] for s, i in enumerate(order)})
        say()
        say(_rule(f"Hand {h + 1} of {hands}: " + ", ".join(
            f"{player_name(s)} {nm}" for s, nm in enumerate(label))))
        shown = None
        while game.phase < Phase.HAND_OVER:
            state = (game.round, sum(len(u) for u in game.up))
            if state != shown and game.phase != Phase.DECLARE:
                shown = state
                say(_table(game))
            s = game.current_player
            action = seats.act(game)
            say(_narrate(game, s, action, label[s], secret=False))
            game.step(action)
        say(_table(game))
        for s, chips in enumerate(game.result.net):
            won[label[s]] += chips
    say()
    say(f"After {hands} hand{'s' if hands > 1 else ''}: "
        + ", ".join(f"{nm} {w:+d} chips" for nm, w in won.items()) + ".")
    return won


def _table(game: Game) -> str:
    """The rendered table without the hand counter of a single-hand game and the 'to act'
    line (the narration says who acts)."""
    lines = render_text(game, viewer=None).split("\n")
    lines[0] = lines[0].replace(f"Hand {game.hand_number}/{game.rules.hands_per_episode}  ", "")
    if game.result is None:
        lines = lines[:-1]
    return "\n".join(line for line in lines if not line.lstrip().startswith("Match over"))
