"""Swap's facts: the one line a registry needs (``games.register(SPEC)``)."""

from hilo_env.game_spec import GameSpec
from tests.toy_game import game as G

SPEC = GameSpec(
    name="toy",
    title="Swap",
    description="keep or swap one card; the highest wins",
    resolve=G.resolve,
    presets=tuple(G.PRESETS),
    min_players=G.MIN_PLAYERS,
    max_players=G.MAX_PLAYERS,
    action_to_string=G.action_to_string,
    env="tests.toy_game.env:raw_env",
    agents="tests.toy_game.agents:AGENTS",
    terminal="tests.toy_game.terminal",
    baseline="keeper",
    unit="game",
    score="reward",
    backends=("engine",),
    tools=(),
    trainers=(),
)
