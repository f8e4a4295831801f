"""lo-hi's facts for the game registry (:mod:`hilo_env.games`)."""

from hilo_env.game_spec import GameSpec
from hilo_env.lohi.actions import action_to_string
from hilo_env.lohi.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, resolve

SPEC = GameSpec(
    name="lohi",
    title="lo-hi",
    description="shedding: play higher or lower than the pile, first to empty the hand",
    resolve=resolve,
    presets=tuple(PRESETS),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    action_to_string=action_to_string,
    env="hilo_env.envs.lohi_aec:raw_env",
    agents="hilo_env.agents.lohi:AGENTS",
    terminal="hilo_env.lohi.terminal",
    baseline="heuristic",
    unit="game",
    score="reward",
    reward_fields=("round_reward",),
    observation_layout="hilo_env.lohi.observation:layout",
    tools=("openspiel",),
    trainers=("sb3/ppo", "rllib/ppo"),
)
