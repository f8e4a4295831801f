"""Equation Hi-Lo in JAX: pure functions of an immutable state, jit- and vmap-able, pgx-style.

:class:`EquationHiLo` is one match of one rule set as functions of a frozen :class:`State`
pytree (one game; ``jax.vmap`` makes a batch, as in pgx). It mirrors the NumPy batch simulator
(:mod:`~hilo_env.equation_hilo.vector`) decision for decision: on the same deck orders, hand
seeds and actions it gives the engine's states, rewards, legal actions and observations (the
conformance suite, ``tests/conformance/``, checks this). The rule math without decisions is
not copied: the pot split and the tie-breaks are :mod:`showdown`'s functions called with
``xp=jax.numpy``, the solver and observation tables are the NumPy ones, as constants.

``EquationHiLo(rules="standard", **overrides)``, the names of ``pgx.Env`` (duck-typed: pgx
need not be installed; :class:`hilo_env.envs.pgx_env.PgxEquationHiLo` is this game as a
``pgx.Env`` subclass, for pgx's ``api_test`` and ``save_svg``):

| member                                  | what                                            |
|-----------------------------------------|-------------------------------------------------|
| ``init(key)``                           | a new match, its first hand dealt from ``key``  |
| ``step(state, action, key)``            | one decision; ``key`` deals the next hand       |
| ``observe(state, player=None)``         | (observation_size,) float32, the layout of      |
|                                         | :mod:`observation` (the acting seat by default) |
| ``init_from_deal(deck, hand_seed)``     | ``init`` with chance as data: (52,) card ids    |
| ``step_with_deal(state, action, deck,`` | top first and a (2,) uint32 seed               |
| ``hand_seed)``                          | (:func:`jax_chance.hand_seed_words`)            |
| ``play(state, action, deck, hand_seed,``| both in one: a new match where ``new_match``,  |
| ``new_match)``                          | else a step (auto-reset in one program)         |
| ``play_from_key(state, action, key,``   | ``play`` with ``deal(key)``, drawn only where a |
| ``new_match)``                          | hand starts (what ``step`` runs)                |
| ``id``, ``version``, ``num_players``,   | ``"equation_hilo"``, ``"v0"``, the rule set's   |
| ``num_actions``, ``observation_shape``  | sizes                                           |

:class:`State` holds pgx's fields, ``current_player``, ``observation`` (the acting seat's),
``rewards`` ((n,) float32: each seat's net chips of a hand that ended in this step, else 0),
``terminated`` (the match is over), ``truncated`` (always False), ``legal_action_mask``
((num_actions,) bool) and ``_step_count``, and the game's fields under the names of
:class:`~hilo_env.equation_hilo.batch_state.BatchState`, seat-first for one game (see
``State``). A finished hand is dealt again within the step; a finished match is terminal: as in
pgx, ``step`` then returns it unchanged with zero rewards, its mask all ones and
``current_player`` the seat that acted last (wrap ``step`` with pgx's ``auto_reset`` for a new
match). An illegal action ends the match at once, as pgx does: the offender's reward is
``-starting_stack``, the others share ``starting_stack``.

Everything runs under ``jit``: rule fields are static (one compile per rule set), control flow
is ``lax.while_loop``/``lax.switch`` and selects, never Python on traced values. Under ``vmap``
a loop turns as often as the game of the batch that needs most, and a ``switch`` or ``cond``
becomes a select of every branch, so the step is laid out for batches: work that few games of
a step need runs for those games only (:func:`jax_batching.loop_where`'s batching rule gathers
them, a share of the batch at a time): the deal loop (:meth:`EquationHiLo._advance`, a turn per
step of the schedule: a whole pass unrolled over the seats, or a betting round opened), the
showdown (:meth:`EquationHiLo._showdown_where`, where the last declaration was made), a card
the rules send back reshuffled (:func:`jax_chance.put_back_where`), and a deck drawn from the
key (:func:`jax_chance.deal_where`, in ``step`` and ``play_from_key``) for the games whose hand
ends (about one in ten per step); a new match or hand sets only the fields it resets. The same
key deals the same hand as ``jax_chance.deal``, so chance stays data and results do not
change. Integers are int32 (JAX's default); the solver's float64 distances enter the showdown
as their ranks among the table's distinct distances (:func:`distance_ranks`), so float32
decides every tie exactly as float64 does.

**Bad input.** An action is an integer (a float or bool action raises TypeError when the
function is traced); an integer that is no legal action is pgx's illegal action above, one
outside the action space too, whatever its integer type (:meth:`EquationHiLo.action_id`).
``observe``'s ``player`` is a seat 0..n-1: a concrete one outside raises ValueError, a traced
one outside gives an all-NaN observation. A deck is the 52 card ids once each and a hand seed
two uint32 words: :func:`check_deal` refuses others, and ``init_from_deal``,
``step_with_deal`` and ``play`` call it on concrete arrays (outside ``jit``); a traced deck is
not checked: one that is no permutation deals unspecified cards, but every loop of the
backend is bounded (:data:`jax_chance.MAX_FIND_BLOCKS`), so a step always ends.

Rule fields: every preset and field of ``docs/rules.md`` at 2..8 players; any other field of
:class:`RuleSet` (a smaller deck, other base operators) only at its default, and
``odd_chip`` only ``house``: the backend says which field it refuses, as the NumPy simulator
does.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo import cards, jax_chance, solver
from hilo_env.equation_hilo.batch_state import MINUS, NUM_OPERATOR_KINDS, PLUS, TIMES
from hilo_env.equation_hilo.engine import BASE_OPERATORS, Phase
from hilo_env.equation_hilo.jax_batching import Shares, loop_where
from hilo_env.equation_hilo.observation import MAX_ROOTS_SCALE, layout, solver_slices
from hilo_env.equation_hilo.rules import BET, DEAL_STEPS, HIDDEN, RuleSet, resolve
from hilo_env.equation_hilo.showdown import NO_SEAT, seat_orders, split_pot, tiebreak_rank

I32 = jnp.int32
DECK = cards.DECK_SIZE
NUMBERS_PER_HAND = solver.NUM_NUMBERS
BASE_OPERATOR_COUNTS = tuple(BASE_OPERATORS.count(op) for op in solver.OPERATORS)
WINDOW = 8
"""Cards looked at for the extra card of a special: at most seven specials are left once one
is drawn, so a number lies in the next eight."""
BET_PHASE, DISCARD_PHASE, DECLARE_PHASE, HAND_OVER_PHASE, MATCH_OVER_PHASE = (int(p)
                                                                               for p in Phase)
HIDDEN_STEP, BET_STEP = DEAL_STEPS.index(HIDDEN), DEAL_STEPS.index(BET)
SUPPORTED_VALUES = {"odd_chip": ("house",)}
"""Rule fields the backend plays only at some values (beyond the rule set's own checks)."""
PLAYED_FIELDS = ("num_players", "deal", "max_multiply", "multiply_discards", "integer_results",
                 "swing", "tiebreak", "odd_chip", "starting_stack", "ante", "hands_per_episode")
"""The rule fields the backend plays at every value; any other only at its default."""
ENV_ID = "equation_hilo"
VERSION = "v0"
BIG = np.iinfo(np.int32).max
MAX_HANDS_PER_EPISODE = 1 << 20
"""The most hands a match may have here: the observation reads hands left from a table."""
DEAL_FIELDS = ("deck", "draw_position", "reshuffles", "hidden", "face_up", "numbers",
               "number_count", "set_aside", "roots", "multiplies", "round", "acted", "phase",
               "schedule", "deal_position", "current_player")
"""The State fields that dealing changes (the deal loop's carry)."""
DEAL_READS = ("in_hand", "button", "wagers", "cap", "hand_seed")
"""The State fields that dealing reads and does not change."""
PAY_FIELDS = ("stacks", "house", "net", "wagers", "current_player", "eliminated", "phase",
              "hand_over", "match_over")
"""The State fields that the end of a hand changes (``EquationHiLo._pay``)."""
SHOWDOWN_READS = ("in_hand", "declarations", "numbers", "operators", "roots", "hand_number")
"""The State fields that the showdown reads and does not change."""
SHOWDOWN_SHARE: Shares = {"cpu": 8, "default": 8}
"""The batching rule of the showdown (``EquationHiLo._showdown_where``) takes up to
``batch // SHOWDOWN_SHARE`` games per turn (and turns while games are left)."""
ADVANCE_SHARE: Shares = {"cpu": 8, "default": 4}
"""The batching rule of the deal loop (``EquationHiLo._advance``) takes up to
``batch // ADVANCE_SHARE`` games per turn (and turns while games are left)."""


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class State:
    """One game (``jax.vmap`` adds leading batch axes). Per-seat arrays are ``(n, ...)``;
    every game field has the meaning of the same name in ``BatchState``; ``hand_seed`` is a
    (2,) uint32 pair (:mod:`jax_chance`)."""

    current_player: jax.Array  # ()  int32  the seat to act (the last actor once terminal)
    observation: jax.Array  # (observation_size,) float32  the acting seat's observation
    rewards: jax.Array  # (n,) float32  net chips of a hand that ended in this step
    terminated: jax.Array  # () bool  the match is over
    truncated: jax.Array  # () bool  always False
    legal_action_mask: jax.Array  # (num_actions,) bool
    _step_count: jax.Array  # () int32  steps taken in this match
    stacks: jax.Array  # (n,) int32
    eliminated: jax.Array  # (n,) bool
    house: jax.Array  # () int32
    button: jax.Array  # () int32
    hand_number: jax.Array  # () int32
    deck: jax.Array  # (52,) int32, top first
    draw_position: jax.Array  # () int32
    hand_seed: jax.Array  # (2,) uint32
    reshuffles: jax.Array  # () int32
    in_hand: jax.Array  # (n,) bool
    hidden: jax.Array  # (n,) int32
    face_up: jax.Array  # (n, 52) bool
    numbers: jax.Array  # (n, 4) int32
    number_count: jax.Array  # (n,) int32
    set_aside: jax.Array  # (52,) bool
    operators: jax.Array  # (n, 4) int32
    roots: jax.Array  # (n,) int32
    multiplies: jax.Array  # (n,) int32
    declarations: jax.Array  # (n,) int32
    cap: jax.Array  # () int32
    round: jax.Array  # () int32
    round_wagers: jax.Array  # (R, n) int32
    round_raises: jax.Array  # (R, n) int32
    acted: jax.Array  # (n,) bool
    phase: jax.Array  # () int32
    schedule: jax.Array  # () int32
    deal_position: jax.Array  # () int32
    wagers: jax.Array  # (n,) int32
    net: jax.Array  # (n,) int32
    hand_over: jax.Array  # () bool  the last step ended a hand
    match_over: jax.Array  # () bool  the last step ended the match

    @property
    def env_id(self) -> str:
        """pgx's name for the game."""
        return ENV_ID

    def replace(self, **changes: Any) -> State:
        """A copy with some fields changed (pgx's ``State.replace``)."""
        return dataclasses.replace(self, **changes)


def fields(s: State, names: tuple[str, ...]) -> dict[str, jax.Array]:
    """Some fields of a state by name (a batching rule's carry or reads)."""
    return {k: getattr(s, k) for k in names}


def partial_state(values: dict[str, jax.Array]) -> State:
    """A state of some fields only, the others None, so that reading one fails at once (a
    batching rule's body works on the fields it gathered)."""
    return State(**(dict.fromkeys((f.name for f in dataclasses.fields(State)), None) | values))


def _select(pred: jax.Array, a: State, b: State) -> State:
    """``a`` where ``pred``, else ``b``, field by field."""
    return jax.tree_util.tree_map(lambda x, y: jnp.where(pred, x, y), a, b)


@functools.cache
def distance_ranks(integer_results: bool) -> np.ndarray:
    """``[side, signature]`` float32: each hand's best distance (the solver's, float64) as its
    rank among the table's distinct distances, ``inf`` where no equation is valid.

    The showdown compares distances only with each other (ties within
    ``solver.TIE_TOLERANCE``), so ranks give its float64 decisions in float32, where near
    distances (some differ by 4e-8) would merge. Raises if the table's distances do not fall
    into clusters narrower than the tolerance and further apart than it (then no rank could
    stand for them)."""
    low, high = solver.lookup_distances(np.arange(solver.NUM_SIGNATURES), integer_results)
    both = np.stack([low, high])
    finite = np.unique(both[np.isfinite(both)])
    gaps = np.diff(finite)
    new_cluster = gaps > solver.TIE_TOLERANCE
    cluster = np.concatenate([[0], np.cumsum(new_cluster)])
    starts = np.concatenate([[0], np.flatnonzero(new_cluster) + 1])
    span = finite - finite[starts][cluster]
    if span.max(initial=0.0) > solver.TIE_TOLERANCE:
        raise ValueError("solver distances chain within TIE_TOLERANCE; ranks cannot stand "
                         "for them")
    rank = np.full(both.shape, np.inf)
    ok = np.isfinite(both)
    rank[ok] = cluster[np.searchsorted(finite, both[ok])]
    return rank.astype(np.float32)


@functools.cache
def multiset_of_code() -> np.ndarray:
    """``[v0 * 11**3 + v1 * 11**2 + v2 * 11 + v3]``: the solver's multiset id of 4 values in
    any order (from ``solver.signatures``)."""
    grid = np.indices((cards.NUM_VALUES,) * NUMBERS_PER_HAND).reshape(NUMBERS_PER_HAND, -1).T
    zeros = np.zeros(len(grid), np.int64)
    per_multiset = solver.NUM_OPSETS * (solver.MAX_ROOTS + 1)
    return (solver.signatures(grid, zeros, zeros) // per_multiset).astype(np.int32)


@functools.cache
def opset_of_counts() -> np.ndarray:
    """``[+, −, ×]`` counts (0..3 each) -> the solver's opset id (-1: not tabulated)."""
    grid = np.indices((solver.NUM_OPERATORS + 1,) * 3).reshape(3, -1).T
    ids = solver.opset_ids_of_counts(np.pad(grid, ((0, 0), (0, 1))))  # ÷ follows from them
    return ids.reshape((solver.NUM_OPERATORS + 1,) * 3).astype(np.int32)


def check_rules(rules: RuleSet) -> None:
    """Raise ValueError naming a rule field the JAX backend does not play at its value."""
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        if f.name not in PLAYED_FIELDS and value != f.default:
            raise ValueError(f"the JAX backend plays rule field {f.name!r} only at its default "
                             f"{f.default!r}, not {value!r}")
        allowed = SUPPORTED_VALUES.get(f.name)
        if allowed is not None and value not in allowed:
            raise ValueError(f"the JAX backend plays rule field {f.name!r} only as one of "
                             f"{list(allowed)}, not {value!r}")


def _traced(x: Any) -> bool:
    return isinstance(x, jax.core.Tracer)


def check_deal(deck: Any, hand_seed: Any) -> None:
    """Raise ValueError unless ``deck`` is the 52 card ids once each ((52,), or a batch
    (..., 52)) and ``hand_seed`` two uint32 words per deck ((2,) or (..., 2)): on concrete
    arrays, before any ``jit`` (see the module docstring). Traced values pass unchecked."""
    if not _traced(deck):
        if cards.holds_bool(deck):
            raise ValueError("a deck is integer card ids, not bools (True is no card 1)")
        d = np.asarray(deck)
        if d.ndim == 0 or d.shape[-1] != DECK or not np.issubdtype(d.dtype, np.integer):
            raise ValueError(f"a deck is {DECK} integer card ids (shape (..., {DECK})), not "
                             f"an array of shape {d.shape} and dtype {d.dtype}")
        wrong = (np.sort(d.reshape(-1, DECK), axis=-1) != np.arange(DECK)).any(axis=-1)
        if wrong.any():
            raise ValueError(f"a deck holds each card id 0..{DECK - 1} once, not "
                             f"{d.reshape(-1, DECK)[np.argmax(wrong)].tolist()!r}")
    if not _traced(hand_seed):
        h = np.asarray(hand_seed)
        if h.ndim == 0 or h.shape[-1] != 2 or not np.issubdtype(h.dtype, np.integer) or (
                h.size and (h.min() < 0 or h.max() > np.iinfo(np.uint32).max)):
            raise ValueError(f"a hand seed is two uint32 words (shape (..., 2), "
                             f"jax_chance.hand_seed_words), not {h!r}")


def _check_integer(name: str, value: Any) -> None:
    """TypeError unless ``value`` (a Python number, an array or a tracer) is of an integer
    type: JAX would cast a float or bool silently (``2.7`` to 2)."""
    dtype = jnp.result_type(value)
    if not jnp.issubdtype(dtype, jnp.integer):
        raise TypeError(f"{name} must be an integer, not {value!r} ({dtype})")


class EquationHiLo:
    """One match of Equation Hi-Lo as pure JAX functions (see the module docstring)."""

    def __init__(self, rules: str | RuleSet = "standard", **overrides: Any) -> None:
        self.rules = r = resolve(rules, **overrides)
        check_rules(r)
        self.n = n = r.num_players
        self.num_bet_rounds = r.num_bet_rounds
        self._num_actions = A.num_actions(r.max_cap)
        self.layout = layout(r)
        self._obs_size = self.layout["hands_left"].stop
        # order[b, p]: the seat at position p from the left of dealer b (p = n: NO_SEAT);
        # position[b, seat]: a seat's position from the left of dealer b.
        orders = seat_orders(n)
        self._order = np.concatenate([orders, np.full((n, 1), NO_SEAT)],
                                     axis=1).astype(np.int32)
        self._position = np.argsort(orders, axis=1).astype(np.int32)
        self._steps = np.array([DEAL_STEPS.index(s) for s in r.deal], np.int32)
        self._distances = distance_ranks(r.integer_results)
        self._solver_slices = solver_slices(r.integer_results)
        self._multisets = multiset_of_code()
        self._opsets = opset_of_counts()
        self._code_places = cards.NUM_VALUES ** np.arange(NUMBERS_PER_HAND - 1, -1, -1)
        if r.hands_per_episode > MAX_HANDS_PER_EPISODE:
            raise ValueError(f"the JAX backend plays rule field 'hands_per_episode' up to "
                             f"{MAX_HANDS_PER_EPISODE:,}, not {r.hands_per_episode:,}")
        stack, hands = float(r.starting_stack), r.hands_per_episode
        self._deal_loop = loop_where(self._deal_turn, ADVANCE_SHARE)
        self._showdown_loop = loop_where(self._showdown_turn, SHOWDOWN_SHARE)
        self._ratios = tuple(t.astype(np.float32) for t in (
            # chips / S (all chips in play; raises per round too, each adds a chip)
            np.arange(n * r.starting_stack + 1) / stack,
            np.arange(solver.MAX_ROOTS + 1) / MAX_ROOTS_SCALE,
            (hands - np.arange(hands + 1)) / hands))  # hands left / hands_per_episode

    # ---- pgx's face -------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return ENV_ID

    @property
    def version(self) -> str:
        return VERSION

    @property
    def num_players(self) -> int:
        return self.n

    @property
    def num_actions(self) -> int:
        return self._num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (self._obs_size,)

    def init(self, key: jax.Array) -> State:
        """A new match, its first hand dealt from ``key``."""
        return self.init_from_deal(*jax_chance.deal(key))

    def step(self, state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        """One decision of the acting seat; ``key`` deals the next hand if this one ends."""
        if key is None:
            raise TypeError("step needs a key: a hand that ends is dealt again from it (or "
                            "use step_with_deal)")
        return self.play_from_key(state, action, key, jnp.bool_(False))

    def observe(self, state: State, player: jax.Array | None = None) -> jax.Array:
        """(observation_size,) float32: what ``player`` (the acting seat by default) knows,
        laid out as :func:`observation.layout` (exactly ``observation.Encoder.encode``). A
        seat outside 0..n-1 raises ValueError, or gives NaNs if traced."""
        if player is None:
            return self._observe(state, state.current_player)
        _check_integer("player", player)
        if not _traced(player):
            p = np.asarray(player)
            if p.size and (p.min() < 0 or p.max() >= self.n):
                raise ValueError(f"player must be a seat 0..{self.n - 1}, not {player!r}")
        seat = jnp.asarray(player, I32)
        seated = (seat >= 0) & (seat < self.n)
        return jnp.where(seated, self._observe(state, seat), jnp.nan)

    def action_id(self, action: Any) -> jax.Array:
        """``action`` (an integer of any type, or an array of them) as int32, an integer
        outside 0..num_actions-1 as -1, the illegal action: a plain cast would wrap 2**32 to
        0 (fold) and refuse a Python 2**31. A float or bool raises TypeError. Under ``jit`` or
        ``vmap`` JAX has cast a 64-bit argument to int32 before this sees it (unless 64-bit
        types are enabled): pass actions as int32, as policies make them."""
        _check_integer("an action", action)
        if not _traced(action):  # concrete: compared as it is, whatever its integer type
            given = np.asarray(action)
            return jnp.asarray(np.where((given >= 0) & (given < self._num_actions), given, -1)
                               .astype(np.int32))
        inside = (action >= 0) & (action < self._num_actions)
        return jnp.where(inside, action.astype(I32), -1)

    # ---- chance as data ---------------------------------------------------------------------

    def init_from_deal(self, deck: jax.Array, hand_seed: jax.Array) -> State:
        """A new match whose first hand is ``deck`` (52,) (top first) and ``hand_seed``
        (2,) uint32."""
        return self.play(self._zeros(), jnp.zeros((), I32), deck, hand_seed, jnp.bool_(True))

    def step_with_deal(self, state: State, action: jax.Array, deck: jax.Array,
                       hand_seed: jax.Array) -> State:
        """:meth:`step` with the next hand given as data (used only if this hand ends)."""
        return self.play(state, action, deck, hand_seed, jnp.bool_(False))

    def play(self, state: State, action: jax.Array, deck: jax.Array, hand_seed: jax.Array,
             new_match: jax.Array) -> State:
        """The one transition behind ``init`` and ``step``: where ``new_match``, a new match
        whose first hand is ``deck`` and ``hand_seed`` (``state`` gives only shapes, ``action``
        is ignored); elsewhere ``step_with_deal``. One compiled program can so deal new
        matches into a batch (an auto-reset) without a second copy of the deal loop."""
        check_deal(deck, hand_seed)
        return self._play(state, action, new_match, lambda need: (deck, hand_seed))

    def play_from_key(self, state: State, action: jax.Array, key: jax.Array,
                      new_match: jax.Array) -> State:
        """:meth:`play` with the next hand dealt from ``key`` (as :func:`jax_chance.deal`
        deals it) only where one is needed: under ``vmap`` the games whose hand goes on draw
        no deck (:func:`jax_chance.deal_where`), so this is ``play(state, action,
        *deal(key), new_match)`` at a fraction of the cost."""
        return self._play(state, action, new_match, lambda need: jax_chance.deal_where(
            need, key, state.deck, state.hand_seed))

    def _play(self, state: State, action: jax.Array, new_match: jax.Array,
              chance: Callable[[jax.Array], tuple[jax.Array, jax.Array]]) -> State:
        """:meth:`play`, the next hand ``chance(need)``: a deck and seed, used where a new
        hand starts (``need``; elsewhere anything of their shapes), so that it may be drawn
        there only."""
        action = self.action_id(action)
        legal = state.legal_action_mask[jnp.clip(action, 0, self._num_actions - 1)] \
            & (action >= 0)
        actor = state.current_player
        s = state.replace(hand_over=jnp.bool_(False), match_over=jnp.bool_(False),
                          _step_count=state._step_count + 1)
        s, go = lax.switch(jnp.clip(s.phase, 0, DECLARE_PHASE),
                           (self._bet, self._discard, self._declare), s, action)
        s = self._showdown_where(s)
        again = (s.hand_over & ~s.match_over) | new_match
        stays = state.terminated & ~new_match
        # a game whose step is thrown away below (illegal, or terminal) needs no new hand
        s = self._new_hand(s, *chance(again & (legal | new_match) & ~stays), new_match, again)
        s = self._settle(self._advance(s.replace(hand_over=s.hand_over & ~new_match),
                                       go | again), actor)
        s = _select(legal | new_match, s, self._illegal(state, actor))
        s = _select(stays, state.replace(rewards=jnp.zeros_like(state.rewards)), s)
        # the mask and observation last, once, of whichever state was kept: each is a
        # function of the game's fields, so a kept input state gets back its own
        return s.replace(legal_action_mask=self._mask(s) | s.terminated,
                         observation=self._observe(s, s.current_player))

    # ---- the state ----------------------------------------------------------------------------

    def _zeros(self) -> State:
        n, R, i32 = self.n, max(self.num_bet_rounds, 1), I32
        z, f = jnp.zeros((), i32), jnp.bool_(False)
        return State(
            current_player=z, observation=jnp.zeros(self._obs_size, jnp.float32),
            rewards=jnp.zeros(n, jnp.float32), terminated=f, truncated=f,
            legal_action_mask=jnp.zeros(self._num_actions, bool), _step_count=z,
            stacks=jnp.zeros(n, i32), eliminated=jnp.zeros(n, bool), house=z, button=z,
            hand_number=z, deck=jnp.zeros(DECK, i32), draw_position=z,
            hand_seed=jnp.zeros(2, jnp.uint32), reshuffles=z, in_hand=jnp.zeros(n, bool),
            hidden=jnp.full(n, -1, i32), face_up=jnp.zeros((n, DECK), bool),
            numbers=jnp.zeros((n, NUMBERS_PER_HAND), i32), number_count=jnp.zeros(n, i32),
            set_aside=jnp.zeros(DECK, bool), operators=jnp.zeros((n, NUM_OPERATOR_KINDS), i32),
            roots=jnp.zeros(n, i32), multiplies=jnp.zeros(n, i32),
            declarations=jnp.full(n, -1, i32), cap=z, round=z,
            round_wagers=jnp.zeros((R, n), i32), round_raises=jnp.zeros((R, n), i32),
            acted=jnp.zeros(n, bool), phase=z, schedule=z, deal_position=z,
            wagers=jnp.zeros(n, i32), net=jnp.zeros(n, i32), hand_over=f, match_over=f)

    def _settle(self, s: State, actor: jax.Array) -> State:
        """pgx's fields of a state the game has settled, but the mask and the observation
        (``_play`` computes those last): whose turn (the last actor once the match is over),
        terminated, the rewards of a hand that ended."""
        over = s.match_over
        return s.replace(current_player=jnp.where(over, actor, s.current_player),
                         terminated=over,
                         rewards=jnp.where(s.hand_over, s.net, 0).astype(jnp.float32))

    def _illegal(self, state: State, offender: jax.Array) -> State:
        """pgx's rule: an illegal action ends the match; the offender pays the others."""
        stack = float(self.rules.starting_stack)
        rewards = jnp.where(jnp.arange(self.n) == offender, -stack, stack / (self.n - 1))
        return state.replace(rewards=rewards.astype(jnp.float32), terminated=jnp.bool_(True),
                             _step_count=state._step_count + 1)

    # ---- matches and hands --------------------------------------------------------------------

    def _new_hand(self, s: State, deck: jax.Array, hand_seed: jax.Array, new_match: jax.Array,
                  again: jax.Array) -> State:
        """A new match where ``new_match``, and a new hand where ``again`` (there, and where
        the last hand ended and the match goes on): ante taken, nothing dealt yet
        (``_advance`` deals).

        Field by field, only the fields a new match or hand sets (one fused select each, not
        a select of whole states): a new hand sets every field of the hand, so the state the
        action left is no input to a new match beyond its shapes."""
        n, r = self.n, self.rules
        eliminated = s.eliminated & ~new_match
        stacks = jnp.where(new_match, r.starting_stack, s.stacks)
        b = s.button
        dist = jnp.where(eliminated, n, jnp.asarray(self._position)[b]).min()
        button = jnp.where(new_match, n - 1, jnp.where(again, jnp.asarray(self._order)[b, dist],
                                                        b))
        live = ~eliminated
        cap = jnp.where(live, stacks, BIG).min()
        ante = jnp.where(live & again, jnp.minimum(r.ante, cap), 0)

        def hand(fresh: Any, old: jax.Array) -> jax.Array:
            return jnp.where(again, fresh, old)

        return s.replace(
            eliminated=eliminated, button=button, stacks=stacks - ante,
            house=jnp.where(new_match, 0, s.house),
            hand_number=jnp.where(new_match, 0, s.hand_number) + again,
            net=jnp.where(new_match, 0, s.net), terminated=s.terminated & ~new_match,
            _step_count=jnp.where(new_match, 0, s._step_count),
            match_over=s.match_over & ~new_match,
            deck=hand(jnp.asarray(deck, I32), s.deck), draw_position=hand(0, s.draw_position),
            hand_seed=hand(jnp.asarray(hand_seed, jnp.uint32), s.hand_seed),
            reshuffles=hand(0, s.reshuffles), in_hand=hand(live, s.in_hand),
            hidden=hand(-1, s.hidden), face_up=s.face_up & ~again,
            numbers=hand(0, s.numbers), number_count=hand(0, s.number_count),
            set_aside=s.set_aside & ~again,
            operators=hand(jnp.asarray(BASE_OPERATOR_COUNTS, I32), s.operators),
            roots=hand(0, s.roots), multiplies=hand(0, s.multiplies),
            declarations=hand(-1, s.declarations), acted=s.acted & ~again,
            round_wagers=hand(0, s.round_wagers), round_raises=hand(0, s.round_raises),
            cap=hand(cap, s.cap), round=hand(-1, s.round), phase=hand(BET_PHASE, s.phase),
            current_player=hand(NO_SEAT, s.current_player), schedule=hand(0, s.schedule),
            deal_position=hand(n, s.deal_position), wagers=hand(ante, s.wagers))

    def _advance(self, s: State, go: jax.Array) -> State:
        """Run the hand forward until a seat must decide (the engine's ``_advance``).

        One loop turn per step of the schedule (:meth:`_advance_once`: a whole pass dealt, or
        a betting round opened): a new hand of the standard deal takes four turns, a betting
        round closed one or two, and most steps of a batch none. So under ``vmap`` the turns
        go to the games that need them only (:func:`jax_batching.loop_where`,
        :data:`ADVANCE_SHARE` of the batch at a time), where a batched while loop would turn
        every game as often as the one that needs most. The loop carries only the fields the
        deal changes (:data:`DEAL_FIELDS`) and reads :data:`DEAL_READS`."""
        return s.replace(**self._deal_loop(go, fields(s, DEAL_FIELDS), fields(s, DEAL_READS)))

    def _deal_turn(self, carry: dict[str, jax.Array],
                   reads: dict[str, jax.Array]) -> tuple[dict[str, jax.Array], jax.Array]:
        """:meth:`_advance_once` on the deal's fields, as a loop body of one turn."""
        dealt, go = self._advance_once(partial_state(carry | reads))
        return fields(dealt, DEAL_FIELDS), go

    def _advance_once(self, s: State) -> tuple[State, jax.Array]:
        """The next step of the schedule where no pass is under way (a pass begins, a betting
        round opens, or the declaration once the schedule is done), then the rest of the pass
        under way; returns the state and whether the game still needs advancing."""
        n, steps = self.n, len(self._steps)
        at_step = s.deal_position >= n
        end = at_step & (s.schedule == steps)
        kind = jnp.asarray(self._steps)[jnp.minimum(s.schedule, steps - 1)]
        bet = at_step & ~end & (kind == BET_STEP)
        s = s.replace(schedule=s.schedule + (at_step & ~end),
                      deal_position=jnp.where(at_step & ~end & ~bet, 0, s.deal_position),
                      round=s.round + bet, acted=s.acted & ~bet)
        first = self._next_bettor(s, s.button)
        started = bet & (first >= 0)
        s = s.replace(
            phase=jnp.where(started, BET_PHASE, jnp.where(end, DECLARE_PHASE, s.phase)),
            current_player=jnp.where(started, first, jnp.where(
                end, self._next_in_order(s, jnp.asarray(-1, I32)), s.current_player)))
        s, stopped = self._deal_pass(s)
        return s, ~end & ~started & ~stopped

    # ---- dealing ------------------------------------------------------------------------------

    def _deal_pass(self, s: State) -> tuple[State, jax.Array]:
        """The rest of the pass under way (from ``deal_position``; nothing where none is), one
        card to each seat in the hand, unrolled over the ``n`` positions from the dealer's
        left: a hidden card, or a face-up card with the special rules. A × stops the pass for
        a discard (``deal_position`` then points past its seat). Returns the state and
        whether a × stopped it."""
        n = self.n
        start = s.deal_position
        hidden = jnp.asarray(self._steps)[jnp.maximum(s.schedule - 1, 0)] == HIDDEN_STEP
        stopped = jnp.bool_(False)
        position = jnp.where(start < n, n, start)
        for q in range(n):
            seat = jnp.asarray(self._order)[s.button, q]
            live = (q >= start) & s.in_hand[seat] & ~stopped
            s, times = self._deal_card(s, seat, live, hidden)
            s = s.replace(phase=jnp.where(times, DISCARD_PHASE, s.phase),
                          current_player=jnp.where(times, seat, s.current_player))
            position = jnp.where(times, q + 1, position)
            stopped = stopped | times
        return s.replace(deal_position=position), stopped

    def _deal_card(self, s: State, seat: jax.Array, live: jax.Array,
                   hidden: jax.Array) -> tuple[State, jax.Array]:
        """One card to ``seat`` where ``live`` (else nothing changes). A card the rules send
        back (a special as the hidden card, a × over ``max_multiply``) is put back until the
        top card may be dealt. Face up, a √ or × brings an extra number card (specials before
        it set aside). Returns the state and whether a × was dealt (a discard is due)."""
        limit = self.rules.max_multiply
        p = s.draw_position
        over_limit = jnp.bool_(False) if limit is None else s.multiplies[seat] >= limit
        ids = jnp.arange(DECK)
        refused = (ids >= cards.FIRST_MULTIPLY) & (hidden | ((ids < cards.FIRST_ROOT)
                                                             & over_limit))
        deck, reshuffles = jax_chance.put_back_where(live & refused[s.deck[p]], s.deck, p,
                                                     s.hand_seed, s.reshuffles, refused)
        c = deck[p]
        special = live & (c >= cards.FIRST_MULTIPLY)  # face up only: refused when hidden
        root = special & (c >= cards.FIRST_ROOT)
        times = special & ~root
        window = deck[jnp.minimum(p + 1 + jnp.arange(WINDOW), DECK - 1)]
        number = window < cards.FIRST_MULTIPLY
        j = jnp.argmax(number)
        aside = special & ~number & (jnp.arange(WINDOW) < j)
        extra = window[j]
        card = jnp.where(special, extra, c)
        mine = live & (jnp.arange(self.n) == seat)
        shown = ~hidden & ((ids == c) | (special & (ids == extra)))
        count = s.number_count[seat]
        s = s.replace(
            deck=deck, reshuffles=reshuffles,
            draw_position=p + jnp.where(live, jnp.where(special, j + 2, 1), 0),
            set_aside=s.set_aside | ((window[:, None] == ids) & aside[:, None]).any(0),
            face_up=s.face_up | (mine[:, None] & shown),
            numbers=jnp.where(mine[:, None] & (jnp.arange(NUMBERS_PER_HAND) == count), card,
                              s.numbers),
            number_count=s.number_count + mine,
            hidden=jnp.where(mine & hidden, c, s.hidden),
            roots=s.roots + (mine & root), multiplies=s.multiplies + (mine & times))
        return s, times

    # ---- betting ------------------------------------------------------------------------------

    def _next_bettor(self, s: State, after: jax.Array) -> jax.Array:
        """The next seat clockwise after ``after`` that still has to act, or NO_SEAT."""
        w = s.wagers
        cond = (w < s.cap) & s.in_hand & (~s.acted | (w < w.max()))
        dist = jnp.where(cond, jnp.asarray(self._position)[after], self.n).min()
        return jnp.asarray(self._order)[after, dist]

    def _bet(self, s: State, a: jax.Array) -> tuple[State, jax.Array]:
        seat = s.current_player
        fold, call, raised = a == A.FOLD, a == A.CALL, a >= A.FIRST_RAISE
        in_hand = s.in_hand.at[seat].set(s.in_hand[seat] & ~fold)
        total = jnp.where(call, s.wagers.max(), a - (A.FIRST_RAISE - 1))
        chips = jnp.where(call | raised, total - s.wagers[seat], 0)
        acted = jnp.where(raised, False, s.acted).at[seat].set(True)
        s = s.replace(in_hand=in_hand, acted=acted, wagers=s.wagers.at[seat].add(chips),
                      stacks=s.stacks.at[seat].add(-chips),
                      round_wagers=s.round_wagers.at[s.round, seat].add(chips),
                      round_raises=s.round_raises.at[s.round, seat].add(raised.astype(I32)))
        alone = fold & (in_hand.sum() == 1)
        nxt = self._next_bettor(s, seat)
        done = nxt < 0
        playing = s.replace(current_player=jnp.where(done, seat, nxt))
        payouts = jnp.where(jnp.arange(self.n) == jnp.argmax(in_hand), s.wagers.sum(), 0)
        folded_out = self._pay(s, payouts, jnp.zeros((), I32))
        return _select(alone, folded_out, playing), done & ~alone

    def _discard(self, s: State, a: jax.Array) -> tuple[State, jax.Array]:
        seat = s.current_player
        slot = jnp.where(a == A.DISCARD_PLUS, PLUS, jnp.where(a == A.DISCARD_MINUS, MINUS, TIMES))
        ops = s.operators.at[seat, slot].add(-1).at[seat, TIMES].add(1)
        return s.replace(operators=ops), jnp.bool_(True)

    # ---- declaration, showdown, payout ------------------------------------------------------

    def _next_in_order(self, s: State, after_pos: jax.Array) -> jax.Array:
        """The first seat in the hand whose position from the dealer's left is after
        ``after_pos``, or NO_SEAT."""
        pos = jnp.asarray(self._position)[s.button]
        d = jnp.where(s.in_hand & (pos > after_pos), pos, self.n).min()
        return jnp.asarray(self._order)[s.button, d]

    def _declare(self, s: State, a: jax.Array) -> tuple[State, jax.Array]:
        seat = s.current_player
        s = s.replace(declarations=s.declarations.at[seat].set(a))
        nxt = self._next_in_order(s, jnp.asarray(self._position)[s.button, seat])
        return s.replace(current_player=nxt), jnp.bool_(False)

    def _showdown_where(self, s: State) -> State:
        """The showdown where the last declaration was made (the seat to act is then
        NO_SEAT). Under ``vmap`` a step's showdowns go to the games that have one only
        (:func:`jax_batching.loop_where`, :data:`SHOWDOWN_SHARE` of the batch at a time),
        where the switch's branch would run one for every game and select it away."""
        need = (s.phase == DECLARE_PHASE) & (s.current_player < 0)
        return s.replace(**self._showdown_loop(need, fields(s, PAY_FIELDS),
                                               fields(s, SHOWDOWN_READS)))

    def _showdown_turn(self, carry: dict[str, jax.Array], reads: dict[str, jax.Array]
                       ) -> tuple[dict[str, jax.Array], jax.Array]:
        """:meth:`_showdown` on the fields it reads and writes, as a loop body of one turn."""
        return fields(self._showdown(partial_state(carry | reads)), PAY_FIELDS), \
            jnp.bool_(False)

    def _signatures(self, s: State) -> jax.Array:
        """(n,) each seat's solver signature (meaningful for full hands)."""
        values = s.numbers // cards.NUM_SUITS
        multiset = jnp.asarray(self._multisets)[values @ jnp.asarray(self._code_places, I32)]
        ops = s.operators
        opset = jnp.asarray(self._opsets)[ops[:, PLUS], ops[:, MINUS], ops[:, TIMES]]
        return (multiset * solver.NUM_OPSETS + opset) * (solver.MAX_ROOTS + 1) + s.roots

    def _showdown(self, s: State) -> State:
        """Every hand's best distances (as ranks) and the pot split of :mod:`showdown`."""
        distances = jnp.asarray(self._distances)[:, self._signatures(s)]  # (2, n)
        split = split_pot(s.wagers.sum(), s.in_hand, s.declarations, distances,
                          tiebreak_rank(s.numbers, self.rules.tiebreak, xp=jnp), xp=jnp)
        return self._pay(s, split.payouts, split.house)

    def _pay(self, s: State, payouts: jax.Array, house: jax.Array) -> State:
        stacks = s.stacks + payouts
        out = s.eliminated | (stacks == 0)
        over = (s.hand_number >= self.rules.hands_per_episode) | ((~out).sum() <= 1)
        return s.replace(stacks=stacks, house=s.house + house, net=payouts - s.wagers,
                         wagers=jnp.zeros_like(s.wagers),
                         current_player=jnp.asarray(NO_SEAT, I32), eliminated=out,
                         phase=jnp.where(over, MATCH_OVER_PHASE, HAND_OVER_PHASE),
                         hand_over=jnp.bool_(True), match_over=over)

    # ---- legal actions and observations ------------------------------------------------------

    def _mask(self, s: State) -> jax.Array:
        """(num_actions,) bool: the acting seat's legal actions (``observation.action_mask``)."""
        ids = jnp.arange(self._num_actions)
        seat = jnp.maximum(s.current_player, 0)
        high = s.wagers.max()
        must_call = s.wagers[seat] < high
        bet = ((ids == A.FOLD) | (ids == jnp.where(must_call, A.CALL, A.CHECK))
               | ((ids >= A.FIRST_RAISE + high) & (ids < A.FIRST_RAISE + s.cap)))
        held = s.operators[seat] > 0
        discard = (((ids == A.DISCARD_PLUS) & held[PLUS]) | ((ids == A.DISCARD_MINUS) & held[MINUS])
                   | ((ids == A.DISCARD_MULTIPLY) & held[TIMES]
                      & ("*" in self.rules.discardable_operators)))
        declare = ((ids == A.DECLARE_LOW) | (ids == A.DECLARE_HIGH)
                   | ((ids == A.DECLARE_SWING) & self.rules.swing))
        return jnp.select([s.phase == BET_PHASE, s.phase == DISCARD_PHASE,
                           s.phase == DECLARE_PHASE], [bet, discard, declare], False)

    def _observe(self, s: State, seat: jax.Array) -> jax.Array:
        """The observation of ``seat`` (``observation.BatchEncoder.encode`` for one game)."""
        n, f32 = self.n, jnp.float32
        seat = jnp.asarray(seat, I32) % n
        # Ratios by table, computed as NumPy computes them (float64, then float32): XLA
        # divides by a constant as a multiply by its reciprocal, not always the same float.
        chips, roots_scaled, hands_left = (jnp.asarray(t) for t in self._ratios)
        slots = (seat + jnp.arange(n)) % n  # slot j: the j-th seat from the observer's left
        live = s.phase < HAND_OVER_PHASE
        hidden = s.hidden[seat]
        pot = s.wagers.sum()
        full = (s.number_count[seat] == NUMBERS_PER_HAND) \
            & ~((s.phase == DISCARD_PHASE) & (s.current_player == seat))
        solver_part = jnp.where(full, jnp.asarray(self._solver_slices)[self._signatures(s)[seat]],
                                0.0)
        parts = {
            "phase": jax.nn.one_hot(s.phase, 3) * live,
            "hidden": jax.nn.one_hot(hidden, cards.NUM_NUMBER_CARDS) * (hidden >= 0),
            "face_up": s.face_up[slots].reshape(-1),
            "set_aside": s.set_aside,
            "operators": s.operators[slots].reshape(-1),
            "roots": roots_scaled[s.roots[slots]],
            "in_hand": s.in_hand[slots],
            "stacks": chips[s.stacks[slots]],
            "wagers": chips[s.wagers[slots]],
            "round_wagers": chips[s.round_wagers[:self.num_bet_rounds, slots]].reshape(-1),
            "round_raises": chips[s.round_raises[:self.num_bet_rounds, slots]].reshape(-1),
            "button": jax.nn.one_hot((s.button - seat) % n, n),
            "betting_round": jax.nn.one_hot(s.round, self.num_bet_rounds)
            * (s.phase == BET_PHASE),
            "pot": chips[jnp.where(live, pot, 0)][None],
            "cap": chips[s.cap][None],
            "to_call": chips[s.wagers.max() - s.wagers[seat]][None],
            "solver": solver_part,
            "hands_left": hands_left[s.hand_number][None],
        }
        assert list(parts) == list(self.layout)
        return jnp.concatenate([p.astype(f32).reshape(-1) for p in parts.values()])


Policy = Callable[[jax.Array, jax.Array, jax.Array], jax.Array]
"""``policy(observation, legal_action_mask, key) -> action``, pure and jit-able (one game;
vmap it for a batch)."""


RANDOM_BLOCK = 11
""":func:`random_policy` counts legal actions in blocks of this many."""


def random_policy(observation: jax.Array, legal_action_mask: jax.Array,
                  key: jax.Array) -> jax.Array:
    """A uniformly random legal action: the ``r``-th legal one, ``r`` uniform below their
    count (one ``randint``, where ``jax.random.categorical`` draws a Gumbel per action).

    The ``r``-th is found by counts per block of :data:`RANDOM_BLOCK` actions, then within
    its block: XLA's cumulative sum on the CPU costs more the longer the axis, and one over
    all the actions (109 under the standard rules) took most of the draw (the figures are in
    the commit that made it so)."""
    mask = legal_action_mask.astype(I32)
    blocks = -(-mask.shape[0] // RANDOM_BLOCK)
    mask = jnp.pad(mask, (0, blocks * RANDOM_BLOCK - mask.shape[0])).reshape(blocks, -1)
    through = jnp.cumsum(mask.sum(1))  # legal actions up to each block's end
    r = jax.random.randint(key, (), 0, through[-1])
    block = (through <= r).sum()
    before = jnp.where(block > 0, through[jnp.maximum(block - 1, 0)], 0)
    within = (jnp.cumsum(mask[jnp.minimum(block, blocks - 1)]) <= r - before).sum()
    return (block * RANDOM_BLOCK + within).astype(I32)
