"""Which of a game's agents can sit at a table: a model trained for other rules or another
player count cannot, and the page offers only those that can.

The registry's agents say so themselves: made for rules they do not play, they raise a
ValueError naming why (a model without the ``train`` extra: an ImportError). :func:`refusal`
asks them, once per game, agent and rules (a shipped model loads in well under a second once
torch is imported).
"""

from __future__ import annotations

import functools
from typing import Any

from hilo_env import games
from hilo_env.agents.registry import make


@functools.lru_cache(maxsize=4096)
def refusal(game: str, name: str, rules: Any) -> str | None:
    """Why agent ``name`` of ``game`` cannot play ``rules`` (a RuleSet), or None: it can."""
    try:
        make(name, rules, seed=0, game=game)
    except (ValueError, ImportError) as exc:
        return str(exc)
    return None


def fitting(game: str, rules: Any) -> dict[str, str | None]:
    """Every agent of ``game`` by name: None where it plays ``rules``, else why not."""
    return {name: refusal(game, name, rules) for name in games.get(game).agent_factories()}
