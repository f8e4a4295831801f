"""Hi MiLo!'s facts for the game registry (:mod:`hilo_env.games`)."""

from hilo_env.game_spec import GameSpec
from hilo_env.himilo.actions import action_to_string
from hilo_env.himilo.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, resolve

SPEC = GameSpec(
    name="himilo",
    title="Hi MiLo!",
    description="cooperative trick-taking: the High bidder takes the most tricks, the Low "
                "bidder the fewest",
    resolve=resolve,
    presets=tuple(PRESETS),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    action_to_string=action_to_string,
    env="hilo_env.envs.himilo_aec:raw_env",
    agents="hilo_env.agents.himilo:AGENTS",
    terminal="hilo_env.himilo.terminal",
    baseline="team",
    unit="round",
    score="team win",
    cooperative=True,
    reward_fields=("shaping",),
    model_agents=(("value", "hilo_env.agents.himilo_value:ValueAgent"),),
    tools=("openspiel",),
    trainers=("sb3/ppo", "rllib/ppo", "sb3/value"),
)
