"""What a player may know, as one flat float32 vector, and the mask of legal actions.

Seats are relative to the observer: seat slot 0 is the observer, slot k the k-th player to
their left (clockwise), so one policy can play any seat. ``n`` is ``num_players``, ``R`` the
number of betting rounds, ``S`` the starting stack; chip amounts are divided by ``S``.

| slice            | size   | content                                                             |
|------------------|--------|---------------------------------------------------------------------|
| ``phase``        | 3      | one-hot: betting, × discard, declaration (all 0 once the hand ends) |
| ``hidden``       | 44     | one-hot id of the observer's own hidden number card                 |
| ``face_up``      | n × 52 | per seat slot, the card ids it holds face up (√ and × included)     |
| ``set_aside``    | 52     | specials set aside this hand (extra cards that were not numbers)    |
| ``operators``    | n × 4  | per seat slot, how many of ``+ − × ÷`` it holds                     |
| ``roots``        | n      | per seat slot, √ held / 3                                           |
| ``in_hand``      | n      | per seat slot, 1 while it has not folded (0 when eliminated)        |
| ``stacks``       | n      | per seat slot, chips behind / S                                     |
| ``wagers``       | n      | per seat slot, chips wagered this hand (ante included) / S          |
| ``round_wagers`` | R × n  | per betting round, per seat slot, chips put in during it / S        |
| ``round_raises`` | R × n  | per betting round, per seat slot, raises it made / S (a raise adds  |
|                  |        | at least a chip, so this stays within the chips' bounds)            |
| ``button``       | n      | one-hot seat slot of the dealer                                     |
| ``betting_round``| R      | one-hot current betting round (0 outside betting)                   |
| ``pot``          | 1      | chips in the pot / S                                                |
| ``cap``          | 1      | the hand's betting cap / S                                          |
| ``to_call``      | 1      | chips the observer must add to call / S                             |
| ``solver``       | 5      | own full hand: known; Low valid; Low distance; High valid; High |
|                  |        | distance (distances min(d, 20) / 20; all 0 until the hand is full) |
| ``hands_left``   | 1      | hands left in the episode after this one / hands_per_episode    |

Nothing here reveals another player's hidden card or declaration. ``round_wagers`` and
``round_raises`` carry the betting line: who raised in which round, which the chips alone do
not tell (``raise 2, call`` and ``check, raise 2, call`` put the same chips in). The table is
tested against :func:`layout`.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.batch_state import NUMBERS_PER_HAND, BatchState
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.rules import RuleSet

NUM_OPERATOR_KINDS = solver.NUM_OPERATOR_KINDS
DISTANCE_SCALE = 20.0
SOLVER_FEATURES = 5
MAX_ROOTS_SCALE = float(solver.MAX_ROOTS)
"""The ``roots`` slice holds √ held / 3."""
# Phases as plain ints: NumPy compares arrays with them several times faster than with
# enum members, and Python compares a Phase with them as fast.
_BET, _DISCARD, _HAND_OVER = int(Phase.BET), int(Phase.DISCARD), int(Phase.HAND_OVER)


def layout(rules: RuleSet) -> dict[str, slice]:
    """Name -> slice of the observation vector, in order."""
    n, rounds = rules.num_players, rules.num_bet_rounds
    sizes = {
        "phase": 3, "hidden": cards.NUM_NUMBER_CARDS, "face_up": n * cards.DECK_SIZE,
        "set_aside": cards.DECK_SIZE, "operators": n * NUM_OPERATOR_KINDS, "roots": n,
        "in_hand": n, "stacks": n, "wagers": n, "round_wagers": rounds * n,
        "round_raises": rounds * n, "button": n,
        "betting_round": rounds, "pot": 1, "cap": 1, "to_call": 1, "solver": SOLVER_FEATURES,
        "hands_left": 1,
    }
    out, start = {}, 0
    for name, size in sizes.items():
        out[name] = slice(start, start + size)
        start += size
    return out


def observation_size(rules: RuleSet) -> int:
    """Length of the observation vector of ``rules``."""
    return layout(rules)["hands_left"].stop


def hand_is_full(game: Game, seat: int) -> bool:
    """True once the seat holds all its numbers (4 under the default ``base_operators``) and
    its operators are settled."""
    pending = game.phase == _DISCARD and game.current_player == seat
    face_up = len(game.up[seat]) - game.roots[seat] - game.multiplies[seat]
    return face_up == len(game.rules.base_operators) and not pending


def _solver_features(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The ``solver`` slices ``(..., 5)`` float32 of hands with these best distances."""
    out = np.ones((*np.shape(low), SOLVER_FEATURES))
    for col, distance in ((1, low), (3, high)):
        valid = np.isfinite(distance)
        out[..., col] = valid
        out[..., col + 1] = np.where(valid, np.minimum(distance, DISTANCE_SCALE)
                                     / DISTANCE_SCALE, 1.0)
    return out.astype(np.float32)


@functools.cache
def solver_slices(integer_results: bool) -> np.ndarray:
    """The ``solver`` slice of a full hand, for every solver signature: a read-only
    ``(solver.NUM_SIGNATURES, 5)`` float32 table (known; Low valid; Low distance; High valid;
    High distance)."""
    table = _solver_features(*solver.lookup_distances(np.arange(solver.NUM_SIGNATURES),
                                                      integer_results))
    table.flags.writeable = False
    return table


TABULATED_OPERATORS = frozenset("".join(p) for ops in solver.OPSETS
                                for p in itertools.permutations(ops))
"""The operators of a hand whose solution is a table row, in every order (3 operators, so 4
numbers)."""


def solver_slice(game: Game, seat: int) -> np.ndarray:
    """The ``solver`` slice of a seat whose hand is full: a table row for a tabulated hand,
    the solver's search for a smaller or untabulated one (``base_operators``)."""
    numbers = [c // cards.NUM_SUITS for c in game.number_cards(seat)]
    ops, roots, whole = game.operators[seat], game.roots[seat], game.rules.integer_results
    if "".join(ops) in TABULATED_OPERATORS:
        return solver_slices(whole)[solver.signature_unchecked(numbers, ops, roots)]
    sol = solver.solve_unchecked(numbers, ops, roots, whole)
    low, high = (np.inf if eq is None else eq.distance for eq in (sol.low, sol.high))
    return _solver_features(np.array(low), np.array(high))


def _operator_counts() -> dict[str, tuple[int, int, int, int]]:
    """Counts of ``+ - * /`` for every operator string a hand can hold (1 to 3 operators),
    in any order."""
    out = {}
    for ops in itertools.chain.from_iterable(
            itertools.product(solver.OPERATORS, repeat=k)
            for k in range(solver.MIN_NUMBERS - 1, solver.NUM_OPERATORS + 1)):
        text = "".join(ops)
        out[text] = tuple(text.count(op) for op in solver.OPERATORS)
    return out


OPERATOR_COUNTS = _operator_counts()


class Encoder:
    """Builds observations for one rule set.

    The encoder keeps one *table*: every slice of every seat's observation at once (each
    seat's hidden card, call amount and solver slice, and everything all players see), with
    the slices that change at every action first. A seat's observation is a copy of its
    entries, gathered through an index fixed per seat that also rotates the seat slots to put
    the seat first. The table follows the game last encoded: the length of ``game.log`` counts
    the game's changes, a lone betting action rewrites only that seat's chips, the pot and the
    calls, and within a hand a dealt card stays in view, so new cards are the ones past those
    already shown. Observing every seat of a state costs one update and one gather each. The
    game must change only through its own methods.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.layout = layout(rules)
        self.size = observation_size(rules)
        n = rules.num_players
        self._table_layout = table = _table_layout(rules)
        self._gather = [_gather_index(rules, self.layout, table, seat) for seat in range(n)]
        self._stack = float(rules.starting_stack)
        # where the cards of each seat, then the set-aside cards, are one-hot
        self._pile_offsets = [table["face_up"].start + s * cards.DECK_SIZE for s in range(n)]
        self._pile_offsets.append(table["set_aside"].start)
        self._hidden_offsets = [table["hidden"].start + s * cards.NUM_NUMBER_CARDS
                                for s in range(n)]
        self._operators = slice(table["operators"].start, table["roots"].stop)
        self._seat_at = {name: table[name].start for name in
                         ("in_hand", "stacks", "wagers", "round_wagers", "round_raises", "pot")}
        self._to_call = table["to_call"]
        n_rounds = rules.num_bet_rounds
        self._rounds_not_begun = [[0] * ((n_rounds - r) * n) for r in range(n_rounds + 1)]
        self._phase_one_hots = {(phase, r): _phase_one_hot(phase, r, n_rounds)
                                for phase in Phase for r in range(-1, n_rounds)}
        self._solver_at = table["solver"].start
        self._table = np.zeros(table["hands_left"].stop, dtype=np.float32)
        # the one-hots and in_hand as they are, the chips / S (divided in float64); no view of
        # the table is kept, so a copied encoder (deepcopy, pickle) writes its own table
        self._changing_divisors = np.full(table[CHANGING[-1]].stop, self._stack)
        self._changing_divisors[:table["in_hand"].stop] = 1.0
        self._game: Game | None = None
        self._hand = self._version = -1
        self._cards_state: tuple[int, bool] | None = None
        self._phase_round: tuple[Phase, int] | None = None
        self._shown: list[int] = []
        self._solved: list[bool] = []

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The observation of ``seat`` in ``game``."""
        if game is not self._game or game.hand_number != self._hand:
            self._new_hand(game)
        log = game.log
        if len(log) != self._version:
            last = log[-1]
            if (len(log) == self._version + 1 and last.kind == "action"
                    and self._phase_round == (game.phase, game.round)):
                self._update_seat(game, last.seat)
            else:
                self._update(game)
        return self._table.take(self._gather[seat])

    def _new_hand(self, game: Game) -> None:
        """Clear the table for the hand being played: its button, cap and hands left."""
        where, rules, table = self._table_layout, self.rules, self._table
        self._game, self._hand, self._version = game, game.hand_number, -1
        self._cards_state = None
        self._shown = [0] * len(self._pile_offsets)
        self._solved = [False] * rules.num_players
        table[:] = 0.0
        table[where["button"].start + game.button] = 1.0
        table[where["cap"].start] = game.cap / self._stack
        table[where["hands_left"].start] = ((rules.hands_per_episode - game.hand_number)
                                            / rules.hands_per_episode)
        for seat, card in enumerate(game.hidden):
            if card >= 0:  # not dealt to a seat out of the match
                table[self._hidden_offsets[seat] + card] = 1.0

    def _update_seat(self, game: Game, seat: int) -> None:
        """After one action that changed neither the phase nor the round (a bet, or a
        declaration, which is secret): the seat's chips and whether it is in, the pot, the
        calls. Any other change logs more than one event (a deal, a new round, a payout)."""
        self._version = len(game.log)
        table, stack, wagers, rnd = self._table, self._stack, game.wagers, game.round
        at = self._seat_at
        table[at["in_hand"] + seat] = game.in_hand[seat]
        table[at["stacks"] + seat] = game.stacks[seat] / stack
        table[at["wagers"] + seat] = wagers[seat] / stack
        table[at["round_wagers"] + rnd * len(wagers) + seat] = game.round_wagers[rnd][seat] / stack
        table[at["round_raises"] + rnd * len(wagers) + seat] = game.round_raises[rnd][seat] / stack
        table[at["pot"]] = game.pot / stack
        high = max(wagers)
        table[self._to_call] = [(high - w) / stack for w in wagers]

    def _update(self, game: Game) -> None:
        """Bring the table up to the game's state: the chips and the phase, and the cards,
        operators and solver slices when a card was dealt or an operator discarded."""
        self._version = len(game.log)
        self._phase_round = game.phase, game.round
        phase, wagers = game.phase, game.wagers
        # the slices that can change with every action, in the order of CHANGING, in chips
        values = self._phase_one_hots[phase, game.round] + game.in_hand + game.stacks + wagers
        not_begun = self._rounds_not_begun[len(game.round_wagers)]
        for per_round in (game.round_wagers, game.round_raises):
            for row in per_round:
                values += row
            values += not_begun
        values.append(game.pot)
        high = max(wagers)
        values += [high - w for w in wagers]
        divisors = self._changing_divisors
        np.divide(values, divisors, out=self._table[:len(divisors)], casting="unsafe")
        cards_state = len(game.deck), phase == _DISCARD
        if cards_state != self._cards_state:
            self._cards_state = cards_state
            self._update_cards(game)

    def _update_cards(self, game: Game) -> None:
        """Add the cards dealt or set aside since the last update; write the operators, the
        roots and the solver slice of each seat whose hand became full."""
        table, shown = self._table, self._shown
        for k, (base, pile) in enumerate(zip(self._pile_offsets, [*game.up, game.set_aside],
                                             strict=True)):
            for card in pile[shown[k]:]:
                table[base + card] = 1.0
            shown[k] = len(pile)
        counts: list[float] = []
        for ops in game.operators:
            counts += OPERATOR_COUNTS["".join(ops)]
        counts += [r / MAX_ROOTS_SCALE for r in game.roots]
        table[self._operators] = counts
        for seat, solved in enumerate(self._solved):
            if not solved and hand_is_full(game, seat):
                at = self._solver_at + seat * SOLVER_FEATURES
                table[at:at + SOLVER_FEATURES] = solver_slice(game, seat)
                self._solved[seat] = True


def _phase_one_hot(phase: Phase, betting_round: int, num_bet_rounds: int) -> list[int]:
    """The ``phase`` and ``betting_round`` slices (all 0 once the hand is over)."""
    out = [0] * (3 + num_bet_rounds)
    if phase < _HAND_OVER:
        out[phase] = 1
        if phase == _BET:
            out[3 + betting_round] = 1
    return out


CHANGING = ("phase", "betting_round", "in_hand", "stacks", "wagers", "round_wagers",
            "round_raises", "pot", "to_call")
"""The slices that can change with any action; the encoder's table holds them first."""

PER_SLOT = {"face_up": (1, cards.DECK_SIZE), "operators": (1, NUM_OPERATOR_KINDS), "roots": (1, 1),
            "in_hand": (1, 1), "stacks": (1, 1), "wagers": (1, 1), "button": (1, 1)}
"""Slices with a block per seat slot, as (rows, width); those of :data:`PER_ROUND` have a
row per betting round besides."""
PER_ROUND = ("round_wagers", "round_raises")
"""Slices with a row per betting round, each a block per seat slot; each is also the name of
the game's (and the batch state's) list of those rows."""
PER_OBSERVER = ("hidden", "to_call", "solver")
"""Slices about the observer alone: the encoder's table holds a block per seat of each."""


def _table_layout(rules: RuleSet) -> dict[str, slice]:
    """Name -> slice of the :class:`Encoder`'s table: the observation's slices, with a block
    per seat for each slice about the observer, the seat slots in seat order, and the slices
    that change with every action first."""
    n, where = rules.num_players, layout(rules)
    out, start = {}, 0
    for name in [*CHANGING, *(name for name in where if name not in CHANGING)]:
        size = (where[name].stop - where[name].start) * (n if name in PER_OBSERVER else 1)
        out[name] = slice(start, start + size)
        start += size
    return out


def _gather_index(rules: RuleSet, where: dict[str, slice], table: dict[str, slice],
                  seat: int) -> np.ndarray:
    """For each entry of ``seat``'s observation, the table entry it shows."""
    n = rules.num_players
    parts = []
    for name, sl in where.items():
        size, at = sl.stop - sl.start, table[name].start
        if name in PER_OBSERVER:
            parts.append(at + seat * size + np.arange(size))
        elif name in PER_SLOT or name in PER_ROUND:
            rows, width = PER_SLOT.get(name, (rules.num_bet_rounds, 1))
            row, slot, col = np.ix_(np.arange(rows), np.arange(n), np.arange(width))
            parts.append((at + (row * n + (seat + slot) % n) * width + col).ravel())
        else:
            parts.append(at + np.arange(size))
    return np.concatenate(parts).astype(np.intp)


def action_mask(game: Game, out: np.ndarray | None = None) -> np.ndarray:
    """int8 mask over the action space: 1 for each legal action of the acting player (also
    set in ``out`` when given, which is then returned)."""
    size = A.num_actions(game.rules.max_cap)
    if game.phase == _BET and game.current_player is not None:
        bet = _bet_mask(size, *game.bet_options())
        if out is None:
            return bet.copy()
        out[bet == 1] = 1
        return out
    mask = np.zeros(size, dtype=np.int8) if out is None else out
    mask[game.legal_actions()] = 1
    return mask


@functools.lru_cache(maxsize=256)
def _bet_mask(size: int, check_or_call: int, lowest: int, highest: int) -> np.ndarray:
    """The (read-only) mask of a betting decision: fold, check or call, the raises."""
    mask = np.zeros(size, dtype=np.int8)
    mask[[A.FOLD, check_or_call]] = 1
    mask[lowest:highest + 1] = 1
    mask.flags.writeable = False
    return mask


class BatchEncoder:
    """Builds the observations of many games at once from a :class:`BatchState`: for every
    game and observing seat exactly what :meth:`Encoder.encode` gives for the same state."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.layout = where = layout(rules)
        self.size = observation_size(rules)
        # The 0/1 head (phase .. set_aside) is assembled as bytes, the tail as float32.
        self._head_size = t0 = where["operators"].start
        assert where["face_up"].start < where["set_aside"].start < t0
        self._tail_offsets = {name: sl.start - t0 for name, sl in where.items()
                              if sl.start >= t0}
        n = rules.num_players
        seats = np.arange(n)
        self._slots = (seats[:, None] + seats) % n  # [s, j]: the seat in slot j of seat s
        self._slot_of = (seats[None, :] - seats[:, None]) % n  # [s, seat]: its slot for s

    def encode(self, state: BatchState, g: np.ndarray, s: np.ndarray,
               every: bool = False) -> np.ndarray:
        """(k, size) float32: the observation of seat ``s[i]`` in game ``g[i]``; ``every``
        says that ``g`` is every game in order (whole arrays are then read as they are)."""
        where, r, t0 = self.layout, self.rules, self._head_size
        n, k, N, size = r.num_players, g.size, state.phase.size, self.size
        stack = float(r.starting_stack)
        head = np.zeros((k, t0), np.uint8)
        flat_head = head.reshape(-1)
        base = np.arange(0, k * t0, t0)
        ph = state.phase if every else state.phase.take(g)
        live = ph < _HAND_OVER
        flat_head[(base + where["phase"].start + ph)[live]] = 1
        fl = s * N + g
        h = state.hidden.reshape(-1).take(fl)
        flat_head[(base + where["hidden"].start + h)[h >= 0]] = 1
        head[:, where["set_aside"]] = (state.set_aside if every
                                       else state.set_aside.take(g, axis=0))
        # Seat slot j of row i is seat (s_i + j) % n: gather every slot at once.
        src = self._slots.take(s, axis=0) * N + g[:, None]  # (k, n) flat indices
        fu = where["face_up"].start
        head[:, fu: fu + n * cards.DECK_SIZE] = state.face_up.reshape(
            n * N, cards.DECK_SIZE).take(src.reshape(-1), axis=0).reshape(k, n * cards.DECK_SIZE)
        obs = np.empty((k, size), np.float32)
        obs[:, :t0] = head
        # The tail (operators .. hands_left) is built feature-major, then copied in at once.
        tail = np.zeros((size - t0, k), np.float32)
        off = self._tail_offsets
        src_t = src.T.reshape(-1)  # slot-major
        o = off["operators"]
        tail[o: o + NUM_OPERATOR_KINDS * n] = state.operators.reshape(
            n * N, NUM_OPERATOR_KINDS).take(src_t, axis=0).reshape(
            n, k, NUM_OPERATOR_KINDS).transpose(0, 2, 1).reshape(NUM_OPERATOR_KINDS * n, k)
        for name, arr, scale in (("roots", state.roots, MAX_ROOTS_SCALE),
                                 ("in_hand", state.in_hand, 1.0),
                                 ("stacks", state.stacks, stack),
                                 ("wagers", state.wagers, stack)):
            o = off[name]
            tail[o: o + n] = arr.reshape(-1).take(src_t).reshape(n, k) / scale
        for name in PER_ROUND:
            o = off[name]
            for rnd, rw in enumerate(getattr(state, name)[:r.num_bet_rounds]):
                tail[o + rnd * n: o + (rnd + 1) * n] = (rw.reshape(-1).take(src_t).reshape(n, k)
                                                        / stack)
        cols = np.arange(k)
        button = state.button if every else state.button.take(g)
        tail[off["button"] + self._slot_of.reshape(-1).take(s * n + button), cols] = 1.0
        bet = (ph == _BET).nonzero()[0]
        tail[off["betting_round"] + state.round.take(g[bet]), bet] = 1.0
        wagers = state.wagers if every else state.wagers.take(g, axis=1)
        pot = wagers.sum(0)
        tail[off["pot"]] = (pot if live.all() else np.where(live, pot, 0)) / stack
        tail[off["cap"]] = (state.cap if every else state.cap.take(g)) / stack
        tail[off["to_call"]] = (wagers.max(0) - state.wagers.reshape(-1).take(fl)) / stack
        hand_number = state.hand_number if every else state.hand_number.take(g)
        tail[off["hands_left"]] = (r.hands_per_episode - hand_number) / r.hands_per_episode
        full = state.number_count.reshape(-1).take(fl) == NUMBERS_PER_HAND
        pending = ph == _DISCARD
        if pending.any():
            full &= ~(pending & (state.current_player.take(g) == s))
        if full.any():
            fi = full.nonzero()[0]
            so = off["solver"]
            tail[so:so + SOLVER_FEATURES, fi] = solver_slices(r.integer_results).take(
                state.signatures(fl[fi]), axis=0).T
        obs[:, t0:] = tail.T
        return obs
