"""The AIVAT-style control variate (training.aivat): unbiased against the plain duplicate
estimate, its corrections of mean zero."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hilo_env import agents
from hilo_env.equation_hilo.engine import Game
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.training.aivat import ShowdownValue, aivat_match
from hilo_env.training.evaluate import deal_rng, play_table

STANDARD = RuleSet.preset("standard")


def test_corrections_have_mean_zero_over_many_deals() -> None:
    """random (a known stochastic policy: its decisions corrected) against caller: the
    corrected and plain estimates differ per deal, by terms whose mean is zero within a few
    standard errors."""
    result = aivat_match(["random", "caller"], STANDARD, deals=150, seed=7, resamples=2)
    difference = result.plain - result.corrected
    assert np.abs(difference).max() > 0  # corrections were made
    se = difference.std(ddof=1) / math.sqrt(difference.size)
    assert abs(difference.mean()) < 3.5 * se


def test_plain_estimate_is_the_duplicate_match_of_play_table() -> None:
    """Deterministic agents: the plain column is play_table's match, deal by deal."""
    players = [agents.make("caller", STANDARD), agents.make("heuristic", STANDARD)]
    result = aivat_match(players, STANDARD, deals=6, seed=3, resamples=1)
    np.testing.assert_allclose(result.plain, play_table(players, STANDARD, 6, 3).per_deal[:, 0])


def test_value_is_zero_sum_and_larger_tables_are_refused() -> None:
    game = Game(STANDARD, deal_rng(0, 1))
    value = ShowdownValue(STANDARD)
    assert value.share(game, 0) + value.share(game, 1) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="2-player"):
        aivat_match(["caller", "random", "caller"], STANDARD.replace(num_players=3), deals=1)
