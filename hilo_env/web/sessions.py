"""The web table's games, each behind an unguessable id: a person playing agents (``play``),
agents playing each other (``watch``), and a replay stepped forward and back (``replay``).

No web framework here: :class:`Sessions` is plain Python the app (``web/app.py``) calls, so
the rules of use are tested without a server. What the page may do is checked here and
refused with a :class:`Refused` (its ``status`` the HTTP status the app answers with) that
changes nothing:

- an action that is not legal, not the person's to take, or sent for a table that moved on
  since the page last saw it (each view carries a ``version``, and each move must name it);
- an unknown id (another tab's game is out of reach without its id; a restarted server knows
  none of the old ones; a game closed for being idle, or to make room, says so);
- a game, preset, player count, seat or agent that is not in the registry's tables, or an
  agent that does not play the table's rules (an agent named by a file path, ``ppo:PATH``, is
  not: a page may not load files);
- a replay beyond the limits of :mod:`hilo_env.web.limits`.

Every view of a table is the game's :class:`hilo_env.table.Table` (the same description the
``rgb_array`` frames draw), as the viewer may see it: the person sees their own hidden cards
only, and neither the seed nor the replay (from which every card follows) until the match is
over; a spectator (watch, replay) sees none, or one seat's when it asks.

A replay keeps a few states of each episode (checkpoints, at most about
:data:`CHECKPOINTS` an episode, at least :data:`MIN_SPACING` decisions apart) and rebuilds
the one asked for from the nearest before it, so reading it costs time linear in its
decisions and memory bounded by the limits; stepping forward one decision at a time steps one
state on. The replays held together keep at most :data:`MAX_DECISIONS_HELD` decisions: the
idlest is closed to make room.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from typing import Any

from hilo_env import games
from hilo_env.agents.base import NoProbabilities, NoValue
from hilo_env.agents.play import PERSON, Seats, narration, view
from hilo_env.agents.registry import make
from hilo_env.replays import Episode, Replay, from_json
from hilo_env.table import Table, count
from hilo_env.web.fitting import refusal
from hilo_env.web.limits import Refused, check_replay

MAX_SESSIONS = 256
"""Games kept at once (``hilo serve --max-games``); the one idle longest is closed first."""
IDLE_SECONDS = 3600.0
"""A game untouched this long is closed (``hilo serve --idle-minutes``)."""
MAX_COUNT = 100
"""Episodes a match may ask for."""
LOG_LINES = 12
"""Narration lines a view carries (the latest)."""
ID_BYTES = 18
CHECKPOINTS = 32
"""States a replay keeps of each episode (fewer for a short one)."""
MAX_DECISIONS_HELD = 1_000_000
"""Decisions of all the replays held at once (10 of the longest, :data:`limits.MAX_DECISIONS`
each: about 45 MB each, docs/web.md)."""
MIN_SPACING = 64
"""Decisions at least between two of a replay's checkpoints."""
TOP_PROBABILITIES = 6
"""Actions of an agent's distribution a watch view shows (the likeliest)."""

def _int(data: dict[str, Any], key: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused(f"'{key}' must be an integer, not {value!r}")
    return value


def cleared_centre(table_of: Callable[[Any, int | None], Table], seen: Table, actor: int,
                   after: Any) -> dict[str, Any] | None:
    """The centre a move cleared (a trick taken as its last card fell): the cards that lay
    there and those the move played (the ones that left the mover's seat), face up, under
    the first clause of the centre's label; None when the move cleared nothing. ``seen``:
    the table before the move as the mover saw it."""
    if not seen.centre or table_of(after, None).centre:
        return None
    left = list(seen.seats[actor].cards)
    for card in table_of(after, actor).seats[actor].cards:
        if card in left:
            left.remove(card)
    cards = [*seen.centre, *(replace(card, private=False) for card in left)]
    label = seen.centre_label.split(",")[0]  # not who had played before the last card
    return {"label": label, "cards": [asdict(card) for card in cards]}


def _log_lines(table: Table, outcome: list[str]) -> list[str]:
    """An episode's last log lines: the table's result and the one-line parts of the terminal's
    outcome (its multi-line dump of the table is the table the page shows already)."""
    return [*table.result, *(line.strip() for line in outcome if "\n" not in line.strip())]


class Match:
    """A match of a game dealt as ``hilo play`` deals it: seats held by agents by name, or
    by the person (``person``: their seat; None: agents only, a match to watch)."""

    def __init__(self, game: str, rules: str | None, players: int | None,
                 agents: Sequence[str], person: int | None, seed: int, count: int) -> None:
        self.spec = spec = games.get(game)
        self.view = view(spec.name)
        if not 1 <= count <= MAX_COUNT:
            raise Refused(f"'count' must be 1..{MAX_COUNT}, not {count}")
        try:
            self.rules = self.view.match_rules(spec.rules(rules, players), count)
        except ValueError as exc:
            raise Refused(str(exc)) from None
        env = spec.raw_env(self.rules)
        n = len(env.possible_agents)
        if person is not None and not 0 <= person < n:
            raise Refused(f"'seat' must be 0..{n - 1} for {n} players, not {person}")
        if len(agents) != n:
            raise Refused(f"'agents' names one agent a seat: {n} names, not {len(agents)}")
        for seat, name in enumerate(agents):
            if seat == person:
                continue
            if not isinstance(name, str) or name not in spec.agent_factories():
                raise Refused(f"seat {seat}: a page may name the game's agents only "
                              f"({', '.join(spec.agent_factories())}), not {name!r}")
            why = refusal(spec.name, name, self.rules)
            if why is not None:
                raise Refused(f"seat {seat}: {why}")
        self.person, self.seed, self.count = person, seed, count
        self.labels = [PERSON if s == person else str(agents[s]) for s in range(n)]
        self.bots = {s: make(agents[s], self.rules, seed=seed + 1 + s, game=spec.name)
                     for s in range(n) if s != person}
        self.seats = Seats(env)
        self.table_of = type(env).table_of
        self.deals = self.view.deals(self.rules, seed, count)
        self.state = next(self.deals)
        self.upcoming: Any = None
        """The next episode's state, dealt once this one is over (None: the match is over)."""
        self.replay = Replay.new(spec.name, self.rules,
                                 {"by": "match", "seed": seed, "count": count})
        self.replay.episodes.append(Episode(seats=self.labels))
        self.version = 0
        self.log: list[str] = []
        self.last_actions: list[str | None] = [None] * n
        self.scores: list[list[float]] = []
        """Each finished episode's score of every seat (the terminal view's ``score``)."""
        self.thought: dict[str, Any] | None = None
        self.last_centre: dict[str, Any] | None = None
        """The centre the last trick left (:func:`cleared_centre`), until the next starts."""
        self.lock = threading.RLock()

    @property
    def mode(self) -> str:
        return "watch" if self.person is None else "play"

    @property
    def match_over(self) -> bool:
        """The engine's word: the last episode is over and the deals give no other."""
        return self.state.current_player is None and self.upcoming is None

    def _check_version(self, version: int) -> None:
        if version != self.version:
            raise Refused("the table has moved on since this page saw it (a move from "
                          "another click or tab); here it is as it stands now", 409)

    def act(self, action: Any, version: int) -> None:
        """The person's action ``action`` (an action id) at table ``version``."""
        with self.lock:
            self._check_version(version)
            state = self.state
            if self.person is None or state.current_player != self.person:
                raise Refused("it is not your turn", 409)
            legal = state.legal_actions()
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                texts = ", ".join(self.spec.action_to_string(a) for a in legal)
                raise Refused(f"{action!r} is not a legal action now; legal: {texts}")
            self._step(action, None)

    def advance(self, version: int) -> None:
        """The next thing the table does without the person: the agent to act decides, or
        the next episode is dealt once this one is over."""
        with self.lock:
            self._check_version(version)
            state = self.state
            seat = state.current_player
            if seat is None:
                if self.upcoming is None:
                    raise Refused("the match is over", 409)
                self.state, self.upcoming = self.upcoming, None
                self.replay.episodes.append(Episode(seats=self.labels))
                self.last_actions = [None] * len(self.labels)
                self.thought, self.last_centre = None, None
                self.log.append(f"── {self.spec.unit} {len(self.replay.episodes)} of "
                                f"{self.count} ──")
                self.version += 1
                return
            if seat == self.person:
                raise Refused("it is your turn: choose an action", 409)
            bot = self.bots[seat]
            if self.person is None:  # a spectator may see what the agent thought
                self.thought = self._thought(bot, state, seat)
            self._step(self.seats.act(bot, state), seat)

    def _thought(self, bot: Any, state: Any, seat: int) -> dict[str, Any] | None:
        """What ``bot`` thought at ``state``: the distribution it plays (its likeliest actions;
        empty for an agent that cannot say it) and, for an agent that has one, its value with
        what that value means; None for an agent with neither."""
        observation, mask = self.seats.encoder.encode(state, seat), self.seats.mask_of(state)
        thought: dict[str, Any] = {"seat": seat, "agent": self.labels[seat],
                                   "probabilities": []}
        try:
            probabilities = bot.action_probabilities(observation, mask)
        except NoProbabilities:
            probabilities = None
        if probabilities is not None:
            order = sorted(state.legal_actions(), key=lambda a: -probabilities[a])
            thought["probabilities"] = [{"action": self.spec.action_to_string(a),
                                         "p": round(float(probabilities[a]), 4)}
                                        for a in order[:TOP_PROBABILITIES]]
        try:
            thought["value"] = round(float(bot.value(observation, mask)), 4)
            thought["value_label"] = bot.value_label
        except NoValue:
            if probabilities is None:
                return None
        return thought

    def _step(self, action: int, seat: int | None) -> None:
        actor = self.state.current_player
        who = None if seat is None else f"{self.seats.names[seat]} ({self.labels[seat]})"
        hidden = self.person is not None and actor != self.person
        line = narration(self.view, action, who, hidden=self.person is not None)
        self.last_actions[actor] = self.view.phrase(action, hidden=hidden)
        seen = self.table_of(self.state, actor)
        self.state.step(action)
        cleared = cleared_centre(self.table_of, seen, actor, self.state)
        if cleared is not None or self.table_of(self.state, None).centre:
            self.last_centre = cleared
        self.replay.episodes[-1].actions.append(int(action))
        self.log.append(line.strip())
        self.log.extend(line.strip() for line in self.view.news(self.state))
        if self.state.current_player is None:
            self._end_episode()
        self.version += 1

    def _end_episode(self) -> None:
        """The episode's last lines and scores, and the next deal (the state shown stays the
        finished one: a deal may move the same state on)."""
        finished = self.state.clone()
        outcome = [] if self.person is None else self.view.outcome(finished, self.person)
        self.log.extend(_log_lines(self.table_of(finished, self.person), outcome))
        self.scores.append([float(self.view.score(finished, s))
                            for s in range(len(self.labels))])
        more = len(self.replay.episodes) < self.count
        self.upcoming = next(self.deals, None) if more else None
        self.state = finished

    def table(self, viewer: int | None = None) -> Table:
        """The table as the person sees it from their seat, or a watcher as ``viewer``
        (None: a spectator): the description the ``rgb_array`` frame draws."""
        with self.lock:
            seen = self.person if self.person is not None else viewer
            n = len(self.labels)
            if seen is not None and not 0 <= seen < n:
                raise Refused(f"'viewer' must be a seat 0..{n - 1}, not {seen}")
            return self.table_of(self.state, seen)

    def replay_data(self) -> dict[str, Any]:
        """The match so far as a replay file's data; Refused (409) while the person's match
        is in progress (a replay holds the seed, from which every hidden card follows)."""
        with self.lock:
            if self.person is not None and not self.match_over:
                raise Refused("the replay is offered once the match is over: it holds the "
                              "seed, from which every hidden card follows", 409)
            return self.replay.to_json()

    def show(self, viewer: int | None = None) -> dict[str, Any]:
        """The view the page draws: the table (:meth:`table`; its legal actions only when
        they are the person's to take), the seats' agents and last actions, the log, the
        scores; the seed once the person may know it."""
        with self.lock:
            table = self.table(viewer)
            if self.state.current_player != self.person or self.person is None:
                table = replace(table, legal=())
            table, seen = table.to_json(), table.viewer
            over, match_over = self.state.current_player is None, self.match_over
            secret = self.person is not None and not match_over
            return {"mode": self.mode, "game": self.spec.name, "title": self.spec.title,
                    "unit": self.spec.unit, "seed": None if secret else self.seed,
                    "version": self.version, "episode": len(self.replay.episodes),
                    "episodes": self.count, "labels": self.labels, "person": self.person,
                    "viewer": seen, "table": table, "log": self.log[-LOG_LINES:],
                    "over": over, "match_over": match_over,
                    "last_actions": self.last_actions, "scores": self.scores,
                    "thought": self.thought, "replay_ready": not secret,
                    "last_centre": self.last_centre,
                    "waiting_for": None if over else
                    ("person" if self.state.current_player == self.person else "agent")}


class ReplayView:
    """A replay shown one decision at a time: any episode, any step, forward and back, each
    state rebuilt from the nearest checkpoint (module docstring)."""

    mode = "replay"

    def __init__(self, data: Any) -> None:
        if not isinstance(data, dict):
            raise Refused("not a replay this table can show: a replay is an object")
        try:
            spec = games.get(data.get("game"))
        except (ValueError, TypeError) as exc:
            raise Refused(f"not a replay this table can show: field 'game': {exc}") from None
        check_replay(spec, data)
        try:
            self.replay = from_json(data)
        except ValueError as exc:
            raise Refused(f"not a replay this table can show: {exc}") from None
        if not self.replay.episodes:
            raise Refused("the replay has no episodes")
        self.spec = self.replay.spec
        self.view = view(self.spec.name)
        env = self.spec.raw_env(self.replay.rules)
        self.table_of, self.names = type(env).table_of, list(env.possible_agents)
        n = len(self.names)
        for number, episode in enumerate(self.replay.episodes):
            if episode.seats and len(episode.seats) != n:
                raise Refused(f"not a replay this table can show: field 'episodes[{number}]"
                              f".seats' names {count(len(episode.seats), 'seat')}; the game "
                              f"has {n}")
        self.decisions = sum(len(e.actions) for e in self.replay.episodes)
        self.spacings = [max(MIN_SPACING, math.ceil(len(e.actions) / CHECKPOINTS))
                         for e in self.replay.episodes]
        self.checkpoints = self._checkpoints()
        self.lock = threading.RLock()
        self._cursor: tuple[Any, ...] | None = None
        """The state last shown, to step on from: ``(episode, step, state, recent, last,
        cleared)`` (:meth:`_at`)."""

    def _checkpoints(self) -> list[list[tuple[Any, list[int | None]]]]:
        """Each episode's states every :attr:`spacings` decisions (copies), each with the
        last action of every seat before it: one pass over the replay."""
        out = []
        for episode, state, spacing in zip(self.replay.episodes, self.replay.states(),
                                           self.spacings, strict=False):
            marks, last = [], [None] * len(self.names)
            for step, action in enumerate(episode.actions):
                if step % spacing == 0:
                    marks.append((state.clone(), last[:]))
                last[state.current_player] = action
                state.step(action)
            if len(episode.actions) % spacing == 0:
                marks.append((state.clone(), last[:]))
            out.append(marks)
        return out

    def _at(self, episode: int, step: int) -> tuple[Any, list[tuple[int, int]],
                                                     list[int | None], dict[str, Any] | None]:
        """The state before decision ``step`` of ``episode`` (its own copy), the ``(seat,
        action)`` of up to :data:`LOG_LINES` decisions before it, each seat's last action,
        and the centre the decision before ``step`` cleared (:func:`cleared_centre`)."""
        actions, spacing = self.replay.episodes[episode].actions, self.spacings[episode]
        cursor = self._cursor
        if cursor is not None and cursor[0] == episode and cursor[1] <= step < \
                cursor[1] + spacing:
            _, at, state, recent, last, cleared = cursor
        else:
            start = max(0, step - LOG_LINES) // spacing
            mark, last = self.checkpoints[episode][start]
            at, state, recent, last = start * spacing, mark.clone(), [], last[:]
            cleared = None
        for number, action in enumerate(actions[at:step], start=at):
            seat = state.current_player
            recent.append((seat, action))
            last[seat] = action
            seen = self.table_of(state, seat) if number == step - 1 else None
            state.step(action)
            if seen is not None:
                cleared = cleared_centre(self.table_of, seen, seat, state)
        recent = recent[-LOG_LINES:]
        self._cursor = (episode, step, state, recent, last, cleared)
        return state, recent, last, cleared

    def checked(self, episode: int, step: int, viewer: int | None) -> Any:
        """The state before ``episode``'s decision ``step``, with its log and last actions
        (:meth:`_at`), once ``episode``, ``step`` and ``viewer`` are checked."""
        count = len(self.replay.episodes)
        if not 0 <= episode < count:
            raise Refused(f"'episode' must be 0..{count - 1}, not {episode}")
        steps = len(self.replay.episodes[episode].actions)
        if not 0 <= step <= steps:
            raise Refused(f"'step' must be 0..{steps}, not {step}")
        n = len(self.names)
        if viewer is not None and not 0 <= viewer < n:
            raise Refused(f"'viewer' must be a seat 0..{n - 1}, not {viewer}")
        with self.lock:
            return self._at(episode, step)

    def table(self, episode: int = 0, step: int = 0, viewer: int | None = None) -> Table:
        """The table of ``episode`` before its decision ``step`` (its end after the last), as
        ``viewer`` sees it (None: a spectator)."""
        with self.lock:
            state, _, _, _ = self.checked(episode, step, viewer)
            return self.table_of(state, viewer)

    def show(self, episode: int = 0, step: int = 0, viewer: int | None = None) -> dict[str, Any]:
        """The view the page draws: the table (:meth:`table`, no actions to take), the log,
        each seat's last action, the next action."""
        with self.lock:
            state, recent, last, cleared = self.checked(episode, step, viewer)
            table = self.table_of(state, viewer)
        actions = self.replay.episodes[episode].actions
        labels = self.replay.episodes[episode].seats or ["?"] * len(self.names)
        log = [narration(self.view, taken, f"{self.names[seat]} ({labels[seat]})",
                         hidden=False).strip() for seat, taken in recent]
        over = step == len(actions)
        if over:
            log = (log + _log_lines(table, []))[-LOG_LINES:]
        upcoming = None if over else self.spec.action_to_string(actions[step])
        return {"mode": self.mode, "game": self.spec.name, "title": self.spec.title,
                "description": self.spec.description, "unit": self.spec.unit,
                "episode": episode, "episodes": len(self.replay.episodes), "step": step,
                "steps": len(actions), "labels": labels, "viewer": viewer,
                "table": replace(table, legal=()).to_json(), "log": log,
                "last_actions": [None if a is None else self.view.phrase(a, hidden=False)
                                 for a in last],
                "next_action": upcoming, "over": over, "last_centre": cleared}


class Sessions:
    """Every game the server holds, by id (module docstring): at most ``limit``, each closed
    after ``idle`` seconds untouched, replays of at most ``decisions_held`` decisions
    together; a closed game's id is remembered (a few times ``limit`` of them) so its tab is
    told why."""

    def __init__(self, limit: int = MAX_SESSIONS, idle: float = IDLE_SECONDS,
                 clock: Callable[[], float] = time.monotonic,
                 decisions_held: int = MAX_DECISIONS_HELD) -> None:
        if limit < 1 or idle <= 0:
            raise ValueError(f"a server holds at least 1 game for some time, not {limit} "
                             f"games for {idle} s")
        self.limit, self.idle, self.clock = limit, idle, clock
        self.decisions_held = decisions_held
        self._held: OrderedDict[str, tuple[Match | ReplayView, float]] = OrderedDict()
        self._closed: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def _close(self, key: str, why: str) -> None:
        del self._held[key]
        self._closed[key] = why
        while len(self._closed) > 4 * self.limit:
            self._closed.popitem(last=False)

    def _expire(self, now: float) -> None:
        while self._held:
            key, (_, used) = next(iter(self._held.items()))
            if now - used < self.idle:
                return
            minutes = self.idle / 60
            self._close(key, f"this game was closed after {minutes:g} minute"
                             f"{'' if minutes == 1 else 's'} without a move (hilo serve "
                             "--idle-minutes); start a new one")

    def _keep(self, session: Match | ReplayView) -> str:
        key = secrets.token_urlsafe(ID_BYTES)
        with self._lock:
            now = self.clock()
            self._expire(now)
            while len(self._held) >= self.limit:
                self._close(next(iter(self._held)),
                            f"this game was closed to make room: the server holds at most "
                            f"{self.limit} games (hilo serve --max-games), and this one was "
                            "idle longest; start a new one")
            if isinstance(session, ReplayView):
                self._make_room(session.decisions)
            self._held[key] = (session, now)
        return key

    def _make_room(self, decisions: int) -> None:
        """Close the idlest replays until ``decisions`` more fit :attr:`decisions_held`."""
        replays = [(k, s) for k, (s, _) in self._held.items() if isinstance(s, ReplayView)]
        held = sum(s.decisions for _, s in replays)
        for key, replay in replays:
            if held + decisions <= self.decisions_held:
                return
            held -= replay.decisions
            self._close(key, f"this replay was closed to make room: the server keeps "
                             f"replays of at most {self.decisions_held:,} decisions together, "
                             "and this one was idle longest; open it again")

    def get(self, key: Any) -> Match | ReplayView:
        """The game behind ``key``; Refused (404) for an id this server does not hold, saying
        why where it knows."""
        with self._lock:
            now = self.clock()
            self._expire(now)
            held = self._held.get(key) if isinstance(key, str) else None
            if held is None:
                why = self._closed.get(key) if isinstance(key, str) else None
                raise Refused(why or "no game has this id here: the server may have "
                              "restarted; start a new one", 404)
            self._held[key] = (held[0], now)
            self._held.move_to_end(key)
            return held[0]

    def new_match(self, data: Any) -> str:
        """A play or watch match from the page's request (docs/web.md); its id."""
        if not isinstance(data, dict):
            raise Refused("a new game is a JSON object")
        try:
            spec = games.get(data.get("game"))
        except (ValueError, TypeError) as exc:
            raise Refused(str(exc)) from None
        mode = data.get("mode", "play")
        if mode not in ("play", "watch"):
            raise Refused(f"'mode' is 'play' or 'watch', not {mode!r}")
        players = data.get("players")
        if players is not None:
            players = _int(data, "players")
        rules = data.get("rules")
        if rules is not None and rules not in spec.presets:  # never a path on this machine
            raise Refused(f"'rules' is a preset of {spec.title} ({', '.join(spec.presets)}), "
                          f"not {rules!r}")
        seed = _int(data, "seed", secrets.randbelow(2**31))
        if not 0 <= seed < 2**63:
            raise Refused(f"'seed' must be at least 0 (and below 2**63), not {seed}")
        count = _int(data, "count", 1)
        person = _int(data, "seat", 0) if mode == "play" else None
        agents = data.get("agents", spec.baseline)
        try:
            n = len(spec.raw_env(spec.rules(rules, players)).possible_agents)
        except (ValueError, TypeError) as exc:
            raise Refused(str(exc)) from None
        if isinstance(agents, str):
            agents = [agents] * n
        if not isinstance(agents, list):
            raise Refused("'agents' is an agent's name or a list of one a seat")
        agents = [PERSON if s == person else a for s, a in enumerate(agents)]
        return self._keep(Match(spec.name, rules, players, agents, person, seed, count))

    def new_replay(self, data: Any) -> str:
        """A replay to show, from a replay file's JSON (``docs/replays.md``); its id."""
        return self._keep(ReplayView(data))

    def __len__(self) -> int:
        return len(self._held)
