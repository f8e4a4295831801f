"""Tournaments: duplicate deals replay the same cards, seats rotate, statistics are right."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hilo_env import agents
from hilo_env.equation_hilo.engine import Game
from hilo_env.equation_hilo.observation import layout
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.training.evaluate import (
    Z95,
    deal_rng,
    mean_ci,
    play_table,
    seatings,
    tournament,
)


def test_duplicate_deals_replay_the_same_cards():
    rules = RuleSet.preset("standard")
    players = [agents.make("random", rules, seed=1), agents.make("heuristic", rules, seed=2)]
    result = play_table(players, rules, deals=40, seed=7, record=True)
    assert len(result.records) == 40
    for d, rotations in enumerate(result.records):
        assert len(rotations) == 2 and rotations[0] == rotations[1]
        first = rotations[0]
        dealt = [*first.hidden, *(c for up in first.up for c in up)]
        assert sorted(dealt + list(first.set_aside) + list(first.deck)) == list(range(52))
        fresh = Game(rules, deal_rng(7, d))  # and it is the deal the seed names
        assert first.hidden == tuple(fresh.hidden) and first.hand_seed == fresh.hand_seed
    assert len({rotations[0].deck for rotations in result.records}) == 40  # deals differ


def test_a_deal_is_the_same_hand_in_every_rotation():
    """Same seed, same hidden cards, same first face-up cards, same reshuffle seed."""
    rules = RuleSet.preset("classic", num_players=3)
    for d in range(20):
        games = [Game(rules, deal_rng(5, d)) for _ in range(3)]
        for g in games[1:]:
            assert g.hidden == games[0].hidden
            assert g.up == games[0].up
            assert g.hand_seed == games[0].hand_seed
            assert g.deck == games[0].deck


def test_seats_rotate_so_twin_agents_tie_exactly():
    """Identical deterministic agents: every deal scores the same for both (minus the house)."""
    for preset in ("standard", "duel"):
        rules = RuleSet.preset(preset)
        twins = [agents.make("caller", rules), agents.make("caller", rules)]
        result = play_table(twins, rules, deals=150, seed=3)
        assert np.array_equal(result.per_deal[:, 0], result.per_deal[:, 1])
        assert result.hands == 300


def test_rotation_puts_each_agent_in_each_seat():
    rules = RuleSet.preset("standard", num_players=3)
    seats_seen: dict[str, set[int]] = {"a": set(), "b": set(), "c": set()}

    class Recorder(agents.Agent):
        def act(self, observation, action_mask):
            view = agents.read_observation(observation, self.rules)
            button_slot = int(np.flatnonzero(observation[layout(self.rules)["button"]])[0])
            seats_seen[self.name].add((button_slot, view.num_players))
            legal = np.flatnonzero(action_mask)
            return int(legal[1] if legal[0] == 0 and len(legal) > 1 else legal[0])

    players = []
    for nm in "abc":
        agent = Recorder(rules)
        agent.name = nm
        players.append(agent)
    play_table(players, rules, deals=2, seed=0)
    for seen in seats_seen.values():  # the dealer sits in each relative slot once
        assert {slot for slot, _ in seen} == {0, 1, 2}


def test_mean_ci():
    values = np.array([1.0, 2.0, 3.0, 4.0])
    mean, half = mean_ci(values)
    assert mean == 2.5
    assert half == pytest.approx(Z95 * np.std(values, ddof=1) / 2)
    assert mean_ci(np.array([5.0]))[1] == math.inf


def test_seatings():
    assert seatings(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert seatings(["a", "b"], 4) == [("a", "b", "a", "b")]
    with pytest.raises(ValueError):
        seatings(["a"], 2)


def test_tournament_table_and_plot(tmp_path):
    result = tournament(["random", "caller", "heuristic"], "standard", hands=120, seed=1,
                        progress=False)
    assert [t.names for t in result.tables] == [("random", "caller"), ("random", "heuristic"),
                                                ("caller", "heuristic")]
    for t in result.tables:
        assert t.hands == 120 and t.deals == 60
        # heads-up: what one wins the other loses, less the house's odd chips
        assert (t.per_deal.sum(axis=1) <= 0).all()
    text = result.table()
    for word in ("random vs caller", "caller vs heuristic", "95% CI", "overall", "chips/hand"):
        assert word in text
    mean, half, hands = result.overall("heuristic")
    assert hands == 240 and math.isfinite(mean) and half > 0
    path = result.plot(tmp_path / "t.png")
    assert path.stat().st_size > 1000


def test_tournament_rejects_unknown_and_repeated_agents():
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        tournament(["random", "nobody"], hands=10)
    with pytest.raises(ValueError, match="once"):
        tournament(["random", "random"], hands=10)


def test_heuristic_beats_random_and_caller_on_a_short_run():
    result = tournament(["random", "caller", "heuristic"], "standard", hands=1000, seed=11,
                        progress=False)
    for t in result.tables:
        if "heuristic" in t.names:
            mean, half = t.score(t.names.index("heuristic"))
            assert mean - half > 0, (t.names, mean, half)
