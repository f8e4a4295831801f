"""The single-agent training view of the batched simulator, a Gymnasium ``VectorEnv``.

A learner sits in one seat of each of ``num_envs`` games of
:class:`~hilo_env.equation_hilo.vector.VectorGame`; the other seats are played inside the env
by opponent agents, and the learner sees only its own decisions.

``HiLoVectorEnv(rules="standard", num_envs=64, opponents=None, seed=None, deal_source=None,
**overrides)``. A step either completes or, when an opponent fails, leaves the env marked
broken: it then refuses to step until ``reset()``. Copies (``copy.deepcopy``, ``pickle``) play
on like their original, opponents included.

| member                                | what                                                     |
|---------------------------------------|----------------------------------------------------------|
| ``reset(seed=, options=)``            | ``options`` may hold ``decks`` and ``hand_seeds``        |
| ``step(actions)``                     | (observations, rewards, terminations, truncations, infos)|
| ``action_masks()``                    | (N, n_actions) bool, the learner's legal actions         |
| ``set_opponents(agents)``             | one agent, or a list: game ``i`` uses ``i % len``        |
| ``learner``, ``skipped_chips``        | (N,) the learner's seat; chips of skipped episodes       |
| ``game``                              | the :class:`VectorGame` underneath                       |

An opponent is any object with ``act_batch(observations (B, obs_size) float32, masks (B,
n_actions) int8) -> actions (B,)``, as every :class:`hilo_env.agents.Agent` has; one whose
``observes`` attribute is False gets a (B, 0) array instead (the env then builds no
observation for it). Without opponents the env plays uniformly random ones.

Learner rewards
===============

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

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, Protocol

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from hilo_env.envs.reset_options import reset_seed
from hilo_env.equation_hilo.rules import RuleSet, resolve
from hilo_env.equation_hilo.vector import DeckSource, StepResult, VectorGame
from hilo_env.sampling import sample_legal

RESET_OPTIONS = ("decks", "hand_seeds")
"""The keys ``reset(options=...)`` reads."""


class Opponent(Protocol):
    """What the env asks of an opponent (every agent of :mod:`hilo_env.agents` is one)."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(B,) legal actions for (B, obs_size) observations and (B, n_actions) masks."""
        ...


class RandomOpponent:
    """The learner envs' default opponent: a uniformly random legal action, drawn from its
    own generator (``rng``); it reads no observation. It plays as ``agents.make("random")``
    with the same seed."""

    observes = False

    def __init__(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray) -> int:
        return int(sample_legal(np.asarray(action_mask)[None], self.rng)[0])

    def act_batch(self, observations: np.ndarray | None, masks: np.ndarray) -> np.ndarray:
        return sample_legal(masks, self.rng)


class HiLoVectorEnv(VectorEnv):
    """A learner against opponent agents in ``num_envs`` games (Gymnasium ``VectorEnv``)."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.SAME_STEP,
                                          "render_modes": []}

    def __init__(self, rules: str | RuleSet = "standard", num_envs: int = 64,
                 opponents: Opponent | Sequence[Opponent] | None = None,
                 seed: int | None = None, deal_source: DeckSource | None = None,
                 **overrides: Any) -> None:
        self.rules = resolve(rules, **overrides)
        self.game = VectorGame(self.rules, num_envs, seed=reset_seed(seed),
                               deal_source=deal_source)
        self.num_envs = num_envs
        n = self.rules.num_players
        self.single_observation_space = spaces.Box(0.0, float(max(n, 3)),
                                                   (self.game.obs_size,), np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self.set_opponents(opponents if opponents is not None else self._random(seed))
        self._default_opponents = opponents is None
        self.learner = np.zeros(num_envs, np.int64)
        self.episodes = np.zeros(num_envs, np.int64)
        self.pending = np.zeros(num_envs, np.float64)
        self.skipped_chips = np.zeros(num_envs, np.int64)
        self.episode_return = np.zeros(num_envs, np.float64)
        self.episode_length = np.zeros(num_envs, np.int64)
        self._masks: np.ndarray | None = None
        self._broken: str | None = None

    def _random(self, seed: int | None) -> RandomOpponent:
        """The default opponent, seeded apart from the deals."""
        return RandomOpponent(None if seed is None else seed + 1)

    def set_opponents(self, opponents: Opponent | Sequence[Opponent]) -> None:
        """Opponents: one for every game, or a list (game ``i`` uses ``i % len``).

        The same opponent listed for many games is asked once per round for all of them, so
        a list of one opponent per game costs no loop over games.
        """
        listed = [opponents] if hasattr(opponents, "act_batch") else list(opponents)
        if not listed or not all(callable(getattr(p, "act_batch", None)) for p in listed):
            raise ValueError("opponents must be an agent (an object with act_batch) or a "
                             "non-empty list of them")
        distinct: list[Opponent] = []
        index: dict[int, int] = {}
        which = []
        for p in listed:
            if id(p) not in index:
                index[id(p)] = len(distinct)
                distinct.append(p)
            which.append(index[id(p)])
        self.opponents = distinct
        self._opponent_of = np.asarray(which, np.int64)[np.arange(self.num_envs) % len(listed)]
        self._default_opponents = False

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """New matches everywhere; ``options`` may hold ``decks`` and ``hand_seeds`` (first
        hands). A ``seed`` re-seeds the deals and the default random opponents."""
        reset_seed(seed)
        opts = options or {}
        if not isinstance(opts, dict) or set(opts) - set(RESET_OPTIONS):
            raise ValueError(f"reset options are a dict with keys among {list(RESET_OPTIONS)}, "
                             f"not {opts!r:.200}")
        self.game.reset(seed=seed, decks=opts.get("decks"), hand_seeds=opts.get("hand_seeds"))
        if seed is not None and self._default_opponents:
            self.opponents = [self._random(seed)]
        self.episodes[:] = 0
        self.learner = np.arange(self.num_envs) % self.rules.num_players
        self.pending[:] = 0
        self.skipped_chips[:] = 0
        self.episode_return[:] = 0
        self.episode_length[:] = 0
        self._masks = None
        self._broken = None
        with self._breaks_on_failure():
            # no episode is under way yet: one that ends before a decision is skipped
            self._play_opponents(np.ones(self.num_envs, bool), np.zeros(self.num_envs))
        return self.game.observe(), {}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray, dict[str, Any]]:
        """The learner's actions -> (observations, rewards, terminations, truncations, infos)."""
        N = self.num_envs
        self._check_usable()
        res = self.game.step(actions)  # checks every action before any game changes
        self._masks = None
        term = np.zeros(N, bool)
        rew = np.zeros(N, np.float64)
        self.episode_length += 1
        with self._breaks_on_failure():
            self._settle(np.arange(N), res, term, rew)
            self._play_opponents(term, rew)
        live = ~term
        rew[live] = self.pending[live]
        self.pending[live] = 0
        self.episode_return += rew
        infos = episode_infos(term, self.episode_return, self.episode_length)
        return self.game.observe(), rew.astype(np.float32), term, np.zeros(N, bool), infos

    def action_masks(self) -> np.ndarray:
        """(N, n_actions) bool: the learner's legal actions now, a copy of the env's own
        (built once per step)."""
        self._check_usable()
        if self._masks is None:
            self._masks = self.game.action_masks().view(bool)
        return self._masks.copy()

    @contextlib.contextmanager
    def _breaks_on_failure(self) -> Iterator[None]:
        """Marks the env broken when the block raises: an opponent that fails (or plays an
        illegal action) stops the env between two seats, where it cannot carry on."""
        try:
            yield
        except BaseException as exc:
            self._broken = f"{type(exc).__name__}: {exc}"[:300]
            raise

    def _check_usable(self) -> None:
        if self._broken is not None:
            raise RuntimeError(f"this env stopped in the middle of a step ({self._broken}); "
                               "call reset() before using it again")

    def close(self, **kwargs: Any) -> None:
        self.closed = True

    # ---- internals ------------------------------------------------------------------------

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
        out = res.match_over[i] | self.game.state.eliminated[seat, gi]
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
            opp = (game.current_player != self.learner).nonzero()[0]
            if not opp.size:
                return
            acts = np.empty(opp.size, np.int64)
            who = self._opponent_of[opp]
            for j, opponent in enumerate(self.opponents):
                sel = (who == j).nonzero()[0] if len(self.opponents) > 1 else np.arange(opp.size)
                if not sel.size:
                    continue
                gs = opp[sel]
                if getattr(opponent, "observes", True):
                    obs = game.observe(gs)
                else:
                    obs = np.empty((gs.size, 0), np.float32)
                out = np.asarray(opponent.act_batch(obs, game.action_masks(gs)))
                if out.shape != (sel.size,) and out.size == sel.size:
                    out = out.reshape(sel.size)
                acts[sel] = out
            try:
                res = game.step(acts, opp)
            except ValueError as e:
                raise ValueError(f"an opponent played an illegal action: {e}") from None
            self._settle(opp, res, term, rew)


def episode_infos(ended: np.ndarray, returns: np.ndarray, lengths: np.ndarray) -> dict[str, Any]:
    """A vector env's infos for the games whose episode ``ended`` (bool, one per game): their
    return and length under Gymnasium's episode-statistics keys (which SB3 reads), nothing
    when none ended. The ended games' ``returns`` and ``lengths`` counters start again at 0."""
    if not ended.any():
        return {}
    infos = {"episode": {"r": np.where(ended, returns, 0.0), "l": np.where(ended, lengths, 0),
                         "_r": ended, "_l": ended},
             "_episode": ended}
    returns[ended] = 0
    lengths[ended] = 0
    return infos
