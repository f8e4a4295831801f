"""Any registered game in the terminal: a person with or against agents, and the bot demo.

:func:`play` is the one play loop of every game (``hilo play --game NAME``). It deals a match
of ``count`` units (hands, games or rounds: the spec's ``unit``), renders the table before
each of the person's decisions, reads typed actions (``help``, ``?`` or an empty line lists
the legal ones and the game's shortcuts; ``quit`` leaves) and answers a wrong one with the
legal ones; end of input or Ctrl-C ends the match cleanly. Every action is told as people
speak: ``You call``, ``player_1 (heuristic) discards +``. At a terminal, keys typed while an
agent thinks are dropped before each prompt, so they are never read as the next action.
:func:`demo` lets agents play a few seeded hands of Equation Hi-Lo and narrates them. Both
write to ``out`` and read from ``read_line``, so tests can script them.

The terminal-view protocol
--------------------------
Everything game-specific lives in the game's terminal view, the module its
:class:`~hilo_env.game_spec.GameSpec` names as ``terminal`` (``hilo_env/<game>/terminal.py``;
it imports no RL library and nothing of ``hilo_env.agents``, ``envs``, ``training`` or
``cli``). A fourth game writes one such module; :class:`TerminalView` lists what it defines at
module level; besides it the loop reads only the game's AEC env (``spec.raw_env(rules)``, a
:class:`~hilo_env.envs.card_game_env.CardGameEnv`): the seats' names (``possible_agents``) and
what the agents see (``encoder.encode(state, seat)``, ``mask_of(state)``), so a bot sees
exactly what the env gives it. ``state`` is the game's engine state for one episode (one
unit): it has ``current_player`` (None once the episode is over), ``legal_actions()`` (action
ids) and ``step(action)``. In order of use:

==================================  =========================================================
``DEFAULT_COUNT: int``              units a match plays when none is asked for
``SHORTCUTS: str``                  the shortcuts, a sentence or two that ``help`` prints
                                    after the legal actions and ``Shortcuts:`` (and ``hilo
                                    play --help`` after the game's title); ``""`` for none
``match_rules(rules, count)``       the rules a match of ``count`` units plays under (the
                                    agents are made for them)
``intro(rules) -> list[str]``       paragraphs after the loop's "You are ..." line (wrapped to
                                    80 columns; a quoted ``'play 7 7'`` is never split)
``deals(rules, seed, count)``       an iterator of the match's episodes: each state is asked
                                    for after the previous one is over (it may be the same
                                    object moved on); it may stop before ``count``
``table(state, seat) -> str``       what the person sees before each of its decisions
``parse_command(text, legal)``      the action id a typed command names; a ValueError whose
                                    message is said to the person (with the legal ones)
``legal_text(legal) -> str``        the legal actions for people: ``fold, call, raise 3..9``
``phrase(action, hidden) -> str``   the action as a verb phrase in the imperative (``call``,
                                    ``raise to 5``, ``pick up``): the loop says ``You call``
                                    for the person and ``player_1 (heuristic) calls`` for a
                                    bot; ``hidden``: what the person may not learn (a secret
                                    declaration, a passed card) stays hidden
``news(state) -> list[str]``        lines on what the last step caused besides the action
                                    (``player_2 goes out and wins round 1``); often ``[]``
``outcome(state, seat)``            lines at the end of an episode (the showdown)
``score(state, seat) -> float``     the person's score in the episode so far (also of one
                                    left unfinished); :func:`play` returns their sum
``match_end(state, seat, total,     the last lines, after ``played`` finished episodes
played) -> list[str]``
==================================  =========================================================
"""

from __future__ import annotations

import contextlib
import re
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, TextIO

import numpy as np

from hilo_env import games
from hilo_env.agents.base import Agent
from hilo_env.agents.registry import check, make, needs_extra
from hilo_env.equation_hilo import terminal as equation_hilo_view
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.game_spec import load
from hilo_env.outputs import check_file
from hilo_env.replays import Episode, Replay

QUIT_WORDS = ("quit", "exit", "q")
HELP_WORDS = ("", "help", "?")
PROMPT = "your action> "
YOU = "You"
"""Who the person's own actions are told of."""
PERSON = "person"
"""The person's seat in a replay's seat labels."""
WIDTH = 80
"""Columns the intro and help texts are wrapped to."""
DEMO_AGENTS = ("heuristic", "caller")
"""The demo's agents, seated in turn (repeated when the rules have more players)."""
_QUOTED = re.compile(r"(?<!\w)'[^'\s][^'\n]{0,18}'(?!\w)")
"""A short quoted command (``'raise 5'``): :func:`wrap` never splits it."""


class TerminalView(Protocol):
    """What a game's terminal view module defines (see the module docstring's table)."""

    DEFAULT_COUNT: int
    SHORTCUTS: str

    def match_rules(self, rules: Any, count: int) -> Any: ...
    def intro(self, rules: Any) -> list[str]: ...
    def deals(self, rules: Any, seed: int, count: int) -> Iterator[Any]: ...
    def table(self, state: Any, seat: int) -> str: ...
    def parse_command(self, text: str, legal: Sequence[int]) -> int: ...
    def legal_text(self, legal: Sequence[int]) -> str: ...
    def phrase(self, action: int, hidden: bool) -> str: ...
    def news(self, state: Any) -> list[str]: ...
    def outcome(self, state: Any, seat: int) -> list[str]: ...
    def score(self, state: Any, seat: int) -> float: ...
    def match_end(self, state: Any, seat: int, total: float, played: int) -> list[str]: ...


class Seats:
    """The seats of a game's env: their names, and an agent's decision on an engine state as
    the env would ask for it (the observation of the seat to act and the action mask)."""

    def __init__(self, env: Any) -> None:
        self.names: list[str] = list(env.possible_agents)
        self.encoder, self.mask_of = env.encoder, type(env).mask_of

    def act(self, agent: Agent, state: Any) -> int:
        seat = state.current_player
        return int(agent.act(self.encoder.encode(state, seat), self.mask_of(state)))


def view(game: str | None = None) -> TerminalView:
    """The terminal view of ``game`` (None: the default game); ValueError for an unknown one."""
    return load(games.get(game).terminal)


def play(opponent: str | None = None, rules: Any = None, count: int | None = None,
         seed: int = 0, seat: int = 0, *, game: str | None = None,
         read_line: Callable[[str], str] | None = None, out: TextIO | None = None,
         save_replay: str | Path | None = None, allow_other_rules: bool = False) -> float:
    """A person (seat ``seat``) plays ``count`` units of ``game`` (None: the view's
    ``DEFAULT_COUNT``) with ``opponent`` (None: the spec's baseline) in every other seat;
    returns the person's total score (chips, rewards, rounds won). End of input, Ctrl-C or
    ``quit`` stop early. ``read_line(prompt)`` reads a command (default:
    :func:`terminal_reader`). ``save_replay``: a file the match is written to as a replay
    (:mod:`hilo_env.replays`), also when it stops early. ``allow_other_rules``: a trained
    opponent plays rules other than its own (:mod:`agents.ppo`). Bad arguments raise
    ValueError before anything is said."""
    spec = games.get(game)
    shown = view(spec.name)
    opponent = spec.baseline if opponent is None else opponent
    check(opponent, spec.name)
    count = shown.DEFAULT_COUNT if count is None else count
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"--{spec.unit}s must be at least 1, not {count!r}")
    rules = shown.match_rules(spec.rules(rules), count)
    n = rules.num_players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1} for {n} players, not {seat!r}")
    if save_replay is not None:
        check_file(save_replay, "--save-replay")
    out = out or sys.stdout
    read_line = read_line or terminal_reader()

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    if needs_extra(opponent, spec.name):  # a model loads when made, in seconds: say so first
        say(f"Loading the {opponent} model...")
    bots = {s: make(opponent, rules, seed=seed + 1 + s, game=spec.name,
                    allow_other_rules=allow_other_rules)
            for s in range(n) if s != seat}
    seats = Seats(spec.raw_env(rules))
    units = f"{count} {spec.unit}{'s' if count > 1 else ''}"
    me = seats.names[seat]
    say(wrap(f"You are {me}, in a team with {n - 1} {opponent} bot{'s' if n > 2 else ''} "
             f"({n} players, {units})." if spec.cooperative else
             f"You are {me} against {opponent} ({n} players, {units})."))
    for note in dict.fromkeys(bot.rules_note for bot in bots.values() if bot.rules_note):
        say(wrap(f"Note: {note}."))
    for paragraph in shown.intro(rules):
        say(wrap(paragraph))
    say(wrap("'help' lists the legal actions and the shortcuts, 'quit' leaves."))

    def help_lines(legal: list[int]) -> list[str]:
        return [f"Legal now: {shown.legal_text(legal)}",
                *([wrap(f"Shortcuts: {shown.SHORTCUTS}")] if shown.SHORTCUTS else [])]

    record = Replay.new(spec.name, rules, {"by": "match", "seed": seed, "count": count})
    labels = [PERSON if s == seat else opponent for s in range(n)]
    try:
        total, played, state = 0, 0, None
        for state in shown.deals(rules, seed, count):
            record.episodes.append(Episode(seats=labels))
            say()
            say(rule(f"{spec.unit.capitalize()} {played + 1} of {count}"))
            while state.current_player is not None:
                s = state.current_player
                if s == seat:
                    say(shown.table(state, seat))
                    action = ask(state.legal_actions(), read_line, say, shown.parse_command,
                                 help_lines)
                    if action is None:
                        say("Bye.")
                        return total + shown.score(state, seat)
                    say(narration(shown, action))
                else:
                    action = seats.act(bots[s], state)
                    say(narration(shown, action, f"{seats.names[s]} ({opponent})"))
                state.step(action)
                record.episodes[-1].actions.append(int(action))
                for line in shown.news(state):
                    say(line)
            for line in shown.outcome(state, seat):
                say(line)
            total += shown.score(state, seat)
            played += 1
        say()
        for line in shown.match_end(state, seat, total, played):
            say(line)
        return total
    finally:
        if save_replay is not None:
            say(f"Replay written to {record.save(save_replay)}.")


def narration(shown: TerminalView, action: int, who: str | None = None,
              hidden: bool = True) -> str:
    """One line for an action: the person's (``who`` None: ``You call``) or another seat's
    (``player_1 (heuristic) calls``), what the person may not see hidden unless ``hidden`` is
    False (the demo shows everything)."""
    if who is None:
        return f"  {YOU} {shown.phrase(action, hidden=False)}"
    return f"  {who} {third_person(shown.phrase(action, hidden=hidden))}"


def third_person(phrase: str) -> str:
    """``call`` -> ``calls``, ``pass 7S`` -> ``passes 7S``: the verb (first word) conjugated."""
    verb, _, rest = phrase.partition(" ")
    verb += "es" if verb.endswith(("s", "sh", "ch", "x", "z")) else "s"
    return f"{verb} {rest}" if rest else verb


def rule(title: str, width: int = 64) -> str:
    """A heading line: ``── Hand 1 of 3 ────``."""
    head = f"── {title} "
    return head + "─" * max(3, width - len(head))


def wrap(text: str) -> str:
    """``text`` wrapped to ``WIDTH`` columns, never inside a short quoted command."""
    glued = _QUOTED.sub(lambda m: m[0].replace(" ", "\0"), text)
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
    word, end of input, Ctrl-C)."""
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


def demo(names: Sequence[str] | None = None, rules: Any = "standard",
         hands: int = 3, seed: int = 0, out: TextIO | None = None) -> dict[str, int]:
    """Agents play ``hands`` seeded single hands of Equation Hi-Lo (fresh stacks, seats
    rotating each hand), narrated: the table at each new deal, every action, the equations at
    showdown, and a one-line summary. ``names`` defaults to ``DEMO_AGENTS`` in turn, one per
    seat the rules have. Returns the chips each agent won, by label (``heuristic``,
    ``heuristic #2``...)."""
    out = out or sys.stdout
    shown = equation_hilo_view
    rules = games.get(games.DEFAULT).rules(rules).replace(hands_per_episode=1)
    n = rules.num_players
    if hands < 1:
        raise ValueError(f"--hands must be at least 1, not {hands}")
    chosen = names is not None
    names = list(names) if chosen else [DEMO_AGENTS[i % len(DEMO_AGENTS)] for i in range(n)]
    if len(names) != n:
        raise ValueError(f"these rules seat {n} agents, got {len(names)}: {names}")
    players: list[Agent] = [make(nm, rules, seed=seed + i) for i, nm in enumerate(names)]
    labels = [nm if names[:i].count(nm) == 0 else f"{nm} #{names[:i].count(nm) + 1}"
              for i, nm in enumerate(names)]
    won = dict.fromkeys(labels, 0)
    seats = Seats(games.get(games.DEFAULT).raw_env(rules))

    def say(text: str = "") -> None:
        print(text, file=out)

    say(f"Equation Hi-Lo: {' vs '.join(labels)}, {hands} hand{'s' if hands > 1 else ''}, "
        f"seed {seed}.")
    if not chosen and n > len(DEMO_AGENTS):
        say(wrap(f"These rules seat {n} players, so the demo's agents "
                 f"({' and '.join(DEMO_AGENTS)}) take the seats in turn."))
    say(wrap("Each player gets a hidden card and face-up cards, bets, then declares Low (an "
             "equation near 1), High (near 20) or Swing (both); the best equation of each "
             "side takes half the pot."))
    for h in range(hands):
        order = [(s + h) % n for s in range(n)]  # seat s holds labels[order[s]]
        label = [labels[i] for i in order]
        game = Game(rules, np.random.default_rng([seed, h]))
        say()
        say(rule(f"Hand {h + 1} of {hands}: " + ", ".join(
            f"{seats.names[s]} {nm}" for s, nm in enumerate(label))))
        dealt = None
        while game.phase < Phase.HAND_OVER:
            cards_out = (game.round, sum(len(u) for u in game.up))
            if cards_out != dealt and game.phase != Phase.DECLARE:
                dealt = cards_out
                say(shown.spectator_table(game))
            s = game.current_player
            action = seats.act(players[order[s]], game)
            say(narration(shown, action, f"{seats.names[s]} ({label[s]})", hidden=False))
            game.step(action)
        say(shown.spectator_table(game))
        for s, chips in enumerate(game.result.net):
            won[label[s]] += chips
    say()
    say(f"After {hands} hand{'s' if hands > 1 else ''}: "
        + ", ".join(f"{nm} {w:+d} chips" for nm, w in won.items()) + ".")
    return won
