"""Chance as data for the JAX backend: a hand's deck and seed from a key, and the reshuffles.

A hand is its deck order (top first) and its ``hand_seed``, as in the engine and the NumPy
simulator; every reshuffle orders the undrawn cards by
:func:`~hilo_env.equation_hilo.cards.reshuffle_keys`. That function is SplitMix64 on uint64,
and JAX has no 64-bit integers unless ``jax_enable_x64`` is set (a global switch a library
should not flip), so :func:`reshuffle_keys` here computes the same keys on 32-bit halves: a
seed is a ``(2,)`` uint32 pair, high word first (:func:`hand_seed_words`). The test suite
checks it against ``cards.reshuffle_keys`` bit for bit.

| name                  | what                                                              |
|-----------------------|-------------------------------------------------------------------|
| :func:`deal`          | key -> (deck (52,) int32 top first, hand_seed (2,) uint32)        |
| :func:`hand_seed_words` | NumPy uint64 seeds (...) -> (..., 2) uint32 words, high first   |
| :func:`reshuffle_keys`| ``cards.reshuffle_keys`` as (high, low) uint32 words               |
| :func:`put_back`      | the card drawn goes back and the undrawn cards are reshuffled     |
| :func:`reorder`       | cards in the order of their keys, by count (CPU) or by sort      |
| :func:`order_by_count`| its new order on the CPU: each card's place counted              |
| :func:`order_by_sort` | the same order elsewhere (GPU, TPU): one stable sort              |
| :func:`put_back_until`| ``put_back`` again while the top card is refused; one reshuffle  |
| :func:`put_back_where`| ``put_back_until`` where a game needs it; under ``vmap`` only     |
|                       | those games are reshuffled (:func:`jax_batching.loop_where`)      |
| :func:`deal_where`    | ``deal`` where a game needs a new hand, else its deck and seed    |
|                       | unchanged; under ``vmap`` only those games are dealt              |

The ``where`` functions keep chance as data: the same key deals the same hand, and the same
seed reshuffles the same way, whether a batch computes it for every game or, lazily, for the
games that use it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from hilo_env.equation_hilo.cards import DECK_SIZE, MIX_FINAL_SHIFT, MIX_GAMMA, MIX_ROUNDS
from hilo_env.equation_hilo.jax_batching import Shares, loop_where

U32 = jnp.uint32
WORD = 32
LOW_WORD = (1 << WORD) - 1
HALF = 16
HALF_MASK = (1 << HALF) - 1

Words = tuple[jax.Array, jax.Array]
"""A uint64 as (high, low) uint32 arrays."""


def _constant(value: int) -> Words:
    return U32(value >> WORD), U32(value & LOW_WORD)


def _add(a: Words, b: Words) -> Words:
    low = a[1] + b[1]
    return a[0] + b[0] + (low < a[1]).astype(U32), low


def _mul_high(a: jax.Array, b: jax.Array) -> jax.Array:
    """The high 32 bits of the 64-bit product of two uint32 arrays, from 16-bit halves."""
    a1, a0, b1, b0 = a >> HALF, a & HALF_MASK, b >> HALF, b & HALF_MASK
    cross1, cross2 = a0 * b1, a1 * b0
    middle = ((a0 * b0) >> HALF) + (cross1 & HALF_MASK) + (cross2 & HALF_MASK)
    return a1 * b1 + (cross1 >> HALF) + (cross2 >> HALF) + (middle >> HALF)


def _mul(a: Words, b: Words) -> Words:
    """The product modulo 2**64."""
    return _mul_high(a[1], b[1]) + a[0] * b[1] + a[1] * b[0], a[1] * b[1]


def _xor_shift(a: Words, shift: int) -> Words:
    """``a ^ (a >> shift)`` for 0 < shift < 32."""
    return a[0] ^ (a[0] >> shift), a[1] ^ ((a[1] >> shift) | (a[0] << (WORD - shift)))


def _mix64(x: Words) -> Words:
    z = _add(x, _constant(MIX_GAMMA))
    for shift, multiplier in MIX_ROUNDS:
        z = _mul(_xor_shift(z, shift), _constant(multiplier))
    return _xor_shift(z, MIX_FINAL_SHIFT)


def reshuffle_keys(hand_seed: jax.Array, count: jax.Array, card_ids: jax.Array) -> Words:
    """``cards.reshuffle_keys(seed, count, card_ids)`` as (high, low) uint32 words:
    ``hand_seed`` (2,) uint32 (high first), ``count`` an integer, ``card_ids`` (52,)."""
    seed, ids = jnp.asarray(hand_seed, U32), jnp.asarray(card_ids).astype(U32)
    base = _add((seed[0], seed[1]), (U32(0), jnp.asarray(count).astype(U32) * U32(DECK_SIZE)))
    return _mix64(_add(base, (jnp.zeros_like(ids), ids)))


def put_back(deck: jax.Array, draw_position: jax.Array, hand_seed: jax.Array,
             reshuffles: jax.Array) -> jax.Array:
    """The deck after the card at ``draw_position`` (just drawn) goes back and the undrawn
    cards, that one included, are reshuffled: top first in ascending order of their keys
    (the engine's and the NumPy simulator's ``_put_back``); drawn cards stay where they are."""
    return reorder(deck, draw_position, *reshuffle_keys(hand_seed, reshuffles, deck))


def reorder(deck: jax.Array, draw_position: jax.Array, high: jax.Array,
            low: jax.Array) -> jax.Array:
    """``deck`` with the cards from ``draw_position`` on in ascending order of their distinct
    keys (``high``, ``low``), the others where they are.

    Two ways to one order, chosen by the platform the program is compiled for: on the CPU
    :func:`order_by_count` (XLA's sort is slow there), elsewhere :func:`order_by_sort` (on a
    GPU the counting loop's 52 turns are 52 kernel launches, the sort one)."""
    undrawn = jnp.arange(DECK_SIZE) >= draw_position
    return lax.platform_dependent(deck, draw_position, high, low, undrawn,
                                  cpu=order_by_count, default=order_by_sort)


def order_by_count(deck: jax.Array, draw_position: jax.Array, high: jax.Array,
                   low: jax.Array, undrawn: jax.Array) -> jax.Array:
    """``deck`` with its ``undrawn`` cards in ascending order of their keys (``high``,
    ``low``), each card's new place counted: the drawn cards before it plus the undrawn cards
    with smaller keys (keys are distinct: SplitMix64 is a bijection). One card per turn of a
    loop: a 52 x 52 comparison in one expression gets the keys' arithmetic fused into every
    pair on the CPU."""
    places = jnp.arange(DECK_SIZE)

    def smaller(i: jax.Array) -> jax.Array:
        """How many undrawn cards have a smaller key than card ``i``."""
        return (((high < high[i]) | ((high == high[i]) & (low < low[i]))) & undrawn).sum()

    place = jnp.where(undrawn, draw_position + lax.map(smaller, places), places)
    return jnp.zeros_like(deck).at[place].set(deck, unique_indices=True)


def order_by_sort(deck: jax.Array, draw_position: jax.Array, high: jax.Array,
                  low: jax.Array, undrawn: jax.Array) -> jax.Array:
    """:func:`order_by_count`'s order by one stable sort: the drawn cards keyed alike ahead
    of the undrawn ones, which sort by their keys."""
    del draw_position  # the drawn cards are the ones not ``undrawn``
    zero = jnp.zeros_like(high)
    return lax.sort((undrawn.astype(U32), jnp.where(undrawn, high, zero),
                     jnp.where(undrawn, low, zero), deck), num_keys=3, is_stable=True)[-1]


FIND_BLOCK = 8
""":func:`put_back_until` tries this many reshuffle counts at once for the first whose top
card may be dealt (a refused card comes up again about one time in seven under the standard
rules, so one block nearly always ends it)."""
MAX_FIND_BLOCKS = 1 << 10
"""The most blocks :func:`put_back_until` tries: the bound of its loop. A deck of the 52 cards
always has a card that may be dealt, found within it but with odds below e**-150; only a deck
that is no permutation of the cards (unchecked under ``jit``) can reach it."""


def put_back_until(deck: jax.Array, draw_position: jax.Array, hand_seed: jax.Array,
                   reshuffles: jax.Array, refused: jax.Array) -> tuple[jax.Array, jax.Array]:
    """:func:`put_back`, again while the top card is ``refused`` ((52,) bool by card id):
    the deck and the reshuffle count after the last.

    A reshuffle orders the undrawn cards by their keys, which depend on the hand seed, the
    count and the card only, not on the order before; so the cards put back on the way
    change nothing but the count, and only the last reshuffle is done: the first count from
    ``reshuffles`` on whose smallest-keyed undrawn card may be dealt, looked for
    :data:`FIND_BLOCK` counts at a time (the first block nearly always has it)."""
    undrawn = jnp.arange(DECK_SIZE) >= draw_position
    allowed = undrawn & ~refused[deck]
    tries = jnp.arange(FIND_BLOCK)
    top = U32(LOW_WORD)

    def look(first: jax.Array) -> tuple[jax.Array, jax.Array]:
        high, low = jax.vmap(reshuffle_keys, (None, 0, None))(hand_seed, first + tries, deck)
        lowest = undrawn & (high == jnp.where(undrawn, high, top).min(1, keepdims=True))
        low = jnp.where(lowest, low, top)
        smallest = lowest & (low == low.min(1, keepdims=True))
        ok = (smallest & allowed).any(1)
        return first + jnp.where(ok.any(), jnp.argmax(ok), FIND_BLOCK), ok.any()

    # the first block outside the loop: under vmap a while loop reads its condition once
    # more than it turns (on a GPU, a wait for the device each time)
    # it stops where no undrawn card may be dealt (a deck that is not the 52 cards), and
    # after MAX_FIND_BLOCKS blocks: every loop of the backend ends, whatever the deck
    possible = allowed.any()

    def more(c: tuple[jax.Array, jax.Array, jax.Array]) -> jax.Array:
        return ~c[1] & possible & (c[2] < MAX_FIND_BLOCKS)

    def turn(c: tuple[jax.Array, jax.Array, jax.Array]
             ) -> tuple[jax.Array, jax.Array, jax.Array]:
        return (*look(c[0]), c[2] + 1)

    count = lax.while_loop(more, turn, (*look(reshuffles), jnp.ones((), jnp.int32)))[0]
    return put_back(deck, draw_position, hand_seed, count), count + 1


def put_back_where(need: jax.Array, deck: jax.Array, draw_position: jax.Array,
                   hand_seed: jax.Array, reshuffles: jax.Array,
                   refused: jax.Array) -> tuple[jax.Array, jax.Array]:
    """:func:`put_back_until` where ``need``, else ``deck`` and ``reshuffles`` unchanged.

    Under ``vmap`` it runs for the games that need it only, not for the whole batch then
    selected: a reshuffle costs a game a pass over 52 x 52 key pairs, and in a batch few
    games put a card back at any one moment of a deal (a special drawn as the hidden card,
    a × over the limit), so a select would spend nearly all of it on games that discard it.
    The batching rule (:func:`jax_batching.loop_where`) takes those games,
    :data:`COMPACT_SHARE` of the batch at a time."""
    return put_back_loop(need, (deck, reshuffles), draw_position, hand_seed, refused)


def put_back_turn(carry: tuple[jax.Array, jax.Array], draw_position: jax.Array,
                  hand_seed: jax.Array, refused: jax.Array
                  ) -> tuple[tuple[jax.Array, jax.Array], jax.Array]:
    """:func:`put_back_until` on ``carry`` = (deck, reshuffles), as a loop body of one turn."""
    return put_back_until(carry[0], draw_position, hand_seed, carry[1], refused), \
        jnp.bool_(False)


COMPACT_SHARE: Shares = {"cpu": 128, "default": 8}
"""The batching rule of :func:`put_back_where` takes up to ``batch // COMPACT_SHARE`` games
per turn of its loop (and loops while games are left). In the backend's step ``batch`` is a
turn of the deal loop's (``jax_backend.ADVANCE_SHARE`` of the games), so on a GPU at 2^20
games a reshuffle turn takes 2^15 of them, as the share of a 32nd of the batch did before the
deal loop took its own share (the best of those measured there)."""

put_back_loop = loop_where(put_back_turn, COMPACT_SHARE)


def deal(key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """A hand's chance from a key: a uniform deck order (52,) int32, top first, and a hand
    seed (2,) uint32 below 2**63, as the engine draws it.

    The deck is ``jax.random.permutation(deck_key, 52)`` as that function is for 52 items
    (one round: 52 random words of its subkey, the cards in the stable order of their
    words), put in that order by :func:`reorder`, which on the CPU counts instead of
    sorting."""
    deck_key, seed_key = jax.random.split(key)
    seed = jax.random.bits(seed_key, (2,), U32)
    words = jax.random.bits(jax.random.split(deck_key)[1], (DECK_SIZE,), U32)
    ids = jnp.arange(DECK_SIZE, dtype=jnp.int32)
    return reorder(ids, jnp.zeros((), jnp.int32), words, ids.astype(U32)), \
        seed.at[0].set(seed[0] >> 1)


def deal_where(need: jax.Array, key: jax.Array, deck: jax.Array,
               hand_seed: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``deal(key)`` where ``need``, else ``deck`` and ``hand_seed`` unchanged: the same key
    deals the same hand as :func:`deal`, so a step that deals lazily plays as one given the
    eager deal.

    Under ``vmap`` only the games that need a hand (theirs ended, or a new match) are dealt
    (:func:`jax_batching.loop_where`, :data:`DEAL_SHARE` of the batch at a time): a deal puts
    52 random keys in order, most of a batch step when every game draws one, while about one
    game in eight starts a hand at a step of random play under the standard rules."""
    return deal_loop(need, (deck, hand_seed), key)


def deal_turn(carry: tuple[jax.Array, jax.Array],
              key: jax.Array) -> tuple[tuple[jax.Array, jax.Array], jax.Array]:
    """:func:`deal` as a loop body of one turn (``carry``, the old deck and seed, unread)."""
    del carry
    return deal(key), jnp.bool_(False)


DEAL_SHARE: Shares = {"cpu": 32, "default": 4}
"""The batching rule of :func:`deal_where` deals up to ``batch // DEAL_SHARE`` games per turn
of its loop (and loops while games are left); on the CPU measured against 8 and 128."""

deal_loop = loop_where(deal_turn, DEAL_SHARE)


def hand_seed_words(seeds: np.ndarray | int) -> np.ndarray:
    """Hand seeds as the engine and the NumPy simulator hold them (uint64) -> ``(..., 2)``
    uint32 words, high first, as the JAX backend holds them."""
    s = np.asarray(seeds, dtype=np.uint64)
    return np.stack([(s >> np.uint64(WORD)).astype(np.uint32),
                     (s & np.uint64(LOW_WORD)).astype(np.uint32)], axis=-1)
