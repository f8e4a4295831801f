"""A policy trained by the JAX trainer (:mod:`training.jax_ppo`) as an agent, played in NumPy:
no jax, torch or GPU is needed to play it.

The network is the one of SB3's ``MlpPolicy`` (separate policy and value MLPs, tanh hidden
layers, linear heads), written once here as a function of an array module ``xp`` so that the
trainer runs it with ``jax.numpy`` and the agent with NumPy:

| key of the ``.npz``     | what                                                           |
|-------------------------|----------------------------------------------------------------|
| ``policy.<i>.w``, ``.b``| layer ``i`` of the policy MLP, ``(inputs, outputs)``; the last |
|                         | gives one logit per action                                     |
| ``value.<i>.w``, ``.b`` | layer ``i`` of the value MLP; the last gives one value (the    |
|                         | return expected, in the trainer's scaled reward unit)          |

A saved policy ``model.npz`` keeps its game and rules in ``model.npz.rules.yaml`` and, for
games with an observation layout, the slices it reads in ``model.npz.observation.yaml``
(:func:`agents.ppo.save_model`'s files): the agent is checked against them as
:class:`~agents.ppo.PPOAgent` checks a MaskablePPO model, and reads only the slices it was
trained on. By name: ``jax:PATH`` (:mod:`agents.registry`). A MaskablePPO model converted to
this format (:mod:`agents.convert`) plays the same way: the shipped ``ppo`` agents are such
networks, and ``ppo:PATH`` plays one whose ``PATH`` ends in ``.npz``.

Weights that are not all finite are refused when a network is read. An agent's matrix
products run with one BLAS thread (:func:`one_blas_thread`): they are small, and on a busy
machine more threads only wait for each other.
"""

from __future__ import annotations

import contextlib
import functools
import io
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from hilo_env.agents.base import JAX_PREFIX
from hilo_env.agents.ppo import PPOAgent, save_model

HEADS = ("policy", "value")
MASKED = -1e8
"""The logit of an illegal action (sb3-contrib's ``MaskableCategorical`` uses the same)."""

Params = dict[str, list[tuple[Any, Any]]]
"""The network: per head, its layers as ``(weights (inputs, outputs), bias (outputs,))``."""


def mlp(layers: list[tuple[Any, Any]], x: Any, xp: Any = np) -> Any:
    """The MLP of ``layers`` at ``x`` (..., inputs): tanh after every layer but the last."""
    for i, (w, b) in enumerate(layers):
        x = x @ w + b
        if i < len(layers) - 1:
            x = xp.tanh(x)
    return x


def masked_log_probs(logits: Any, mask: Any, xp: Any = np) -> Any:
    """Log-probabilities of the legal actions (``mask`` true), :data:`MASKED` elsewhere:
    the logits normalised, masked and normalised again, as sb3-contrib does."""
    logits = logits - _logsumexp(logits, xp)
    logits = xp.where(mask.astype(bool), logits, MASKED)
    return logits - _logsumexp(logits, xp)


@functools.cache
def _blas_controller() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """A context in which NumPy's BLAS runs on one thread, by ``threadpoolctl`` where it is
    installed (it is no core dependency; without it the context does nothing). An agent's
    products are a few hundred rows at most: threads buy little there, and on a machine whose
    cores are busy, each call's threads spin while they wait for each other."""
    controller = _blas_controller()
    if controller is None:
        return contextlib.nullcontext()
    return controller.limit(limits=1, user_api="blas")


def _logsumexp(x: Any, xp: Any) -> Any:
    top = x.max(axis=-1, keepdims=True)
    return top + xp.log(xp.exp(x - top).sum(axis=-1, keepdims=True))


def flatten(params: Params) -> dict[str, np.ndarray]:
    """The network as the ``.npz``'s named arrays (float32): the heads of :data:`HEADS` it
    has."""
    return {f"{head}.{i}.{part}": np.asarray(array, dtype=np.float32)
            for head in HEADS if head in params for i, layer in enumerate(params[head])
            for part, array in zip("wb", layer, strict=True)}


def unflatten(arrays: dict[str, np.ndarray], where: str = "network",
              heads: tuple[str, ...] = HEADS) -> Params:
    """The network of the ``.npz``'s named arrays, its ``heads``; ValueError naming
    ``where`` if they are not layers that chain (each layer's inputs the previous one's
    outputs) or hold a weight that is not finite (NaN or infinite)."""
    params: Params = {}
    for head in heads:
        layers, i = [], 0
        while f"{head}.{i}.w" in arrays:
            w, b = arrays[f"{head}.{i}.w"], arrays.get(f"{head}.{i}.b")
            if b is None or w.ndim != 2 or b.shape != (w.shape[1],) or (
                    layers and layers[-1][0].shape[1] != w.shape[0]):
                raise ValueError(f"{where}: layer {head}.{i} does not fit the layers before it")
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise ValueError(f"{where}: layer {head}.{i} holds weights that are not finite "
                                 "(NaN or infinite)")
            layers.append((w, b))
            i += 1
        if not layers:
            raise ValueError(f"{where}: no {head} layers (keys {head}.0.w, {head}.0.b, ...)")
        params[head] = layers
    value, policy = params.get("value"), params.get("policy")
    if value is not None and (value[-1][0].shape[1] != 1 or (
            policy is not None and policy[0][0].shape[0] != value[0][0].shape[0])):
        raise ValueError(f"{where}: the value head must give one value from the policy's "
                         "inputs")
    return params


def write_network(params: Params, path: str | Path) -> None:
    """The network as an ``.npz`` archive at ``path``, alone (:func:`save_policy` adds its
    rules)."""
    buffer = io.BytesIO()  # np.savez would add .npz to a name without it
    np.savez(buffer, **flatten(params))
    Path(path).write_bytes(buffer.getvalue())


class _Weights:
    """What :func:`agents.ppo.save_model` saves: the network as an ``.npz`` archive."""

    def __init__(self, params: Params) -> None:
        self.params = params

    def save(self, path: Path) -> None:
        write_network(self.params, path)


def save_policy(params: Params, path: str | Path, rules: Any, game: str | None = None) -> Path:
    """Save the network at ``path`` (an ``.npz``) with its game, rules and observation slices
    beside it (:func:`agents.ppo.save_model`)."""
    return save_model(_Weights(params), path, rules, game)


def load_policy(path: str | Path, heads: tuple[str, ...] = HEADS) -> Params:
    """The network saved at ``path``, its ``heads``; ValueError naming the file if it is
    none."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k], dtype=np.float32) for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:  # corrupt
        raise ValueError(f"cannot read the policy file {str(path)!r}: {exc}") from None
    return unflatten(arrays, f"policy file {str(path)!r}", heads)


class JaxPolicyAgent(PPOAgent):
    """Plays a network saved in this format, in NumPy; checked against its rules and spaces
    when made, as :class:`PPOAgent` is (a model trained for fewer actions than a longer match
    has chooses among those it knows, with a note). ``deterministic`` picks the most likely
    legal action, as the MaskablePPO agent does; otherwise actions are sampled from the
    agent's ``rng``. ``load``: read the network now (else on first use)."""

    def __init__(self, rules: Any, path: str | Path, seed: int | None = 0,
                 deterministic: bool = True, allow_other_rules: bool = False,
                 game: str | None = None, load: bool = True) -> None:
        super().__init__(rules, path, seed=seed, deterministic=deterministic,
                         allow_other_rules=allow_other_rules, load=False, game=game)
        self.name = f"{JAX_PREFIX}{path}"
        if load:
            self.load()

    def load(self) -> Params:
        """The network, loaded and checked on first use."""
        if self._model is not None:
            return self._model
        if not self.path.is_file():
            raise FileNotFoundError(f"agent {self.name!r}: no policy file {str(self.path)!r}")
        self._check_trained_rules()
        self._read_columns()
        try:
            params = load_policy(self.path)
        except ValueError as exc:
            raise ValueError(f"agent {self.name!r}: {exc}") from None
        self._check_sizes(params["policy"][0][0].shape[0], params["policy"][-1][0].shape[1],
                          "network")
        self._model = params
        return params

    def whole_observation_parameters(self) -> Params:
        """The network as a function of today's whole observation: zero weights on the
        slices it does not read."""
        params = self.load()
        if self.columns is None:
            return params
        wide = {}
        for head in HEADS:
            (w, b), *rest = params[head]
            full = np.zeros((self._spaces()[0], w.shape[1]), dtype=w.dtype)
            full[self.columns] = w
            wide[head] = [(full, b), *rest]
        return wide

    def log_probs(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Log-probabilities of the network's actions, ``(B, D)``, ``(B, A)`` -> ``(B, K)``
        (``K``: the actions it knows, ``A`` unless fewer)."""
        masks = self._model_masks(masks)
        inputs = self._model_input(observations)
        with one_blas_thread():
            logits = mlp(self.load()["policy"], inputs)
        return masked_log_probs(logits.astype(np.float64), masks)

    def model_actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        log_probs = self.log_probs(observations, masks)
        if self.deterministic:
            return log_probs.argmax(axis=-1).astype(np.int64)
        probs = np.exp(log_probs)
        cumulative = np.cumsum(probs, axis=-1)
        draws = self.rng.random((len(probs), 1)) * cumulative[:, -1:]
        return (cumulative <= draws).sum(axis=-1).astype(np.int64)  # the first above the draw

    def value(self, observation: np.ndarray, action_mask: np.ndarray) -> float:
        """The value head at one observation: the score (the game's unit, chips in Equation
        Hi-Lo) the network expects its seat to win from here to the end of the episode, shaping
        terms included where it was trained on shaped rewards. The head predicts returns as
        the trainer scaled them (``reward_scale``), so its output is divided by that scale
        (:meth:`reward_scale`)."""
        inputs = self._model_input(np.asarray(observation)[None])
        with one_blas_thread():
            value = mlp(self.load()["value"], inputs)
        return float(value[0, 0]) / self.reward_scale()

    def action_probabilities(self, observation: np.ndarray,
                             action_mask: np.ndarray) -> np.ndarray:
        """The distribution it plays: the network's when it samples, all on :meth:`act`'s
        action when ``deterministic``."""
        out = np.zeros(np.shape(action_mask)[-1])
        if self.deterministic:
            out[self.act(observation, action_mask)] = 1.0
            return out
        probs = np.exp(self.log_probs(np.asarray(observation)[None],
                                      np.asarray(action_mask)[None])[0])
        out[:probs.size] = probs
        return out / out.sum()
