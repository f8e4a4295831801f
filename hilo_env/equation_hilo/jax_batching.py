"""Batching rules for the JAX backend: work done only for the games of a batch that need it.

Under ``vmap`` a ``lax.while_loop`` turns as often as the game of the batch that needs most,
and every game pays every turn; a ``cond`` becomes a select of both branches. When few games
of a batch need a piece of work (a reshuffle, a new deck, the deal of a pass), a custom batching
rule does better: it gathers the games that need it, a share of the batch at a time, runs the
work on those only and scatters the results back (:func:`compact_where`). The JAX backend
uses it for its deal loop, showdowns, reshuffles and new decks, the learner view for its
opponents' turns.

| name                  | what                                                              |
|-----------------------|-------------------------------------------------------------------|
| :data:`Shares`        | how many games a rule gathers per turn, by platform               |
| :func:`loop_where`    | ``carry, need = body(carry, *args)`` while ``need``: one game's   |
|                       | while loop; under ``vmap`` only the games that need a turn        |
| :func:`closure_args`  | a body's closed-over arrays taken out as arguments                |
| :func:`looped`        | :func:`loop_where` of a body that closes over no array            |
| :func:`compact_where` | the batching rule's body: gather, run, scatter, while games need  |
| :func:`batch_axis`    | a batching rule's arguments, each with the batch axis             |
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

Shares = dict[str, int]
"""How many games a batching rule gathers per turn, as the batch's divisor, by platform:
``lax.platform_dependent``'s names, ``"cpu"`` and ``"default"`` (GPU, TPU); 0 gathers none
and turns the whole batch, as a batched ``while_loop`` does (the rule off). Measured with
``bench/jax.py --shares`` on each (docs/benchmarks.md): a GPU runs a turn's games in parallel
and pays most for the turns, the CPU pays for every game gathered. A rule reads its shares
when a program is traced, so a change applies to programs traced after it."""

Body = Callable[..., tuple[Any, jax.Array]]
"""``body(carry, *args) -> (carry, again)``: one turn of one game's work; ``again`` (a bool
scalar) says whether the game needs another."""


def batch_axis(axis_size: int, in_batched: list[Any], *xs: Any) -> list[Any]:
    """A batching rule's arguments (pytrees), each leaf with the batch axis (those without
    it broadcast); ``in_batched`` are custom_vmap's flags, one pytree of them per argument."""
    return [jax.tree_util.tree_map(
        lambda x, batched: x if batched else jnp.broadcast_to(x, (axis_size, *jnp.shape(x))),
        x, flags) for x, flags in zip(xs, in_batched, strict=True)]


def loop_where(body: Body, shares: Shares) -> Callable[..., Any]:
    """``g(need, carry, *args)``: the ``carry`` after ``carry, need = body(carry, *args)``
    while ``need`` (a ``lax.while_loop``; ``need`` False: ``carry`` unchanged).

    Under ``vmap`` only the games that need a turn take one: :func:`compact_where` gathers
    ``batch // shares[platform]`` of them per turn of one loop, where a batched while loop
    would turn every game as often as the game that needs most.

    ``body`` may close over arrays (the rules' tables, a policy's parameters, values of an
    enclosing ``jit`` or ``vmap``): they are handed to the batching rule as arguments
    (:func:`closure_args`), since JAX gives a custom batching rule the arrays its function
    closes over as batched when the call sits in a ``cond``'s branch under ``vmap`` (where
    pgx's ``auto_reset`` puts ``init``) and then fails."""

    def g(need: jax.Array, carry: Any, *args: Any) -> Any:
        opened, consts, fixed = closure_args(body, carry, *args)
        return looped(opened, shares, fixed)(need, carry, consts, *args)

    return g


def closure_args(body: Body, carry: Any, *args: Any) -> tuple[Body, list[Any], list[bool]]:
    """``body`` traced once at the shapes of ``carry`` and ``args``, the arrays it closes over
    taken out: ``(opened, consts, fixed)``, where ``opened(carry, consts, *args)`` is
    ``body(carry, *args)`` and ``fixed`` marks the consts that are constants of the program
    (not values of an enclosing transformation), the same for every game."""
    traced, shape = jax.make_jaxpr(body, return_shape=True)(carry, *args)
    out_tree = jax.tree_util.tree_structure(shape)

    def opened(carry: Any, consts: list[Any], *args: Any) -> tuple[Any, jax.Array]:
        out = jax.core.eval_jaxpr(traced.jaxpr, consts,
                                  *jax.tree_util.tree_leaves((carry, *args)))
        return jax.tree_util.tree_unflatten(out_tree, out)

    consts = list(traced.consts)
    return opened, consts, [not isinstance(c, jax.core.Tracer) for c in consts]


def looped(body: Callable[..., tuple[Any, jax.Array]], shares: Shares,
           fixed: list[bool]) -> Callable[..., Any]:
    """:func:`loop_where` of a ``body(carry, consts, *args)`` that closes over no array:
    ``g(need, carry, consts, *args)``. A const marked ``fixed`` is the same for every game,
    so where it comes batched (broadcast by a ``cond`` under ``vmap``) one game's copy
    serves."""

    def one(need: jax.Array, carry: Any, consts: list[Any], *args: Any) -> Any:
        return lax.while_loop(lambda c: c[1], lambda c: body(c[0], consts, *args),
                              (carry, jnp.asarray(need, bool)))[0]

    g = jax.custom_batching.custom_vmap(one)

    @g.def_vmap
    def rule(axis_size: int, in_batched: list[Any], need: jax.Array, carry: Any,
             consts: list[Any], *args: Any) -> tuple[Any, Any]:
        need, carry = batch_axis(axis_size, in_batched[:2], need, carry)
        consts = [c[0] if same and batched else c
                  for c, same, batched in zip(consts, fixed, in_batched[2], strict=True)]
        consts_batched = [batched and not same
                          for same, batched in zip(fixed, in_batched[2], strict=True)]
        out = compact_where(body, shares, need, carry, (consts, *args),
                            (consts_batched, *in_batched[3:]))
        return out, jax.tree_util.tree_map(lambda _: True, out)

    return g


def compact_where(body: Body, shares: Shares, need: jax.Array, carry: Any,
                  args: tuple[Any, ...], args_batched: tuple[Any, ...]) -> Any:
    """A batching rule's body for :func:`loop_where`, ``need`` and ``carry`` with the batch
    axis first, ``args`` with it where ``args_batched`` (custom_vmap's flags; the others are
    the same for every game and are not copied per game): the games that need a turn are
    gathered, ``batch // shares[platform]`` at a time, ``body`` runs on those only, its carry
    is scattered back and ``again`` says which need another; the loop turns while games are
    left. A select would run ``body`` on every game and throw most of it away."""
    return lax.platform_dependent(need, carry, args, **{
        platform: functools.partial(compact_loop, body, share, args_batched)
        for platform, share in shares.items()})


def compact_loop(body: Body, share: int, args_batched: tuple[Any, ...], need: jax.Array,
                 carry: Any, args: tuple[Any, ...]) -> Any:
    """:func:`compact_where` at one ``share``; ``share`` 0: every game turns while any needs
    to, those that need no turn keeping their carry (a batched ``while_loop``'s select)."""
    axis_size = need.shape[0]
    axes = jax.tree_util.tree_map(lambda batched: 0 if batched else None, args_batched)
    if share == 0:
        def every(c: tuple[Any, jax.Array]) -> tuple[Any, jax.Array]:
            carry, todo = c
            new, again = jax.vmap(body, in_axes=(0, *axes))(carry, *args)
            carry = jax.tree_util.tree_map(
                lambda old, n: jnp.where(todo.reshape(-1, *[1] * (n.ndim - 1)), n, old),
                carry, new)
            return carry, todo & again

        return lax.while_loop(lambda c: c[1].any(), every, (carry, need))[0]
    chunk = max(1, axis_size // share)

    def turn(c: tuple[Any, jax.Array]) -> tuple[Any, jax.Array]:
        carry, todo = c
        games = jnp.nonzero(todo, size=chunk, fill_value=axis_size)[0]
        picked = jnp.minimum(games, axis_size - 1)
        gathered = jax.tree_util.tree_map(lambda a, batched: a[picked] if batched else a,
                                          args, args_batched)
        new, again = jax.vmap(body, in_axes=(0, *axes))(
            jax.tree_util.tree_map(lambda a: a[picked], carry), *gathered)
        carry = jax.tree_util.tree_map(
            lambda old, n: old.at[games].set(n, mode="drop", unique_indices=True), carry, new)
        return carry, todo.at[games].set(again, mode="drop", unique_indices=True)

    return lax.while_loop(lambda c: c[1].any(), turn, (carry, need))[0]
