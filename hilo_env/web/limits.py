"""What the web table takes from a request, checked before any work starts.

A replay file posted to the server is played again and kept while its tab is open, so its
size is bounded before it is read: the body, the episodes, the decisions, the rule fields
and the seat names. Each limit refused is one line naming it; ``docs/web.md`` lists them.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from hilo_env.game_spec import GameSpec

MAX_BODY_BYTES = 1 << 20
"""The largest request body taken (1 MiB; a replay of 100,000 lo-hi decisions is ~350 kB)."""
MAX_EPISODES = 1_000
"""Episodes a replay may hold."""
MAX_DECISIONS = 100_000
"""Decisions (actions) a replay may hold, all its episodes together."""
MAX_SEAT_NAME = 60
"""Characters of a seat's name in a replay."""
RULE_FIELD_FACTOR = 10
"""A replay's numeric rule field may be at most this many times the largest value any preset
of the game gives it (and at least :data:`RULE_FIELD_FLOOR`); a list field as long."""
RULE_FIELD_FLOOR = 100


class Refused(Exception):
    """A request the table refuses, nothing changed; ``status``: the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def parse_json(body: bytes) -> Any:
    """A request body as JSON: Refused (400) for one that is not JSON, nests too deeply or is
    larger than :data:`MAX_BODY_BYTES`."""
    if len(body) > MAX_BODY_BYTES:
        raise Refused(f"the request body is {len(body):,} bytes; this table takes at most "
                      f"{MAX_BODY_BYTES:,} (limits.MAX_BODY_BYTES)", 413)
    try:
        return json.loads(body)
    except RecursionError:
        raise Refused("the request body nests too deeply to read as JSON") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise Refused("the request body is not JSON") from None


def _preset_maxima(spec: GameSpec) -> dict[str, int]:
    """The largest number each rule field takes over the game's presets (a list field: its
    largest length, or its largest element, whichever is larger)."""
    largest: dict[str, int] = {}
    for preset in spec.presets:
        for name, value in dataclasses.asdict(spec.rules(preset)).items():
            numbers = [len(value), *(v for v in value if _is_number(v))] \
                if isinstance(value, (list, tuple)) else [value] if _is_number(value) else []
            if numbers:
                largest[name] = max(largest.get(name, 0), *map(abs, numbers))
    return largest


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_rule_fields(spec: GameSpec, rules: Any) -> None:
    """Refuse a replay's rule field larger than the table plays (:data:`RULE_FIELD_FACTOR`)."""
    if not isinstance(rules, dict):
        return  # the replay's own check names the field
    maxima = _preset_maxima(spec)
    for name, value in rules.items():
        if name not in maxima:
            continue
        limit = max(RULE_FIELD_FLOOR, RULE_FIELD_FACTOR * maxima[name])
        items = value if isinstance(value, list) else [value]
        sizes = [len(items)] if isinstance(value, list) else []
        sizes += [abs(v) for v in items if _is_number(v)]
        if sizes and max(sizes) > limit:
            raise Refused(f"field 'rules.{name}': {max(sizes):,} is more than this table "
                          f"plays ({limit:,}, limits.RULE_FIELD_FACTOR times the presets' "
                          "largest)")


def check_replay(spec: GameSpec, data: dict[str, Any]) -> None:
    """Refuse a replay's data beyond the limits (module docstring) before it is played; the
    rest is :func:`hilo_env.replays.from_json`'s to check."""
    check_rule_fields(spec, data.get("rules"))
    deals = data.get("deals")
    if isinstance(deals, dict) and deals.get("by") == "match":
        seed = deals.get("seed")
        if _is_number(seed) and seed < 0:
            raise Refused(f"field 'deals.seed' must be at least 0, not {seed}")
        count = deals.get("count")
        if _is_number(count) and count > MAX_EPISODES:
            raise Refused(f"field 'deals.count': {count:,} episodes; this table shows at most "
                          f"{MAX_EPISODES:,} (limits.MAX_EPISODES)")
    episodes = data.get("episodes")
    if not isinstance(episodes, list):
        return
    if len(episodes) > MAX_EPISODES:
        raise Refused(f"field 'episodes': {len(episodes):,} episodes; this table shows at most "
                      f"{MAX_EPISODES:,} (limits.MAX_EPISODES)")
    decisions = sum(len(e["actions"]) for e in episodes
                    if isinstance(e, dict) and isinstance(e.get("actions"), list))
    if decisions > MAX_DECISIONS:
        raise Refused(f"field 'episodes': {decisions:,} decisions; this table shows at most "
                      f"{MAX_DECISIONS:,} (limits.MAX_DECISIONS)")
    for number, episode in enumerate(episodes):
        seats = episode.get("seats") if isinstance(episode, dict) else None
        for s, name in enumerate(seats if isinstance(seats, list) else []):
            if isinstance(name, str) and len(name) > MAX_SEAT_NAME:
                raise Refused(f"field 'episodes[{number}].seats[{s}]': a name of "
                              f"{len(name):,} characters; at most {MAX_SEAT_NAME} "
                              "(limits.MAX_SEAT_NAME)")
