"""Many games of Equation Hi-Lo at once, held in NumPy arrays, for training throughput.

:class:`VectorGame` plays ``num_games`` independent matches of one rule set in lockstep: every
game always waits for one decision, ``step`` takes one action per game (or per game of a
subset), and a finished hand or match is dealt again at once. The hot path loops over seats
and deal steps, never over games. It is a twin of :class:`equation_hilo.engine.Game`: on the same
deck orders, hand seeds and actions it gives the same states, rewards, legal actions and
observations (``tests/test_vector.py`` checks this on 30,000 random hands).

Chance is data. A hand is its deck order (top first) and its ``hand_seed``; every reshuffle
the rules call for (a special drawn as the hidden card, a × over ``max_multiply``) orders the
undrawn cards by :func:`equation_hilo.cards.reshuffle_keys`, as the engine does. Decks and seeds
come from ``reset(decks=..., hand_seeds=...)`` for the first hand, from a ``deal_source``
callable for every hand (duplicate matches, tests), or from the simulator's seeded generator.

:class:`HiLoVectorEnv` is the single-agent view for training, a Gymnasium ``VectorEnv``: a
learner sits in one seat of each game, the other seats are played inside the env by opponent
policies, and the learner sees only its own decisions. :func:`make_sb3_vec_env` wraps it as a
Stable-Baselines3 ``VecEnv`` with ``action_masks()``, which sb3-contrib's ``MaskablePPO``
takes as it is.

API
===

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
| ``current_player``, ``pot``           | (N,) the seat to act, the chips in each pot              |
| ``clone()``, ``==``, ``state_dict()`` | an independent copy, equality, the state as arrays       |
| ``nbytes_per_game()``                 | bytes of state per game                                  |
| ``deal_source(games) -> (decks,``     | optional: the deck (k, 52) and seed (k,) of every new    |
| ``hand_seeds)``                       | hand, called with the games being dealt                  |

:class:`StepResult`: ``rewards`` (k, n) each seat's net chips of a hand that ended (else 0),
``hand_over`` (k,), ``match_over`` (k,); rows follow ``games``.

``HiLoVectorEnv(rules="standard", num_envs=64, opponents=None, seed=None, deal_source=None,
**overrides)``

| member                                | what                                                     |
|---------------------------------------|----------------------------------------------------------|
| ``reset(seed=, options=)``            | ``options`` may hold ``decks`` and ``hand_seeds``        |
| ``step(actions)``                     | (observations, rewards, terminations, truncations, infos)|
| ``action_masks()``                    | (N, n_actions) bool, the learner's legal actions         |
| ``set_opponents(policies)``           | one policy, or a list: game ``i`` uses ``i % len``       |
| ``learner``, ``skipped_chips``        | (N,) the learner's seat; chips of skipped episodes       |
| ``game``                              | the :class:`VectorGame` underneath                       |

| function                              | what                                                     |
|---------------------------------------|----------------------------------------------------------|
| ``make_sb3_vec_env(env)``             | an SB3 ``VecEnv``; ``env_method("action_masks")`` works  |
| ``random_policy(seed)``               | uniform among the legal actions                          |
| ``sb3_policy(model, deterministic)``  | a policy from an SB3 model (copy it to freeze a snapshot)|
| ``sample_legal(masks, rng)``          | one uniform legal action per mask row                    |

A policy is a callable ``policy(observations (B, obs_size) float32, masks (B, n_actions) int8)
-> actions (B,)``. Bad input (a wrong shape, an action out of range, an illegal action in any
game) raises ``ValueError`` naming the game, before any game changes.

The state
=========

Every field of :class:`~equation_hilo.engine.Game` as an array, plus the deck (top first) with a
draw position, the hand seed and the reshuffle count. Per-seat arrays are seat-major,
``(num_players, num_games)``; ``phase`` takes the values of :class:`equation_hilo.engine.Phase`.
Where a game is in its hand: ``sched`` (the next step of ``rules.deal``) and ``dq`` (the next
position, from the dealer's left, of a face-up pass under way; ``num_players`` when none).
Fancy indexing goes through ``take`` and flat indices (``seat * num_games + game``): several
times faster in NumPy than ``array[:, games]``.

Learner rewards (:class:`HiLoVectorEnv`)
========================================

The learner's seat is ``(game + episode) % num_players``, so it rotates across games and
episodes. An episode is a match (``hands_per_episode`` hands); it ends early when the learner
is eliminated. A step's reward is the learner's net chips of every hand that ended between its
decision and its next decision (or the end of its episode), opponents' actions included. A
match that ends before the learner's first decision (everyone folded to it) is no episode: its
chips go to ``skipped_chips``. Finished episodes restart in the same step
(``AutoresetMode.SAME_STEP``) without a final observation: a hand's end is no decision, and
nothing is truncated. ``infos["episode"]`` holds the return ``r`` and length ``l`` of the
episodes that ended (``_r``, ``_l``: where).
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, solver
from hilo_env.equation_hilo.engine import Phase
from hilo_env.equation_hilo.observation import SOLVER_FEATURES, layout, solver_slices
from hilo_env.equation_hilo.render import player_name
from hilo_env.equation_hilo.rules import BET, HIDDEN, UP, RuleSet, resolve

Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``policy(observations (B, obs_size) float32, masks (B, n_actions) int8) -> actions (B,)``.
A policy with the attribute ``uses_observations = False`` gets a (B, 0) array instead (the
env then builds no observation for it)."""

DeckSource = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""``deal_source(games (k,)) -> (decks (k, 52) top first, hand_seeds (k,))``."""

# Phases, as in hilo_env.equation_hilo.engine.Phase.
P_BET, P_DISCARD, P_DECLARE = int(Phase.BET), int(Phase.DISCARD), int(Phase.DECLARE)
P_HAND_OVER, P_MATCH_OVER = int(Phase.HAND_OVER), int(Phase.MATCH_OVER)

# Deal schedule step kinds.
K_HIDDEN, K_UP, K_BET = 0, 1, 2
_KIND = {HIDDEN: K_HIDDEN, UP: K_UP, BET: K_BET}

# Operator slots: counts of + - × ÷ per seat, the order of observation.OPERATOR_SLOT.
OP_PLUS, OP_MINUS, OP_TIMES, OP_DIVIDE = range(4)
BASE_OPERATOR_COUNTS = (1, 1, 0, 1)

FIRST_MULTIPLY, FIRST_ROOT = cards.FIRST_MULTIPLY, cards.FIRST_ROOT
DECK = cards.DECK_SIZE
NO_SEAT = -1
TIE_TOLERANCE = solver.TIE_TOLERANCE
_BIG = np.iinfo(np.int64).max // 4

_LITTLE_ENDIAN = sys.byteorder == "little"
_WINDOW = np.arange(8)  # look-ahead for the extra card of a special

# Mask codes (see VectorGame._codes) and the largest mask table kept in memory.
_NO_CODE, _DECLARE_CODE, _BET_CODE = 0, 9, 16
MASK_TABLE_BYTES = 8 << 20

# (plus, minus, times) counts -> index into solver.OPSETS; -1 cannot occur.
_OPSET_LUT = np.full((4, 4, 4), -1, dtype=np.int64)
for _i, _ops in enumerate(solver.OPSETS):
    _OPSET_LUT[_ops.count("+"), _ops.count("-"), _ops.count("*")] = _i


class StepResult(NamedTuple):
    """What a step did to each stepped game (rows follow the ``games`` given to ``step``)."""

    rewards: np.ndarray
    """(k, num_players) int64: each seat's net chips of the hand that ended, else 0."""
    hand_over: np.ndarray
    """(k,) bool: a hand ended (the next one is dealt already)."""
    match_over: np.ndarray
    """(k,) bool: the match ended (a new one is dealt already)."""


_STATE = ("stacks", "eliminated", "house", "button", "hand_number", "deck", "pos", "hand_seed",
          "reshuffles", "in_hand", "hidden", "face_up", "numbers", "num_count", "set_aside",
          "ops", "roots", "mults", "decl", "cap", "round", "round_wagers", "acted", "phase",
          "current", "sched", "dq", "wagers", "net", "hand_over", "match_over")


class VectorGame:
    """``num_games`` matches of one rule set, stepped together (see the module docstring)."""

    def __init__(self, rules: str | RuleSet = "standard", num_games: int = 1,
                 seed: int | None = None, deal_source: DeckSource | None = None,
                 **overrides: Any) -> None:
        self.rules = resolve(rules, **overrides)
        if isinstance(num_games, bool) or not isinstance(num_games, int | np.integer) \
                or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        r = self.rules
        self.num_games = N = int(num_games)
        self.num_players = n = r.num_players
        self.num_actions = A.num_actions(r.max_cap)
        self.deal_source = deal_source
        self.rng = np.random.default_rng(seed)
        self._layout = layout(r)
        self.obs_size = list(self._layout.values())[-1].stop
        t0 = self._layout["operators"].start
        self._tail_offsets = {name: sl.start - t0 for name, sl in self._layout.items()
                              if sl.start >= t0}
        assert self._layout["face_up"].start < self._layout["set_aside"].start < t0
        self._kinds = np.array([_KIND[s] for s in r.deal], dtype=np.int64)
        self._limit = r.max_multiply
        self._discard_times = "x" in r.multiply_discards
        self._seat_col = np.arange(n, dtype=np.int64)[:, None]
        # Seat arithmetic as tables (a modulo costs a division per element):
        # _order[b, p] is the seat at position p from the left of seat b (p = n: -1), and
        # _position[b, seat] the position of a seat from the left of seat b.
        seats = np.arange(n)
        self._order = np.concatenate([(seats[:, None] + 1 + seats) % n,
                                      np.full((n, 1), NO_SEAT)], axis=1)
        self._position = (seats[None, :] - seats[:, None] - 1) % n
        self._slots = (seats[:, None] + seats) % n  # [s, j]: the seat in slot j of seat s
        self._slot_of = (seats[None, :] - seats[:, None]) % n  # [s, seat]: its slot for s
        rounds = max(r.num_bet_rounds, 1)
        i64 = np.int64
        self.stacks = np.zeros((n, N), i64)
        self.eliminated = np.zeros((n, N), bool)
        self.house = np.zeros(N, i64)
        self.button = np.zeros(N, i64)
        self.hand_number = np.zeros(N, i64)
        self.deck = np.zeros((N, DECK), np.int8)
        self.pos = np.zeros(N, i64)
        self.hand_seed = np.zeros(N, np.uint64)
        self.reshuffles = np.zeros(N, i64)
        self.in_hand = np.zeros((n, N), bool)
        self.hidden = np.full((n, N), -1, i64)
        self.face_up = np.zeros((n, N, DECK), bool)
        self.numbers = np.zeros((n, N, 4), np.int8)
        self.num_count = np.zeros((n, N), i64)
        self.set_aside = np.zeros((N, DECK), bool)
        self.ops = np.zeros((n, N, 4), np.int8)
        self.roots = np.zeros((n, N), i64)
        self.mults = np.zeros((n, N), i64)
        self.decl = np.full((n, N), -1, i64)
        self.cap = np.zeros(N, i64)
        self.round = np.zeros(N, i64)
        self.round_wagers = np.zeros((rounds, n, N), i64)
        self.acted = np.zeros((n, N), bool)
        self.phase = np.zeros(N, i64)
        self.current = np.zeros(N, i64)
        self.sched = np.zeros(N, i64)
        self.dq = np.zeros(N, i64)
        self.wagers = np.zeros((n, N), i64)
        self.net = np.zeros((n, N), i64)
        self.hand_over = np.zeros(N, bool)
        self.match_over = np.zeros(N, bool)
        self._table: np.ndarray | None = None
        self._all_codes: np.ndarray | None = None
        self._above, self._upto = self._factor_tables()
        rows = _BET_CODE + 2 * (r.max_cap + 1) ** 2
        if rows * self.num_actions <= MASK_TABLE_BYTES:  # else two lookups per row
            self._table = self._mask_rows(np.arange(rows))
        self.reset()

    # ---- queries -------------------------------------------------------------------------

    @property
    def current_player(self) -> np.ndarray:
        """(N,) the seat to act in each game."""
        return self.current

    @property
    def pot(self) -> np.ndarray:
        """(N,) chips wagered in each game's hand."""
        return self.wagers.sum(0)

    def state_dict(self) -> dict[str, Any]:
        """Copies of every state array, and the generator's state."""
        out: dict[str, Any] = {k: getattr(self, k).copy() for k in _STATE}
        out["rng"] = copy.deepcopy(self.rng.bit_generator.state)
        return out

    def clone(self) -> VectorGame:
        """An independent copy (the ``deal_source`` callable is shared)."""
        twin = copy.copy(self)
        for k in _STATE:
            setattr(twin, k, getattr(self, k).copy())
        twin.rng = copy.deepcopy(self.rng)
        return twin

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VectorGame):
            return NotImplemented
        return (self.rules == other.rules and self.num_games == other.num_games
                and all(np.array_equal(getattr(self, k), getattr(other, k)) for k in _STATE)
                and self.rng.bit_generator.state == other.rng.bit_generator.state)

    __hash__ = None  # type: ignore[assignment]

    def nbytes_per_game(self) -> float:
        """Bytes of state per game (the shared mask table not included)."""
        return sum(getattr(self, k).nbytes for k in _STATE) / self.num_games

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
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._all_codes = None
        self.hand_over[g] = False
        self.match_over[g] = False
        self.net.reshape(-1)[self._cols(g)] = 0
        self._new_match(g)
        self._start_hands(g, decks, hand_seeds)
        self._advance(g)

    # ---- step --------------------------------------------------------------------------------

    def step(self, actions: np.ndarray | Sequence[int],
             games: np.ndarray | Sequence[int] | None = None) -> StepResult:
        """Apply one action in each game (or in each of ``games``, in that order).

        Raises ValueError, naming the first bad game, on a wrong shape or an illegal action;
        then no game has changed. Finished hands and matches are dealt again at once.
        """
        g = self._check_games(games)
        a = self._check_actions(actions, g)
        return self._step(g, a)

    def _step(self, g: np.ndarray, a: np.ndarray) -> StepResult:
        """``step`` without the checks (the actions must be legal, ``g`` unique)."""
        self._all_codes = None
        self.hand_over[g] = False
        self.match_over[g] = False
        ph = self.phase.take(g)
        todo: list[np.ndarray] = []
        bet = ph == P_BET
        if bet.all():
            todo.append(self._bet(g, a))
        else:
            if bet.any():
                todo.append(self._bet(g[bet], a[bet]))
            disc = ph == P_DISCARD
            if disc.any():
                todo.append(self._discard(g[disc], a[disc]))
            decl = ph == P_DECLARE
            if decl.any():
                self._declare(g[decl], a[decl])
        hand_over = self.hand_over.take(g)
        if hand_over.any():
            done = g[hand_over]
            match = self.match_over.take(done)
            if match.any():
                self._new_match(done[match])
            if not match.all():
                self._move_button(done[~match])
            self._start_hands(done, None, None)
            todo.append(done)
        if todo:
            self._advance(np.concatenate(todo) if len(todo) > 1 else todo[0])
        rewards = self.net.take(g, axis=1).T
        rewards[~hand_over] = 0
        return StepResult(rewards, hand_over, self.match_over.take(g))

    # ---- legal actions, masks ------------------------------------------------------------
    # Each game's legal set is one "mask code": 0 none, 1..8 a × discard (1 + a bit each for
    # + − × held), 9 the declaration, _BET_CODE + (high * (C + 1) + cap) * 2 + call for a
    # betting decision (highest wager, the hand's cap, 1 if the player must call), where
    # C = rules.max_cap bounds every cap (so every raise up to the cap is in the action space).
    # A table holds the mask row of every code when it is at most MASK_TABLE_BYTES (the
    # 2-player presets, 100 chips: 2.2 MB); otherwise a row is the AND of a row of two small
    # tables (_factor_tables: as fast at 16,384 games, a little slower than one lookup).

    def _codes(self, g: np.ndarray) -> np.ndarray:
        """Mask codes of games ``g``; those of the whole batch are kept until the next
        change (``action_masks()`` then ``step()`` computes them once)."""
        every = self._is_all(g)
        if every and self._all_codes is not None:
            return self._all_codes
        code = self._compute_codes(g)
        if every:
            self._all_codes = code
        return code

    def _is_all(self, g: np.ndarray) -> bool:
        """True when ``g`` is ``arange(num_games)``."""
        return (g.size == self.num_games and bool(g[0] == 0)
                and bool((g[1:] - g[:-1] == 1).all()))

    def _compute_codes(self, g: np.ndarray) -> np.ndarray:
        N, C = self.num_games, self.rules.max_cap
        ph = self.phase.take(g)
        fl = self.current.take(g) * N + g
        high = self.wagers.take(g, axis=1).max(0)
        must_call = self.wagers.reshape(-1).take(fl) < high
        code = (high * (C + 1) + self.cap.take(g)) * 2 + must_call + _BET_CODE
        other = ph != P_BET
        if other.any():
            i = other.nonzero()[0]
            code[i] = np.where(ph[i] == P_DECLARE, _DECLARE_CODE, _NO_CODE)
            disc = i[ph[i] == P_DISCARD]
            if disc.size:
                held = self.ops.reshape(-1, 4).take(fl[disc], axis=0) > 0
                code[disc] = (1 + held[:, OP_PLUS] + 2 * held[:, OP_MINUS]
                              + 4 * (held[:, OP_TIMES] & self._discard_times))
        return code

    def _factor_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """Two tables whose rows ``above[i] & upto[j]`` make the mask row of every code (see
        ``_factors``). ``above``: the rows of the codes below _BET_CODE, then per (highest
        wager h, must call) fold, check or call and the raises to more than h; ``upto``: per
        cap, everything but the raises above the cap, then a row of ones (other codes)."""
        C, width = self.rules.max_cap, self.num_actions
        above = np.zeros((_BET_CODE + 2 * (C + 1), width), bool)
        for code in range(1, 9):  # a × discard: 1 + a bit each for + − × held
            above[code, [A.DISCARD_PLUS, A.DISCARD_MINUS, A.DISCARD_MULTIPLY]] = [
                (code - 1) & 1, (code - 1) & 2, (code - 1) & 4]
        above[_DECLARE_CODE, [A.DECLARE_LOW, A.DECLARE_HIGH]] = True
        above[_DECLARE_CODE, A.DECLARE_SWING] = self.rules.swing
        ids, totals = np.arange(width), np.arange(C + 1)[:, None]
        bet = above[_BET_CODE:].reshape(C + 1, 2, width)
        bet[:] = (ids >= A.FIRST_RAISE + totals)[:, None, :]
        bet[:, :, A.FOLD] = True
        bet[:, 0, A.CHECK] = True
        bet[:, 1, A.CALL] = True
        upto = np.ones((C + 2, width), bool)
        upto[:C + 1] = (ids < A.FIRST_RAISE) | (ids < A.FIRST_RAISE + totals)
        return above, upto

    def _factors(self, code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of ``_above`` and ``_upto`` whose AND is the mask row of each code."""
        C = self.rules.max_cap
        c = code - _BET_CODE
        bet = c >= 0
        h, cap = np.divmod(c >> 1, C + 1)
        return (np.where(bet, _BET_CODE + 2 * h + (c & 1), code),
                np.where(bet, cap, C + 1))

    def _mask_rows(self, code: np.ndarray) -> np.ndarray:
        """The int8 mask rows of mask codes (one table lookup, or two and an AND)."""
        if self._table is not None:
            return self._table.take(code, axis=0)
        i, j = self._factors(code)
        return (self._above.take(i, axis=0) & self._upto.take(j, axis=0)).view(np.int8)

    def _legal(self, g: np.ndarray, a: np.ndarray) -> np.ndarray:
        """(k,) bool: action ``a`` (in range) is legal in its game."""
        code, width = self._codes(g), self.num_actions
        if self._table is not None:
            return self._table.reshape(-1).take(code * width + a).view(bool)
        i, j = self._factors(code)
        return (self._above.reshape(-1).take(i * width + a)
                & self._upto.reshape(-1).take(j * width + a))

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
        return self._mask_rows(self._codes(g))

    # ---- observations ----------------------------------------------------------------------

    def observe(self, games: np.ndarray | Sequence[int] | None = None,
                seats: np.ndarray | Sequence[int] | None = None) -> np.ndarray:
        """(k, obs_size) float32 observations, exactly ``observation.Encoder.encode``.

        ``seats`` (k,) picks the observer in each game; by default the player to act.
        """
        g = self._check_games(games, unique=False)
        if seats is None:
            return self._observe(g, self.current.take(g))
        s = np.asarray(seats)
        if s.shape != g.shape or (s.size and (not np.issubdtype(s.dtype, np.integer)
                                              or s.min() < 0 or s.max() >= self.num_players)):
            raise ValueError(f"seats must be integers 0..{self.num_players - 1} of shape "
                             f"{g.shape}, got {s.dtype} {s.shape}")
        return self._observe(g, s.astype(np.int64))

    def _observe(self, g: np.ndarray, s: np.ndarray) -> np.ndarray:
        where, r = self._layout, self.rules
        n, k, N, size = self.num_players, g.size, self.num_games, self.obs_size
        every = self._is_all(g)
        stack = float(r.starting_stack)
        # The 0/1 head (phase .. set_aside) is assembled as bytes, then converted at once.
        t0 = where["operators"].start
        head = np.zeros((k, t0), np.uint8)
        flat_head = head.reshape(-1)
        base = np.arange(0, k * t0, t0)
        ph = self.phase if every else self.phase.take(g)
        live = ph < P_HAND_OVER
        flat_head[(base + where["phase"].start + ph)[live]] = 1
        fl = s * N + g
        h = self.hidden.reshape(-1).take(fl)
        flat_head[(base + where["hidden"].start + h)[h >= 0]] = 1
        head[:, where["set_aside"]] = self.set_aside if every else self.set_aside.take(g, axis=0)
        # Seat slot j of row i is seat (s_i + j) % n: gather every slot at once.
        src = self._slots.take(s, axis=0) * N + g[:, None]  # (k, n) flat indices
        fu = where["face_up"].start
        head[:, fu: fu + n * DECK] = self.face_up.reshape(n * N, DECK).take(
            src.reshape(-1), axis=0).reshape(k, n * DECK)
        obs = np.empty((k, size), np.float32)
        obs[:, :t0] = head
        # The tail (operators .. hands_left) is built feature-major, then copied in at once.
        tail = np.zeros((size - t0, k), np.float32)
        off = self._tail_offsets
        src_t = src.T.reshape(-1)  # slot-major
        o = off["operators"]
        tail[o: o + 4 * n] = self.ops.reshape(n * N, 4).take(src_t, axis=0).reshape(
            n, k, 4).transpose(0, 2, 1).reshape(4 * n, k)
        for name, arr, scale in (("roots", self.roots, 3.0), ("in_hand", self.in_hand, 1.0),
                                 ("stacks", self.stacks, stack), ("wagers", self.wagers, stack)):
            o = off[name]
            tail[o: o + n] = arr.reshape(-1).take(src_t).reshape(n, k) / scale
        o = off["round_wagers"]
        for rnd, rw in enumerate(self.round_wagers[:r.num_bet_rounds]):
            tail[o + rnd * n: o + (rnd + 1) * n] = rw.reshape(-1).take(src_t).reshape(n, k) / stack
        cols = np.arange(k)
        button = self.button if every else self.button.take(g)
        tail[off["button"] + self._slot_of.reshape(-1).take(s * n + button), cols] = 1.0
        bet = (ph == P_BET).nonzero()[0]
        tail[off["betting_round"] + self.round.take(g[bet]), bet] = 1.0
        wagers = self.wagers if every else self.wagers.take(g, axis=1)
        pot = wagers.sum(0)
        tail[off["pot"]] = (pot if live.all() else np.where(live, pot, 0)) / stack
        tail[off["cap"]] = (self.cap if every else self.cap.take(g)) / stack
        tail[off["to_call"]] = (wagers.max(0) - self.wagers.reshape(-1).take(fl)) / stack
        tail[off["hands_left"]] = ((r.hands_per_episode
                                    - (self.hand_number if every else self.hand_number.take(g)))
                                   / r.hands_per_episode)
        full = self.num_count.reshape(-1).take(fl) == 4
        pending = ph == P_DISCARD
        if pending.any():
            full &= ~(pending & (self.current.take(g) == s))
        if full.any():
            fi = full.nonzero()[0]
            so = off["solver"]
            tail[so:so + SOLVER_FEATURES, fi] = solver_slices(r.integer_results).take(
                self._signatures(fl[fi]), axis=0).T
        obs[:, t0:] = tail.T
        return obs

    def _signatures(self, flat: np.ndarray) -> np.ndarray:
        """Solver signatures of full hands, by flat (seat * N + game) index."""
        values = self.numbers.reshape(-1, 4).take(flat, axis=0) // cards.NUM_SUITS
        held = self.ops.reshape(-1, 4).take(flat, axis=0)
        opset = _OPSET_LUT[held[:, OP_PLUS], held[:, OP_MINUS], held[:, OP_TIMES]]
        return solver.signatures(values, opset, self.roots.reshape(-1).take(flat))

    def _distances(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Best Low and High distances of full hands, by flat (seat * N + game) index."""
        return solver.lookup_distances(self._signatures(flat), self.rules.integer_results)

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
        a = a.astype(np.int64)
        ok = (a >= 0) & (a < self.num_actions)
        if ok.all():
            ok = self._legal(g, a)
        else:
            ok[ok] = self._legal(g[ok], a[ok])
        if not ok.all():
            i = int((~ok).nonzero()[0][0])
            self._reject(int(g[i]), int(a[i]))
        return a

    def _reject(self, game: int, action: int) -> None:
        legal = self._masks(np.array([game]))[0].nonzero()[0]
        name = A.action_to_string(action) if 0 <= action < self.num_actions else repr(action)
        raise ValueError(f"illegal action {name!r} ({action}) in game {game} for "
                         f"{player_name(int(self.current[game]))} in phase "
                         f"{Phase(int(self.phase[game])).name}; legal: "
                         f"{[A.action_to_string(int(x)) for x in legal]}")

    def _check_decks(self, decks: np.ndarray, k: int, g: np.ndarray) -> np.ndarray:
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
        self.stacks.reshape(-1)[cols] = self.rules.starting_stack
        self.eliminated.reshape(-1)[cols] = False
        self.house[g] = 0
        self.button[g] = self.num_players - 1
        self.hand_number[g] = 0

    def _move_button(self, g: np.ndarray) -> None:
        """The next seat clockwise that is not eliminated."""
        n = self.num_players
        b = self.button.take(g)
        dist = np.where(self.eliminated.take(g, axis=1), n, self._position.take(b, axis=0).T)
        self.button[g] = self._order.reshape(-1).take(b * (n + 1) + dist.min(0))

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
        self.hand_number[g] += 1
        self.deck[g] = decks
        self.pos[g] = 0
        self.hand_seed[g] = seeds
        self.reshuffles[g] = 0
        live = ~self.eliminated.take(g, axis=1)
        self.in_hand.reshape(-1)[cols] = live.reshape(-1)
        self.hidden.reshape(-1)[cols] = -1
        self.face_up.reshape(n * N, DECK)[cols] = False
        self.numbers.reshape(n * N, 4)[cols] = 0
        self.num_count.reshape(-1)[cols] = 0
        self.set_aside[g] = False
        self.ops.reshape(n * N, 4)[cols] = BASE_OPERATOR_COUNTS
        self.roots.reshape(-1)[cols] = 0
        self.mults.reshape(-1)[cols] = 0
        self.decl.reshape(-1)[cols] = -1
        self.acted.reshape(-1)[cols] = False
        for rw in self.round_wagers:
            rw.reshape(-1)[cols] = 0
        stacks = self.stacks.take(g, axis=1)
        cap = np.where(live, stacks, _BIG).min(0)
        self.cap[g] = cap
        self.round[g] = -1
        self.phase[g] = P_BET
        self.current[g] = NO_SEAT
        self.sched[g] = 0
        self.dq[g] = n
        ante = np.where(live, np.minimum(self.rules.ante, cap), 0)
        self.wagers.reshape(-1)[cols] = ante.reshape(-1)
        self.stacks.reshape(-1)[cols] = (stacks - ante).reshape(-1)

    def _advance(self, g: np.ndarray) -> None:
        """Run hands forward until each game waits for a decision (engine ``_advance``)."""
        n, end = self.num_players, len(self._kinds)
        while g.size:
            queued = self.dq.take(g) < n
            if queued.any():
                stopped = self._deal_pass(g[queued], hidden=False)
                if stopped.any():
                    g = np.concatenate([g[~queued], g[queued][~stopped]])
            if not g.size:
                break
            sched = self.sched.take(g)
            fin = sched == end
            if fin.any():
                self._start_declaration(g[fin])
                g, sched = g[~fin], sched[~fin]
            kind = self._kinds.take(sched)
            self.sched[g] = sched + 1
            hid = kind == K_HIDDEN
            if hid.any():
                gh = g[hid]
                self.dq[gh] = 0
                self._deal_pass(gh, hidden=True)
            up = kind == K_UP
            if up.any():
                self.dq[g[up]] = 0
            bet = kind == K_BET
            if bet.any():
                started = self._start_betting(g[bet])
                if started.any():
                    keep = np.ones(g.size, bool)
                    keep[bet.nonzero()[0][started]] = False
                    g = g[keep]

    # ---- dealing --------------------------------------------------------------------------

    def _draw(self, g: np.ndarray) -> np.ndarray:
        p = self.pos.take(g)
        self.pos[g] = p + 1
        return self.deck.reshape(-1).take(g * DECK + p)

    def _put_back(self, g: np.ndarray) -> None:
        """The card just drawn goes back and the undrawn cards are reshuffled: top first in
        ascending order of ``cards.reshuffle_keys`` (engine ``_put_back``)."""
        k = g.size
        p = self.pos.take(g) - 1
        self.pos[g] = p
        d = self.deck.take(g, axis=0)
        # cards.reshuffle_keys(hand_seed, count, d), computed in place
        base = self.hand_seed.take(g) + self.reshuffles.take(g).astype(np.uint64) \
            * np.uint64(DECK)
        keys = d.astype(np.uint64)
        keys += base[:, None]
        keys = cards.mix64(keys)
        drawn = np.arange(DECK) < p[:, None]
        keys[drawn] = 0  # drawn cards sort first, and stay drawn
        order = keys.argsort(axis=1)
        if np.count_nonzero(keys == 0) != p.sum():  # a key of 0 among the undrawn: be exact
            order = keys.argsort(axis=1, kind="stable")
        order += np.arange(0, k * DECK, DECK)[:, None]
        self.deck[g] = d.reshape(-1).take(order)
        self.reshuffles[g] += 1

    def _add_number(self, fl: np.ndarray, c: np.ndarray) -> None:
        count = self.num_count.reshape(-1).take(fl)
        self.numbers.reshape(-1)[fl * 4 + count] = c
        self.num_count.reshape(-1)[fl] = count + 1

    def _deal_pass(self, g: np.ndarray, hidden: bool) -> np.ndarray:
        """Deal (the rest of) a pass, one card to each seat in the hand from position
        ``dq``: hidden cards (a special goes back) or face-up cards (special rules). Returns
        True where a × discard stops a face-up pass."""
        n, N = self.num_players, self.num_games
        dq = self.dq.take(g)
        b = self.button.take(g)
        stopped = np.zeros(g.size, bool)
        fresh = (dq == 0).nonzero()[0]
        if fresh.size:  # the common case first: every seat in, n number cards on top
            gi = g[fresh]  # (n, k) arrays below: reductions over seats run along axis 0
            fl = self._order[:, :n].take(b[fresh], axis=0).T * N + gi
            p0 = self.pos.take(gi)
            c = self.deck.reshape(-1).take(gi * DECK + p0 + self._seat_col)
            ok = (c < FIRST_MULTIPLY).all(0) & self.in_hand.reshape(-1).take(fl).all(0)
            if ok.any():
                j = ok.nonzero()[0]
                flj, cj = fl[:, j].reshape(-1), c[:, j].reshape(-1)
                if hidden:
                    self.hidden.reshape(-1)[flj] = cj
                else:
                    self.face_up.reshape(-1)[flj * DECK + cj] = True
                self._add_number(flj, cj)
                self.pos[gi[j]] = p0[j] + n
                dq[fresh[j]] = n
        rest = (dq < n).nonzero()[0]
        while rest.size:  # one seat per game and round, in order
            gr = g[rest]
            s = self._order.reshape(-1).take(b[rest] * (n + 1) + dq[rest])
            fl = s * N + gr
            live = self.in_hand.reshape(-1).take(fl)
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
                self.hidden.reshape(-1)[fl] = c
                self._add_number(fl, c)
                dq[rest] += 1
            else:
                pending = self._deal_up(gr, s)
                dq[rest] += 1
                if pending.any():
                    i = pending.nonzero()[0]
                    stopped[rest[i]] = True
                    self.phase[gr[i]] = P_DISCARD
                    self.current[gr[i]] = s[i]
            rest = ((dq < n) & ~stopped).nonzero()[0]
        self.dq[g] = dq
        return stopped

    def _deal_up(self, g: np.ndarray, s: np.ndarray) -> np.ndarray:
        """One face-up card with the special rules; True where a × discard is pending."""
        fl = s * self.num_games + g
        c = self._draw(g)
        if self._limit is not None:
            times = (c >= FIRST_MULTIPLY) & (c < FIRST_ROOT)
            if times.any():
                mults = self.mults.reshape(-1)
                over = times & (mults.take(fl) >= self._limit)
                while over.any():  # a × over the limit goes back; draw again
                    i = over.nonzero()[0]
                    self._put_back(g[i])
                    c[i] = self._draw(g[i])
                    over[i] = ((c[i] >= FIRST_MULTIPLY) & (c[i] < FIRST_ROOT)
                               & (mults.take(fl[i]) >= self._limit))
        self.face_up.reshape(-1)[fl * DECK + c] = True
        special = c >= FIRST_MULTIPLY
        if not special.any():
            self._add_number(fl, c)
            return special
        number = ~special
        self._add_number(fl[number], c[number])
        i = special.nonzero()[0]
        root = c[i] >= FIRST_ROOT
        self.roots.reshape(-1)[fl[i[root]]] += 1
        self.mults.reshape(-1)[fl[i[~root]]] += 1
        self._deal_extra(g[i], fl[i])
        special[i[root]] = False
        return special  # the × holders: a discard is pending

    def _deal_extra(self, g: np.ndarray, fl: np.ndarray) -> None:
        """The extra card of a √ or ×: specials are set aside until a number comes. At most
        seven specials are left once one is drawn, so a number lies in the next eight cards
        (and at most 40 cards of a deck are ever drawn: the window stays in the deck)."""
        p = self.pos.take(g)
        where = (g * DECK + p)[:, None] + _WINDOW
        window = self.deck.reshape(-1).take(where)
        number = window < FIRST_MULTIPLY
        j = number.argmax(1)
        rows = np.arange(g.size)
        c = window[rows, j]
        aside = ~number & (j[:, None] > _WINDOW)
        if aside.any():
            self.set_aside.reshape(-1)[(g[:, None] * DECK + window)[aside]] = True
        self.pos[g] = p + j + 1
        self.face_up.reshape(-1)[fl * DECK + c] = True
        self._add_number(fl, c)

    def _discard(self, g: np.ndarray, a: np.ndarray) -> np.ndarray:
        fl = self.current.take(g) * self.num_games + g
        slot = np.where(a == A.DISCARD_PLUS, OP_PLUS,
                        np.where(a == A.DISCARD_MINUS, OP_MINUS, OP_TIMES))
        ops = self.ops.reshape(-1)
        ops[fl * 4 + slot] -= 1
        ops[fl * 4 + OP_TIMES] += 1
        return g

    # ---- betting ----------------------------------------------------------------------------

    def _next_bettor(self, g: np.ndarray, after: np.ndarray) -> np.ndarray:
        """The next seat clockwise after ``after`` that still has to act, or -1."""
        n = self.num_players
        w = self.wagers.take(g, axis=1)
        cond = ((w < self.cap.take(g)) & self.in_hand.take(g, axis=1)
                & (~self.acted.take(g, axis=1) | (w < w.max(0))))
        dist = np.where(cond, self._position.take(after, axis=0).T, n).min(0)
        return self._order.reshape(-1).take(after * (n + 1) + dist)

    def _start_betting(self, g: np.ndarray) -> np.ndarray:
        """Open a betting round; True where it is not skipped."""
        self.round[g] += 1
        self.acted.reshape(-1)[self._cols(g)] = False
        first = self._next_bettor(g, self.button.take(g))
        started = first >= 0
        gs = g[started]
        self.phase[gs] = P_BET
        self.current[gs] = first[started]
        return started

    def _bet(self, g: np.ndarray, a: np.ndarray) -> np.ndarray:
        """Apply betting actions; returns the games whose round is over (to advance)."""
        N = self.num_games
        s = self.current.take(g)
        fl = s * N + g
        acted = self.acted.reshape(-1)
        acted[fl] = True
        fold = a == A.FOLD
        any_fold = fold.any()
        if any_fold:
            self.in_hand.reshape(-1)[fl[fold]] = False
        money = (a == A.CALL) | (a >= A.FIRST_RAISE)
        if money.any():
            i = None if money.all() else money.nonzero()[0]
            gm, am, fm = (g, a, fl) if i is None else (g[i], a[i], fl[i])
            wagers = self.wagers.reshape(-1)
            high = self.wagers.take(gm, axis=1).max(0)
            total = np.where(am == A.CALL, high, am - (A.FIRST_RAISE - 1))
            raised = (am >= A.FIRST_RAISE).nonzero()[0]
            if raised.size:
                acted[self._cols(gm[raised])] = False
                acted[fm[raised]] = True
            chips = total - wagers.take(fm)
            wagers[fm] = total
            stacks = self.stacks.reshape(-1)
            stacks[fm] = stacks.take(fm) - chips
            rw = self.round_wagers.reshape(-1)
            ri = self.round.take(gm) * (self.num_players * N) + fm
            rw[ri] = rw.take(ri) + chips
        if any_fold:
            fi = fold.nonzero()[0]
            alone = self.in_hand.take(g[fi], axis=1).sum(0) == 1
            if alone.any():
                self._fold_out(g[fi[alone]])
                keep = np.ones(g.size, bool)
                keep[fi[alone]] = False
                g, s = g[keep], s[keep]
        nxt = self._next_bettor(g, s)
        done = nxt < 0
        self.current[g] = np.where(done, s, nxt)
        return g[done]

    # ---- declaration, showdown, payout ------------------------------------------------

    def _next_in_order(self, g: np.ndarray, after_pos: np.ndarray) -> np.ndarray:
        """The first seat in the hand whose position (from the dealer's left) is after
        ``after_pos``, or -1."""
        n = self.num_players
        b = self.button.take(g)
        pos = self._position.take(b, axis=0).T
        d = np.where(self.in_hand.take(g, axis=1) & (pos > after_pos), pos, n).min(0)
        return self._order.reshape(-1).take(b * (n + 1) + d)

    def _start_declaration(self, g: np.ndarray) -> None:
        self.phase[g] = P_DECLARE
        self.current[g] = self._next_in_order(g, np.full(g.size, -1))

    def _declare(self, g: np.ndarray, a: np.ndarray) -> None:
        s = self.current.take(g)
        self.decl.reshape(-1)[s * self.num_games + g] = a
        n = self.num_players
        nxt = self._next_in_order(g, self._position.reshape(-1).take(self.button.take(g) * n + s))
        self.current[g] = nxt
        done = nxt < 0
        if done.any():
            self._showdown(g[done])

    def _fold_out(self, g: np.ndarray) -> None:
        winner = self.in_hand.take(g, axis=1).argmax(0)
        payouts = np.zeros((self.num_players, g.size), np.int64)
        payouts[winner, np.arange(g.size)] = self.wagers.take(g, axis=1).sum(0)
        self._pay(g, payouts, np.zeros(g.size, np.int64))

    def _side_winner(self, cand: np.ndarray, dist: np.ndarray, key: np.ndarray) -> np.ndarray:
        """Per game, the seat among ``cand`` (n, k) with the smallest distance, ties to the
        smallest ``key``; -1 where no candidate has a valid equation."""
        best = np.where(cand, dist, np.inf).min(0)
        tied = cand & (dist <= best + TIE_TOLERANCE)
        w = np.where(tied, key, _BIG).argmin(0)
        return np.where(np.isfinite(best), w, NO_SEAT)

    def _showdown(self, g: np.ndarray) -> None:
        """Solve every hand still in (batched table lookups) and split the pot (rules §5-7;
        a copy of engine ``Game._split_pot``)."""
        n, k = self.num_players, g.size
        live = self.in_hand.take(g, axis=1)
        cols = self._cols(g)
        low_d, high_d = (x.reshape(n, k) for x in self._distances(cols))
        nums = self.numbers.reshape(-1, 4).take(cols, axis=0).reshape(n, k, 4).astype(np.int64)
        if self.rules.tiebreak == "suit":
            t = np.sort((nums % 4) * cards.NUM_VALUES + (cards.NUM_VALUES - 1 - nums // 4), -1)
            key = ((t[..., 0] * 44 + t[..., 1]) * 44 + t[..., 2]) * 44 + t[..., 3]
            low_key = high_key = key
        else:
            strength = (nums // 4) * 4 + 3 - nums % 4  # (value, -suit) as one number
            high_key = -strength.max(-1)  # the smallest key wins
            low_key = strength.min(-1)
        decl = self.decl.take(g, axis=1)
        swing = live & (decl == A.DECLARE_SWING)
        low_side = live & ((decl == A.DECLARE_LOW) | swing)
        high_side = live & ((decl == A.DECLARE_HIGH) | swing)
        low_w = self._side_winner(low_side, low_d, low_key)
        high_w = self._side_winner(high_side, high_d, high_key)
        seat = self._seat_col
        won_both = swing & (seat == low_w) & (seat == high_w)
        swing_won = won_both.any(0)
        failed = swing & ~won_both
        again = failed.any(0) & ~swing_won
        if again.any():  # the side winners among the players who did not fail
            low_w = np.where(again, self._side_winner(low_side & ~failed, low_d, low_key), low_w)
            high_w = np.where(again, self._side_winner(high_side & ~failed, high_d, high_key),
                              high_w)
        pot = self.wagers.take(g, axis=1).sum(0)
        has_low, has_high = low_w >= 0, high_w >= 0
        nobody = ~swing_won & ~has_low & ~has_high
        split = ~swing_won & ~nobody & low_side.any(0) & high_side.any(0)
        whole = ~swing_won & ~nobody & ~split
        half = pot // 2
        share = np.where(has_low & has_high, half, 2 * half)
        payouts = np.where(split, ((seat == low_w) + (seat == high_w)) * share, 0)
        payouts += np.where(swing_won | whole, (seat == np.maximum(low_w, high_w)) * pot, 0)
        house = np.where(split, pot - 2 * half, 0)
        if nobody.any():  # house rule: split among everyone still in
            count = live.sum(0)
            each = pot // np.maximum(count, 1)
            payouts += np.where(nobody, live * each, 0)
            house += np.where(nobody, pot - each * count, 0)
        self._pay(g, payouts, house)

    def _pay(self, g: np.ndarray, payouts: np.ndarray, house: np.ndarray) -> None:
        cols = self._cols(g)
        stacks = self.stacks.take(g, axis=1) + payouts
        self.stacks.reshape(-1)[cols] = stacks.reshape(-1)
        self.house[g] += house
        self.net.reshape(-1)[cols] = (payouts - self.wagers.take(g, axis=1)).reshape(-1)
        self.wagers.reshape(-1)[cols] = 0
        self.current[g] = NO_SEAT
        out = self.eliminated.take(g, axis=1) | (stacks == 0)
        self.eliminated.reshape(-1)[cols] = out.reshape(-1)
        over = (self.hand_number.take(g) >= self.rules.hands_per_episode) \
            | ((~out).sum(0) <= 1)
        self.phase[g] = np.where(over, P_MATCH_OVER, P_HAND_OVER)
        self.hand_over[g] = True
        self.match_over[g] = over


# ---------------------------------------------------------------------------------------------
# Policies


def random_policy(seed: int | None = None) -> Policy:
    """A policy that picks uniformly among the legal actions of each row."""
    rng = np.random.default_rng(seed)

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return sample_legal(masks, rng)

    act.uses_observations = False  # type: ignore[attr-defined]
    return act


def sample_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) one uniformly random legal action per mask row (every row needs one).

    Rejection sampling over the whole row first (most betting rows are mostly legal), then an
    exact draw among the listed legal actions of the rows left (few legal actions each).
    """
    m = np.asarray(masks)
    m = m.view(bool) if m.dtype in (np.int8, np.uint8) else m.astype(bool)
    b, width = m.shape
    flat = m.reshape(-1)
    out = rng.integers(0, width, b)
    left = (~flat.take(np.arange(b) * width + out)).nonzero()[0]
    for _ in range(2):
        if not left.size:
            return out
        pick = rng.integers(0, width, left.size)
        ok = flat.take(left * width + pick)
        out[left[ok]] = pick[ok]
        left = left[~ok]
    if left.size:
        legal = m.take(left, axis=0).reshape(-1).nonzero()[0]  # row * width + action
        count = np.bincount(legal // width, minlength=left.size)
        if (count == 0).any():
            raise ValueError(f"mask row {int(left[np.argmax(count == 0)])} has no legal action")
        start = np.cumsum(count) - count
        out[left] = legal[start + (rng.random(left.size) * count).astype(np.int64)] % width
    return out


def sb3_policy(model: Any, deterministic: bool = False) -> Policy:
    """A policy from a Stable-Baselines3 model (``MaskablePPO`` gets the masks); copy or
    reload the model first to freeze a snapshot."""

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        try:
            actions, _ = model.predict(observations, deterministic=deterministic,
                                       action_masks=masks.astype(bool))
        except TypeError:
            actions, _ = model.predict(observations, deterministic=deterministic)
        return np.asarray(actions)

    return act


# ---------------------------------------------------------------------------------------------
# The single-agent vector env


class HiLoVectorEnv(VectorEnv):
    """A learner against opponent policies in ``num_envs`` games (Gymnasium ``VectorEnv``)."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.SAME_STEP,
                                          "render_modes": []}

    def __init__(self, rules: str | RuleSet = "standard", num_envs: int = 64,
                 opponents: Policy | Sequence[Policy] | None = None, seed: int | None = None,
                 deal_source: DeckSource | None = None, **overrides: Any) -> None:
        self.rules = resolve(rules, **overrides)
        self.game = VectorGame(self.rules, num_envs, seed=seed, deal_source=deal_source)
        self.num_envs = num_envs
        n = self.rules.num_players
        self.single_observation_space = spaces.Box(0.0, float(max(n, 3)),
                                                   (self.game.obs_size,), np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self.set_opponents(opponents if opponents is not None else
                           random_policy(None if seed is None else seed + 1))
        self._default_opponents = opponents is None
        self.learner = np.zeros(num_envs, np.int64)
        self.episodes = np.zeros(num_envs, np.int64)
        self.pending = np.zeros(num_envs, np.float64)
        self.skipped_chips = np.zeros(num_envs, np.int64)
        self.episode_return = np.zeros(num_envs, np.float64)
        self.episode_length = np.zeros(num_envs, np.int64)
        self._masks: np.ndarray | None = None

    def set_opponents(self, opponents: Policy | Sequence[Policy]) -> None:
        """Opponent policies: one for every game, or a list (game ``i`` uses ``i % len``).

        The same policy object listed for many games is called once per round for all of
        them, so a list of one policy per game costs no loop over games.
        """
        pols = [opponents] if callable(opponents) else list(opponents)
        if not pols or not all(callable(p) for p in pols):
            raise ValueError("opponents must be a policy callable or a non-empty list of them")
        distinct: list[Policy] = []
        index: dict[Any, int] = {}
        which = []
        for p in pols:
            try:
                key: Any = (0, p)
                hash(key)
            except TypeError:  # an unhashable callable: by identity
                key = (1, id(p))
            if key not in index:
                index[key] = len(distinct)
                distinct.append(p)
            which.append(index[key])
        self.opponents = distinct
        self._opponent_of = np.asarray(which, np.int64)[np.arange(self.num_envs) % len(pols)]
        self._default_opponents = False

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New matches everywhere; ``options`` may hold ``decks`` and ``hand_seeds`` (first
        hands). A ``seed`` re-seeds the deals and the default random opponents."""
        opts = options or {}
        if seed is not None and self._default_opponents:
            self.opponents = [random_policy(seed + 1)]
        self.game.reset(seed=seed, decks=opts.get("decks"), hand_seeds=opts.get("hand_seeds"))
        self.episodes[:] = 0
        self.learner = np.arange(self.num_envs) % self.rules.num_players
        self.pending[:] = 0
        self.skipped_chips[:] = 0
        self.episode_return[:] = 0
        self.episode_length[:] = 0
        self._masks = None
        # no episode is under way yet: one that ends before a decision is skipped
        self._play_opponents(np.ones(self.num_envs, bool), np.zeros(self.num_envs))
        return self._observe(), {}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray, dict[str, Any]]:
        """The learner's actions -> (observations, rewards, terminations, truncations, infos)."""
        N = self.num_envs
        g = np.arange(N)
        a = self.game._check_actions(actions, g)
        self._masks = None
        term = np.zeros(N, bool)
        rew = np.zeros(N, np.float64)
        self.episode_length += 1
        res = self.game._step(g, a)
        self._settle(g, res, term, rew)
        self._play_opponents(term, rew)
        live = ~term
        rew[live] = self.pending[live]
        self.pending[live] = 0
        self.episode_return += rew
        infos: dict[str, Any] = {}
        if term.any():
            ended = term.nonzero()[0]
            infos["episode"] = {"r": np.where(term, self.episode_return, 0.0),
                                "l": np.where(term, self.episode_length, 0),
                                "_r": term, "_l": term}
            infos["_episode"] = term
            self.episode_return[ended] = 0
            self.episode_length[ended] = 0
        obs = self._observe()
        return obs, rew.astype(np.float32), term, np.zeros(N, bool), infos

    def action_masks(self) -> np.ndarray:
        """(N, n_actions) bool: the learner's legal actions now."""
        if self._masks is None:
            self._masks = self.game._masks(np.arange(self.num_envs)).view(bool)
        return self._masks

    def close(self, **kwargs: Any) -> None:
        self.closed = True

    # ---- internals ------------------------------------------------------------------------

    def _observe(self) -> np.ndarray:
        g = np.arange(self.num_envs)
        return self.game._observe(g, self.game.current[g])

    def _settle(self, g: np.ndarray, res: StepResult, term: np.ndarray, rew: np.ndarray) -> None:
        """Credit finished hands to the learner; end its episode at a match's end or when it
        is eliminated, and start the next episode in a new seat."""
        if not res.hand_over.any():
            return
        i = res.hand_over.nonzero()[0]
        gi = g[i]
        seat = self.learner[gi]
        self.pending[gi] += res.rewards[i, seat]
        # the sim has dealt the next hand already: the learner's elimination shows there
        out = res.match_over[i] | self.game.eliminated[seat, gi]
        if not out.any():
            return
        ended = gi[out]
        first = ~term[ended]  # the episode the learner acted in
        fe = ended[first]
        rew[fe] = self.pending[fe]
        term[fe] = True
        self.skipped_chips[ended[~first]] += self.pending[ended[~first]].astype(np.int64)
        self.pending[ended] = 0
        restart = ended[~res.match_over[i][out]]  # learner out, others play on: new match
        if restart.size:
            self.game.reset(games=restart)
        self.episodes[ended] += 1
        self.learner[ended] = (ended + self.episodes[ended]) % self.rules.num_players

    def _play_opponents(self, term: np.ndarray, rew: np.ndarray) -> None:
        """Opponents act until every game waits for its learner."""
        game = self.game
        while True:
            opp = (game.current != self.learner).nonzero()[0]
            if not opp.size:
                return
            acts = np.empty(opp.size, np.int64)
            who = self._opponent_of[opp]
            for j, policy in enumerate(self.opponents):
                sel = (who == j).nonzero()[0] if len(self.opponents) > 1 else np.arange(opp.size)
                if not sel.size:
                    continue
                gs = opp[sel]
                if getattr(policy, "uses_observations", True):
                    obs = game._observe(gs, game.current.take(gs))
                else:
                    obs = np.empty((gs.size, 0), np.float32)
                out = np.asarray(policy(obs, game._masks(gs)))
                if out.shape != (sel.size,) and out.size == sel.size:
                    out = out.reshape(sel.size)
                acts[sel] = out
            try:
                a = game._check_actions(acts, opp)
            except ValueError as e:
                raise ValueError(f"an opponent policy played an illegal action: {e}") from None
            res = game._step(opp, a)
            self._settle(opp, res, term, rew)


# ---------------------------------------------------------------------------------------------
# Stable-Baselines3 adapter

_SB3_CLASS: type | None = None


def make_sb3_vec_env(env: HiLoVectorEnv) -> Any:
    """``env`` as a Stable-Baselines3 ``VecEnv`` with ``action_masks()`` (for MaskablePPO)."""
    global _SB3_CLASS
    if _SB3_CLASS is None:
        _SB3_CLASS = _sb3_class()
    return _SB3_CLASS(env)


def _sb3_class() -> type:
    from stable_baselines3.common.vec_env import VecEnv

    class HiLoSB3VecEnv(VecEnv):
        """A :class:`HiLoVectorEnv` as an SB3 ``VecEnv``; ``env_method("action_masks")``
        returns each game's mask, as sb3-contrib's ``get_action_masks`` expects."""

        def __init__(self, env: HiLoVectorEnv) -> None:
            self.env = env
            super().__init__(env.num_envs, env.single_observation_space,
                             env.single_action_space)
            self._actions: np.ndarray | None = None

        def reset(self) -> np.ndarray:
            seed = self._seeds[0]
            obs, _ = self.env.reset(seed=seed)
            self._reset_seeds()
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions)

        def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
            obs, rew, term, trunc, info = self.env.step(self._actions)
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            if "episode" in info:
                ep = info["episode"]
                for i in term.nonzero()[0]:
                    infos[i]["episode"] = {"r": float(ep["r"][i]), "l": int(ep["l"][i])}
            return obs, rew, term | trunc, infos

        def action_masks(self) -> np.ndarray:
            return self.env.action_masks()

        def close(self) -> None:
            self.env.close()

        def _indices(self, indices: Any) -> list[int]:
            return list(self._get_indices(indices))

        def has_attr(self, attr_name: str) -> bool:
            return attr_name == "action_masks" or hasattr(self.env, attr_name)

        def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
            idx = self._indices(indices)
            if attr_name == "render_mode":
                return [None] * len(idx)
            if not hasattr(self.env, attr_name):
                raise AttributeError(f"HiLoVectorEnv has no attribute {attr_name!r}")
            return [getattr(self.env, attr_name)] * len(idx)

        def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
            setattr(self.env, attr_name, value)

        def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                       **method_kwargs: Any) -> list[Any]:
            idx = self._indices(indices)
            if method_name == "action_masks":
                masks = self.env.action_masks()
                return [masks[i] for i in idx]
            out = getattr(self.env, method_name)(*method_args, **method_kwargs)
            return [out] * len(idx)

        def env_is_wrapped(self, wrapper_class: type[gym.Wrapper],
                           indices: Any = None) -> list[bool]:
            return [False] * len(self._indices(indices))

    return HiLoSB3VecEnv
