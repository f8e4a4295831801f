"""What a seat of Hi MiLo! will observe once a decision it weighs has taken effect: its
observation (:mod:`himilo.observation`) after its bid, after it sets a card aside to pass, or
at the start of the next trick when the trick it plays to ends as a guess of the later cards
says.

An after-state is the seat's observation with its *passing* slices (``phase``, ``to_act``,
``leader``, ``trick``, ``trick_index``: who acts and the trick under way, which the next
decision changes whatever was chosen) set to zero; :meth:`Afterstates.settled` is that part of
any observation. So the after-state computed here equals ``settled`` of the observation the
engine gives the seat once the bid, the pass or the trick is done (tested on played rounds),
and a value learned on observations reads the after-states of decisions not taken.

The line shifts by one card after a trick. With every Win Card face up (the ``standard``
rules) that is the whole change; when part of the line is face down, the card turned up next
is not known beforehand, so after-states are exact only when ``visible_win_cards`` is 14.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hilo_env.himilo import actions as A
from hilo_env.himilo import tricks
from hilo_env.himilo.cards import NUM_CARD_IDS, NUM_WIN_CARDS
from hilo_env.himilo.engine import HIGH, LOW
from hilo_env.himilo.observation import NUM_BIDS, current_trick, layout
from hilo_env.himilo.rules import HAND_SIZE

PASSING = ("phase", "to_act", "leader", "trick", "trick_index")
"""The slices an after-state leaves at zero: who acts, and the trick under way."""


class Afterstates:
    """After-states of one player count's observations (module docstring)."""

    def __init__(self, num_players: int) -> None:
        self.num_players = num_players
        self.where = layout(num_players)
        self.passing = np.concatenate([np.arange(self.where[k].start, self.where[k].stop)
                                       for k in PASSING])

    def settled(self, observations: np.ndarray) -> np.ndarray:
        """A copy of ``observations`` (one or a batch) with the passing slices at zero."""
        out = np.array(observations, dtype=np.float32)
        out[..., self.passing] = 0.0
        return out

    def after_bid(self, observation: np.ndarray, bids: Sequence[int]) -> np.ndarray:
        """``(len(bids), size)``: the after-state of each bid action (``A.BID_LOW`` ..)."""
        out = np.repeat(self.settled(observation)[None], len(bids), axis=0)
        out[np.arange(len(bids)), self.where["bids"].start + np.asarray(bids) - A.BID_LOW] = 1
        return out

    def after_pass(self, observation: np.ndarray, cards: Sequence[int]) -> np.ndarray:
        """``(len(cards), size)``: the after-state of setting each card aside to pass."""
        out = np.repeat(self.settled(observation)[None], len(cards), axis=0)
        rows, cards = np.arange(len(cards)), np.asarray(cards)
        out[rows, self.where["hand"].start + cards] = 0
        out[rows, self.where["passed"].start + cards] = 1
        return out

    def trick_so_far(self, observation: np.ndarray) -> tuple[int, list[tuple[int, int]], int]:
        """The trick under way as the observer sees it: the Win Card, the ``(seat slot,
        card)`` pairs played so far in order, and how many players play after the observer."""
        n = self.num_players
        win, lead, cards = current_trick(observation, n)
        return win, [((lead + i) % n, c) for i, c in enumerate(cards)], n - len(cards) - 1

    def after_trick(self, observation: np.ndarray, cards: Sequence[int],
                    later: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """After-states of the trick under way ending with the observer playing ``cards[i]``
        and the players after it ``later[i]`` (``(B, k)`` card ids, in play order): the
        observer's observations at the next trick's start ``(B, size)`` and each row's trick
        counts per seat slot ``(B, n)`` (the round's end when they sum to 14)."""
        w, n = self.where, self.num_players
        win, lead, played = current_trick(observation, n)
        mine = len(played)
        later = np.asarray(later, dtype=np.int64).reshape(len(cards), n - mine - 1)
        slots = [(lead + i) % n for i in range(n)]  # seat slots in play order
        rows = np.arange(len(cards))
        trick_cards = np.empty((len(cards), n), dtype=np.int64)
        trick_cards[:, :mine] = played
        trick_cards[:, mine] = cards
        trick_cards[:, mine + 1:] = later
        winners = np.asarray(slots)[tricks.trick_winners(trick_cards, win)]
        out = np.repeat(self.settled(observation)[None], len(cards), axis=0)
        out[rows, w["hand"].start + np.asarray(cards)] = 0
        played_at = w["played"].start + np.asarray(slots)[None] * NUM_CARD_IDS + trick_cards
        out[rows[:, None], played_at] = 1
        out[rows, w["taken"].start + winners * NUM_WIN_CARDS + win] = 1
        counts = np.rint(out[:, w["tricks_won"]] * HAND_SIZE).astype(np.int64)
        counts[rows, winners] += 1
        out[:, w["tricks_won"]] = counts / HAND_SIZE
        line = out[:, w["line"]].reshape(len(cards), NUM_WIN_CARDS, NUM_WIN_CARDS)
        out[:, w["line"]] = np.concatenate(
            [line[:, 1:], np.zeros_like(line[:, :1])], axis=1).reshape(len(cards), -1)
        out[:, w["win_left"].start + win] = 0
        return out, counts

    def team_won(self, observation: np.ndarray, counts: Sequence[int]) -> bool:
        """Whether trick counts per seat slot ``counts`` win the round for the bids the
        observer sees."""
        bids = observation[self.where["bids"]].reshape(self.num_players, NUM_BIDS).argmax(1)
        return tricks.team_won(list(counts), int(np.flatnonzero(bids == HIGH)[0]),
                               int(np.flatnonzero(bids == LOW)[0]))
