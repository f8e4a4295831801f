"""The gauntlet: every scripted player plays legally under every preset, each style bets as
its table says, and ``gauntlet()`` reports each match and the best exploit. About 15 s."""

from __future__ import annotations

import numpy as np
import pytest

from hilo_env import agents
from hilo_env.agents.gauntlet import GAUNTLET, STYLES
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.observation import Encoder, action_mask
from hilo_env.equation_hilo.rules import PRESETS, RuleSet
from hilo_env.training.gauntlet import gauntlet

HANDS = 6


def play(rules: RuleSet, names: list[str], hands: int, seed: int = 0) -> list[list[int]]:
    """Single hands of ``names`` seated in order; asserts every action is legal and returns
    each hand's (seat, action) list."""
    encoder = Encoder(rules)
    players = [agents.make(nm, rules, seed=seed + i) for i, nm in enumerate(names)]
    logs = []
    for h in range(hands):
        game = Game(rules, np.random.default_rng([seed, h]))
        log = []
        while game.phase < Phase.HAND_OVER:
            seat, mask = game.current_player, action_mask(game)
            action = players[seat].act(encoder.encode(game, seat), mask)
            assert mask[action], (names[seat], A.action_to_string(action))
            log.append((seat, action))
            game.step(int(action))
        logs.append(log)
    return logs


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_player_plays_legally_under_every_preset(preset: str) -> None:
    for num_players in sorted({PRESETS[preset].num_players, 3}):
        if preset == "duel" and num_players != 2:
            continue
        rules = RuleSet.preset(preset, num_players=num_players, hands_per_episode=1)
        for name in GAUNTLET:
            others = ["random", "heuristic", "maniac"][:num_players - 1]
            play(rules, [name, *others], HANDS)


def test_the_gauntlet_is_registered() -> None:
    assert set(STYLES) <= set(agents.names())
    assert "caller" in GAUNTLET and len(GAUNTLET) == len(STYLES) + 1


def test_styles_bet_as_described() -> None:
    rules = RuleSet.preset("standard")
    moves = {name: [a for log in play(rules, [name, "maniac"], 20) for s, a in log if s == 0]
             for name in ("escalating", "maniac", "passive", "swinger")}
    bets = {name: [a for a in acts if a < A.DISCARD_PLUS or a >= A.FIRST_RAISE]
            for name, acts in moves.items()}
    assert A.FOLD not in bets["escalating"] and A.FOLD not in bets["maniac"]
    assert not any(a >= A.FIRST_RAISE for a in bets["passive"])
    assert A.DECLARE_SWING in moves["swinger"]
    assert all(a in (A.DECLARE_SWING,) for a in moves["swinger"] if a in A.DECLARATIONS)
    # against a maniac that always shoves, the escalating player only ever calls the cap or
    # raises by one chip: it never jumps to the cap itself on its first raise of a hand
    maniac_raises = [a for a in bets["maniac"] if a >= A.FIRST_RAISE]
    assert maniac_raises and all(A.raise_total(a) == rules.starting_stack
                                 for a in maniac_raises)


def test_gauntlet_reports_each_match_and_the_best_exploit() -> None:
    result = gauntlet("random", "standard", hands=40, seed=3, players=["caller", "escalating"])
    assert set(result.matches) == {"caller", "escalating"}
    assert all(m.hands == 40 for m in result.matches.values())
    worst = result.best_exploit()
    assert result.score(worst)[0] == min(result.score(p)[0] for p in result.matches)
    text = result.table()
    assert f"best exploit: {worst}" in text and "95% CI" in text
    with pytest.raises(ValueError, match="unknown agent"):
        gauntlet("random", players=["nobody"])


@pytest.mark.parametrize("game, players, agent", [("lohi", 3, "heuristic"),
                                                  ("himilo", 3, "team"), ("himilo", 5, "team")])
def test_default_opponents_that_cannot_sit_are_left_out_and_named(game: str, players: int,
                                                                  agent: str) -> None:
    from hilo_env import games
    from hilo_env.training.gauntlet import default_players, seatable

    rules = games.get(game).rules(None, players)
    fit, left_out = seatable(default_players(agent, game), rules, game)
    assert "ppo" not in fit and f"not {players}" in left_out["ppo"]
    assert fit and set(fit) | set(left_out) == set(default_players(agent, game))


def test_the_cli_gauntlet_seats_the_opponents_that_fit(capsys: pytest.CaptureFixture[str]) -> None:
    from hilo_env.cli import main

    assert main(["gauntlet", "heuristic", "--game", "lohi", "--players", "3", "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert "random" in out
    assert "left out: ppo (agent 'ppo' of lo-hi has models for 2, 4 players, not 3)" in out


def test_an_opponent_named_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="opponent 'caller' is named twice"):
        gauntlet("random", hands=2, players=["caller", "random", "caller"])
