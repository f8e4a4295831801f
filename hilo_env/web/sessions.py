"""The web table's games, each behind an unguessable id: a person playing agents (``play``),
agents playing each other (``watch``), and a replay stepped forward and back (``replay``).

No web framework here: :class:`Sessions` is plain Python the app (``web/app.py``) calls, so
the rules of use are tested without a server. What the page may do is checked here and
refused with a :class:`Refused` (its ``status`` the HTTP status the app answers with) that
changes nothing:

- an action that is not legal, not the person's to take, or sent for a table that moved on
  since the page last saw it (each view carries a ``version``, and each move must name it);
- an unknown id (another tab's game is out of reach without its id; a restarted server knows
  none of the old ones);
- a game, preset, player count, seat or agent that is not in the registry's tables (an agent
  named by a file path, ``ppo:PATH``, is not: a page may not load files).

Every view of a table is the game's :class:`hilo_env.table.Table` (the same description the
``rgb_array`` frames draw), as the viewer may see it: the person sees their own hidden cards
only; a spectator (watch, replay) sees none, or one seat's when it asks.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from hilo_env import games
from hilo_env.agents.play import PERSON, Seats, narration, view
from hilo_env.agents.registry import make
from hilo_env.replays import Episode, Replay, from_json
from hilo_env.table import Table

MAX_SESSIONS = 256
"""Games kept at once; the one idle longest is dropped first."""
MAX_COUNT = 100
"""Episodes a match may ask for."""
LOG_LINES = 12
"""Narration lines a view carries (the latest)."""
ID_BYTES = 18


class Refused(Exception):
    """A request the table refuses, nothing changed; ``status``: the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _int(data: dict[str, Any], key: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused(f"'{key}' must be an integer, not {value!r}")
    return value


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
        self.person, self.seed, self.count = person, seed, count
        self.labels = [PERSON if s == person else str(agents[s]) for s in range(n)]
        try:
            self.bots = {s: make(agents[s], self.rules, seed=seed + 1 + s, game=spec.name)
                         for s in range(n) if s != person}
        except ImportError as exc:  # a model's agent without the train extra
            raise Refused(str(exc)) from None
        self.seats = Seats(env)
        self.table_of = type(env).table_of
        self.deals = self.view.deals(self.rules, seed, count)
        self.state = next(self.deals)
        self.replay = Replay.new(spec.name, self.rules,
                                 {"by": "match", "seed": seed, "count": count})
        self.replay.episodes.append(Episode(seats=self.labels))
        self.version = 0
        self.log: list[str] = []
        self.lock = threading.RLock()

    @property
    def mode(self) -> str:
        return "watch" if self.person is None else "play"

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
                if len(self.replay.episodes) >= self.count:
                    raise Refused("the match is over", 409)
                try:
                    self.state = next(self.deals)
                except StopIteration:  # the match ended early (a player holds every chip)
                    raise Refused("the match is over", 409) from None
                self.replay.episodes.append(Episode(seats=self.labels))
                self.log.append(f"── {self.spec.unit} {len(self.replay.episodes)} of "
                                f"{self.count} ──")
                self.version += 1
                return
            if seat == self.person:
                raise Refused("it is your turn: choose an action", 409)
            self._step(self.seats.act(self.bots[seat], state), seat)

    def _step(self, action: int, seat: int | None) -> None:
        who = None if seat is None else f"{self.seats.names[seat]} ({self.labels[seat]})"
        line = narration(self.view, action, who, hidden=self.person is not None)
        self.state.step(action)
        self.replay.episodes[-1].actions.append(int(action))
        self.log.append(line.strip())
        self.log.extend(self.view.news(self.state))
        if self.state.current_player is None:
            viewer = 0 if self.person is None else self.person
            self.log.extend(line.strip() for line in self.view.outcome(self.state, viewer))
        self.version += 1

    def table(self, viewer: int | None = None) -> Table:
        """The table as the person sees it from their seat, or a watcher as ``viewer``
        (None: a spectator): the description the ``rgb_array`` frame draws."""
        with self.lock:
            seen = self.person if self.person is not None else viewer
            n = len(self.labels)
            if seen is not None and not 0 <= seen < n:
                raise Refused(f"'viewer' must be a seat 0..{n - 1}, not {seen}")
            return self.table_of(self.state, seen)

    def show(self, viewer: int | None = None) -> dict[str, Any]:
        """The view the page draws: the table (:meth:`table`; its legal actions only when
        they are the person's to take), the seats' agents, the log."""
        with self.lock:
            table = self.table(viewer)
            if self.state.current_player != self.person or self.person is None:
                table = replace(table, legal=())
            table, seen = table.to_json(), table.viewer
            over = self.state.current_player is None
            return {"mode": self.mode, "game": self.spec.name, "title": self.spec.title,
                    "unit": self.spec.unit, "seed": self.seed, "version": self.version,
                    "episode": len(self.replay.episodes), "episodes": self.count,
                    "labels": self.labels, "person": self.person, "viewer": seen,
                    "table": table, "log": self.log[-LOG_LINES:], "over": over,
                    "match_over": over and len(self.replay.episodes) >= self.count,
                    "waiting_for": None if over else
                    ("person" if self.state.current_player == self.person else "agent")}


class ReplayView:
    """A replay shown one decision at a time: any episode, any step, forward and back."""

    mode = "replay"

    def __init__(self, data: Any) -> None:
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
        self.lock = threading.RLock()
        self._frames: dict[int, list[tuple[Any, int | None]]] = {}

    def frames(self, episode: int) -> list[tuple[Any, int | None]]:
        """Episode ``episode``'s states (copies) before each action, and its end."""
        if episode not in self._frames:
            self._frames = {episode: [(state.clone(), action)
                                      for state, action in self.replay.walk(episode)]}
        return self._frames[episode]

    def table(self, episode: int = 0, step: int = 0, viewer: int | None = None) -> Table:
        """The table of ``episode`` before its decision ``step`` (its end after the last), as
        ``viewer`` sees it (None: a spectator)."""
        state, _ = self.checked(episode, step, viewer)[step]
        return self.table_of(state, viewer)

    def checked(self, episode: int, step: int,
                viewer: int | None) -> list[tuple[Any, int | None]]:
        """Episode ``episode``'s frames (:meth:`frames`), once ``step`` and ``viewer`` are
        checked against it."""
        count = len(self.replay.episodes)
        if not 0 <= episode < count:
            raise Refused(f"'episode' must be 0..{count - 1}, not {episode}")
        with self.lock:
            frames = self.frames(episode)
        if not 0 <= step < len(frames):
            raise Refused(f"'step' must be 0..{len(frames) - 1}, not {step}")
        n = len(self.names)
        if viewer is not None and not 0 <= viewer < n:
            raise Refused(f"'viewer' must be a seat 0..{n - 1}, not {viewer}")
        return frames

    def show(self, episode: int = 0, step: int = 0, viewer: int | None = None) -> dict[str, Any]:
        """The view the page draws: the table (:meth:`table`, no actions to take), the log,
        the next action."""
        table = replace(self.table(episode, step, viewer), legal=()).to_json()
        frames = self.checked(episode, step, viewer)
        action = frames[step][1]
        labels = self.replay.episodes[episode].seats or ["?"] * len(self.names)
        log = [narration(self.view, taken, f"{self.names[before.current_player]} "
                                           f"({labels[before.current_player]})",
                         hidden=False).strip()
               for before, taken in frames[max(0, step - LOG_LINES):step]]
        upcoming = None if action is None else self.spec.action_to_string(action)
        return {"mode": self.mode, "game": self.spec.name, "title": self.spec.title,
                "unit": self.spec.unit, "episode": episode,
                "episodes": len(self.replay.episodes), "step": step, "steps": len(frames) - 1,
                "labels": labels, "viewer": viewer, "table": table,
                "log": log, "next_action": upcoming, "over": action is None}


class Sessions:
    """Every game the server holds, by id (module docstring)."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._held: OrderedDict[str, Match | ReplayView] = OrderedDict()
        self._lock = threading.Lock()

    def _keep(self, session: Match | ReplayView) -> str:
        key = secrets.token_urlsafe(ID_BYTES)
        with self._lock:
            self._held[key] = session
            while len(self._held) > self.limit:
                self._held.popitem(last=False)
        return key

    def get(self, key: Any) -> Match | ReplayView:
        """The game behind ``key``; Refused (404) for an id this server does not hold."""
        with self._lock:
            session = self._held.get(key) if isinstance(key, str) else None
            if session is None:
                raise Refused("no game has this id here: the server may have restarted, or "
                              "the game was closed; start a new one", 404)
            self._held.move_to_end(key)
            return session

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
        if seed < 0:
            raise Refused(f"'seed' must be at least 0, not {seed}")
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
