"""The registry of games: every tool finds a game here by name.

Each line of :data:`GAME_SPECS` names one game folder's ``spec.py``; adding a game is a new
folder and one line here (``docs/architecture.md`` has the recipe). A test or a user may also
:func:`register` a :class:`~hilo_env.game_spec.GameSpec` at run time.

    from hilo_env import games
    spec = games.get("lohi")
    env = spec.raw_env("standard")
"""

from __future__ import annotations

from hilo_env.game_spec import GameSpec, load

GAME_SPECS = (
    "hilo_env.equation_hilo.spec:SPEC",
    "hilo_env.lohi.spec:SPEC",
    "hilo_env.himilo.spec:SPEC",
)
"""One entry point per game, the default game first."""
DEFAULT = "hilo"
"""The game a tool plays when none is named: Equation Hi-Lo."""

_registered: dict[str, GameSpec] = {}
_built_in: set[str] = set()


def _load_all() -> dict[str, GameSpec]:
    if not _registered:
        for entry in GAME_SPECS:
            spec = load(entry)
            _registered.setdefault(spec.name, spec)
        _built_in.update(_registered)
    return _registered


def names() -> list[str]:
    """The registered games' names, the default first."""
    return list(_load_all())


def get(name: str | None = None) -> GameSpec:
    """The spec of game ``name`` (None: :data:`DEFAULT`); ValueError naming the choices."""
    found = _load_all()
    name = DEFAULT if name is None else name
    if not isinstance(name, str) or name not in found:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(found)}")
    return found[name]


def register(spec: GameSpec) -> None:
    """Add a game for this process (or replace one added before); a built-in game's name is
    refused."""
    if not isinstance(spec, GameSpec):
        raise ValueError(f"register takes a GameSpec, not {type(spec).__name__}")
    found = _load_all()
    if spec.name in _built_in:
        raise ValueError(f"game {spec.name!r} is built in; register a game under a new name")
    found[spec.name] = spec


def unregister(name: str) -> None:
    """Remove a game registered at run time (tests clean up with it); a built-in game stays,
    with a ValueError."""
    if _load_all() and name in _built_in:
        raise ValueError(f"game {name!r} is built in; unregister removes only games added "
                         "with register")
    _registered.pop(name, None)
