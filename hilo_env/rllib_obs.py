"""The keys of the observation dict RLlib's action-masking modules read: the RLlib env
(:mod:`hilo_env.envs.rllib_env`) writes it and the RLlib agent (:mod:`agents.rllib`) reads it,
so both take the keys from here and neither imports the other."""

OBS_KEY, MASK_KEY = "observations", "action_mask"
"""The observation dict's keys: the observation vector, and the legal actions as 0/1."""
