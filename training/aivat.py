"""Matches with less noise: an AIVAT-style control variate (Burch et al. 2018) for 2-player
duplicate matches of Equation Hi-Lo.

A hand's result ``u`` (the first agent's net chips) is corrected by terms of mean zero:

* **chance** (the cards dealt after a decision): ``w(after the deal) - mean w(after a fresh
  deal)``, where ``w`` plays the hand out from a state with both agents (their policies are
  fixed before the match: a value estimate from the known agents' own play) and the fresh
  deals re-shuffle the undealt cards (and the reshuffle seed) ``resamples`` times from the
  state before the deal. Both sides of the difference are play-outs of the same distribution,
  so the term has mean zero; the same fresh deals serve both rotations of a duplicate deal,
  so their luck cancels as the match's does;
* **decisions** of an agent whose policy is known and stochastic (it gives
  ``action_probabilities``): ``v(h, a) - sum_b pi(b) v(h, b)`` over its legal actions ``b``,
  zero on average under its own policy (a deterministic agent's is identically zero).

``v`` (:class:`ShowdownValue`) is the first agent's chips if both now checked or called to the
end: ``(2E - 1)`` times the highest wager after the action, ``E`` its expected share of the pot
from the solver's best distances of both hands (full information: both hidden cards), the cards
to come from :class:`agents.equity.Estimator`'s seeded samples, each player declaring its
best side (:func:`agents.equity.opponent_pick`); a fold is the chips it leaves. The corrected
result ``u - sum(terms)`` has the plain result's mean and less variance where the play-outs
follow the cards: the luck of the cards dealt after the first decision is averaged over
``resamples + 1`` deals. The play-outs cost time (``bench/aivat.py`` measures both). Deals are
:func:`training.evaluate.play_table`'s, seats rotated, both estimates over the same hands.

    from hilo_env.training.aivat import aivat_match
    result = aivat_match(["ppo", "heuristic"], "standard", deals=1_000)  # 16 fresh deals
    print(result.table())
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hilo_env import agents as agent_registry
from hilo_env.agents.base import Agent
from hilo_env.agents.baselines import after_discard
from hilo_env.agents.equity import SHARE, Estimator, compare, opponent_pick
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.observation import Encoder, action_mask
from hilo_env.equation_hilo.rules import RuleSet, resolve
from hilo_env.training.evaluate import deal_rng, interval, mean_ci
from hilo_env.training.lbr import gives_probabilities

RESAMPLES = 16
"""Fresh deals per chance event whose mean stands for the deal's expected value."""
RESAMPLE_STREAM = 2**31
"""Keys the fresh deals' generators apart from the match's deals."""


class ShowdownValue:
    """``v``: a seat's chips if both players now checked or called to the end (module
    docstring), from the full state of a 2-player game: the value of a known agent's
    decisions."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.estimator = Estimator.shared(rules)

    def share(self, game: Game, seat: int, ops: dict[int, str] | None = None) -> float:
        """``seat``'s expected share of the pot at showdown; ``ops`` overrides seats'
        operators (a discard being weighed)."""
        hands = []
        for s in (seat, 1 - seat):
            numbers = [c // cards.NUM_SUITS for c in game.number_cards(s)]
            held = (ops or {}).get(s) or solver.canonical_operators(game.operators[s])
            up_left = len(self.rules.base_operators) + 1 - len(numbers)
            hands.append(self.estimator.completions(numbers, held, game.roots[s],
                                                    game.multiplies[s], up_left,
                                                    hidden_unknown=False))
        (low, high), (t_low, t_high) = hands
        swing = self.rules.swing
        ours, theirs = opponent_pick(low, high, swing), opponent_pick(t_low, t_high, swing)
        return float(SHARE[ours[:, None], theirs[None, :], compare(low, t_low),
                           compare(high, t_high)].mean())

    def action_values(self, game: Game, seat: int, actions: np.ndarray) -> np.ndarray:
        """``v`` of ``seat`` right after each of ``actions`` of the player to act, before any
        card it brings: a fold leaves the wagers, a bet sets the highest wager, a discard
        changes the operators; a declaration changes nothing ``v`` sees."""
        actor, high = game.current_player, max(game.wagers)
        out = np.empty(len(actions))
        share = None
        for i, action in enumerate(actions.tolist()):
            if game.phase == Phase.DISCARD:
                ops = after_discard(solver.canonical_operators(game.operators[actor]), action)
                out[i] = (2 * self.share(game, seat, {actor: ops}) - 1) * high
                continue
            if action == A.FOLD:
                out[i] = -game.wagers[seat] if actor == seat else game.wagers[1 - seat]
                continue
            if share is None:
                share = self.share(game, seat)
            total = A.raise_total(action) if action >= A.FIRST_RAISE else high
            out[i] = (2 * share - 1) * total
        return out


@dataclass
class AIVATResult:
    """A duplicate match of two agents: per deal, the first agent's plain and corrected chips
    per hand (its rotations averaged)."""

    names: tuple[str, str]
    plain: np.ndarray
    corrected: np.ndarray
    seconds: float
    resamples: int

    @property
    def deals(self) -> int:
        return self.plain.size

    def variance_ratio(self) -> float:
        """Plain variance over corrected variance: how many times fewer deals the corrected
        estimate needs for the same CI width."""
        return float(self.plain.var(ddof=1) / self.corrected.var(ddof=1))

    def table(self) -> str:
        first, second = self.names
        lines = [f"{first} vs {second}: {first}'s chips per hand, {self.deals:,} duplicate "
                 f"deals ({2 * self.deals:,} hands), seats rotated, 95% CI"]
        for label, values in (("plain duplicate", self.plain),
                              (f"AIVAT ({self.resamples} resamples)", self.corrected)):
            mean, ci = mean_ci(values)
            lines.append(f"  {label:<24} {mean:+.3f} ± {ci:.3f}  {interval(mean, ci)}")
        lines.append(f"  variance ratio (plain / AIVAT): {self.variance_ratio():.2f}: the "
                     f"same CI width from {1 / self.variance_ratio():.0%} of the deals")
        return "\n".join(lines)


def aivat_match(players: Sequence[Agent | str], rules: Any = "standard", deals: int = 1_000,
                seed: int = 0, *, resamples: int = RESAMPLES) -> AIVATResult:
    """Two agents (or registered names) in ``deals`` duplicate deals of ``rules`` (2 players;
    :func:`training.evaluate.play_table`'s deals), each hand's result and its corrected
    result (module docstring) for the first agent."""
    rules = resolve(rules)
    if rules.hands_per_episode != 1:
        rules = rules.replace(hands_per_episode=1)
    if rules.num_players != 2:
        raise ValueError(f"the control variate is for 2-player tables, not "
                         f"{rules.num_players} players")
    if resamples < 1 or deals < 1:
        raise ValueError(f"deals and resamples must be at least 1, not {deals}, {resamples}")
    seated = [agent_registry.make(p, rules, seed=i) if isinstance(p, str) else p
              for i, p in enumerate(players)]
    if len(seated) != 2:
        raise ValueError(f"a match seats 2 agents, not {len(seated)}")
    value, encoder, lookahead = ShowdownValue(rules), Encoder(rules), Encoder(rules)
    known = [gives_probabilities(a) and not a.deterministic for a in seated]
    plain, corrected = np.zeros(deals), np.zeros(deals)
    start = time.perf_counter()
    for d in range(deals):
        for r in (0, 1):  # rotation r: seat s holds seated[(s + r) % 2]; ours sits at -r % 2
            ours = r % 2
            game = Game(rules, deal_rng(seed, d))
            correction, events = 0.0, 0
            while game.phase < Phase.HAND_OVER:
                actor = game.current_player
                agent, mask = seated[(actor + r) % 2], action_mask(game)
                observation = encoder.encode(game, actor)
                action = int(agent.act(observation, mask))
                if known[(actor + r) % 2] and game.phase != Phase.DECLARE:
                    probs = agent.action_probabilities(observation, mask)
                    legal = np.flatnonzero(probs)
                    if action not in legal:
                        legal = np.append(legal, action)
                    values = value.action_values(game, ours, legal)
                    correction += values[legal == action][0] - probs[legal] @ values
                before, left = game.clone(), len(game.deck)
                game.step(action)
                if game.phase < Phase.HAND_OVER and len(game.deck) < left:  # cards came
                    # the same fresh deals in both rotations of a deal, as duplicate deals
                    rng = np.random.default_rng([seed, d, events, RESAMPLE_STREAM])
                    events += 1
                    fresh = [_redealt(before, action, rng) for _ in range(resamples)]
                    correction += _play_out(game.clone(), seated, r, ours, lookahead) \
                        - np.mean([_play_out(g, seated, r, ours, lookahead) for g in fresh])
            net = game.result.net[ours]
            plain[d] += net / 2
            corrected[d] += (net - correction) / 2
    names = tuple(a.name for a in seated)
    return AIVATResult(names=(names[0], names[1]), plain=plain, corrected=corrected,
                       seconds=time.perf_counter() - start, resamples=resamples)


def _play_out(game: Game, seated: Sequence[Agent], rotation: int, seat: int,
              encoder: Encoder) -> float:
    """``seat``'s net chips once ``game`` (a copy) is played to the hand's end by the agents
    seated as in ``rotation``."""
    while game.phase < Phase.HAND_OVER:
        actor = game.current_player
        game.step(int(seated[(actor + rotation) % 2].act(encoder.encode(game, actor),
                                                         action_mask(game))))
    return float(game.result.net[seat])


def _redealt(before: Game, action: int, rng: np.random.Generator) -> Game:
    """``before`` with its undealt cards and reshuffle seed drawn afresh, after ``action``."""
    game = before.clone()
    game.deck = rng.permutation(np.array(game.deck, dtype=np.int64)).tolist()
    game.hand_seed = int(rng.integers(0, 2**63))
    game.step(action)
    return game

