"""Local best response (LBR, Lisý and Bowling 2017): a lower bound on an Equation Hi-Lo agent's
exploitability from a player that reads the agent's action probabilities, with no training.

``LBR`` sits in one seat of a 2-player hand, the agent in the other. It keeps the exact
belief over the agent's hidden card: uniform over the number cards it cannot see, each card
then weighted, at every betting or discard decision of the agent, by the probability the
agent gives the action it took had it held that card (Bayes; the agent is asked once per
candidate card, in one batch, with its observation changed only in what the card decides: the
``hidden`` one-hot and, once its hand is full, the ``solver`` slice). Declarations are secret:
they update nothing. At its own decisions LBR plays what a short look-ahead values best:

* **Bet.** Fold is worth minus its wager. Check or call is worth ``(2E - 1) * W``: both then
  check or call to the end at the wager ``W`` and ``E`` is LBR's expected share of the pot
  (below). A raise to ``T`` (half the pot, the pot and the cap are tried) is worth the
  agent's wager where the agent folds (its fold probability per candidate card, asked after
  the raise) plus ``(2E' - 1) * T`` where it does not, ``E'`` under the belief of a call.
* **Discard** (after a ×): the operator whose loss leaves the larger ``E``.
* **Declare**: the side (or Swing) with the largest expected share against the belief and the
  agent's own declaration probabilities for each candidate card.

``E`` (:meth:`LBR.equity`): LBR's completions (exact once its hand is full, else the seeded
sample of :class:`agents.equity.Estimator`) against the agent's completions for each hidden
value under the belief; the agent is assumed to declare its best side (the heuristic's
opponent model, :func:`agents.equity.opponent_pick`), LBR the declaration best against the
belief for each completion of its own hand; ties are the tie-break's coin flip
(:data:`agents.equity.SHARE`).

LBR uses only what its seat sees and the agent's policy, so it is a strategy of the game: what
it wins per hand against the agent in duplicate deals (:func:`lbr_match`: the deals of
:func:`training.evaluate.play_table`, seats rotated), less its 95% CI, bounds the agent's
exploitability from below. The look-ahead's assumptions only make it weaker, never unsound.

    from hilo_env.training.lbr import lbr_match
    result = lbr_match("heuristic", "standard", deals=1_000)
    print(describe(result))
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from hilo_env import agents as agent_registry
from hilo_env.agents.base import Agent
from hilo_env.agents.baselines import after_discard
from hilo_env.agents.equity import (
    SHARE,
    THEY_BETTER,
    TIED,
    WE_BETTER,
    Estimator,
    compare,
    opponent_pick,
)
from hilo_env.agents.table_view import TableView, read_observation
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.observation import Encoder, action_mask, layout, solver_slice
from hilo_env.equation_hilo.rules import RuleSet, resolve
from hilo_env.equation_hilo.showdown import tiebreak_rank
from hilo_env.training.evaluate import TableResult, deal_rng, interval

RAISE_FRACTIONS = (0.5, 1.0, math.inf)
"""The raises LBR values: by these shares of the pot after calling (``inf``: to the cap)."""
NAME = "lbr"


def gives_probabilities(agent: Agent) -> bool:
    """Whether ``agent`` can say the distribution it plays: it is deterministic or has an
    ``action_probabilities`` of its own."""
    return bool(agent.deterministic) or \
        type(agent).action_probabilities is not Agent.action_probabilities


class LBR:
    """The local best response to one agent under one 2-player rule set (module docstring)."""

    def __init__(self, agent: Agent, rules: RuleSet) -> None:
        if not isinstance(rules, RuleSet):
            raise ValueError(f"LBR plays Equation Hi-Lo, not rules of type "
                             f"{type(rules).__name__}")
        if rules.num_players != 2:
            raise ValueError(f"LBR plays 2-player tables, not {rules.num_players} players")
        if not gives_probabilities(agent):
            raise ValueError(f"LBR cannot respond to agent {agent.name!r} "
                             f"({type(agent).__name__}): it is not deterministic and has no "
                             "action_probabilities, so its belief cannot be updated")
        self.agent, self.rules = agent, rules
        self.layout = layout(rules)
        self.estimator = Estimator.shared(rules)
        self._encoder = Encoder(rules)
        self._lookahead = Encoder(rules)  # for the states after a hypothetical raise
        deck = cards.deck_ids(rules.deck_values, rules.deck_suits, rules.deck_multiply,
                              rules.deck_roots)
        self._numbers = np.array([c for c in deck if cards.is_number(c)], dtype=np.int64)
        self._declarations = 3 if rules.swing else 2

    # ---- a hand ---------------------------------------------------------------------------

    def play_hand(self, game: Game, seat: int) -> None:
        """Play ``game``'s hand to its end: LBR in ``seat``, the agent in the other."""
        opp = 1 - seat
        belief = np.zeros(cards.DECK_SIZE)
        belief[self._numbers] = 1.0
        while game.phase < Phase.HAND_OVER:
            belief[self._seen(game, seat)] = 0.0
            actor, mask = game.current_player, action_mask(game)
            observation = self._encoder.encode(game, actor)
            if actor == seat:
                action = self.act(game, observation, mask, belief)
            else:
                action = int(self.agent.act(observation, mask))
                if game.phase != Phase.DECLARE:  # a declaration is secret: nothing to update
                    belief = self._update(game, opp, observation, mask, belief, action)
            game.step(action)

    def _seen(self, game: Game, seat: int) -> list[int]:
        """The cards LBR in ``seat`` sees: its hidden card, every face-up and set-aside card."""
        return [game.hidden[seat], *(c for up in game.up for c in up), *game.set_aside]

    def _update(self, game: Game, opp: int, observation: np.ndarray, mask: np.ndarray,
                belief: np.ndarray, action: int) -> np.ndarray:
        """The belief after the agent in ``opp`` took ``action`` (Bayes over its hidden card)."""
        candidates = np.flatnonzero(belief)
        probs = self.probabilities(game, opp, observation, mask, candidates)
        out = belief.copy()
        out[candidates] *= probs[:, action]
        if out.sum() <= 0:
            raise ValueError(f"agent {self.agent.name!r} took action {action} that its "
                             "action_probabilities give no chance with any card it may hold")
        return out / out.sum()

    def probabilities(self, game: Game, seat: int, observation: np.ndarray, mask: np.ndarray,
                      candidates: np.ndarray) -> np.ndarray:
        """``(k, A)``: the agent's action probabilities in ``seat`` had it held each of the
        ``candidates`` (card ids) as its hidden card, from one batch of observations."""
        batch = counterfactual_observations(observation, game, seat, candidates, self.layout)
        return self.agent.action_probabilities_batch(batch, np.repeat(mask[None],
                                                                      len(candidates), 0))

    # ---- LBR's decisions ------------------------------------------------------------------

    def act(self, game: Game, observation: np.ndarray, mask: np.ndarray,
            belief: np.ndarray) -> int:
        """LBR's action at its decision in ``game`` (the module docstring's rules)."""
        view = read_observation(observation, self.rules, self.layout)
        if game.phase == Phase.DECLARE:
            return self._declare(game, view, mask, belief)
        if game.phase == Phase.DISCARD:
            discards = [a for a in A.DISCARDS.values() if mask[a]]
            return max(discards, key=lambda a: self.equity(
                view, belief, after_discard(view.operators[0], a)))
        return self._bet(game, view, mask, belief)

    def _bet(self, game: Game, view: TableView, mask: np.ndarray, belief: np.ndarray) -> int:
        high = view.highest_wager
        passive = A.CHECK if mask[A.CHECK] else A.CALL
        values = {passive: (2 * self.equity(view, belief) - 1) * high}
        if mask[A.FOLD] and view.to_call > 0:
            values[A.FOLD] = -float(view.wagers[0])
        for action in self._raises(view, mask):
            values[action] = self._raise_value(game, view, action, belief)
        return max(values, key=values.__getitem__)

    def _raises(self, view: TableView, mask: np.ndarray) -> list[int]:
        """The legal raises of :data:`RAISE_FRACTIONS`, each once."""
        high, out = view.highest_wager, []
        for fraction in RAISE_FRACTIONS:
            total = view.cap if math.isinf(fraction) else \
                high + max(1, round((view.pot + view.to_call) * fraction))
            action = A.raise_to(min(max(total, high + 1), view.cap))
            if action < mask.size and mask[action] and action not in out:
                out.append(action)
        return out

    def _raise_value(self, game: Game, view: TableView, action: int,
                     belief: np.ndarray) -> float:
        """A raise's value: the agent's wager where it folds, the showdown at the raise where
        it goes on (as a call)."""
        after = game.clone()
        after.step(action)
        if after.phase != Phase.BET:  # no answer is asked (never heads-up): a call
            return (2 * self.equity(view, belief) - 1) * A.raise_total(action)
        opp = after.current_player
        candidates = np.flatnonzero(belief)
        probs = self.probabilities(after, opp, self._lookahead.encode(after, opp),
                                   action_mask(after), candidates)
        fold = probs[:, A.FOLD]
        weight = belief[candidates]
        goes_on = weight * (1.0 - fold)
        p_on = float(goes_on.sum())
        value = (1.0 - p_on) * view.wagers[1]
        if p_on > 1e-12:
            called = np.zeros_like(belief)
            called[candidates] = goes_on / p_on
            value += p_on * (2 * self.equity(view, called) - 1) * A.raise_total(action)
        return float(value)

    def _declare(self, game: Game, view: TableView, mask: np.ndarray,
                 belief: np.ndarray) -> int:
        """The declaration with the largest expected share against the belief, the agent
        declaring as its probabilities say for each card it may hold."""
        opp = 1 - game.current_player
        candidates = np.flatnonzero(belief)
        probs = self.probabilities(game, opp, self._encoder.encode(game, opp), mask,
                                   candidates)[:, A.DECLARE_LOW:A.DECLARE_LOW + 3]
        s_low, s_high = self._final_states(view, candidates)
        # shares[d, k]: ours declaring d against candidate k's declaration mix
        shares = np.einsum("dkt,kt->dk", SHARE[:, :, s_low, s_high].transpose(0, 2, 1), probs)
        expected = shares @ belief[candidates]
        options = [a for a in A.DECLARATIONS if mask[a]]
        return max(options, key=lambda a: expected[a - A.DECLARE_LOW])

    def equity(self, view: TableView, belief: np.ndarray, ops: str | None = None) -> float:
        """LBR's expected share of the pot if both check or call to the end (module
        docstring), under ``belief`` over the agent's hidden card; ``ops`` overrides LBR's
        operators (to weigh a discard)."""
        est = self.estimator
        ops = view.operators[0] if ops is None else ops
        if view.up_deals_left(0) == 0 and view.up_deals_left(1) == 0:
            candidates = np.flatnonzero(belief)
            s_low, s_high = self._final_states(view, candidates, ops)
            t_low, t_high = self._agent_distances(view, candidates)
            picks = opponent_pick(t_low, t_high, self.rules.swing)
            weight = belief[candidates] / belief[candidates].sum()
            return float((SHARE[:self._declarations][:, picks, s_low, s_high] @ weight).max())
        own_low, own_high = est.completions(
            [c // cards.NUM_SUITS for c in view.numbers(0)], ops, view.roots[0],
            view.multiplies(0), view.up_deals_left(0), hidden_unknown=False)
        visible = [c // cards.NUM_SUITS for c in view.numbers(1)]
        by_value = np.bincount(np.arange(cards.DECK_SIZE) // cards.NUM_SUITS, belief,
                               minlength=cards.NUM_VALUES)
        lows, highs, weights = [], [], []
        for value in np.flatnonzero(by_value):
            low, high = est.completions(
                [*visible, int(value)], view.operators[1], view.roots[1], view.multiplies(1),
                view.up_deals_left(1), hidden_unknown=False)
            lows.append(low)
            highs.append(high)
            weights.append(np.full(low.size, by_value[value] / low.size))
        t_low, t_high, w = map(np.concatenate, (lows, highs, weights))
        picks = opponent_pick(t_low, t_high, self.rules.swing)
        s_low, s_high = compare(own_low, t_low), compare(own_high, t_high)  # (K, J)
        shares = SHARE[:self._declarations][:, picks[None, :], s_low, s_high] @ (w / w.sum())
        return float(shares.max(axis=0).mean())


    def _agent_distances(self, view: TableView, candidates: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
        """The agent's best Low and High distances ``(k,)`` with each candidate hidden card,
        its face-up cards all dealt."""
        visible = [c // cards.NUM_SUITS for c in view.numbers(1)]
        low, high = self.estimator.by_hidden_value(visible, view.operators[1], view.roots[1])
        values = candidates // cards.NUM_SUITS
        return low[values], high[values]

    def _final_states(self, view: TableView, candidates: np.ndarray, ops: str | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Side states ``(k,)`` of LBR's full hand (``ops``: its operators, if not as shown)
        against the agent's with each candidate hidden card, ties settled by the tie-break."""
        ops = view.operators[0] if ops is None else ops
        low, high = self.estimator.exact([c // cards.NUM_SUITS for c in view.numbers(0)], ops,
                                         view.roots[0])
        t_low, t_high = self._agent_distances(view, candidates)
        theirs = np.array([[*view.numbers(1), c] for c in candidates.tolist()])
        won = (tiebreak_rank(np.array([view.numbers(0)]), self.rules.tiebreak)
               > tiebreak_rank(theirs, self.rules.tiebreak))  # (2, k): LBR wins each side's tie
        states = []
        for side, (ours, their) in enumerate(((low, t_low), (high, t_high))):
            state = compare(np.array([ours]), their)[0]
            states.append(np.where(state == TIED, np.where(won[side], WE_BETTER, THEY_BETTER),
                                   state))
        return states[0], states[1]


def counterfactual_observations(observation: np.ndarray, game: Game, seat: int,
                                candidates: np.ndarray,
                                where: dict[str, slice] | None = None) -> np.ndarray:
    """``(k, D)``: ``seat``'s ``observation`` of ``game`` had it held each of ``candidates``
    (number card ids) as its hidden card: the ``hidden`` one-hot and, once its hand is full
    (the slice's *known* flag), the ``solver`` slice changed; nothing else depends on it."""
    where = layout(game.rules) if where is None else where
    out = np.repeat(np.asarray(observation, np.float32)[None], len(candidates), axis=0)
    hidden, solver = where["hidden"], where["solver"]
    out[:, hidden] = 0.0
    out[np.arange(len(candidates)), hidden.start + np.asarray(candidates)] = 1.0
    if observation[solver.start] == 1.0:
        other = copy.copy(game)  # the same state but for one hidden card
        for row, card in enumerate(np.asarray(candidates).tolist()):
            other.hidden = [card if s == seat else c for s, c in enumerate(game.hidden)]
            out[row, solver] = solver_slice(other, seat)
    return out


def lbr_match(agent: Agent | str, rules: Any = "standard", deals: int = 1_000, seed: int = 0,
              *, agent_seed: int = 0,
              on_deal: Callable[[int], None] | None = None) -> TableResult:
    """LBR against ``agent`` (an agent or a registered name) in ``deals`` duplicate deals of
    ``rules`` (2 players, one hand each), the deals of :func:`training.evaluate.play_table`
    with the same ``seed``, each played once with LBR in each seat. The result's seat 0 is
    LBR: ``result.score(0)`` is the lower bound on the agent's exploitability and its 95% CI.
    ``on_deal(d)`` hears each finished deal."""
    rules = resolve(rules)
    if rules.hands_per_episode != 1:
        rules = rules.replace(hands_per_episode=1)
    if isinstance(agent, str):
        agent = agent_registry.make(agent, rules, seed=agent_seed)
    if deals < 1:
        raise ValueError(f"an LBR match plays at least 1 deal, not {deals}")
    responder = LBR(agent, rules)
    per_deal = np.zeros((deals, 2))
    house = 0
    start = time.perf_counter()
    for d in range(deals):
        for seat in (0, 1):  # rotation r seats LBR (players[0]) at seat -r mod 2
            game = Game(rules, deal_rng(seed, d))
            responder.play_hand(game, seat)
            per_deal[d] += [game.result.net[seat], game.result.net[1 - seat]]
            house += game.result.house
        if on_deal is not None:
            on_deal(d)
    return TableResult(names=(NAME, agent.name), per_deal=per_deal / 2,
                       house=house / (2 * deals), seconds=time.perf_counter() - start)


def describe(result: TableResult, agent: str | None = None) -> str:
    """The bound in words: LBR's chips per hand against the agent, its 95% CI, the verdict."""
    agent = result.names[1] if agent is None else agent
    mean, ci = result.score(0)
    lines = [f"Local best response (LBR) to {agent}: {mean:+.3f} ± {ci:.3f} chips per hand "
             f"(95% CI {interval(mean, ci)}), {result.deals:,} duplicate deals "
             f"({result.hands:,} hands) in {result.seconds:.0f}s"]
    if mean - ci > 0:
        lines.append(f"exploitability of {agent} >= {mean - ci:+.3f} chips per hand (the "
                     "CI's low end; LBR trains nothing, so the bound is out of sample)")
    else:
        lines.append(f"LBR does not beat {agent} here: the bound is only exploitability >= 0 "
                     "(LBR's look-ahead assumes check/call to the end; a trained response may "
                     "find more)")
    return "\n".join(lines)

