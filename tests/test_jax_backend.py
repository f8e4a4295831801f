"""The JAX backend's own contracts (its play against the engine is in tests/conformance/):
chance as data bit for bit, the distance ranks, the refused rule fields, pgx's face (terminal
and illegal steps), jit without vmap, and the learner view against scripted opponents."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="jax is not importable: pip install -e '.[jax]'")

import jax.numpy as jnp  # noqa: E402

from hilo_env.envs.jax_learner import JaxLearnerEnv  # noqa: E402
from hilo_env.equation_hilo import actions as A  # noqa: E402
from hilo_env.equation_hilo import cards, solver  # noqa: E402
from hilo_env.equation_hilo import jax_chance as C  # noqa: E402
from hilo_env.equation_hilo.engine import Phase  # noqa: E402
from hilo_env.equation_hilo.jax_backend import (  # noqa: E402
    MAX_HANDS_PER_EPISODE,
    EquationHiLo,
    check_rules,
    distance_ranks,
    random_policy,
)
from hilo_env.equation_hilo.rules import ODD_CHIP_RULES, RuleSet  # noqa: E402
from tests.conformance.jax_batch import FAST_COMPILE  # noqa: E402


def fast_jit(f: Callable) -> Callable:
    return jax.jit(f, compiler_options=FAST_COMPILE)


@functools.cache
def standard() -> tuple[EquationHiLo, Callable, Callable]:
    """The standard env, its init and step jitted (one game, no vmap)."""
    env = EquationHiLo("standard")
    return env, fast_jit(env.init), fast_jit(env.step)


def game(batch: object, g: int) -> object:
    """The ``g``-th game of a batched pytree."""
    return jax.tree_util.tree_map(lambda x: x[g], batch)


def assert_game(batch: object, g: int, one: object) -> None:
    """The ``g``-th game of ``batch`` equals ``one`` (a game played alone), leaf for leaf."""
    for x, y in zip(jax.tree_util.tree_leaves(one), jax.tree_util.tree_leaves(batch),
                    strict=True):
        np.testing.assert_array_equal(y[g], x)


def test_reshuffle_keys_match_the_engines_bit_for_bit() -> None:
    rng = np.random.default_rng(0)
    seeds = rng.integers(0, 2**63, size=300, dtype=np.uint64)
    seeds[:3] = [0, 2**63 - 1, 2**32 - 1]
    counts = rng.integers(0, 5000, size=300)
    ids = np.stack([rng.permutation(cards.DECK_SIZE) for _ in range(300)])
    high, low = jax.jit(jax.vmap(C.reshuffle_keys))(C.hand_seed_words(seeds), counts, ids)
    got = (np.asarray(high).astype(np.uint64) << np.uint64(32)) | np.asarray(low).astype(np.uint64)
    np.testing.assert_array_equal(got, cards.reshuffle_keys(seeds[:, None], counts[:, None], ids))


def test_put_back_reorders_only_the_undrawn_cards() -> None:
    deck = np.random.default_rng(1).permutation(cards.DECK_SIZE)
    seed = C.hand_seed_words(np.uint64(12345))
    out = np.asarray(C.put_back(jnp.asarray(deck), 10, seed, 3))
    np.testing.assert_array_equal(out[:10], deck[:10])
    keys = cards.reshuffle_keys(12345, 3, deck[10:])
    np.testing.assert_array_equal(out[10:], deck[10:][np.argsort(keys)])


def test_put_back_until_is_put_back_repeated_while_the_top_card_is_refused() -> None:
    """One reshuffle at the first count that deals an allowed card gives the deck and count
    of putting back one card at a time, as the engine does (blocks of counts crossed too)."""
    rng = np.random.default_rng(7)
    until = jax.jit(C.put_back_until)
    one = jax.jit(C.put_back)
    for trial in range(40):
        deck = rng.permutation(cards.DECK_SIZE).astype(np.int32)
        seed = C.hand_seed_words(rng.integers(0, 2**63, dtype=np.uint64))
        draw, count = int(rng.integers(0, 40)), int(rng.integers(0, 9))
        # refuse a random share of the cards, up to all but one undrawn card
        refused = rng.random(cards.DECK_SIZE) < (0.97 if trial % 4 == 0 else 0.3)
        refused[deck[draw]] = True
        refused[deck[rng.integers(draw + 1, cards.DECK_SIZE)]] = False
        want, n = deck, count
        while True:
            want, n = np.asarray(one(want, draw, seed, n)), n + 1
            if not refused[want[draw]]:
                break
        got, got_count = until(deck, draw, seed, count, refused)
        np.testing.assert_array_equal(np.asarray(got), want)
        assert int(got_count) == n


def test_put_back_where_reshuffles_only_the_games_that_need_it() -> None:
    """Its batching rule (a few games at a time, gathered) gives the select of
    ``put_back_until``: with none, some and more games than one turn of its loop takes."""
    rng = np.random.default_rng(4)
    games = 2 * C.COMPACT_SHARE["cpu"] + 3
    decks = np.stack([rng.permutation(cards.DECK_SIZE) for _ in range(games)]).astype(np.int32)
    draws = rng.integers(0, 30, games).astype(np.int32)
    seeds = C.hand_seed_words(rng.integers(0, 2**63, games, dtype=np.uint64))
    counts = rng.integers(0, 9, games).astype(np.int32)
    refused = rng.random((games, cards.DECK_SIZE)) < 0.3
    every, every_count = jax.jit(jax.vmap(C.put_back_until))(decks, draws, seeds, counts,
                                                               refused)
    batched = jax.jit(jax.vmap(C.put_back_where))
    for need in (np.zeros(games, bool), rng.random(games) < 0.02, rng.random(games) < 0.7):
        got, got_count = batched(need, decks, draws, seeds, counts, refused)
        np.testing.assert_array_equal(got, np.where(need[:, None], every, decks))
        np.testing.assert_array_equal(got_count, np.where(need, every_count, counts))
    one = jax.jit(C.put_back_where)(True, decks[0], draws[0], seeds[0], counts[0], refused[0])
    np.testing.assert_array_equal(one[0], every[0])


def test_deal_where_deals_as_deal_where_a_hand_is_needed_and_leaves_the_others() -> None:
    """Under ``vmap`` (its batching rule: a few games at a time, gathered) the games that need
    a hand get ``deal(key)`` bit for bit and the others keep their deck and seed; typed keys
    too; and ``play_from_key`` (``step``'s transition), which deals lazily, plays as ``play``
    given the eager deal, new hands and new matches (an auto-reset) alike."""
    rng = np.random.default_rng(5)
    games = 2 * C.DEAL_SHARE["cpu"] + 3
    keys = jax.random.split(jax.random.PRNGKey(7), games)
    decks = np.stack([rng.permutation(cards.DECK_SIZE) for _ in range(games)]).astype(np.int32)
    seeds = C.hand_seed_words(rng.integers(0, 2**63, games, dtype=np.uint64))
    dealt_decks, dealt_seeds = jax.vmap(C.deal)(keys)
    batched = jax.jit(jax.vmap(C.deal_where))
    for need in (np.zeros(games, bool), rng.random(games) < 0.05, rng.random(games) < 0.7,
                 np.ones(games, bool)):
        got_decks, got_seeds = batched(need, keys, decks, seeds)
        np.testing.assert_array_equal(got_decks, np.where(need[:, None], dealt_decks, decks))
        np.testing.assert_array_equal(got_seeds, np.where(need[:, None], dealt_seeds, seeds))
    typed = jax.random.split(jax.random.key(7), games)
    np.testing.assert_array_equal(batched(need, typed, decks, seeds)[0],
                                  jax.vmap(C.deal)(typed)[0])
    one = jax.jit(C.deal_where)(False, keys[0], decks[0], seeds[0])
    np.testing.assert_array_equal(one[0], decks[0])

    env = EquationHiLo("standard", hands_per_episode=3)
    lazy = fast_jit(jax.vmap(env.play_from_key))
    eager = fast_jit(jax.vmap(lambda s, a, k, new: env.play(s, a, *C.deal(k), new)))
    state = fast_jit(jax.vmap(env.init))(keys)
    hands = 0
    for i in range(12):
        step_keys = jax.random.split(jax.random.PRNGKey(100 + i), games)
        actions = jax.vmap(random_policy)(state.observation, state.legal_action_mask, step_keys)
        got = lazy(state, actions, step_keys, state.terminated)
        want = eager(state, actions, step_keys, state.terminated)
        for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want),
                        strict=True):
            np.testing.assert_array_equal(a, b)
        hands += int((got.hand_number != state.hand_number).sum())
        state = got
    assert hands > 0  # some hands were dealt lazily


def test_random_policy_draws_each_legal_action_alike() -> None:
    mask = np.zeros(A.num_actions(100), bool)
    mask[[0, 5, 10, 11, 12, 50, mask.size - 1]] = True  # block edges of its count
    draws = 35_000
    got = np.asarray(jax.jit(jax.vmap(random_policy, (None, None, 0)))(
        None, mask, jax.random.split(jax.random.PRNGKey(8), draws)))
    counts = np.bincount(got, minlength=mask.size)
    assert counts[~mask].sum() == 0
    expected = draws / mask.sum()
    assert (np.abs(counts[mask] - expected) < 5 * np.sqrt(expected)).all()


def test_a_deal_is_a_permutation_and_a_seed_below_two_to_the_63() -> None:
    deck, seed = C.deal(jax.random.PRNGKey(3))
    assert sorted(np.asarray(deck).tolist()) == list(range(cards.DECK_SIZE))
    assert int(seed[0]) < 2**31


def test_a_deal_orders_the_cards_as_jax_random_permutation() -> None:
    """The deck is the stable order of 52 random words (put in order by counting on the CPU),
    the deck ``jax.random.permutation`` gives for 52 items: the same keys deal the same
    hands as before the counting."""
    keys = jax.random.split(jax.random.PRNGKey(11), 3000)
    decks = np.asarray(jax.jit(jax.vmap(C.deal))(keys)[0])
    deck_keys = jax.vmap(jax.random.split)(keys)[:, 0]
    words = np.asarray(jax.vmap(lambda k: jax.random.bits(
        jax.random.split(k)[1], (cards.DECK_SIZE,), jnp.uint32))(deck_keys))
    np.testing.assert_array_equal(decks, np.argsort(words, axis=1, kind="stable"))
    np.testing.assert_array_equal(decks, jax.vmap(
        lambda k: jax.random.permutation(k, cards.DECK_SIZE))(deck_keys))


@pytest.mark.parametrize("integer_results", [False, True])
def test_distance_ranks_decide_as_the_float64_distances(integer_results: bool) -> None:
    low, high = solver.lookup_distances(np.arange(solver.NUM_SIGNATURES), integer_results)
    ranks = distance_ranks(integer_results)
    rng = np.random.default_rng(2)
    for side, d in enumerate((low, high)):
        r = ranks[side]
        assert (np.isinf(r) == np.isinf(d)).all()
        i, j = rng.integers(0, solver.NUM_SIGNATURES, size=(2, 200_000))
        ok = np.isfinite(d[i]) & np.isfinite(d[j])
        tied = d[i][ok] <= d[j][ok] + solver.TIE_TOLERANCE
        assert ((r[i][ok] <= r[j][ok]) == tied).all()


def test_rule_fields_it_does_not_play_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'hands_per_episode'"):
        EquationHiLo("standard", hands_per_episode=MAX_HANDS_PER_EPISODE + 1)
    fields = {f.name for f in dataclasses.fields(RuleSet)}
    refused = [("odd_chip", v) for v in ODD_CHIP_RULES if v != "house"]
    if "deck_suits" in fields:  # a smaller deck (a rule field the NumPy simulator refuses too)
        refused.append(("deck_suits", 3))
    for name, value in refused:
        with pytest.raises(ValueError, match=repr(name)):
            check_rules(RuleSet(**{name: value}))
    check_rules(RuleSet.preset("classic", num_players=8, hands_per_episode=5))  # played


def test_pgx_face() -> None:
    env, init, _ = standard()
    assert (env.id, env.version, env.num_players) == ("equation_hilo", "v0", 2)
    assert env.num_actions == A.num_actions(100) and env.observation_shape == (240,)
    state = init(jax.random.PRNGKey(0))
    assert state.env_id == "equation_hilo"
    assert state.observation.shape == (240,) and state.observation.dtype == jnp.float32
    assert state.legal_action_mask.shape == (env.num_actions,)
    assert state.rewards.shape == (2,) and not bool(state.terminated | state.truncated)
    np.testing.assert_array_equal(env.observe(state), state.observation)
    with pytest.raises(TypeError, match="key"):
        env.step(state, A.FOLD)
    # the same key deals the same hand: chance is data
    again = init(jax.random.PRNGKey(0))
    assert all(bool((a == b).all()) for a, b in zip(jax.tree_util.tree_leaves(state),
                                                     jax.tree_util.tree_leaves(again),
                                                     strict=True))


def test_a_fold_ends_the_match_and_a_terminal_state_stays() -> None:
    _, init, step = standard()
    state = init(jax.random.PRNGKey(1))
    actor = int(state.current_player)
    over = step(state, A.FOLD, jax.random.PRNGKey(2))
    assert bool(over.terminated) and int(over.phase) == Phase.MATCH_OVER
    assert over.rewards.tolist() == [-1.0 if s == actor else 1.0 for s in range(2)]  # the ante
    assert bool(over.legal_action_mask.all()) and int(over.current_player) == actor
    after = step(over, A.CHECK, jax.random.PRNGKey(3))
    assert not bool(after.rewards.any()) and int(after._step_count) == int(over._step_count)
    np.testing.assert_array_equal(after.stacks, over.stacks)


def test_an_illegal_action_ends_the_match_with_the_penalty() -> None:
    env, init, step = standard()
    state = init(jax.random.PRNGKey(4))
    actor = int(state.current_player)
    for bad in (A.DECLARE_LOW, env.num_actions, -1):
        out = step(state, bad, jax.random.PRNGKey(5))
        assert bool(out.terminated)
        assert out.rewards[actor] == -100.0 and out.rewards[1 - actor] == 100.0


def fold_if_you_can(observation: jax.Array, mask: jax.Array, key: jax.Array) -> jax.Array:
    """An opponent that folds at every bet and otherwise takes its first legal action."""
    return jnp.where(mask[A.FOLD], A.FOLD, jnp.argmax(mask)).astype(jnp.int32)


def check_if_you_can(observation: jax.Array, mask: jax.Array, key: jax.Array) -> jax.Array:
    """Check when it may, else its first legal action (a × discard)."""
    return jnp.where(mask[A.CHECK], A.CHECK, jnp.argmax(mask)).astype(jnp.int32)


def test_the_learner_view_against_an_opponent_who_always_folds() -> None:
    """Heads-up, one hand: the opponent folds at its first bet, so the learner wins the ante
    (+1, the episode's end) after its check, or the match ends before the learner decides (no
    episode, dealt again) when the opponent in seat 0 opens; other steps pay nothing."""
    view = JaxLearnerEnv(EquationHiLo("standard"), opponents=[fold_if_you_can])
    reset = fast_jit(jax.vmap(view.reset))
    step = fast_jit(jax.vmap(view.step))
    games = 64
    state = reset(jax.random.split(jax.random.PRNGKey(6), games))
    ended = 0
    for i in range(6):
        assert bool((state.game.current_player == state.learner).all())
        assert not bool(state.game.terminated.any())
        # seat 1 decides only its × discards: the opponent in seat 0 folds when betting opens
        assert bool(((state.learner == 0) | (state.game.phase == Phase.DISCARD)).all())
        keys = jax.random.split(jax.random.PRNGKey(i), games)
        state = step(state, jax.vmap(check_if_you_can)(state.observation,
                                                       state.legal_action_mask, keys), keys)
        done = np.asarray(state.done)
        np.testing.assert_array_equal(state.reward, np.where(done, 1.0, 0.0))
        ended += done.sum()
    assert ended > 4 * games


def test_the_learner_view_under_vmap_plays_each_game_as_alone() -> None:
    """Four seats, three opponents (random, and two scripted), two-hand matches: a batch of
    learner steps (whose opponents' turns go to the games waiting for them only) gives each
    game, reward and episode's end included, what the game gives alone, without ``vmap``."""
    view = JaxLearnerEnv(EquationHiLo("standard", num_players=4, hands_per_episode=2),
                         opponents=[random_policy, fold_if_you_can, check_if_you_can])
    games = 12
    step = fast_jit(jax.vmap(view.step))
    one_step = fast_jit(view.step)
    state = fast_jit(jax.vmap(view.reset))(jax.random.split(jax.random.PRNGKey(8), games))
    assert_game(state, 5, fast_jit(view.reset)(jax.random.split(jax.random.PRNGKey(8),
                                                                games)[5]))
    done = 0
    for i in range(25):
        keys = jax.random.split(jax.random.PRNGKey(100 + i), games)
        actions = jax.vmap(random_policy)(state.observation, state.legal_action_mask, keys)
        before, state = state, step(state, actions, keys)
        for g in range(games):
            assert_game(state, g, one_step(game(before, g), actions[g], keys[g]))
        done += int(np.asarray(state.done).sum())
    assert done > games  # episodes ended and new matches were dealt


def test_put_back_orders_the_same_by_count_and_by_sort() -> None:
    """The CPU's way (counted places) and the accelerators' (a sort) give one order; the
    test suite runs on the CPU, so the sort is checked here directly."""
    rng = np.random.default_rng(11)
    decks = np.stack([rng.permutation(cards.DECK_SIZE) for _ in range(64)]).astype(np.int32)
    draws = rng.integers(0, cards.DECK_SIZE, 64).astype(np.int32)
    seeds = C.hand_seed_words(rng.integers(0, 2**63, 64, dtype=np.uint64))
    high, low = jax.vmap(C.reshuffle_keys)(seeds, rng.integers(0, 9, 64), decks)
    undrawn = np.arange(cards.DECK_SIZE) >= draws[:, None]
    args = (decks, draws, high, low, undrawn)
    by_count = jax.jit(jax.vmap(C.order_by_count))(*args)
    np.testing.assert_array_equal(jax.jit(jax.vmap(C.order_by_sort))(*args), by_count)
    np.testing.assert_array_equal(by_count[undrawn == 0], decks[undrawn == 0])


def test_vmap_of_vmap_plays_as_one_vmap() -> None:
    """The batching rules (deal loop, showdown, reshuffle, new decks) batch again under an
    outer ``vmap``: a (3, 4) batch plays as the same 12 games in one batch, state for state,
    finished matches restarted (``play_from_key``)."""
    env = EquationHiLo("standard")
    games = 12
    flat = fast_jit(jax.vmap(env.play_from_key))
    nested = fast_jit(jax.vmap(jax.vmap(env.play_from_key)))
    a = fast_jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), games))
    b = jax.tree_util.tree_map(lambda x: x.reshape(3, 4, *x.shape[1:]), a)
    restarts = 0
    for i in range(40):
        keys = jax.random.split(jax.random.PRNGKey(i + 1), games)
        actions = jax.vmap(random_policy)(a.observation, a.legal_action_mask, keys)
        restarts += int(a.terminated.sum())
        a, b = (flat(a, actions, keys, a.terminated),
                nested(b, actions.reshape(3, 4), keys.reshape(3, 4, -1),
                       b.terminated))
        for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b),
                        strict=True):
            np.testing.assert_array_equal(np.asarray(y).reshape(x.shape), x)
    assert restarts > games  # matches ended and new ones were dealt


def test_init_and_step_in_a_cond_under_vmap_as_pgx_auto_reset_puts_them() -> None:
    """pgx's ``auto_reset`` calls ``init`` in a ``lax.cond`` branch; under ``vmap`` JAX
    batches that branch whole, and the batching rules still work there: the batch plays as
    each of its games does alone, without ``vmap``."""
    env = EquationHiLo("standard")

    def auto_reset_step(state: object, action: jax.Array, key: jax.Array) -> object:
        step_key, init_key = jax.random.split(key)
        state = env.step(state, action, step_key)
        return jax.lax.cond(state.terminated, lambda: env.init(init_key), lambda: state)

    games = 8
    step = fast_jit(jax.vmap(auto_reset_step))
    state = fast_jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(2), games))
    restarts = 0
    for i in range(30):
        keys = jax.random.split(jax.random.PRNGKey(50 + i), games)
        actions = jax.vmap(random_policy)(state.observation, state.legal_action_mask, keys)
        before = state
        state = step(state, actions, keys)
        for g in range(games):  # each game as one game, no vmap
            assert_game(state, g, jax.jit(auto_reset_step)(game(before, g), actions[g],
                                                           keys[g]))
        restarts += int((state._step_count == 0).sum())
    assert restarts > 0
