"""Hi MiLo! agents behind :class:`hilo_env.agents.Agent`: ``random``, the rule-based
``team`` player and the shipped ``ppo`` and ``value``, by name in :data:`AGENTS` (the game's
``agents`` table, which :func:`hilo_env.agents.registry.make` reads).

The team player reads only its own observation (:mod:`himilo.observation`):

* **Bid** from hand strength under the visible Win Cards: each card's *power* is how likely
  it is to win under each visible Win Card (a high card of a K's suit, a low off-colour card
  under a J, any card a little under a Q), the hand's strength the sum of its powers. Its
  percentile among random hands of the same table says how likely it is the strongest (or the
  weakest) of the players still to bid: it bids High (Low) when that is likely, else Middle.
* **Pass** toward the bids: the High bidder sheds its weakest cards, the Low bidder its
  strongest; a passer whose left neighbour bid High gives its strongest, one whose neighbour
  bid Low its weakest; Middles otherwise shed their strongest.
* **Play** toward the team's goal: for each legal card it estimates, over a few random
  completions of the trick from the unseen cards, who takes the trick and how many of the
  2n-3 inequalities of a team win then fail; it plays the card with the fewest expected
  failures, the least powerful among equals.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hilo_env.agents import himilo_value
from hilo_env.agents.base import Agent, check_observations
from hilo_env.agents.baselines import RandomAgent
from hilo_env.agents.registry import MODELS, shipped_model
from hilo_env.himilo import actions as A
from hilo_env.himilo import cards, tricks
from hilo_env.himilo.cards import HI, LO, NO_SUIT, NUM_CARD_IDS, NUM_SUITS, NUM_WIN_CARDS
from hilo_env.himilo.observation import (
    NUM_BIDS,
    current_trick,
    layout,
    observation_size,
    unseen_cards,
)
from hilo_env.himilo.rules import HAND_SIZE, RuleSet

LOW_BID, MIDDLE_BID, HIGH_BID = range(NUM_BIDS)
MI_POWER = 0.3
"""A card's power under a Q (Mi): any card may land in the middle."""
BID_CONFIDENCE = 0.5
"""Bid High (Low) when the hand is at least this likely to be the strongest (weakest) of
the players still to bid."""
STRENGTH_SAMPLES = 256
"""Random hands the bid's strength percentile is measured against."""
TRICK_SAMPLES = 6
"""Random completions of a trick per legal card when later players have still to play."""


def card_power(win_cards: list[int], max_value: int) -> np.ndarray:
    """(72,) mean over ``win_cards`` of how likely each card is to win its trick: a rough,
    documented proxy (module docstring), not a probability."""
    values = np.arange(NUM_CARD_IDS) // NUM_SUITS + 1
    suits = np.arange(NUM_CARD_IDS) % NUM_SUITS
    high, low = values / max_value, 1.0 - (values - 1) / max_value
    power = np.zeros(NUM_CARD_IDS)
    for win in win_cards:
        rank, colour = cards.win_rank(win), cards.win_suit(win)
        if rank == HI:
            power += high if colour == NO_SUIT else np.where(suits == colour, high, 0.2 * high)
        elif rank == LO:
            power += low if colour == NO_SUIT else np.where(suits == colour, 0.0, low)
        else:
            power += MI_POWER
    return power / max(len(win_cards), 1)


class TeamAgent(Agent):
    """The rule-based team player (module docstring)."""

    name = "team"

    def __init__(self, rules: RuleSet, seed: int | None = 0) -> None:
        super().__init__(rules, seed)
        self.num_players = n = rules.num_players
        self.where = layout(n)
        self.observation_size = observation_size(n)
        self.in_play = cards.cards_in_play(n)
        self.max_value = cards.VALUES_IN_PLAY[n]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("the action mask allows no action: nobody may act in this state")
        observation = check_observations(self, observation, self.observation_size)
        if legal[0] >= A.BID_LOW:
            return self._bid(observation, legal)
        visible = self._visible_line(observation)
        power = card_power(visible, self.max_value)
        if legal[0] >= A.FIRST_PASS:
            return self._pass(observation, legal, power)
        return self._play(observation, legal, power, visible[0])

    # ---- reading the observation ----------------------------------------------------------

    def _visible_line(self, obs: np.ndarray) -> list[int]:
        rows = obs[self.where["line"]].reshape(NUM_WIN_CARDS, NUM_WIN_CARDS)
        return [int(r.argmax()) for r in rows if r.any()]

    def _bids(self, obs: np.ndarray) -> list[int]:
        """Per seat slot, its bid or -1."""
        rows = obs[self.where["bids"]].reshape(self.num_players, NUM_BIDS)
        return [int(r.argmax()) if r.any() else -1 for r in rows]

    # ---- bidding --------------------------------------------------------------------------

    def _bid(self, obs: np.ndarray, legal: np.ndarray) -> int:
        if legal.size == 1:
            return int(legal[0])
        hand = np.flatnonzero(obs[self.where["hand"]])
        power = card_power(self._visible_line(obs), self.max_value)
        samples = np.argsort(self.rng.random((STRENGTH_SAMPLES, self.in_play)), axis=1)
        others = power[samples[:, :HAND_SIZE]].sum(axis=1)
        percentile = float(np.mean(others < power[hand].sum()))
        to_bid = self._bids(obs).count(-1)  # this player included
        strongest, weakest = percentile ** (to_bid - 1), (1 - percentile) ** (to_bid - 1)
        if A.BID_HIGH in legal and strongest >= BID_CONFIDENCE:
            return A.BID_HIGH
        if A.BID_LOW in legal and weakest >= BID_CONFIDENCE:
            return A.BID_LOW
        if A.BID_MIDDLE in legal:
            return A.BID_MIDDLE
        return A.BID_HIGH if A.BID_HIGH in legal and percentile >= 0.5 else int(legal[0])

    # ---- passing --------------------------------------------------------------------------

    def _pass(self, obs: np.ndarray, legal: np.ndarray, power: np.ndarray) -> int:
        bids = self._bids(obs)
        mine, left = bids[0], bids[1]
        shed_strong = not (mine == HIGH_BID or (mine != LOW_BID and left == LOW_BID))
        held = legal - A.FIRST_PASS
        pick = np.argmax(power[held]) if shed_strong else np.argmin(power[held])
        return int(legal[pick])

    # ---- trick play -----------------------------------------------------------------------

    def _play(self, obs: np.ndarray, legal: np.ndarray, power: np.ndarray, win: int) -> int:
        w, n = self.where, self.num_players
        if legal.size == 1:
            return int(legal[0])
        bids = self._bids(obs)
        high, low = bids.index(HIGH_BID), bids.index(LOW_BID)
        counts = np.rint(obs[w["tricks_won"]] * HAND_SIZE).astype(int).tolist()
        _, lead, played = current_trick(obs, n)
        order = [(lead + i) % n for i in range(n)]
        later = n - len(played) - 1
        unseen = unseen_cards(obs, n)

        def failures(card: int) -> float:
            total = 0.0
            samples = 1 if later == 0 else TRICK_SAMPLES
            for _ in range(samples):
                rest = self.rng.choice(unseen, later, replace=False).tolist() if later else []
                winner = order[tricks.trick_winner([*played, card, *rest], win)]
                counts[winner] += 1
                total += tricks.failed_constraints(counts, high, low)
                counts[winner] -= 1
            return total / samples

        scores = [(failures(int(c)), power[c], int(c)) for c in legal]
        return min(scores)[2]


AgentFactory = Callable[[RuleSet, "int | None"], Agent]
AGENTS: dict[str, AgentFactory] = {
    "random": RandomAgent, "team": TeamAgent,
    "ppo": shipped_model("ppo", {4: MODELS / "himilo_ppo_4p.npz"}, game="himilo"),
    "value": himilo_value.shipped({n: MODELS / f"himilo_value_{n}p.npz" for n in (3, 4, 5)}),
}
"""Hi MiLo!'s agents by name: ``random`` (uniform over the mask), ``team``, ``ppo`` (the
shipped MaskablePPO policy, one model per player count: ``agents/models/himilo_ppo_*p.npz``,
played in NumPy)
and ``value`` (the shipped after-state value networks, :mod:`agents.himilo_value`:
``agents/models/himilo_value_*p.npz``)."""

