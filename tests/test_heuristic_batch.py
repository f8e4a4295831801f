"""The heuristic's (and the caller's) batched path decides exactly as its one-row path.

``HeuristicAgent.act_batch`` decodes a whole batch at once (``read_observations``) and its
equity counts distinct distance pairs instead of every completion; neither may change a
decision. Two agents of one seed answer the same seeded play, one batch by batch and one row by
row: every action must be the same (so must every draw of their generators, or the 3+ player
tables, whose field model draws, would part ways).
"""

from __future__ import annotations

import numpy as np
import pytest

from hilo_env.agents.baselines import CallerAgent, HeuristicAgent, sample_legal
from hilo_env.agents.gauntlet import factory
from hilo_env.agents.table_view import read_observation, read_observations
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.equation_hilo.vector import VectorGame

CASES = [("standard", 2), ("standard", 6), ("classic", 2), ("classic", 4), ("duel", 2)]


def play(rules: RuleSet, steps: int, seed: int, heuristic_play: bool, make=HeuristicAgent):
    """Seeded batch play; yields (seat, observations, masks, batch actions, row actions)."""
    game = VectorGame(rules, 48, seed=seed)
    batch = [make(rules, seat) for seat in range(rules.num_players)]
    rows = [make(rules, seat) for seat in range(rules.num_players)]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, masks, seats = game.observe(), game.action_masks(), game.current_player.copy()
        actions = np.empty(len(obs), dtype=np.int64)
        for seat in range(rules.num_players):
            mine = np.flatnonzero(seats == seat)
            if mine.size == 0:
                continue
            o, m = obs[mine], masks[mine]
            got = batch[seat].act_batch(o, m)
            one = [rows[seat].act(x, y) for x, y in zip(o, m, strict=True)]
            yield seat, o, m, got, one
            actions[mine] = got if heuristic_play else sample_legal(m, rng)
        game.step(actions)


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_batched_heuristic_decides_as_one_row_at_a_time(preset, players):
    rules = RuleSet.preset(preset, num_players=players)
    decisions = 0
    for heuristic_play in (True, False):
        for _, _, masks, got, one in play(rules, 24, players, heuristic_play):
            assert got.dtype == np.int64
            assert got.tolist() == one
            assert masks[np.arange(len(got)), got].all()
            decisions += len(got)
    assert decisions == 2 * 24 * 48


def test_gauntlet_players_and_caller_batch_as_they_play_one_row():
    rules = RuleSet.preset("standard", num_players=3)
    for make in (factory("bluffer"), factory("swinger"), factory("trapper"), CallerAgent):
        for _, _, _, got, one in play(rules, 12, 7, True, make):
            assert got.tolist() == one


def test_read_observations_reads_each_row_as_read_observation():
    rules = RuleSet.preset("standard", num_players=4)
    game = VectorGame(rules, 32, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(30):
        obs = game.observe()
        batch = read_observations(obs, rules)
        # repr: a hand not yet full reads nan distances, and nan != nan
        assert list(map(repr, batch)) == [repr(read_observation(o, rules)) for o in obs]
        game.step(sample_legal(game.action_masks(), rng))
    with pytest.raises(ValueError, match="2-D"):
        read_observations(obs[0], rules)


def test_one_draw_with_a_bound_per_row_is_the_draws_row_by_row():
    """The field of 3+ players draws every opponent's hands in one call (equity._field): the
    same numbers, and the same generator state after, as one call per opponent."""
    for seed in range(20):
        sizes = np.random.default_rng(seed + 100).integers(1, 70, 5)
        one, rows = np.random.default_rng(seed), np.random.default_rng(seed)
        together = one.integers(0, sizes[:, None], (sizes.size, 64))
        apart = np.stack([rows.integers(0, s, 64) for s in sizes])
        assert (together == apart).all()
        assert one.random() == rows.random()
