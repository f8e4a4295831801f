"""What a player of Hi MiLo! may know, as one flat float32 vector, and the legal-action mask.

Seats are relative to the observer: seat slot 0 is the observer, slot k the k-th player to
their left (clockwise), so one policy can play any seat. ``n`` is ``num_players``; every
entry lies in [0, 1].

| slice          | size    | content                                                          |
|----------------|---------|------------------------------------------------------------------|
| ``phase``      | 3       | one-hot: bidding, passing, trick play (all 0 once the round ends)|
| ``hand``       | 72      | the observer's hand, by card id                                  |
| ``bids``       | n × 3   | per seat slot, one-hot bid: low, middle, high (0 before it bids) |
| ``dealer``     | n       | one-hot seat slot of the dealer                                  |
| ``to_act``     | n       | one-hot seat slot of the player to act                           |
| ``line``       | 14 × 14 | row i: one-hot Win Card id of the i-th face-up card of the line, |
|                |         | from the current trick's; rows past the face-up part are 0       |
| ``win_left``   | 14      | the Win Cards not yet taken (face up or down: a known set)       |
| ``taken``      | n × 14  | per seat slot, the Win Cards it took                             |
| ``tricks_won`` | n       | per seat slot, tricks won / 14                                   |
| ``trick_index``| 14      | one-hot current trick (0 before play and once the round ends)   |
| ``leader``     | n       | one-hot seat slot of the current trick's leader (during play)    |
| ``trick``      | n × 72  | per seat slot, the card it played to the current trick           |
| ``played``     | n × 72  | per seat slot, every card it played to a trick, this one included|
| ``passed``     | 72      | the cards the observer passed (the ones chosen so far included)  |
| ``received``   | 72      | the cards passed to the observer                                 |

Nothing here shows another player's hand, cards passed between other players, the undealt
cards or the order of the face-down part of the line (``docs/himilo.md`` section 7). The table
is tested against :func:`layout`.
"""

from __future__ import annotations

import functools

import numpy as np

from hilo_env.himilo import actions as A
from hilo_env.himilo.cards import NUM_CARD_IDS, NUM_WIN_CARDS, cards_in_play
from hilo_env.himilo.engine import NO_BID, Phase, Round
from hilo_env.himilo.rules import HAND_SIZE, RuleSet

NUM_PHASES = 3
"""Phases a player acts in: ``BID``, ``PASS``, ``PLAY``."""
NUM_BIDS = len(A.BIDS)


@functools.cache
def layout(num_players: int) -> dict[str, slice]:
    """Name -> slice of the observation vector for ``num_players``, in order."""
    n = num_players
    sizes = {
        "phase": NUM_PHASES, "hand": NUM_CARD_IDS, "bids": n * NUM_BIDS, "dealer": n,
        "to_act": n, "line": NUM_WIN_CARDS * NUM_WIN_CARDS, "win_left": NUM_WIN_CARDS,
        "taken": n * NUM_WIN_CARDS, "tricks_won": n, "trick_index": HAND_SIZE, "leader": n,
        "trick": n * NUM_CARD_IDS, "played": n * NUM_CARD_IDS, "passed": NUM_CARD_IDS,
        "received": NUM_CARD_IDS,
    }
    out, start = {}, 0
    for name, size in sizes.items():
        out[name] = slice(start, start + size)
        start += size
    return out


def observation_size(num_players: int) -> int:
    """Length of the observation vector for ``num_players``."""
    return layout(num_players)["received"].stop


def current_trick(observation: np.ndarray, num_players: int) -> tuple[int, int, list[int]]:
    """The trick under way as the observer sees it, during trick play: its Win Card, the
    seat slot of its leader, and the cards played to it so far, in play order."""
    w, n = layout(num_players), num_players
    table = observation[w["trick"]].reshape(n, NUM_CARD_IDS)
    lead = int(observation[w["leader"]].argmax())
    order = [(lead + i) % n for i in range(n)]
    return (int(observation[w["line"]][:NUM_WIN_CARDS].argmax()), lead,
            [int(table[s].argmax()) for s in order if table[s].any()])


def unseen_cards(observation: np.ndarray, num_players: int) -> np.ndarray:
    """The ids of the cards in play the observer has neither held nor seen played (in its
    hand, received, or played to a trick by anyone): where other players' cards may be."""
    w = layout(num_players)
    seen = (observation[w["hand"]] + observation[w["received"]]
            + observation[w["played"]].reshape(num_players, NUM_CARD_IDS).sum(axis=0)) > 0
    return np.flatnonzero(~seen[:cards_in_play(num_players)])


def action_mask(game: Round) -> np.ndarray:
    """int8 ``(147,)``: 1 at each legal action of the player to act (all 0 once it is over)."""
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[game.legal_actions()] = 1
    return mask


class Encoder:
    """Builds the observation vector of one seat from a :class:`Round` (the table above)."""

    def __init__(self, rules: RuleSet) -> None:
        self.num_players = n = rules.num_players
        self.size = observation_size(n)
        self.start = {name: s.start for name, s in layout(n).items()}

    def encode(self, game: Round, seat: int) -> np.ndarray:
        """The observation of ``seat``: float32 ``(size,)``."""
        n, at = self.num_players, self.start
        obs = np.zeros(self.size, dtype=np.float32)
        hot: list[int] = []

        def slot(other: int) -> int:
            return (other - seat) % n

        if game.phase != Phase.ROUND_OVER:
            hot.append(at["phase"] + int(game.phase))
            hot.append(at["to_act"] + slot(game.current_player))
        hot += [at["hand"] + c for c in game.hands[seat]]
        hot += [at["bids"] + slot(s) * NUM_BIDS + b for s, b in enumerate(game.bids)
                if b != NO_BID]
        hot.append(at["dealer"] + slot(game.dealer))
        hot += [at["line"] + i * NUM_WIN_CARDS + w for i, w in enumerate(game.visible_line())]
        hot += [at["win_left"] + w for w in game.line[game.trick:]]
        for s in range(n):
            k = slot(s)
            hot += [at["taken"] + k * NUM_WIN_CARDS + w for w in game.taken[s]]
            hot += [at["played"] + k * NUM_CARD_IDS + c for c in game.played[s]]
        if game.phase == Phase.PLAY:
            hot.append(at["trick_index"] + game.trick)
            lead = slot(game.leader)
            hot.append(at["leader"] + lead)
            hot += [at["trick"] + (lead + i) % n * NUM_CARD_IDS + c
                    for i, c in enumerate(game.trick_cards)]
        hot += [at["passed"] + c for c in game.passed[seat]]
        hot += [at["received"] + c for c in game.received[seat]]
        obs[hot] = 1.0
        won = at["tricks_won"]
        for s, taken in enumerate(game.taken):
            obs[won + slot(s)] = len(taken) / HAND_SIZE
        return obs
