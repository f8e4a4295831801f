"""Equation Hi-Lo's facts for the game registry (:mod:`hilo_env.games`)."""

from hilo_env.equation_hilo.actions import action_to_string
from hilo_env.equation_hilo.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, resolve
from hilo_env.game_spec import GameSpec

SPEC = GameSpec(
    name="hilo",
    title="Equation Hi-Lo",
    description="betting and arithmetic: build the equation closest to 1 or to 20",
    resolve=resolve,
    presets=tuple(PRESETS),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    action_to_string=action_to_string,
    env="hilo_env.envs.equation_hilo_aec:raw_env",
    agents="hilo_env.agents.registry:AGENTS",
    terminal="hilo_env.equation_hilo.terminal",
    baseline="heuristic",
    unit="hand",
    score="chips",
    match_fields=("hands_per_episode",),
    observation_layout="hilo_env.equation_hilo.observation:layout",
    backends=("engine", "numpy", "jax"),
    tools=("openspiel", "exact", "lbr", "records"),
    trainers=("sb3/ppo", "rllib/ppo", "jax/ppo"),
    gauntlet="hilo_env.agents.gauntlet:GAUNTLET",
)
