"""Replays: a match written as data (the game, its rules, how each episode was dealt, and
every action), read back and played again exactly. ``docs/replays.md`` describes the format.

``hilo play --save-replay FILE`` writes a match the way the terminal dealt it (``deals``:
``{"by": "match", "seed": S, "count": N}``: the game's terminal view's ``deals(rules, S,
N)``, its episodes in order); ``hilo tournament --save-replays DIR`` writes each table's
episodes, each dealt by a reset of the game's AEC env with its own seed (``{"by": "env"}``).
:func:`load` checks a file completely, every action replayed, and refuses a bad one with a
ValueError naming the field; :meth:`Replay.walk` plays an episode again, decision by decision.

    replay = Replay.new("lohi", rules, {"by": "env"})
    replay.episodes.append(Episode(actions=[...], seats=["heuristic", "random"], seed=7))
    replay.save("game.json"); again = load("game.json")
    for state, action in again.walk(0): ...     # the state before each action, then the end
"""

from __future__ import annotations

import dataclasses
import json
import numbers
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hilo_env import games
from hilo_env.equation_hilo.rules import short_repr
from hilo_env.game_spec import GameSpec
from hilo_env.game_spec import load as load_entry_point

FORMAT = "hilo_env replay"
VERSION = 1
DEAL_KINDS = ("match", "env")
"""How episodes are dealt: ``match`` (the terminal view's ``deals``), ``env`` (a reset of the
game's AEC env with each episode's ``seed``)."""


@dataclass
class Episode:
    """One episode: the actions taken in order, who sat in each seat (labels), and for an
    ``env`` deal the reset's seed (an int or a list of ints, as NumPy seeds take them)."""

    actions: list[int] = field(default_factory=list)
    seats: list[str] = field(default_factory=list)
    seed: int | list[int] | None = None


@dataclass
class Replay:
    """A match (module docstring): ``deals`` says how its episodes are dealt."""

    game: str
    rules: Any
    deals: dict[str, Any]
    episodes: list[Episode] = field(default_factory=list)

    @classmethod
    def new(cls, game: str | None, rules: Any, deals: dict[str, Any]) -> Replay:
        """An empty replay of ``game`` (None: the default) under ``rules`` (a preset name or a
        RuleSet)."""
        spec = games.get(game)
        return cls(spec.name, spec.rules(rules), dict(deals))

    @property
    def spec(self) -> GameSpec:
        return games.get(self.game)

    def to_json(self) -> dict[str, Any]:
        """The replay as JSON-ready data (``docs/replays.md``)."""
        return {"format": FORMAT, "version": VERSION, "game": self.game,
                "rules": json.loads(json.dumps(dataclasses.asdict(self.rules))),
                "deals": self.deals,
                "episodes": [{k: v for k, v in dataclasses.asdict(e).items() if v is not None}
                             for e in self.episodes]}

    def save(self, path: str | Path) -> Path:
        """Write the replay to ``path`` (its folder made if missing); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.to_json(), separators=(",", ":"))
        temporary = path.with_name(path.name + ".part")
        try:
            temporary.write_text(text + "\n", encoding="utf-8")
            temporary.replace(path)  # never half a file under the name
        finally:
            temporary.unlink(missing_ok=True)  # gone once renamed; else no half file left
        return path

    def states(self) -> Iterator[Any]:
        """The engine state each episode starts from, in order; each is asked for once the
        previous episode has been played to its recorded end."""
        spec = self.spec
        if self.deals["by"] == "match":
            view = load_entry_point(spec.terminal)
            yield from view.deals(self.rules, self.deals["seed"], self.deals["count"])
            return
        env = spec.raw_env(self.rules)
        for episode in self.episodes:
            env.reset(seed=episode.seed)  # a new state each time: the last one stays as it is
            yield env.game

    def walk(self, index: int) -> Iterator[tuple[Any, int | None]]:
        """Episode ``index`` played again: ``(state, action)`` before each recorded action,
        then ``(state, None)`` at its end. The state is live: read it before the next step.
        A ``match`` replay plays the episodes before ``index`` first (an ``env`` replay's
        episodes stand alone)."""
        if not 0 <= index < len(self.episodes):
            raise ValueError(f"episode {index!r} is not in this replay of "
                             f"{len(self.episodes)} episodes")
        for number, state in enumerate(self.states()):
            if number != index and self.deals["by"] == "env":
                continue
            for action in self.episodes[number].actions:
                if number == index:
                    yield state, action
                state.step(action)
            if number == index:
                yield state, None
                return

    def final_states(self) -> list[Any]:
        """Each episode's state after its last recorded action (the check of a replay): a
        ValueError names the first action that is not legal where it stands."""
        finals = []
        # zip asks the deals for a state only while an episode is left to play
        deals = zip(self.episodes, self.states(), strict=False)  # fewer deals: refused below
        for number, (episode, state) in enumerate(deals):
            for step, action in enumerate(episode.actions):
                if state.current_player is None or action not in state.legal_actions():
                    raise ValueError(f"field 'episodes[{number}].actions[{step}]': action "
                                     f"{action} is not legal there")
                state.step(action)
            if self.deals["by"] == "match" and number < len(self.episodes) - 1 and \
                    state.current_player is not None:
                raise ValueError(f"field 'episodes[{number}].actions': the episode stops "
                                 "before its end, and another follows it")
            finals.append(state.clone())
        if len(finals) < len(self.episodes):
            raise ValueError(f"field 'episodes': {len(self.episodes)} episodes, but the deals "
                             f"give {len(finals)}")
        return finals


def load(path: str | Path) -> Replay:
    """Read and check a replay file (every action replayed); ValueError names the file and
    the field at fault."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"), object_pairs_hook=_object)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the replay: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    except RecursionError:
        raise ValueError(f"{path}: not a replay: JSON nested too deeply to read") from None
    except ValueError as exc:  # a key twice
        raise ValueError(f"{path}: {exc}") from None
    try:
        return from_json(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def from_json(data: Any) -> Replay:
    """A replay from its JSON data, checked completely (:func:`load`)."""
    _need(isinstance(data, dict), "", "an object")
    _need(data.get("format") == FORMAT, "format", repr(FORMAT))
    _need(_is_int(data.get("version")) and data["version"] == VERSION, "version",
          f"the integer {VERSION}")
    _need(isinstance(data.get("game"), str), "game",
          f"the name of a game, one of {games.names()}")
    try:
        spec = games.get(data["game"])
    except ValueError as exc:
        raise ValueError(f"field 'game': {exc}") from None
    rules = data.get("rules")
    _need(isinstance(rules, dict), "rules", "an object of rule fields")
    try:
        rules = spec.resolve(spec.default_rules, **rules)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"field 'rules': {exc}") from None
    deals = data.get("deals")
    _need(isinstance(deals, dict) and deals.get("by") in DEAL_KINDS, "deals.by",
          f"one of {list(DEAL_KINDS)}")
    if deals["by"] == "match":
        _need(_is_int(deals.get("seed")) and deals["seed"] >= 0, "deals.seed",
              "an integer >= 0")
        _need(_is_int(deals.get("count")) and deals["count"] >= 1, "deals.count",
              "an integer of at least 1")
    episodes = data.get("episodes")
    _need(isinstance(episodes, list), "episodes", "a list")
    replay = Replay(spec.name, rules, deals)
    for i, item in enumerate(episodes):
        where = f"episodes[{i}]"
        _need(isinstance(item, dict), where, "an object")
        actions = item.get("actions")
        _need(isinstance(actions, list) and all(map(_is_int, actions)), f"{where}.actions",
              "a list of integer action ids")
        seats = item.get("seats", [])
        _need(isinstance(seats, list) and all(isinstance(s, str) for s in seats)
              and len(seats) in (0, rules.num_players), f"{where}.seats",
              f"a list of one name per seat ({rules.num_players} players), or empty")
        seed = item.get("seed")
        if deals["by"] == "env":
            seeds = seed if isinstance(seed, list) and seed else [seed]
            _need(all(_is_int(s) and s >= 0 for s in seeds), f"{where}.seed",
                  "a non-negative integer or a list of them")
        replay.episodes.append(Episode(list(actions), list(seats), seed))
    replay.final_states()
    return replay


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when it names a key twice (JSON keeps the last silently)."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"key {short_repr(key)} is set twice in an object (each once)")
        data[key] = value
    return data


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _need(ok: bool, name: str, what: str) -> None:
    if not ok:
        raise ValueError(f"field '{name}' must be {what}" if name else f"a replay is {what}")

