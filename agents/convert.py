"""MaskablePPO models in NumPy: :func:`convert` writes an sb3-contrib model (``.zip``) as a
network of the JAX trainer's format (:mod:`agents.jax_policy`), which plays on the core
install, with no torch; :func:`sb3_parameters` turns such a network back into SB3's
parameters, so that a MaskablePPO learner may start from it. The shipped ``ppo`` agents are
kept so::

    python -m hilo_env.agents.convert runs/model.zip     # writes runs/model.npz
    hilo tournament ppo:runs/model.npz heuristic          # played in NumPy

The network is SB3's ``MlpPolicy`` on the flat observation: separate policy and value MLPs,
tanh between layers, linear heads; the ``.npz`` keeps both heads (the value head is what a
learner that starts from it needs), the model's rules file and observation slices are copied
beside it (``model.npz.rules.yaml``, ``model.npz.observation.yaml``), and the agent masks
illegal actions as sb3-contrib does (:func:`agents.jax_policy.masked_log_probs`). A model of
another shape (a ``Dict`` observation, another activation or features extractor) is refused,
naming what differs. Converting needs the ``train`` extra (torch reads the ``.zip``); playing
the ``.npz`` needs NumPy alone. What a converted network leaves out is the optimizer's state:
a learner that starts from it starts its Adam moments afresh.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np

from hilo_env.agents.jax_policy import Params, write_network
from hilo_env.agents.ppo import INSTALL_HINT, observation_path, rules_path

SB3_LAYERS = {"policy": ("mlp_extractor.policy_net", "action_net"),
              "value": ("mlp_extractor.value_net", "value_net")}
"""Where each head's layers are in an SB3 ``MlpPolicy``'s state dict: the hidden layers
(``<name>.0``, ``<name>.2``, ... between tanh activations), then the output layer."""


def sb3_params(state_dict: dict[str, Any]) -> Params:
    """An SB3 ``MlpPolicy``'s weights (its policy state dict, torch tensors or arrays) as the
    trainer's network: the same function, float32."""
    params: Params = {}
    for head, (hidden, out) in SB3_LAYERS.items():
        names = sorted({k.rsplit(".", 1)[0] for k in state_dict if k.startswith(hidden + ".")},
                       key=lambda k: int(k.rsplit(".", 1)[1]))
        params[head] = [(np.asarray(state_dict[f"{name}.weight"], np.float32).T,
                         np.asarray(state_dict[f"{name}.bias"], np.float32))
                        for name in [*names, out]]
    return params


def sb3_parameters(params: Params) -> dict[str, Any]:
    """The network as SB3's parameters (``model.set_parameters``' ``{"policy": state
    dict}``, torch tensors): the inverse of :func:`sb3_params`. No optimizer state."""
    import torch

    policy: dict[str, Any] = {}
    for head, (hidden, out) in SB3_LAYERS.items():
        *layers, last = params[head]
        names = [f"{hidden}.{2 * i}" for i in range(len(layers))] + [out]
        for name, (w, b) in zip(names, [*layers, last], strict=True):
            policy[f"{name}.weight"] = torch.as_tensor(np.array(w, np.float32).T)
            policy[f"{name}.bias"] = torch.as_tensor(np.array(b, np.float32))
    return {"policy": policy}


def start_parameters(rules: Any, path: str | Path, game: str | None = None) -> dict[str, Any]:
    """The SB3 parameters a MaskablePPO learner under ``rules`` starts from, of the model
    saved at ``path`` (a MaskablePPO ``.zip`` or a network ``.npz``), checked against the
    rules and spaces as an agent is, as a function of today's whole observation."""
    from hilo_env.agents.jax_policy import JaxPolicyAgent
    from hilo_env.agents.ppo import PPOAgent

    if str(path).endswith(".npz"):
        return sb3_parameters(JaxPolicyAgent(rules, path, game=game)
                              .whole_observation_parameters())
    return PPOAgent(rules, path, game=game).whole_observation_parameters()


def convert(model: str | Path, out: str | Path | None = None) -> Path:
    """Write the MaskablePPO model saved at ``model`` as a network ``.npz`` at ``out`` (None:
    beside it, ``.zip`` -> ``.npz``), its rules file and observation slices copied beside
    it; returns ``out``. ImportError naming the ``train`` extra without it; ValueError for a
    file that is no such model, or a model of another shape (module docstring)."""
    source = Path(model)
    target = source.with_name(source.name.removesuffix(".zip") + ".npz") if out is None \
        else Path(out)
    if target.suffix != ".npz":
        raise ValueError(f"the converted network is an .npz file, not {str(target)!r}")
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        raise ImportError(f"converting a MaskablePPO model needs the training extra: "
                          f"{INSTALL_HINT}") from exc
    if not source.is_file():
        raise FileNotFoundError(f"no model file {str(source)!r}")
    try:
        loaded = MaskablePPO.load(str(source), device="cpu")
    except Exception as exc:  # SB3 raises whatever the zip and torch raise
        raise ValueError(f"cannot read the model file {str(source)!r} "
                         f"({type(exc).__name__}: {exc})"[:500]) from exc
    policy = loaded.policy
    problems = []
    if len(loaded.observation_space.shape or ()) != 1:
        problems.append(f"it observes {loaded.observation_space}, not a flat vector")
    if type(policy.features_extractor).__name__ != "FlattenExtractor":
        problems.append(f"its features extractor is {type(policy.features_extractor).__name__}, "
                        "not FlattenExtractor")
    if policy.activation_fn is not torch.nn.Tanh:
        problems.append(f"its activation is {policy.activation_fn.__name__}, not Tanh")
    if problems:
        raise ValueError(f"{str(source)!r} is no network of the NumPy format: "
                         + "; ".join(problems))
    state = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
    target.parent.mkdir(parents=True, exist_ok=True)
    write_network(sb3_params(state), target)
    for where in (rules_path, observation_path):  # what the model keeps beside it
        if where(source).is_file():
            shutil.copyfile(where(source), where(target))
    return target


def main(argv: list[str] | None = None) -> int:
    """``python -m hilo_env.agents.convert MODEL.zip [-o OUT.npz]``: 0 when written, 2 with
    the reason on stderr when not."""
    parser = argparse.ArgumentParser(
        prog="python -m hilo_env.agents.convert",
        description="Write a MaskablePPO model (.zip) as a NumPy network (.npz) that plays on "
                    "the core install (as ppo:OUT.npz), its rules and observation files beside "
                    "it. Needs the train extra.")
    parser.add_argument("model", help="the MaskablePPO model file (.zip)")
    parser.add_argument("-o", "--output", help="the .npz to write (default: beside the model)")
    args = parser.parse_args(argv)
    try:
        written = convert(args.model, args.output)
    except (ImportError, OSError, ValueError) as exc:
        print(f"convert: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {written}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
