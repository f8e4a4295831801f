"""A learner against opponent policies on the JAX backend: pure functions, jit- and vmap-able.

The JAX counterpart of :class:`~hilo_env.envs.vector_env.HiLoVectorEnv`, over
:class:`~hilo_env.equation_hilo.jax_backend.EquationHiLo`'s public functions. The learner sits
in one seat; the other seats are played inside ``step`` by opponents given as jitted policies,
``policy(observation, legal_action_mask, key) -> action`` (one game; ``random_policy`` of the
backend is one), so a whole learner step, opponents included, is one compiled function:

    view = JaxLearnerEnv(EquationHiLo("standard"), opponents=random_policy)
    state = jax.jit(jax.vmap(view.reset))(keys)                     # a batch of games
    state = jax.jit(jax.vmap(view.step))(state, actions, keys)      # learner actions

| member                         | what                                                       |
|--------------------------------|------------------------------------------------------------|
| ``reset(key)``                 | a new match, played up to the learner's first decision     |
| ``step(state, action, key)``   | the learner's action, then the opponents' up to its next   |
|                                | decision; a finished match restarts in the same step       |
| ``finished()``                 | a game whose match is over, with no legal action: its step |
|                                | deals a new match (a trainer's start, no second program)   |
| :class:`LearnerState`          | ``game`` (the backend's State), ``learner`` (its seat),    |
|                                | ``reward``, ``done``; ``observation`` and                  |
|                                | ``legal_action_mask`` are the learner's                    |

Rewards and episodes, as in ``HiLoVectorEnv``: an episode is a match; the learner's seat is
drawn uniformly at each new match; a step's ``reward`` is the learner's net chips of every hand
that ended between its decision and its next one (or the end of its episode, then ``done``),
and of a new match's hands won before its first decision (everyone folded to it). An episode
ends with the match, or when the learner is eliminated. A match that ends before the learner's
first decision is no episode: it is dealt again at once and its chips are not reported.
Opponents are the seats to the learner's left in order, ``opponents[i % len(opponents)]``
playing the i-th of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import jax
import jax.numpy as jnp
from jax import lax

from hilo_env.equation_hilo.jax_backend import EquationHiLo, Policy, State, random_policy
from hilo_env.equation_hilo.jax_batching import Shares, loop_where

OPPONENT_SHARE: Shares = {"cpu": 4, "default": 4}
"""The batching rule of the opponents' loop (``JaxLearnerEnv._to_learner``) takes up to
``batch // OPPONENT_SHARE`` games per turn (and turns while games are left)."""


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class LearnerState:
    """One game seen by the learner (``jax.vmap`` adds batch axes)."""

    game: State
    learner: jax.Array  # () int32  the learner's seat in this match
    reward: jax.Array  # () float32  the learner's chips of the hands that ended in the step
    done: jax.Array  # () bool  the learner's episode ended in the step (a new one is dealt)
    banked: jax.Array  # () float32  chips of this match won before the learner's first
    #                    decision (everyone folded to it), reported with that decision's step

    @property
    def observation(self) -> jax.Array:
        """The learner's observation (it is the seat to act)."""
        return self.game.observation

    @property
    def legal_action_mask(self) -> jax.Array:
        return self.game.legal_action_mask


class JaxLearnerEnv:
    """A learner against jitted opponent policies (see the module docstring)."""

    def __init__(self, env: EquationHiLo,
                 opponents: Policy | Sequence[Policy] = random_policy) -> None:
        self.env = env
        self.opponents = tuple(opponents) if isinstance(opponents, Sequence) else (opponents,)
        if not self.opponents or not all(callable(p) for p in self.opponents):
            raise ValueError("opponents must be a policy, or a non-empty sequence of policies "
                             "(observation, legal_action_mask, key) -> action")

    def reset(self, key: jax.Array) -> LearnerState:
        """A new match in a random seat, played to the learner's first decision."""
        seat_key, key = jax.random.split(key)
        start = self.env.init(key)
        state = LearnerState(start, jax.random.randint(seat_key, (), 0, self.env.num_players),
                             jnp.float32(0.0), jnp.bool_(False), jnp.float32(0.0))
        return self._to_learner(state, key, jnp.bool_(False))

    def finished(self) -> LearnerState:
        """One game whose match is over and whose learner has no legal action: ``step``
        deals it a new match (whatever the action) as ``reset`` would, with reward 0 and
        ``done``. A trainer starts its games from it, so that one compiled program (its
        step) also deals the first matches; the step from it is no decision."""
        shapes = jax.eval_shape(self.env.init, jax.random.PRNGKey(0))
        game = jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)
        return LearnerState(game.replace(terminated=jnp.bool_(True)), jnp.int32(0),
                            jnp.float32(0.0), jnp.bool_(False), jnp.float32(0.0))

    def step(self, state: LearnerState, action: jax.Array, key: jax.Array) -> LearnerState:
        """The learner's action, then the opponents' until the learner decides again."""
        step_key, key = jax.random.split(key)
        game = self.env.step(state.game, action, step_key)
        state = dataclasses.replace(state, game=game,
                                    reward=state.banked + game.rewards[state.learner],
                                    done=self._over(game, state.learner),
                                    banked=jnp.float32(0.0))
        return self._to_learner(state, key, jnp.bool_(True))

    @staticmethod
    def _over(game: State, learner: jax.Array) -> jax.Array:
        """The learner's episode is over: its match ended, or it was eliminated."""
        return game.terminated | game.eliminated[learner]

    def _opponent(self, state: LearnerState, key: jax.Array, over: jax.Array) -> jax.Array:
        """The action of the opponent to act. Where the learner's episode is ``over`` the
        action is ignored (a new match starts) and the opponent sees no legal action, so an
        agent is never asked about a finished match."""
        game, n = state.game, self.env.num_players
        i = (game.current_player - state.learner) % n - 1
        return lax.switch(i % len(self.opponents), self.opponents, game.observation,
                          game.legal_action_mask & ~over, key)

    def _to_learner(self, state: LearnerState, key: jax.Array, counted: jax.Array) -> LearnerState:
        """Opponents act until the learner must decide; a finished match restarts (in a new
        random seat). ``counted``: the learner has decided in this match (so its chips and
        its match's end are reported). Under ``vmap`` the opponents' turns go to the games
        that wait for them only (:func:`jax_batching.loop_where`, :data:`OPPONENT_SHARE` of
        the batch at a time): most games wait for one turn, a few for several."""

        def turn(c: tuple[LearnerState, jax.Array, jax.Array]) -> tuple[
                tuple[LearnerState, jax.Array, jax.Array], jax.Array]:
            s, key, counted = c
            key, act_key, deal_key, seat_key = jax.random.split(key, 4)
            over = self._over(s.game, s.learner)
            # one call of the backend's play: the opponent's step, or a new match where over;
            # a deck is drawn from deal_key only where a hand starts
            game = self.env.play_from_key(s.game, self._opponent(s, act_key, over), deal_key,
                                          over)
            chips = jnp.where(over, 0.0, game.rewards[s.learner])
            s = LearnerState(
                game=game,
                learner=jnp.where(over, jax.random.randint(seat_key, (), 0,
                                                           self.env.num_players), s.learner),
                reward=s.reward + jnp.where(counted, chips, 0.0),
                done=s.done | (counted & ~over & self._over(game, s.learner)),
                banked=jnp.where(over, 0.0, s.banked + jnp.where(counted, 0.0, chips)))
            return (s, key, counted & ~over), self._waiting(s)

        return loop_where(turn, OPPONENT_SHARE)(self._waiting(state), (state, key, counted))[0]

    def _waiting(self, s: LearnerState) -> jax.Array:
        """The learner waits: for an opponent's action, or for a new match."""
        return self._over(s.game, s.learner) | (s.game.current_player != s.learner)
