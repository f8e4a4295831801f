"""Hi MiLo!'s ``value`` agent: a learned estimate of the team's chance to win the round, read
one decision ahead.

For each legal action the agent builds the after-state it leads to
(:mod:`hilo_env.himilo.afterstate`): its bid made, its card set aside to pass, or the trick it
plays to finished, the later players' cards guessed ``samples`` times among the cards in play
it has neither held nor seen played (the follow rule ignored, as the ``team`` player guesses
them). A network reads each after-state and gives the probability that the team wins from
there; the agent takes the action whose after-states score highest on average (the last
trick is scored by the rules).
The network is trained by :mod:`hilo_env.training.value_iteration` (``hilo train
himilo_value_4p``) on rounds the agent, or ``team`` at first, played.

The network reads a few slices of the observation (:func:`features`): the observer's hand,
the cards still unseen, the cards it passed, the bids, the trick counts and the line. It is an
MLP, tanh between layers (:func:`hilo_env.agents.jax_policy.mlp`), kept as a ``.npz`` of
``value.<i>.w`` and ``value.<i>.b`` with its rules beside it (``model.npz.rules.yaml``, as
:func:`agents.ppo.save_model` writes): an agent made for other rules is refused as a PPO
model is; one with weights that are not finite is refused. Playing it needs NumPy only.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from hilo_env import games
from hilo_env.agents.base import Agent, check_observations
from hilo_env.agents.jax_policy import load_policy, mlp, one_blas_thread, save_policy
from hilo_env.agents.ppo import model_rules_note, rules_path
from hilo_env.himilo import actions as A
from hilo_env.himilo.afterstate import Afterstates
from hilo_env.himilo.cards import NUM_CARD_IDS, cards_in_play
from hilo_env.himilo.observation import layout, observation_size, unseen_cards
from hilo_env.himilo.rules import HAND_SIZE, RuleSet

GAME = "himilo"
HEAD = "value"
"""The network's one head in the saved ``.npz`` (``value.<i>.w``, ``value.<i>.b``)."""
SAMPLES = 6
"""Guesses of the later players' cards per legal card, when some are still to play."""
Layers = list[tuple[np.ndarray, np.ndarray]]


def features(observations: np.ndarray, num_players: int) -> np.ndarray:
    """``(B, k)`` float32: what the network reads of ``(B, size)`` observations: hand, unseen
    cards (in play, not in the hand, not played, not passed) and passed cards, each over the
    cards in play; then the bids, the trick counts and the line."""
    w, cards = layout(num_players), cards_in_play(num_players)
    obs = np.asarray(observations, dtype=np.float32)
    hand, passed = obs[:, w["hand"]][:, :cards], obs[:, w["passed"]][:, :cards]
    played = obs[:, w["played"]].reshape(len(obs), num_players, NUM_CARD_IDS)[:, :, :cards]
    unseen = 1.0 - np.minimum(hand + played.sum(axis=1) + passed, 1.0)
    return np.concatenate([hand, unseen, passed, obs[:, w["bids"]], obs[:, w["tricks_won"]],
                           obs[:, w["line"]]], axis=1)


def num_features(num_players: int) -> int:
    """The width of :func:`features` for ``num_players``."""
    return features(np.zeros((1, observation_size(num_players))), num_players).shape[1]


def win_probability(layers: Layers, observations: np.ndarray, num_players: int) -> np.ndarray:
    """``(B,)``: the network's chance of a team win from each after-state."""
    logits = mlp(layers, features(observations, num_players))[:, 0]
    return 1.0 / (1.0 + np.exp(-logits))


def save(layers: Layers, path: str | Path, rules: RuleSet) -> Path:
    """Save the network at ``path`` (``.npz``) with its rules beside it: the JAX trainer's
    format with a value head alone (:func:`agents.jax_policy.save_policy`)."""
    return save_policy({HEAD: layers}, path, rules, GAME)


def load(path: str | Path, num_players: int, name: str = "value") -> Layers:
    """The network saved at ``path``; ValueError naming the file if it is not a chain of
    layers from :func:`features` to one output."""
    try:
        layers = load_policy(path, heads=(HEAD,))[HEAD]
    except ValueError as exc:
        raise ValueError(f"agent {name!r}: {exc}") from None
    width = num_features(num_players)
    if layers[0][0].shape[0] != width:
        raise ValueError(f"agent {name!r}: {str(path)!r} layer 0 does not fit the layers "
                         f"before it ({width} inputs)")
    return layers


class ValueAgent(Agent):
    """Plays the action of highest after-state value (module docstring). ``path``: a saved
    network (``.npz``); ``layers``: one in memory (training)."""

    name = "value"
    value_label = "chance the team wins"

    def __init__(self, rules: RuleSet, path: str | Path | None = None, seed: int | None = 0,
                 layers: Layers | None = None, samples: int = SAMPLES,
                 allow_other_rules: bool = False) -> None:
        super().__init__(rules, seed)
        n = rules.num_players
        self.afterstates = Afterstates(n)
        self.samples = samples
        self.path = None if path is None else Path(path)
        """The network's file, if it was loaded from one."""
        if path is not None:
            self.name = f"value:{path}"
            _require_files(Path(path), self.name)
            self.rules_note = model_rules_note(path, self.name, games.get(GAME), rules,
                                               allow_other_rules)
            layers = load(path, n, self.name)
        if layers is None:
            raise ValueError("a value agent plays a saved network (path) or one in memory "
                             "(layers)")
        self.layers = layers

    def values(self, after_states: np.ndarray) -> np.ndarray:
        """The network's chance of a team win from each after-state (BLAS on one thread,
        :func:`agents.jax_policy.one_blas_thread`)."""
        with one_blas_thread():
            return win_probability(self.layers, after_states, self.rules.num_players)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = _legal(action_mask)
        if legal.size == 1:
            check_observations(self, observation, observation_size(self.rules.num_players))
            return int(legal[0])
        return int(legal[np.argmax(self._action_values(observation, legal, self.rng))])

    def value(self, observation: np.ndarray, action_mask: np.ndarray) -> float:
        """The chance the team wins the round after the action it rates best: that action's
        after-state value (the later cards guessed from a generator of its own, so that asking
        does not change what it plays)."""
        rng = np.random.default_rng(self.seed)
        return float(self._action_values(observation, _legal(action_mask), rng).max())

    def _action_values(self, observation: np.ndarray, legal: np.ndarray,
                       rng: np.random.Generator) -> np.ndarray:
        """The after-state value of each legal action (module docstring)."""
        observation = check_observations(self, observation, observation_size(
            self.rules.num_players))
        after = self.afterstates
        if legal[0] >= A.BID_LOW:
            return self.values(after.after_bid(observation, legal))
        if legal[0] >= A.FIRST_PASS:
            return self.values(after.after_pass(observation, legal - A.FIRST_PASS))
        return self._play_values(observation, legal, rng)

    def _play_values(self, observation: np.ndarray, legal: np.ndarray,
                     rng: np.random.Generator) -> np.ndarray:
        """Each legal card's mean after-state value over guesses of the later cards."""
        after = self.afterstates
        behind = after.trick_so_far(observation)[2]
        guesses = self.samples if behind else 1
        unseen = unseen_cards(observation, self.rules.num_players)
        cards = np.repeat(legal, guesses)
        order = np.argsort(rng.random((len(cards), unseen.size)), axis=1)[:, :behind]
        later = unseen[order]  # each row: distinct unseen cards, uniformly drawn
        states, counts = after.after_trick(observation, cards, later)
        if counts[0].sum() == HAND_SIZE:  # the last trick: the rules score it
            scores = np.array([after.team_won(observation, c) for c in counts], dtype=float)
        else:
            scores = self.values(states)
        return scores.reshape(len(legal), guesses).mean(axis=1)


def _legal(action_mask: np.ndarray) -> np.ndarray:
    """The legal action ids of ``action_mask``; ValueError if there is none."""
    legal = np.flatnonzero(action_mask)
    if legal.size == 0:
        raise ValueError("the action mask allows no action: nobody may act in this state")
    return legal


def _require_files(path: Path, name: str) -> None:
    """A network is played only with its rules beside it."""
    if not path.is_file():
        raise FileNotFoundError(f"agent {name!r}: no network file {str(path)!r}")
    rules_file = rules_path(path)
    if not rules_file.is_file():
        raise ValueError(f"agent {name!r}: no rules file {str(rules_file)!r} beside the network")


def shipped(tables: Mapping[int, Path]) -> Any:
    """The factory of the shipped ``value`` agent: the network trained for the table's
    player count (another count: ValueError naming those with one)."""

    def make(rules: RuleSet, seed: int | None, allow_other_rules: bool = False) -> Agent:
        if rules.num_players not in tables:
            raise ValueError(f"agent 'value' of Hi MiLo! has networks for "
                             f"{', '.join(map(str, sorted(tables)))} players, not "
                             f"{rules.num_players}")
        agent = ValueAgent(rules, tables[rules.num_players], seed=seed,
                           allow_other_rules=allow_other_rules)
        agent.name = "value"
        return agent

    make.trained = True  # type: ignore[attr-defined]  # takes allow_other_rules (registry)
    return make
