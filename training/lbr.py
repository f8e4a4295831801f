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

At 3 or more players :class:`TableLBR` sits in one seat and the agent in every other: the
same belief per opponent (their joint belief is exact, its decisions valued on joint draws from
it), the same look-ahead against all remaining opponents, each opponent's fold to a raise
taken from its fold probabilities (the class docstring).

LBR uses only what its seat sees and the agent's policy, so it is a strategy of the game: what
it wins per hand against the agent in duplicate deals (:func:`lbr_match`: the deals of
:func:`training.evaluate.play_table`, seats rotated), less its 95% CI, bounds the agent's
exploitability from below. At ``n`` players that is the one-seat exploitability: what a best
response in one seat wins per hand (averaged over the seats) against ``n - 1`` copies of the
agent. The look-ahead's assumptions only make it weaker, never unsound.

    from hilo_env.training.lbr import lbr_match
    result = lbr_match("heuristic", "standard", deals=1_000)
    print(describe(result))
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from typing import Any, NamedTuple

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
from hilo_env.equation_hilo.showdown import NO_DECLARATION, split_pot, tiebreak_rank
from hilo_env.training.evaluate import TableResult, deal_rng, interval

RAISE_FRACTIONS = (0.5, 1.0, math.inf)
"""The raises LBR values: by these shares of the pot after calling (``inf``: to the cap)."""
NAME = "lbr"
LBR_STREAM = 7
"""The last word of the seed of LBR's own generator per hand, ``[seed, deal, rotation,
LBR_STREAM]``: apart from the deal's ``[seed, deal]``."""


def gives_probabilities(agent: Agent) -> bool:
    """Whether ``agent`` can say the distribution it plays: it is deterministic or has an
    ``action_probabilities`` of its own."""
    return bool(agent.deterministic) or \
        type(agent).action_probabilities is not Agent.action_probabilities


def check_respondable(agent: Agent) -> None:
    """ValueError naming ``agent`` if it cannot say the distribution it plays: a local best
    response updates its belief from those probabilities."""
    if not gives_probabilities(agent):
        raise ValueError(f"LBR cannot respond to agent {agent.name!r} "
                         f"({type(agent).__name__}): it is not deterministic and has no "
                         "action_probabilities, so its belief cannot be updated")


class LBR:
    """The local best response to one agent under one 2-player rule set (module docstring)."""

    def __init__(self, agent: Agent, rules: RuleSet) -> None:
        if not isinstance(rules, RuleSet):
            raise ValueError(f"LBR plays Equation Hi-Lo, not rules of type "
                             f"{type(rules).__name__}")
        if rules.num_players != 2:
            raise ValueError(f"LBR plays 2-player tables, not {rules.num_players} players "
                             "(TableLBR plays 3 or more)")
        check_respondable(agent)
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

    def play_hand(self, game: Game, seat: int, rng: np.random.Generator | None = None) -> None:
        """Play ``game``'s hand to its end: LBR in ``seat``, the agent in the other (heads-up
        LBR draws nothing: ``rng`` is unused)."""
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


WORLDS = 64
"""Joint draws of the opponents' hidden cards (and of their cards to come) over which
:class:`TableLBR` values a betting or discard decision."""
DECLARE_WORLDS = 256
"""Joint draws over which :class:`TableLBR` values its declaration (every hand is full then, so
a draw is a few table lookups)."""
OWN_COMPLETIONS = 16
"""Completions of :class:`TableLBR`'s own hand (a fixed stride of the estimator's sample) each
world is compared with while its face-up cards are still to come."""
DRAW_TRIES = 20
"""Rounds of rejection sampling for hidden cards that no two opponents share."""
POT_UNITS = 840
"""The pot a world's showdown is split on: 840 halves and splits evenly among 2 to 8 seats, so
its payout / 840 is an exact share."""


class Worlds(NamedTuple):
    """Joint draws of what :class:`TableLBR` cannot see, for the ``m`` opponents still in the
    hand (in seat slot order) and ``J`` draws."""

    slots: list[int]
    """The opponents' seat slots (relative to LBR, as its observation numbers them)."""
    hidden: np.ndarray
    """``(m, J)`` int: each opponent's hidden card id, no two the same in a draw."""
    distances: np.ndarray
    """``(2, m, J)``: each opponent's best Low and High distance with that card (and a draw of
    its cards to come, if any)."""
    ranks: np.ndarray
    """``(J, 2, m + 1)`` int: tie-break ranks, LBR first: exact from the cards once every hand
    is full, else a random order per draw (a tie then is a fair coin)."""
    uniform: np.ndarray
    """``(m, J)``: a uniform draw per opponent and world, deciding its fold or declaration
    (the same across the actions compared at one decision)."""


class TableLBR(LBR):
    """The local best response to one agent at a table of 3 or more players: LBR in one seat,
    the agent in every other seat.

    The belief is exact: the likelihood, per opponent, of each number card LBR cannot see as
    its hidden card (the product of the probabilities the agent gave each betting or discard
    action that opponent took, had it held the card, as :class:`LBR` asks them); the joint
    belief is the product of the opponents' likelihoods over hidden cards no two of them share.
    Decisions are valued on :data:`WORLDS` joint draws from it (rejection sampling: exact up
    to the draw count; if no draw without a shared card turns up in :data:`DRAW_TRIES`
    rounds, the cards are drawn independently), each opponent with deals to come also given
    one completion from :class:`agents.equity.Estimator`'s seeded sample for its card. Each
    world is a showdown settled by :func:`equation_hilo.showdown.split_pot`, every opponent
    declaring its best side (:func:`agents.equity.opponent_pick`):

    * **Bet.** Fold is worth minus LBR's wager. Check or call: everyone still in checks or
      calls to the end at the highest wager ``W``; worth ``E * pot - W`` where ``E`` is LBR's
      expected share (its declaration the best for each completion of its own hand, against
      the worlds). A raise to ``T`` (half the pot, the pot, the cap): each opponent who
      answers it is asked, per card it may hold, its fold probability at the state after the
      raise with the answers before it calls; in each world an opponent folds with that
      probability for its card; the world is then won outright (all folded: the pot) or a
      showdown among the callers at ``T`` with the folders' wagers in the pot.
    * **Discard** (after a ×): the operator whose loss leaves the larger share.
    * **Declare**: the declaration with the largest mean share over :data:`DECLARE_WORLDS`
      worlds, each opponent declaring as its own probabilities say for the card it holds
      there.

    It reads only its own observation, the agent's probabilities at observations that differ
    from the agent's only in the hidden card, and its own generator: a strategy of its seat.
    """

    def __init__(self, agent: Agent, rules: RuleSet, worlds: int = WORLDS) -> None:
        if not isinstance(rules, RuleSet):
            raise ValueError(f"LBR plays Equation Hi-Lo, not rules of type "
                             f"{type(rules).__name__}")
        if rules.num_players < 3:
            raise ValueError(f"TableLBR plays tables of 3 or more players, not "
                             f"{rules.num_players} (LBR plays 2)")
        check_respondable(agent)
        if worlds < 1:
            raise ValueError(f"TableLBR values decisions on at least 1 world, not {worlds}")
        self.agent, self.rules, self.worlds = agent, rules, worlds
        self.layout = layout(rules)
        self.estimator = Estimator.shared(rules)
        self._encoder = Encoder(rules)
        self._lookahead = Encoder(rules)
        deck = cards.deck_ids(rules.deck_values, rules.deck_suits, rules.deck_multiply,
                              rules.deck_roots)
        self._numbers = np.array([c for c in deck if cards.is_number(c)], dtype=np.int64)
        self._declarations = 3 if rules.swing else 2

    # ---- a hand ---------------------------------------------------------------------------

    def play_hand(self, game: Game, seat: int, rng: np.random.Generator | None = None) -> None:
        """Play ``game``'s hand to its end: LBR in ``seat``, the agent in every other seat;
        LBR draws its worlds from ``rng`` (None: a generator seeded 0)."""
        rng = np.random.default_rng(0) if rng is None else rng
        n = game.num_players
        likelihood = np.zeros((n, cards.DECK_SIZE))  # [seat, card]; LBR's own row unused
        likelihood[:, self._numbers] = 1.0
        while game.phase < Phase.HAND_OVER:
            likelihood[:, self._seen(game, seat)] = 0.0
            actor, mask = game.current_player, action_mask(game)
            observation = self._encoder.encode(game, actor)
            if actor == seat:
                action = self.act_at_table(game, seat, observation, mask, likelihood, rng)
            else:
                action = int(self.agent.act(observation, mask))
                if game.phase != Phase.DECLARE and mask.sum() > 1:
                    likelihood[actor] = self._update(game, actor, observation, mask,
                                                     likelihood[actor], action)
            game.step(action)

    def act_at_table(self, game: Game, seat: int, observation: np.ndarray, mask: np.ndarray,
                     likelihood: np.ndarray, rng: np.random.Generator) -> int:
        """LBR's action in ``seat`` (the class docstring's rules); ``likelihood`` ``[seat,
        card]``: each opponent's belief over its hidden card, up to a constant."""
        view = read_observation(observation, self.rules, self.layout)
        slots = [k for k in range(1, view.num_players) if view.in_hand[k]]
        seats = [(seat + k) % view.num_players for k in slots]
        if game.phase == Phase.DECLARE:
            worlds = self.draw_worlds(view, slots, likelihood[seats], DECLARE_WORLDS, rng)
            return self._declare_at_table(game, seats, view, mask, likelihood, worlds)
        worlds = self.draw_worlds(view, slots, likelihood[seats], self.worlds, rng)
        if game.phase == Phase.DISCARD:
            discards = [a for a in A.DISCARDS.values() if mask[a]]
            return max(discards, key=lambda a: self.expected_share(
                view, worlds, after_discard(view.operators[0], a)))
        values = self.bet_values(game, seats, view, mask, likelihood, worlds)
        return max(values, key=values.__getitem__)

    # ---- worlds ---------------------------------------------------------------------------

    def draw_worlds(self, view: TableView, slots: list[int], likelihood: np.ndarray,
                    count: int, rng: np.random.Generator) -> Worlds:
        """``count`` joint draws for the opponents in ``slots``, ``likelihood`` ``(m, 52)``
        their beliefs (:class:`Worlds`; fewer draws only when few card assignments are
        possible)."""
        hidden = self._draw_hidden(likelihood, count, rng)
        m, draws = hidden.shape
        est, distances = self.estimator, np.empty((2, m, draws))
        for i, slot in enumerate(slots):
            visible = [c // cards.NUM_SUITS for c in view.numbers(slot)]
            ops, roots, left = view.operators[slot], view.roots[slot], view.up_deals_left(slot)
            values = hidden[i] // cards.NUM_SUITS
            if left == 0:
                low, high = est.by_hidden_value(visible, ops, roots)
                distances[0, i], distances[1, i] = low[values], high[values]
                continue
            for value in np.unique(values).tolist():
                at = np.flatnonzero(values == value)
                low, high = est.completions([*visible, value], ops, roots,
                                            view.multiplies(slot), left, hidden_unknown=False)
                pick = rng.integers(0, low.size, at.size)
                distances[0, i, at], distances[1, i, at] = low[pick], high[pick]
        full = view.up_deals_left(0) == 0 and all(view.up_deals_left(s) == 0 for s in slots)
        if full:
            hands = np.empty((draws, m + 1, len(view.numbers(0))), dtype=np.int64)
            hands[:, 0] = view.numbers(0)
            for i, slot in enumerate(slots):
                hands[:, i + 1, :-1] = view.numbers(slot)
                hands[:, i + 1, -1] = hidden[i]
            ranks = np.asarray(tiebreak_rank(hands, self.rules.tiebreak))
        else:
            ranks = rng.random((draws, 2, m + 1)).argsort(axis=-1)
        return Worlds(slots, hidden, distances, ranks, rng.random((m, draws)))

    @staticmethod
    def _draw_hidden(likelihood: np.ndarray, count: int, rng: np.random.Generator
                     ) -> np.ndarray:
        """``(m, J)`` hidden cards, each column a draw from the product of the rows of
        ``likelihood`` over cards no two opponents share (rejection sampling, the class
        docstring)."""
        cdf = np.cumsum(likelihood / likelihood.sum(axis=1, keepdims=True), axis=1)
        cdf[:, -1] = 1.0
        m, kept, total = len(likelihood), [], 0

        def draw(size: int) -> np.ndarray:
            u = rng.random((m, size))
            got = np.stack([np.searchsorted(row, col, side="right") for row, col in
                            zip(cdf, u, strict=True)])
            return np.minimum(got, cdf.shape[1] - 1)

        for _ in range(DRAW_TRIES):
            got = draw(2 * count)
            ordered = np.sort(got, axis=0)
            distinct = (np.diff(ordered, axis=0) != 0).all(axis=0)
            kept.append(got[:, distinct])
            total += int(distinct.sum())
            if total >= count:
                break
        if total == 0:
            return draw(count)
        return np.concatenate(kept, axis=1)[:, :count]

    def _own(self, view: TableView, ops: str) -> tuple[np.ndarray, np.ndarray]:
        """LBR's best distances ``(K,)`` over :data:`OWN_COMPLETIONS` completions of its hand
        (one when it is full) with operators ``ops``."""
        low, high = self.estimator.completions(
            [c // cards.NUM_SUITS for c in view.numbers(0)], ops, view.roots[0],
            view.multiplies(0), view.up_deals_left(0), hidden_unknown=False)
        stride = max(1, low.size // OWN_COMPLETIONS)
        return low[::stride], high[::stride]

    def shares(self, own: tuple[np.ndarray, np.ndarray], worlds: Worlds,
               declarations: np.ndarray, live: np.ndarray | None = None) -> np.ndarray:
        """``(D, K, J)``: LBR's share of the pot declaring each of its ``D`` declarations with
        each own completion ``own`` ``(2, K)`` in each world, the opponents declaring
        ``declarations`` ``(m, J)`` (action ids) and, where ``live`` ``(m, J)`` is False,
        folded."""
        m, draws = worlds.hidden.shape
        k, d = own[0].size, self._declarations
        shape = (d, k, draws, m + 1)
        distances = np.empty((d, k, draws, 2, m + 1))
        distances[..., 0, 0] = own[0][None, :, None]
        distances[..., 1, 0] = own[1][None, :, None]
        distances[..., 1:] = worlds.distances.transpose(2, 0, 1)[None, None]
        alive = np.ones((draws, m + 1), dtype=bool)
        if live is not None:
            alive[:, 1:] = live.T
        theirs = np.where(alive[:, 1:], declarations.T, NO_DECLARATION)
        declared = np.empty(shape, dtype=np.int64)
        declared[..., 0] = (A.DECLARE_LOW + np.arange(d))[:, None, None]
        declared[..., 1:] = theirs[None, None]
        split = split_pot(np.full(shape[:-1], POT_UNITS), np.broadcast_to(alive, shape),
                          declared, distances,
                          np.broadcast_to(worlds.ranks, (d, k, draws, 2, m + 1)),
                          odd_chip=self.rules.odd_chip)
        return split.payouts[..., 0] / POT_UNITS

    def _picks(self, worlds: Worlds) -> np.ndarray:
        """``(m, J)``: each opponent's declaration (action id) by the opponent model."""
        return A.DECLARE_LOW + opponent_pick(worlds.distances[0], worlds.distances[1],
                                             self.rules.swing)

    def expected_share(self, view: TableView, worlds: Worlds, ops: str | None = None) -> float:
        """LBR's expected share of the pot if everyone still in checks or calls to the end:
        per completion of its hand, its best declaration's mean share over the worlds."""
        own = self._own(view, view.operators[0] if ops is None else ops)
        shares = self.shares(own, worlds, self._picks(worlds))
        return float(shares.mean(axis=2).max(axis=0).mean())

    # ---- LBR's decisions ------------------------------------------------------------------

    def bet_values(self, game: Game, seats: list[int], view: TableView, mask: np.ndarray,
                   likelihood: np.ndarray, worlds: Worlds) -> dict[int, float]:
        """The value in chips of each betting action LBR weighs (the class docstring), the
        opponents in ``seats`` (their seats, in ``worlds``' slot order)."""
        high = view.highest_wager
        dead = sum(w for w, live in zip(view.wagers, view.in_hand, strict=True) if not live)
        passive = A.CHECK if mask[A.CHECK] else A.CALL
        pot = high * (1 + len(worlds.slots)) + dead
        values = {passive: self.expected_share(view, worlds) * pot - high}
        if mask[A.FOLD] and view.to_call > 0:
            values[A.FOLD] = -float(view.wagers[0])
        for action in self._raises(view, mask):
            values[action] = self._raise_value_at_table(game, seats, view, action, likelihood,
                                                        worlds, dead)
        return values

    def _fold_probabilities(self, game: Game, seats: list[int], action: int,
                            likelihood: np.ndarray, worlds: Worlds) -> np.ndarray:
        """``(m, J)``: each opponent's probability of folding to the raise ``action`` with its
        card in each world, asked in turn at the state after the raise, those before it
        calling; 0 for an opponent not asked (the round ends first, or it cannot fold)."""
        after = scratch_copy(game)
        after.step(action)
        seat, betting = game.current_player, after.round
        index = {s: i for i, s in enumerate(seats)}
        fold = np.zeros(worlds.hidden.shape)
        while (after.phase == Phase.BET and after.round == betting
               and after.current_player not in (None, seat)):
            opp = after.current_player
            mask = action_mask(after)
            if opp in index and mask[A.FOLD]:
                candidates = np.flatnonzero(likelihood[opp])
                probs = self.probabilities(after, opp, self._lookahead.encode(after, opp), mask,
                                           candidates)
                by_card = np.zeros(cards.DECK_SIZE)
                by_card[candidates] = probs[:, A.FOLD]
                fold[index[opp]] = by_card[worlds.hidden[index[opp]]]
            after.step(A.CALL if mask[A.CALL] else A.CHECK)
        return fold

    def _raise_value_at_table(self, game: Game, seats: list[int], view: TableView, action: int,
                              likelihood: np.ndarray, worlds: Worlds, dead: int) -> float:
        """A raise's value over the worlds: won outright where every opponent folds, else a
        showdown among the callers at the raise, the folders' wagers in the pot."""
        total = A.raise_total(action)
        folds = worlds.uniform < self._fold_probabilities(game, seats, action, likelihood,
                                                          worlds)
        wagers = np.array([view.wagers[s] for s in worlds.slots], dtype=np.float64)
        callers = (~folds).sum(axis=0)
        pot = total * (1 + callers) + (folds * wagers[:, None]).sum(axis=0) + dead  # (J,)
        shares = self.shares(self._own(view, view.operators[0]), worlds, self._picks(worlds),
                             live=~folds)
        net = np.where(callers == 0, pot - total, shares * pot - total)  # (D, K, J)
        return float(net.mean(axis=2).max(axis=0).mean())

    def _declare_at_table(self, game: Game, seats: list[int], view: TableView,
                          mask: np.ndarray, likelihood: np.ndarray, worlds: Worlds) -> int:
        """The declaration with the largest mean share, each opponent declaring in each world
        as the agent's probabilities say for the card it holds there."""
        declarations = np.empty(worlds.hidden.shape, dtype=np.int64)
        for i, opp in enumerate(seats):
            candidates = np.flatnonzero(likelihood[opp])
            probs = self.probabilities(game, opp, self._encoder.encode(game, opp), mask,
                                       candidates)[:, A.DECLARE_LOW:A.DECLARE_LOW + 3]
            cdf = np.zeros((cards.DECK_SIZE, 3))
            cdf[candidates] = np.cumsum(probs / probs.sum(axis=1, keepdims=True), axis=1)
            at = cdf[worlds.hidden[i]]  # (J, 3)
            declarations[i] = A.DECLARE_LOW + np.minimum(
                (worlds.uniform[i][:, None] >= at).sum(axis=1), 2)
        own = self._own(view, view.operators[0])
        expected = self.shares(own, worlds, declarations).mean(axis=(1, 2))
        options = [a for a in A.DECLARATIONS if mask[a]]
        return max(options, key=lambda a: expected[a - A.DECLARE_LOW])


def scratch_copy(game: Game) -> Game:
    """A deep copy of ``game`` to step in a look-ahead: as :meth:`Game.clone` but sharing
    the (frozen) rules and starting an empty event log, which a clone would copy event by
    event."""
    return copy.deepcopy(game, {id(game.rules): game.rules, id(game.log): []})


def local_best_response(agent: Agent, rules: RuleSet) -> LBR:
    """The local best response to ``agent`` at a table of ``rules``: :class:`LBR` heads-up,
    :class:`TableLBR` at 3 or more players."""
    if isinstance(rules, RuleSet) and rules.num_players > 2:
        return TableLBR(agent, rules)
    return LBR(agent, rules)


def lbr_match(agent: Agent | str, rules: Any = "standard", deals: int = 1_000, seed: int = 0,
              *, agent_seed: int = 0,
              on_deal: Callable[[int], None] | None = None) -> TableResult:
    """LBR against ``agent`` (an agent or a registered name) in ``deals`` duplicate deals of
    ``rules`` (one hand each): LBR in one seat, the agent in every other
    (:func:`local_best_response`). The deals are those of
    :func:`training.evaluate.play_table` with the same ``seed``, each played once per
    rotation, LBR in a different seat each time. The result's seat 0 is LBR: ``result.score(0)``
    is what one deviating seat wins per hand against the agent in all the others, a lower
    bound on the agent's exploitability (:func:`describe`), with its 95% CI. ``on_deal(d)``
    hears each finished deal."""
    rules = resolve(rules)
    if rules.hands_per_episode != 1:
        rules = rules.replace(hands_per_episode=1)
    if isinstance(agent, str):
        agent = agent_registry.make(agent, rules, seed=agent_seed)
    if deals < 1:
        raise ValueError(f"an LBR match plays at least 1 deal, not {deals}")
    responder = local_best_response(agent, rules)
    n = rules.num_players
    per_deal = np.zeros((deals, n))
    house = 0
    start = time.perf_counter()
    for d in range(deals):
        for r in range(n):  # rotation r seats LBR (players[0]) at seat -r mod n
            seat = -r % n
            game = Game(rules, deal_rng(seed, d))
            responder.play_hand(game, seat, np.random.default_rng([seed, d, r, LBR_STREAM]))
            for s, chips in enumerate(game.result.net):
                per_deal[d, (s + r) % n] += chips
            house += game.result.house
        if on_deal is not None:
            on_deal(d)
    return TableResult(names=(NAME, *[agent.name] * (n - 1)), per_deal=per_deal / n,
                       house=house / (n * deals), seconds=time.perf_counter() - start)


def describe(result: TableResult, agent: str | None = None) -> str:
    """The bound in words: LBR's chips per hand against the agent, its 95% CI, the verdict.

    At ``n`` players the bound is on the one-seat exploitability: what a best response in one
    seat wins per hand, averaged over the seats, against the agent in the other ``n - 1``
    (the agent's own table, ``n`` copies, gives each seat at most 0, the house's odd chips
    aside, so the gain over it is at least as large)."""
    agent = result.names[1] if agent is None else agent
    n = len(result.names)
    mean, ci = result.score(0)
    table = "" if n == 2 else f" at {n} players (LBR in one seat, {agent} in the other {n - 1})"
    lines = [f"Local best response (LBR) to {agent}{table}: {mean:+.3f} ± {ci:.3f} chips per "
             f"hand (95% CI {interval(mean, ci)}), {result.deals:,} duplicate deals "
             f"({result.hands:,} hands) in {result.seconds:.0f}s"]
    what = "" if n == 2 else (f": what one seat wins per hand against {agent} in the other "
                              f"{n - 1}, seats rotated")
    if mean - ci > 0:
        lines.append(f"exploitability of {agent} >= {mean - ci:+.3f} chips per hand{what} (the "
                     "CI's low end; LBR trains nothing, so the bound is out of sample)")
    else:
        lines.append(f"LBR does not beat {agent} here: the bound is only exploitability >= 0 "
                     "(LBR's look-ahead assumes check/call to the end; a trained response may "
                     "find more)")
    return "\n".join(lines)
