"""Many games of Equation Hi-Lo at once, held in NumPy arrays, for training throughput.

:class:`VectorGame` plays ``num_games`` independent matches of one rule set in lockstep: every
game always waits for one decision, ``step`` takes one action per game (or per game of a
subset), and a finished hand or match is dealt again at once. The hot path loops over seats
and deal steps, never over games. It is a backend of :class:`~hilo_env.equation_hilo.engine.Game`:
on the same deck orders, hand seeds and actions it gives the same states, rewards, legal
actions and observations (the conformance suite, ``tests/conformance/``, checks this).

Chance is data. A hand is its deck order (top first) and its ``hand_seed``; every reshuffle
the rules call for (a special drawn as the hidden card, a × over ``max_multiply``) orders the
undrawn cards by :func:`~hilo_env.equation_hilo.cards.reshuffle_keys`, as the engine does.
Decks and seeds come from ``reset(decks=..., hand_seeds=...)`` for the first hand, from a
``deal_source`` callable for every hand (duplicate matches, tests), or from the simulator's
seeded generator.

``VectorGame(rules="standard", num_games=1, seed=None, deal_source=None, **overrides)``

| member                                | what                                                     |
|---------------------------------------|----------------------------------------------------------|
| ``reset(seed, decks, hand_seeds,``    | new matches in every game (or in ``games``); ``decks``   |
| ``games)``                            | (k, 52) top first and ``hand_seeds`` (k,) fix hand one   |
| ``step(actions, games=None)``         | one action per game -> :class:`StepResult`               |
| ``action_masks(games=None)``          | (k, n_actions) int8, as ``observation.action_mask``      |
| ``observe(games=None, seats=None)``   | (k, obs_size) float32, as ``Encoder.encode``; the seat   |
|                                       | to act by default                                        |
| ``legal(actions, games=None)``        | (k,) bool                                                |
| ``state``                             | the :class:`BatchState`: every array of every game       |
| ``current_player``, ``pot``           | (N,) the seat to act, the chips in each pot              |
| ``clone()``, ``==``                   | an independent copy, equality                            |
| ``nbytes_per_game()``                 | bytes of state per game                                  |
| ``deal_source(games) -> (decks,``     | optional: the deck (k, 52) and seed (k,) of every new    |
| ``hand_seeds)``                       | hand, called with the games being dealt                  |

:class:`StepResult`: ``rewards`` (k, n) each seat's net chips of a hand that ended (else 0),
``hand_over`` (k,), ``match_over`` (k,); rows follow ``games``. Bad input (a wrong shape, an
action out of range, an illegal action in any game) raises ``ValueError`` naming the game,
before any game changes.

Fancy indexing goes through ``take`` and flat indices (``seat * num_games + game``): several
times faster in NumPy than ``array[:, games]``.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.batch_masks import MaskTable
from hilo_env.equation_hilo.batch_state import (
    MINUS,
    NUM_OPERATOR_KINDS,
    NUMBERS_PER_HAND,
    PLUS,
    TIMES,
    BatchState,
)
from hilo_env.equation_hilo.engine import BASE_OPERATORS, Phase
from hilo_env.equation_hilo.observation import BatchEncoder
from hilo_env.equation_hilo.render import player_name
from hilo_env.equation_hilo.rules import (
    BET,
    DEAL_STEPS,
    DECK_FIELDS,
    HIDDEN,
    UP,
    RuleSet,
    require_defaults,
    resolve,
)
from hilo_env.equation_hilo.showdown import NO_SEAT, split_pot, tiebreak_rank

DeckSource = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""``deal_source(games (k,)) -> (decks (k, 52) top first, hand_seeds (k,))``."""

# Phases as plain ints: NumPy compares arrays with them several times faster than with
# enum members.
_BET, _DISCARD, _DECLARE, _HAND_OVER, _MATCH_OVER = (int(p) for p in Phase)

# Deal schedule steps as their index in DEAL_STEPS.
_HIDDEN_STEP, _UP_STEP, _BET_STEP = (DEAL_STEPS.index(step) for step in (HIDDEN, UP, BET))

BASE_OPERATOR_COUNTS = tuple(BASE_OPERATORS.count(op) for op in solver.OPERATORS)
"""Each player starts a hand with ``+ − ÷``."""

FIRST_MULTIPLY, FIRST_ROOT = cards.FIRST_MULTIPLY, cards.FIRST_ROOT
DECK = cards.DECK_SIZE
_BIG = np.iinfo(np.int64).max // 4

MAX_STATE_BYTES = 32 << 30
"""The most state a :class:`VectorGame` may hold (about 64 M two-player games): a request past
it is refused at once rather than left to exhaust the machine's memory."""

_LITTLE_ENDIAN = sys.byteorder == "little"
_WINDOW = np.arange(8)  # look-ahead for the extra card of a special


class StepResult(NamedTuple):
    """What a step did to each stepped game (rows follow the ``games`` given to ``step``)."""

    rewards: np.ndarray
    """(k, num_players) int64: each seat's net chips of the hand that ended, else 0."""
    hand_over: np.ndarray
    """(k,) bool: a hand ended (the next one is dealt already)."""
    match_over: np.ndarray
    """(k,) bool: the match ended (a new one is dealt already)."""


class VectorGame:
    """``num_games`` matches of one rule set, stepped together (see the module docstring)."""

    def __init__(self, rules: str | RuleSet = "standard", num_games: int = 1,
                 seed: int | None = None, deal_source: DeckSource | None = None,
                 **overrides: Any) -> None:
        self.rules = resolve(rules, **overrides)
        require_defaults(self.rules, DECK_FIELDS, "NumPy batch simulator")
        if isinstance(num_games, bool) or not isinstance(num_games, int | np.integer) \
                or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        r = self.rules
        self.num_games = N = int(num_games)
        per_game = BatchState.zeros(r, 1).nbytes
        if per_game * N > MAX_STATE_BYTES:
            raise ValueError(f"{N:,} games of these rules need {per_game * N / 2**30:,.1f} GiB "
                             f"of state, over the bound of {MAX_STATE_BYTES / 2**30:.0f} GiB "
                             f"(vector.MAX_STATE_BYTES): use fewer games")
        self.num_players = n = r.num_players
        self.num_actions = A.num_actions(r.max_cap)
        self.deal_source = deal_source
        self.rng = np.random.default_rng(seed)
        self.encoder = BatchEncoder(r)
        self.obs_size = self.encoder.size
        self.mask_table = MaskTable(r)
        self._steps = np.array([DEAL_STEPS.index(s) for s in r.deal], dtype=np.int64)
        self._limit = r.max_multiply
        self._seat_col = np.arange(n, dtype=np.int64)[:, None]
        # Seat arithmetic as tables (a modulo costs a division per element):
        # _order[b, p] is the seat at position p from the left of seat b (p = n: -1), and
        # _position[b, seat] the position of a seat from the left of seat b.
        seats = np.arange(n)
        self._order = np.concatenate([(seats[:, None] + 1 + seats) % n,
                                      np.full((n, 1), NO_SEAT)], axis=1)
        self._position = (seats[None, :] - seats[:, None] - 1) % n
        self.state = BatchState.zeros(r, N)
        self._all_codes: np.ndarray | None = None
        self.reset()

    # ---- queries -------------------------------------------------------------------------

    @property
    def current_player(self) -> np.ndarray:
        """(N,) the seat to act in each game."""
        return self.state.current_player

    @property
    def pot(self) -> np.ndarray:
        """(N,) chips wagered in each game's hand."""
        return self.state.wagers.sum(0)

    def clone(self) -> VectorGame:
        """An independent copy (the ``deal_source`` callable is shared)."""
        twin = copy.copy(self)
        twin.state = self.state.copy()
        twin.rng = copy.deepcopy(self.rng)
        return twin

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VectorGame):
            return NotImplemented
        return (self.rules == other.rules and self.state == other.state
                and self.rng.bit_generator.state == other.rng.bit_generator.state)

    __hash__ = None  # type: ignore[assignment]

    def nbytes_per_game(self) -> float:
        """Bytes of state per game (the shared mask table not included)."""
        return self.state.nbytes / self.num_games

    # ---- reset -----------------------------------------------------------------------------

    def reset(self, seed: int | None = None, decks: np.ndarray | None = None,
              hand_seeds: np.ndarray | None = None,
              games: np.ndarray | Sequence[int] | None = None) -> None:
        """Start new matches in every game (or in ``games``) and deal their first hand.

        ``decks`` (k, 52), each a permutation of the card ids in draw order (top first), and
        ``hand_seeds`` (k,) fix the first hand; missing ones come from ``deal_source`` or from
        the generator (re-seeded by ``seed``).
        """
        g = self._check_games(games)
        k = g.size
        if decks is not None:
            decks = self._check_decks(decks, k, g)
        if hand_seeds is not None:
            hand_seeds = self._check_seeds(hand_seeds, k)
        rng = self.rng if seed is None else np.random.default_rng(seed)
        self._atomically(lambda: self._reset(g, decks, hand_seeds, rng))

    def _reset(self, g: np.ndarray, decks: np.ndarray | None, hand_seeds: np.ndarray | None,
               rng: np.random.Generator) -> None:
        """``reset`` past its checks."""
        self.rng = rng
        self._all_codes = None
        self.state.hand_over[g] = False
        self.state.match_over[g] = False
        self.state.net.reshape(-1)[self._cols(g)] = 0
        self._new_match(g)
        self._start_hands(g, decks, hand_seeds)
        self._advance(g)

    def _atomically(self, apply: Callable[[], Any]) -> Any:
        """``apply()``, all or nothing: if it raises (past the checks only a ``deal_source``
        can), the state and the generator are put back as they were."""
        if self.deal_source is None:
            return apply()
        state, rng = self.state.copy(), copy.deepcopy(self.rng)
        try:
            return apply()
        except BaseException:
            self.state, self.rng, self._all_codes = state, rng, None
            raise

    # ---- step --------------------------------------------------------------------------------

    def step(self, actions: np.ndarray | Sequence[int],
             games: np.ndarray | Sequence[int] | None = None) -> StepResult:
        """Apply one action in each game (or in each of ``games``, in that order).

        Raises ValueError, naming the first bad game, on a wrong shape or an illegal action;
        then no game has changed. Finished hands and matches are dealt again at once; if the
        ``deal_source`` fails or deals a bad deck, no game has changed either.
        """
        g = self._check_games(games)
        a = self._check_actions(actions, g)
        return self._atomically(lambda: self._step(g, a))

    def _step(self, g: np.ndarray, a: np.ndarray) -> StepResult:
        """``step`` without the checks (the actions must be legal, ``g`` unique)."""
        self._all_codes = None
        self.state.hand_over[g] = False
        self.state.match_over[g] = False
        ph = self.state.phase.take(g)
        todo: list[np.ndarray] = []
        bet = ph == _BET
        if bet.all():
            todo.append(self._bet(g, a))
        else:
            if bet.any():
                todo.append(self._bet(g[bet], a[bet]))
            disc = ph == _DISCARD
            if disc.any():
                todo.append(self._discard(g[disc], a[disc]))
            decl = ph == _DECLARE
            if decl.any():
                self._declare(g[decl], a[decl])
        hand_over = self.state.hand_over.take(g)
        if hand_over.any():
            done = g[hand_over]
            match = self.state.match_over.take(done)
            if match.any():
                self._new_match(done[match])
            if not match.all():
                self._move_button(done[~match])
            self._start_hands(done, None, None)
            todo.append(done)
        if todo:
            self._advance(np.concatenate(todo) if len(todo) > 1 else todo[0])
        rewards = self.state.net.take(g, axis=1).T
        rewards[~hand_over] = 0
        return StepResult(rewards, hand_over, self.state.match_over.take(g))

    # ---- legal actions, masks ------------------------------------------------------------

    def _codes(self, g: np.ndarray) -> np.ndarray:
        """Mask codes of games ``g`` (see :mod:`batch_masks`); those of the whole batch are
        kept until the next change (``action_masks()`` then ``step()`` computes them once)."""
        every = self._is_all(g)
        if every and self._all_codes is not None:
            return self._all_codes
        code = self.mask_table.codes(self.state, g)
        if every:
            self._all_codes = code
        return code

    def _is_all(self, g: np.ndarray) -> bool:
        """True when ``g`` is ``arange(num_games)``."""
        return (g.size == self.num_games and bool(g[0] == 0)
                and bool((g[1:] - g[:-1] == 1).all()))

    def _legal(self, g: np.ndarray, a: np.ndarray) -> np.ndarray:
        """(k,) bool: action ``a`` (in range) is legal in its game."""
        return self.mask_table.legal(self._codes(g), a)

    def legal(self, actions: np.ndarray | Sequence[int],
              games: np.ndarray | Sequence[int] | None = None) -> np.ndarray:
        """(k,) bool: whether each action is legal for the player to act in its game."""
        g = self._check_games(games, unique=False)
        a = np.asarray(actions)
        if a.shape != g.shape or (a.size and not np.issubdtype(a.dtype, np.integer)):
            raise ValueError(f"actions must be integers of shape {g.shape}, got "
                             f"{a.dtype} {a.shape}")
        a = a.astype(np.int64)
        ok = (a >= 0) & (a < self.num_actions)
        ok[ok] = self._legal(g[ok], a[ok])
        return ok

    def action_masks(self, games: np.ndarray | Sequence[int] | None = None) -> np.ndarray:
        """(k, n_actions) int8: 1 for each legal action of the player to act."""
        return self._masks(self._check_games(games, unique=False))

    def _masks(self, g: np.ndarray) -> np.ndarray:
        return self.mask_table.rows(self._codes(g))

    # ---- observations ----------------------------------------------------------------------

    def observe(self, games: np.ndarray | Sequence[int] | None = None,
                seats: np.ndarray | Sequence[int] | None = None) -> np.ndarray:
        """(k, obs_size) float32 observations, exactly ``observation.Encoder.encode``.

        ``seats`` (k,) picks the observer in each game; by default the player to act.
        """
        g = self._check_games(games, unique=False)
        if seats is None:
            return self._observe(g, self.state.current_player.take(g))
        s = np.asarray(seats)
        if s.shape != g.shape or (s.size and (not np.issubdtype(s.dtype, np.integer)
                                              or s.min() < 0 or s.max() >= self.num_players)):
            raise ValueError(f"seats must be integers 0..{self.num_players - 1} of shape "
                             f"{g.shape}, got {s.dtype} {s.shape}")
        return self._observe(g, s.astype(np.int64))

    def _observe(self, g: np.ndarray, s: np.ndarray) -> np.ndarray:
        return self.encoder.encode(self.state, g, s, every=self._is_all(g))

    def _distances(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best Low and High distances of full hands, by flat (seat * N + game) index."""
        return solver.lookup_distances(self.state.signatures(flat), self.rules.integer_results)

    # ---- input checks --------------------------------------------------------------------

    def _check_games(self, games: np.ndarray | Sequence[int] | None,
                     unique: bool = True) -> np.ndarray:
        if games is None:
            return np.arange(self.num_games)
        g = np.asarray(games)
        if g.ndim != 1 or (g.size and not np.issubdtype(g.dtype, np.integer)):
            raise ValueError(f"games must be a 1-d array of game indices, got {g.dtype} "
                             f"{g.shape}")
        g = g.astype(np.int64)
        if g.size and (g.min() < 0 or g.max() >= self.num_games):
            bad = int(g[(g < 0) | (g >= self.num_games)][0])
            raise ValueError(f"game index {bad} is out of range 0..{self.num_games - 1}")
        if not unique:
            return g
        seen = np.zeros(self.num_games, bool)
        seen[g] = True
        if np.count_nonzero(seen) != g.size:
            values, counts = np.unique(g, return_counts=True)
            raise ValueError(f"game {int(values[counts > 1][0])} appears twice in games")
        return g

    def _check_actions(self, actions: np.ndarray | Sequence[int], g: np.ndarray) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != g.shape:
            raise ValueError(f"expected one action per game, shape {g.shape}, got shape "
                             f"{a.shape}")
        if a.size and not np.issubdtype(a.dtype, np.integer):
            whole = (np.issubdtype(a.dtype, np.floating) and bool(np.isfinite(a).all())
                     and bool((a == np.round(a)).all()))
            if not whole:
                bad = 0
                if np.issubdtype(a.dtype, np.floating):
                    bad = int((~np.isfinite(a) | (a != np.round(a))).nonzero()[0][0])
                raise ValueError(f"actions must be integers; game {int(g[bad])} got "
                                 f"{a[bad]!r} ({a.dtype})")
        outside = (a < 0) | (a >= self.num_actions)  # in the given dtype: a cast could wrap
        if outside.any():
            i = int(outside.nonzero()[0][0])
            raise ValueError(f"action {a[i].item()!r} in game {int(g[i])} is outside the "
                             f"action space 0..{self.num_actions - 1}")
        a = a.astype(np.int64)
        ok = self._legal(g, a)
        if not ok.all():
            i = int((~ok).nonzero()[0][0])
            self._reject(int(g[i]), int(a[i]))
        return a

    def _reject(self, game: int, action: int) -> None:
        legal = self._masks(np.array([game]))[0].nonzero()[0]
        raise ValueError(f"illegal action {A.action_to_string(action)!r} ({action}) in game "
                         f"{game} for {player_name(int(self.state.current_player[game]))} in phase "
                         f"{Phase(int(self.state.phase[game])).name}; legal: "
                         f"{A.describe_legal(legal.tolist())}")

    def _check_decks(self, decks: np.ndarray, k: int, g: np.ndarray) -> np.ndarray:
        if cards.holds_bool(decks):
            raise ValueError("decks must be integer card ids, not bools (True is no card 1)")
        d = np.asarray(decks)
        if d.shape != (k, DECK) or (d.size and not np.issubdtype(d.dtype, np.integer)):
            raise ValueError(f"decks must be integer card ids of shape ({k}, {DECK}), got "
                             f"{d.dtype} {d.shape}")
        bad = ~(np.sort(d, axis=1) == np.arange(DECK)).all(axis=1)
        if bad.any():
            raise ValueError(f"the deck of game {int(g[np.argmax(bad)])} is not a permutation "
                             f"of the card ids 0..{DECK - 1}")
        return d.astype(np.int8)

    @staticmethod
    def _check_seeds(seeds: np.ndarray, k: int) -> np.ndarray:
        s = np.asarray(seeds)
        if s.shape != (k,) or (s.size and not np.issubdtype(s.dtype, np.integer)):
            raise ValueError(f"hand_seeds must be integers of shape ({k},), got {s.dtype} "
                             f"{s.shape}")
        if s.size and s.dtype.kind == "i" and s.min() < 0:
            raise ValueError("hand_seeds must be non-negative")
        return s.astype(np.uint64)

    # ---- matches and hands -------------------------------------------------------------------

    def _cols(self, g: np.ndarray) -> np.ndarray:
        """Flat indices (seat * N + game) of every seat of games ``g``, seat-major."""
        return (self._seat_col * self.num_games + g).reshape(-1)

    def _new_match(self, g: np.ndarray) -> None:
        cols = self._cols(g)
        self.state.stacks.reshape(-1)[cols] = self.rules.starting_stack
        self.state.eliminated.reshape(-1)[cols] = False
        self.state.house[g] = 0
        self.state.button[g] = self.num_players - 1
        self.state.hand_number[g] = 0

    def _move_button(self, g: np.ndarray) -> None:
        """The next seat clockwise that is not eliminated."""
        n = self.num_players
        b = self.state.button.take(g)
        dist = np.where(self.state.eliminated.take(g, axis=1), n, self._position.take(b, axis=0).T)
        self.state.button[g] = self._order.reshape(-1).take(b * (n + 1) + dist.min(0))

    def _new_decks(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.deal_source is not None:
            decks, seeds = self.deal_source(g)
            return self._check_decks(decks, g.size, g), self._check_seeds(seeds, g.size)
        # Uniform permutations: sort random keys whose low byte is the card id.
        keys = self.rng.integers(0, 1 << 56, size=(g.size, DECK), dtype=np.uint64)
        keys <<= np.uint64(8)
        keys |= np.arange(DECK, dtype=np.uint64)
        keys.sort(axis=1)
        decks = keys.view(np.uint8)[:, 0 if _LITTLE_ENDIAN else 7::8].astype(np.int8)
        seeds = self.rng.integers(0, 1 << 63, size=g.size, dtype=np.uint64)
        if g.size > 1 and not bool((g[1:] > g[:-1]).all()):
            rank = np.argsort(g)  # in ascending game order, whatever the order of g
            decks[rank], seeds[rank] = decks.copy(), seeds.copy()
        return decks, seeds

    def _start_hands(self, g: np.ndarray, decks: np.ndarray | None,
                     seeds: np.ndarray | None) -> None:
        """A new hand in games ``g``: ante taken, nothing dealt yet (``_advance`` deals)."""
        if decks is None or seeds is None:
            new_decks, new_seeds = self._new_decks(g)
            decks = new_decks if decks is None else decks
            seeds = new_seeds if seeds is None else seeds
        n, N = self.num_players, self.num_games
        cols = self._cols(g)
        self.state.hand_number[g] += 1
        self.state.deck[g] = decks
        self.state.draw_position[g] = 0
        self.state.hand_seed[g] = seeds
        self.state.reshuffles[g] = 0
        live = ~self.state.eliminated.take(g, axis=1)
        self.state.in_hand.reshape(-1)[cols] = live.reshape(-1)
        self.state.hidden.reshape(-1)[cols] = -1
        self.state.face_up.reshape(n * N, DECK)[cols] = False
        self.state.numbers.reshape(n * N, NUMBERS_PER_HAND)[cols] = 0
        self.state.number_count.reshape(-1)[cols] = 0
        self.state.set_aside[g] = False
        self.state.operators.reshape(n * N, NUM_OPERATOR_KINDS)[cols] = BASE_OPERATOR_COUNTS
        self.state.roots.reshape(-1)[cols] = 0
        self.state.multiplies.reshape(-1)[cols] = 0
        self.state.declarations.reshape(-1)[cols] = -1
        self.state.acted.reshape(-1)[cols] = False
        for per_round in (self.state.round_wagers, self.state.round_raises):
            for row in per_round:
                row.reshape(-1)[cols] = 0
        stacks = self.state.stacks.take(g, axis=1)
        cap = np.where(live, stacks, _BIG).min(0)
        self.state.cap[g] = cap
        self.state.round[g] = -1
        self.state.phase[g] = _BET
        self.state.current_player[g] = NO_SEAT
        self.state.schedule[g] = 0
        self.state.deal_position[g] = n
        ante = np.where(live, np.minimum(self.rules.ante, cap), 0)
        self.state.wagers.reshape(-1)[cols] = ante.reshape(-1)
        self.state.stacks.reshape(-1)[cols] = (stacks - ante).reshape(-1)

    def _advance(self, g: np.ndarray) -> None:
        """Run hands forward until each game waits for a decision (engine ``_advance``)."""
        n, end = self.num_players, len(self._steps)
        while g.size:
            queued = self.state.deal_position.take(g) < n
            if queued.any():
                stopped = self._deal_pass(g[queued], hidden=False)
                if stopped.any():
                    g = np.concatenate([g[~queued], g[queued][~stopped]])
            if not g.size:
                break
            sched = self.state.schedule.take(g)
            fin = sched == end
            if fin.any():
                self._start_declaration(g[fin])
                g, sched = g[~fin], sched[~fin]
            step = self._steps.take(sched)
            self.state.schedule[g] = sched + 1
            hid = step == _HIDDEN_STEP
            if hid.any():
                gh = g[hid]
                self.state.deal_position[gh] = 0
                self._deal_pass(gh, hidden=True)
            up = step == _UP_STEP
            if up.any():
                self.state.deal_position[g[up]] = 0
            bet = step == _BET_STEP
            if bet.any():
                started = self._start_betting(g[bet])
                if started.any():
                    keep = np.ones(g.size, bool)
                    keep[bet.nonzero()[0][started]] = False
                    g = g[keep]

    # ---- dealing --------------------------------------------------------------------------

    def _draw(self, g: np.ndarray) -> np.ndarray:
        p = self.state.draw_position.take(g)
        self.state.draw_position[g] = p + 1
        return self.state.deck.reshape(-1).take(g * DECK + p)

    def _put_back(self, g: np.ndarray) -> None:
        """The card just drawn goes back and the undrawn cards are reshuffled: top first in
        ascending order of ``cards.reshuffle_keys`` (engine ``_put_back``)."""
        k = g.size
        p = self.state.draw_position.take(g) - 1
        self.state.draw_position[g] = p
        d = self.state.deck.take(g, axis=0)
        keys = cards.reshuffle_keys(self.state.hand_seed.take(g)[:, None],
                                    self.state.reshuffles.take(g)[:, None], d)
        drawn = np.arange(DECK) < p[:, None]
        keys[drawn] = 0  # drawn cards sort first, and stay drawn
        order = keys.argsort(axis=1)
        if np.count_nonzero(keys == 0) != p.sum():  # a key of 0 among the undrawn: be exact
            order = keys.argsort(axis=1, kind="stable")
        order += np.arange(0, k * DECK, DECK)[:, None]
        self.state.deck[g] = d.reshape(-1).take(order)
        self.state.reshuffles[g] += 1

    def _add_number(self, fl: np.ndarray, c: np.ndarray) -> None:
        count = self.state.number_count.reshape(-1).take(fl)
        self.state.numbers.reshape(-1)[fl * NUMBERS_PER_HAND + count] = c
        self.state.number_count.reshape(-1)[fl] = count + 1

    def _deal_pass(self, g: np.ndarray, hidden: bool) -> np.ndarray:
        """Deal (the rest of) a pass, one card to each seat in the hand from position
        ``dq``: hidden cards (a special goes back) or face-up cards (special rules). Returns
        True where a × discard stops a face-up pass."""
        n, N = self.num_players, self.num_games
        dq = self.state.deal_position.take(g)
        b = self.state.button.take(g)
        stopped = np.zeros(g.size, bool)
        fresh = (dq == 0).nonzero()[0]
        if fresh.size:  # the common case first: every seat in, n number cards on top
            gi = g[fresh]  # (n, k) arrays below: reductions over seats run along axis 0
            fl = self._order[:, :n].take(b[fresh], axis=0).T * N + gi
            p0 = self.state.draw_position.take(gi)
            c = self.state.deck.reshape(-1).take(gi * DECK + p0 + self._seat_col)
            ok = (c < FIRST_MULTIPLY).all(0) & self.state.in_hand.reshape(-1).take(fl).all(0)
            if ok.any():
                j = ok.nonzero()[0]
                flj, cj = fl[:, j].reshape(-1), c[:, j].reshape(-1)
                if hidden:
                    self.state.hidden.reshape(-1)[flj] = cj
                else:
                    self.state.face_up.reshape(-1)[flj * DECK + cj] = True
                self._add_number(flj, cj)
                self.state.draw_position[gi[j]] = p0[j] + n
                dq[fresh[j]] = n
        rest = (dq < n).nonzero()[0]
        while rest.size:  # one seat per game and round, in order
            gr = g[rest]
            s = self._order.reshape(-1).take(b[rest] * (n + 1) + dq[rest])
            fl = s * N + gr
            live = self.state.in_hand.reshape(-1).take(fl)
            if not live.all():
                dq[rest[~live]] += 1
                rest, gr, s, fl = rest[live], gr[live], s[live], fl[live]
            if hidden:
                c = self._draw(gr)
                special = c >= FIRST_MULTIPLY
                if special.any():  # back into the deck; the seat draws again next round
                    self._put_back(gr[special])
                    ok = ~special
                    rest, fl, c = rest[ok], fl[ok], c[ok]
                self.state.hidden.reshape(-1)[fl] = c
                self._add_number(fl, c)
                dq[rest] += 1
            else:
                pending = self._deal_up(gr, s)
                dq[rest] += 1
                if pending.any():
                    i = pending.nonzero()[0]
                    stopped[rest[i]] = True
                    self.state.phase[gr[i]] = _DISCARD
                    self.state.current_player[gr[i]] = s[i]
            rest = ((dq < n) & ~stopped).nonzero()[0]
        self.state.deal_position[g] = dq
        return stopped

    def _deal_up(self, g: np.ndarray, s: np.ndarray) -> np.ndarray:
        """One face-up card with the special rules; True where a × discard is pending."""
        fl = s * self.num_games + g
        c = self._draw(g)
        if self._limit is not None:
            times = (c >= FIRST_MULTIPLY) & (c < FIRST_ROOT)
            if times.any():
                mults = self.state.multiplies.reshape(-1)
                over = times & (mults.take(fl) >= self._limit)
                while over.any():  # a × over the limit goes back; draw again
                    i = over.nonzero()[0]
                    self._put_back(g[i])
                    c[i] = self._draw(g[i])
                    over[i] = ((c[i] >= FIRST_MULTIPLY) & (c[i] < FIRST_ROOT)
                               & (mults.take(fl[i]) >= self._limit))
        self.state.face_up.reshape(-1)[fl * DECK + c] = True
        special = c >= FIRST_MULTIPLY
        if not special.any():
            self._add_number(fl, c)
            return special
        number = ~special
        self._add_number(fl[number], c[number])
        i = special.nonzero()[0]
        root = c[i] >= FIRST_ROOT
        self.state.roots.reshape(-1)[fl[i[root]]] += 1
        self.state.multiplies.reshape(-1)[fl[i[~root]]] += 1
        self._deal_extra(g[i], fl[i])
        special[i[root]] = False
        return special  # the × holders: a discard is pending

    def _deal_extra(self, g: np.ndarray, fl: np.ndarray) -> None:
        """The extra card of a √ or ×: specials are set aside until a number comes. At most
        seven specials are left once one is drawn, so a number lies in the next eight cards
        (and at most 40 cards of a deck are ever drawn: the window stays in the deck)."""
        p = self.state.draw_position.take(g)
        where = (g * DECK + p)[:, None] + _WINDOW
        window = self.state.deck.reshape(-1).take(where)
        number = window < FIRST_MULTIPLY
        j = number.argmax(1)
        rows = np.arange(g.size)
        c = window[rows, j]
        aside = ~number & (j[:, None] > _WINDOW)
        if aside.any():
            self.state.set_aside.reshape(-1)[(g[:, None] * DECK + window)[aside]] = True
        self.state.draw_position[g] = p + j + 1
        self.state.face_up.reshape(-1)[fl * DECK + c] = True
        self._add_number(fl, c)

    def _discard(self, g: np.ndarray, a: np.ndarray) -> np.ndarray:
        fl = self.state.current_player.take(g) * self.num_games + g
        slot = np.where(a == A.DISCARD_PLUS, PLUS,
                        np.where(a == A.DISCARD_MINUS, MINUS, TIMES))
        ops = self.state.operators.reshape(-1)
        ops[fl * NUM_OPERATOR_KINDS + slot] -= 1
        ops[fl * NUM_OPERATOR_KINDS + TIMES] += 1
        return g

    # ---- betting ----------------------------------------------------------------------------

    def _next_bettor(self, g: np.ndarray, after: np.ndarray) -> np.ndarray:
        """The next seat clockwise after ``after`` that still has to act, or -1."""
        n = self.num_players
        w = self.state.wagers.take(g, axis=1)
        cond = ((w < self.state.cap.take(g)) & self.state.in_hand.take(g, axis=1)
                & (~self.state.acted.take(g, axis=1) | (w < w.max(0))))
        dist = np.where(cond, self._position.take(after, axis=0).T, n).min(0)
        return self._order.reshape(-1).take(after * (n + 1) + dist)

    def _start_betting(self, g: np.ndarray) -> np.ndarray:
        """Open a betting round; True where it is not skipped."""
        self.state.round[g] += 1
        self.state.acted.reshape(-1)[self._cols(g)] = False
        first = self._next_bettor(g, self.state.button.take(g))
        started = first >= 0
        gs = g[started]
        self.state.phase[gs] = _BET
        self.state.current_player[gs] = first[started]
        return started

    def _bet(self, g: np.ndarray, a: np.ndarray) -> np.ndarray:
        """Apply betting actions; returns the games whose round is over (to advance)."""
        N = self.num_games
        s = self.state.current_player.take(g)
        fl = s * N + g
        acted = self.state.acted.reshape(-1)
        acted[fl] = True
        fold = a == A.FOLD
        any_fold = fold.any()
        if any_fold:
            self.state.in_hand.reshape(-1)[fl[fold]] = False
        money = (a == A.CALL) | (a >= A.FIRST_RAISE)
        if money.any():
            i = None if money.all() else money.nonzero()[0]
            gm, am, fm = (g, a, fl) if i is None else (g[i], a[i], fl[i])
            wagers = self.state.wagers.reshape(-1)
            high = self.state.wagers.take(gm, axis=1).max(0)
            total = np.where(am == A.CALL, high, am - (A.FIRST_RAISE - 1))
            ri = self.state.round.take(gm) * (self.num_players * N) + fm  # (round, seat, game)
            raised = (am >= A.FIRST_RAISE).nonzero()[0]
            if raised.size:
                acted[self._cols(gm[raised])] = False
                acted[fm[raised]] = True
                self.state.round_raises.reshape(-1)[ri[raised]] += 1
            chips = total - wagers.take(fm)
            wagers[fm] = total
            stacks = self.state.stacks.reshape(-1)
            stacks[fm] = stacks.take(fm) - chips
            rw = self.state.round_wagers.reshape(-1)
            rw[ri] = rw.take(ri) + chips
        if any_fold:
            fi = fold.nonzero()[0]
            alone = self.state.in_hand.take(g[fi], axis=1).sum(0) == 1
            if alone.any():
                self._fold_out(g[fi[alone]])
                keep = np.ones(g.size, bool)
                keep[fi[alone]] = False
                g, s = g[keep], s[keep]
        nxt = self._next_bettor(g, s)
        done = nxt < 0
        self.state.current_player[g] = np.where(done, s, nxt)
        return g[done]

    # ---- declaration, showdown, payout ------------------------------------------------

    def _next_in_order(self, g: np.ndarray, after_pos: np.ndarray) -> np.ndarray:
        """The first seat in the hand whose position (from the dealer's left) is after
        ``after_pos``, or -1."""
        n = self.num_players
        b = self.state.button.take(g)
        pos = self._position.take(b, axis=0).T
        d = np.where(self.state.in_hand.take(g, axis=1) & (pos > after_pos), pos, n).min(0)
        return self._order.reshape(-1).take(b * (n + 1) + d)

    def _start_declaration(self, g: np.ndarray) -> None:
        self.state.phase[g] = _DECLARE
        self.state.current_player[g] = self._next_in_order(g, np.full(g.size, -1))

    def _declare(self, g: np.ndarray, a: np.ndarray) -> None:
        s = self.state.current_player.take(g)
        self.state.declarations.reshape(-1)[s * self.num_games + g] = a
        n = self.num_players
        position = self._position.reshape(-1).take(self.state.button.take(g) * n + s)
        nxt = self._next_in_order(g, position)
        self.state.current_player[g] = nxt
        done = nxt < 0
        if done.any():
            self._showdown(g[done])

    def _fold_out(self, g: np.ndarray) -> None:
        winner = self.state.in_hand.take(g, axis=1).argmax(0)
        payouts = np.zeros((self.num_players, g.size), np.int64)
        payouts[winner, np.arange(g.size)] = self.state.wagers.take(g, axis=1).sum(0)
        self._pay(g, payouts, np.zeros(g.size, np.int64))

    def _showdown(self, g: np.ndarray) -> None:
        """Solve every hand still in (batched table lookups) and split the pot
        (:func:`showdown.split_pot`, on games-first arrays)."""
        n, k = self.num_players, g.size
        cols = self._cols(g)  # seat-major: (n, k) once reshaped
        low, high = self._distances(cols)
        distances = np.stack((low.reshape(n, k).T, high.reshape(n, k).T), axis=1)  # (k, 2, n)
        numbers = self.state.numbers.reshape(-1, NUMBERS_PER_HAND).take(cols, axis=0)
        hands = numbers.reshape(n, k, NUMBERS_PER_HAND).transpose(1, 0, 2).astype(np.int64)
        split = split_pot(self.state.wagers.take(g, axis=1).sum(0),
                          self.state.in_hand.take(g, axis=1).T,
                          self.state.declarations.take(g, axis=1).T, distances,
                          tiebreak_rank(hands, self.rules.tiebreak),
                          odd_chip=self.rules.odd_chip)
        self._pay(g, split.payouts.T, split.house)

    def _pay(self, g: np.ndarray, payouts: np.ndarray, house: np.ndarray) -> None:
        cols = self._cols(g)
        stacks = self.state.stacks.take(g, axis=1) + payouts
        self.state.stacks.reshape(-1)[cols] = stacks.reshape(-1)
        self.state.house[g] += house
        self.state.net.reshape(-1)[cols] = (payouts - self.state.wagers.take(g, axis=1)).reshape(-1)
        self.state.wagers.reshape(-1)[cols] = 0
        self.state.current_player[g] = NO_SEAT
        out = self.state.eliminated.take(g, axis=1) | (stacks == 0)
        self.state.eliminated.reshape(-1)[cols] = out.reshape(-1)
        over = (self.state.hand_number.take(g) >= self.rules.hands_per_episode) \
            | ((~out).sum(0) <= 1)
        self.state.phase[g] = np.where(over, _MATCH_OVER, _HAND_OVER)
        self.state.hand_over[g] = True
        self.state.match_over[g] = over
