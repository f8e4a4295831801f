"""The RL libraries' views of the games: PettingZoo AEC envs and wrappers, the Gymnasium
vector view, the Stable-Baselines3 adapter."""
