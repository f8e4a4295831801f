"""Training Hi MiLo!'s ``value`` agent (:mod:`hilo_env.agents.himilo_value`): approximate
policy iteration on after-states, ``algorithm: value`` in a training config.

    hilo train himilo_value_4p

Each iteration
1. plays rounds of the game until ``iteration_decisions`` decisions: every seat the current
   agent (the first iteration: the ``imitate`` agent, such as ``team``, if the config names
   one, else ``random``), each decision taken at random among the legal
   actions with probability ``explore``, so that the after-states of other choices are seen;
   the rounds are dealt from seeds of their own (:data:`TRAINING_DEALS`), never an
   evaluation's deals;
2. keeps every seat's after-states of the round: after each of its bids and pass cards, and
   at the start of each trick after the first (:mod:`hilo_env.himilo.afterstate`), each
   labelled with the round's team outcome (1 won, 0 lost);
3. fits a fresh network (``net_arch``, tanh) to the after-states of this iteration and half
   of those kept before: the logistic loss, Adam at ``learning_rate`` in minibatches of
   ``batch_size``, up to ``n_epochs`` passes, keeping the pass whose loss on the last tenth
   of the rounds (held out) is lowest: outcomes are noisy, and the network learns a round's
   cards by heart within a few passes;
4. saves ``checkpoints/model_<decisions>.npz`` and evaluates it: a team of the agent, and
   the agent in one seat beside each baseline (``eval_hands`` duplicate deals each).

The agent of the next iteration plays the new network. ``model.npz`` is the last one.
"""

from __future__ import annotations

import csv
import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from hilo_env import agents, games
from hilo_env.agents.base import Agent
from hilo_env.agents.himilo_value import Layers, ValueAgent, features, save
from hilo_env.himilo.afterstate import Afterstates
from hilo_env.himilo.engine import Phase, Round
from hilo_env.himilo.observation import Encoder, action_mask
from hilo_env.himilo.rules import RuleSet
from hilo_env.training.config import TrainConfig
from hilo_env.training.evaluate import play_table
from hilo_env.training.selfplay import plot_learning_curve, score_name

TRAINING_DEALS = 0x7EA1
"""The first word of every training round's seed, ``[TRAINING_DEALS, seed, round]``: an
evaluation deals from ``[seed, deal]`` (:func:`~hilo_env.training.evaluate.deal_seed`), so no
round the network learns from is a deal it is measured on, whatever the seeds."""
ITSELF = "itself"
"""The evaluation row of a whole team of the agent."""
HELD_OUT = 0.1
"""Share of an iteration's rounds (the last ones) the fit is measured on."""


class Explorer(Agent):
    """``agent``, but a random legal action with probability ``explore``."""

    def __init__(self, agent: Agent, explore: float, seed: int) -> None:
        super().__init__(agent.rules, seed)
        self.agent, self.explore = agent, explore
        self.name = agent.name

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.rng.random() < self.explore:
            return int(self.rng.choice(np.flatnonzero(action_mask)))
        return self.agent.act(observation, action_mask)


def training_deal(seed: int, index: int) -> np.random.Generator:
    """The generator that deals round ``index`` of an iteration seeded ``seed``."""
    return np.random.default_rng([TRAINING_DEALS, seed, index])


def play_rounds(players: list[Agent], rules: RuleSet, decisions: int, seed: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Rounds of ``players`` (seat order) until ``decisions`` decisions: every seat's
    after-states (module docstring) as ``(states (S, k) float32 features, outcome (S,),
    round index (S,), decisions played)``."""
    n = rules.num_players
    encoder, after = Encoder(rules), Afterstates(n)
    rows: list[np.ndarray] = []
    outcomes: list[float] = []
    rounds: list[int] = []
    played = index = 0
    while played < decisions:
        game = Round(rules, training_deal(seed, index))
        mine: list[np.ndarray] = []
        while game.phase != Phase.ROUND_OVER:
            seat, phase, trick = game.current_player, game.phase, game.trick
            game.step(players[seat].act(encoder.encode(game, seat), action_mask(game)))
            played += 1
            if phase != Phase.PLAY:
                mine.append(encoder.encode(game, seat))
            elif game.trick != trick and game.phase != Phase.ROUND_OVER:
                mine += [encoder.encode(game, s) for s in range(n)]
        won = float(game.outcome > 0)
        rows.append(features(after.settled(np.stack(mine)), n))
        outcomes += [won] * len(mine)
        rounds += [index] * len(mine)
        index += 1
    return (np.concatenate(rows), np.asarray(outcomes, np.float32), np.asarray(rounds),
            played)


def fit(states: np.ndarray, outcomes: np.ndarray, rounds: np.ndarray, config: TrainConfig,
        seed: int) -> tuple[Layers, dict[str, float]]:
    """A fresh network fitted to ``outcomes`` (module docstring, step 3): its layers and the
    held-out loss of the pass kept, beside that of always guessing the mean."""
    import torch

    torch.manual_seed(seed)
    sizes = [states.shape[1], *config.net_arch]
    modules: list[Any] = []
    for a, b in itertools.pairwise(sizes):
        modules += [torch.nn.Linear(a, b), torch.nn.Tanh()]
    net = torch.nn.Sequential(*modules, torch.nn.Linear(sizes[-1], 1))
    optimiser = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
    cut = np.quantile(rounds, 1 - HELD_OUT)
    train, test = np.flatnonzero(rounds < cut), np.flatnonzero(rounds >= cut)
    x, y = torch.as_tensor(states), torch.as_tensor(outcomes)
    loss = torch.nn.functional.binary_cross_entropy_with_logits
    rng = np.random.default_rng(seed)
    best: tuple[float, Layers] = (np.inf, [])
    for _ in range(config.n_epochs):
        rng.shuffle(train)
        for start in range(0, len(train), config.batch_size):
            batch = torch.as_tensor(train[start:start + config.batch_size])
            optimiser.zero_grad()
            loss(net(x[batch])[:, 0], y[batch]).backward()
            optimiser.step()
        with torch.no_grad():
            held = float(loss(net(x[test])[:, 0], y[test]))
        if held < best[0]:
            linear = [m for m in net if isinstance(m, torch.nn.Linear)]
            best = (held, [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
                           for m in linear])
    mean = float(outcomes[train].mean())
    guess = -float(np.mean(outcomes[test] * np.log(mean) + (1 - outcomes[test])
                           * np.log(1 - mean))) if 0 < mean < 1 else float("nan")
    return best[1], {"held_out_loss": best[0], "mean_guess_loss": guess}


def evaluate(layers: Layers, rules: RuleSet, config: TrainConfig
             ) -> dict[str, tuple[float, float]]:
    """The team's share of rounds won (95% CI), duplicate deals: a team of the value agent of
    ``layers`` (:data:`ITSELF`), and that agent in one seat beside each baseline."""
    n, scores = rules.num_players, {}

    def learner(seat: int) -> Agent:
        return ValueAgent(rules, layers=layers, seed=config.seed + seat,
                          samples=config.lookahead_samples)

    tables = {ITSELF: [learner(s) for s in range(n)]}
    for name in dict.fromkeys(config.baselines):
        tables[name] = [learner(0), *[agents.make(name, rules, seed=config.seed + 1 + s,
                                                  game=config.game) for s in range(n - 1)]]
    for name, players in tables.items():
        table = play_table(players, rules, deals=config.eval_hands, seed=config.seed,
                           game=config.game)
        scores[name] = table.win_rate(0)
    return scores


def train(config: TrainConfig, progress: bool = True,
          on_eval: Callable[[int, dict[str, tuple[float, float]], float], None] | None = None
          ) -> Path:
    """Train as ``config`` says (module docstring); returns the path of the final network.
    ``on_eval(decisions, scores, seconds)`` hears each evaluation (``seconds``: of learning so
    far); ``progress`` prints a line per iteration."""
    import torch

    torch.set_num_threads(config.torch_threads)
    rules = config.rule_set()
    n = rules.num_players
    run_dir = config.run_dir
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    score = score_name(games.get(config.game))
    evals_path = run_dir / "evaluations.csv"
    with open(evals_path, "w", newline="") as f:
        csv.writer(f).writerow(["timesteps", "opponent", score, "ci95"])
    fits_path = run_dir / "fits.csv"
    with open(fits_path, "w", newline="") as f:
        csv.writer(f).writerow(["timesteps", "states", "held_out_loss", "mean_guess_loss"])

    layers: Layers | None = None
    kept: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    decisions, learning, iteration, path = 0, 0.0, 0, run_dir / "model.npz"
    while decisions < config.total_timesteps:
        began = time.perf_counter()
        seed = config.seed * 1_000 + iteration
        players = [Explorer(agents.make(config.imitate or "random", rules, seed=seed * 10 + s,
                                        game=config.game) if layers is None else
                            ValueAgent(rules, layers=layers, seed=seed * 10 + s,
                                       samples=config.lookahead_samples),
                            config.explore, seed * 10 + s) for s in range(n)]
        states, outcomes, rounds, played = play_rounds(players, rules,
                                                       config.iteration_decisions, seed)
        decisions += played
        rounds = rounds + iteration * 10_000_000  # distinct across iterations
        if kept is not None:
            half = kept[2] >= np.quantile(kept[2], 0.5)  # the later half of the rounds kept
            states, outcomes, rounds = (np.concatenate([k[half], new]) for k, new in
                                        zip(kept, (states, outcomes, rounds), strict=True))
        kept = (states, outcomes, rounds)
        layers, stats = fit(states, outcomes, rounds, config, seed)
        learning += time.perf_counter() - began
        with open(fits_path, "a", newline="") as f:
            csv.writer(f).writerow([decisions, len(outcomes), f"{stats['held_out_loss']:.5f}",
                                    f"{stats['mean_guess_loss']:.5f}"])
        save(layers, run_dir / "checkpoints" / f"model_{decisions}.npz", rules)
        scores = evaluate(layers, rules, config)
        with open(evals_path, "a", newline="") as f:
            writer = csv.writer(f)
            for name, (mean, ci) in scores.items():
                writer.writerow([decisions, name, f"{mean:.4f}", f"{ci:.4f}"])
        if progress:
            print(f"iteration {iteration}: {len(outcomes):,} after-states, held-out loss "
                  f"{stats['held_out_loss']:.4f} (the mean's {stats['mean_guess_loss']:.4f})",
                  flush=True)
        if on_eval is not None:
            on_eval(decisions, scores, learning)
        iteration += 1
    save(layers, path, rules)
    plot_learning_curve(evals_path, run_dir / "learning_curve.png",
                        title="Hi MiLo!: team wins per round of the value agent")
    return path

