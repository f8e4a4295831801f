"""Every game through the same doors: the one evaluator, tournament runner, gauntlet and CLI
serve lo-hi, Hi MiLo! and a toy fourth game (``tests/toy_game``) that only this file
registers, with no edit anywhere else."""

from __future__ import annotations

import dataclasses
import importlib
import io
import math
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from hilo_env import agents, games
from hilo_env.agents import registry as agent_registry
from hilo_env.cli import EXIT_OK, EXIT_USAGE, main
from hilo_env.envs.pettingzoo_wrappers import wrap
from hilo_env.game_spec import load
from hilo_env.training.evaluate import play_table, tournament, unit_count
from hilo_env.training.gauntlet import gauntlet
from hilo_env.training.lockstep import play_episodes
from tests.toy_game.spec import SPEC as TOY


@pytest.fixture
def toy() -> Iterator[str]:
    """Swap registered for one test, unregistered after."""
    games.register(TOY)
    yield TOY.name
    games.unregister(TOY.name)


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str],
        stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------------
# the toy game, registered by this file alone


def test_toy_tournament_from_the_command_line(toy: str, capsys, monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, ["tournament", "--game", toy, "keeper", "random",
                                               "--games", "40", "--no-progress"])
    assert code == EXIT_OK, err
    assert "Swap tournament: standard rules, 2 players" in out
    assert "reward/game" in out and "win rate" in out and "40 games" in out and "nan" not in out
    code, _, err = run(capsys, monkeypatch, ["tournament", "--game", toy, "keeper", "random",
                                             "--hands", "4"])
    assert code == EXIT_USAGE and "Swap counts games: use --games" in err


def test_toy_play_from_the_command_line(toy: str, capsys, monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, ["play", "--game", toy, "--players", "3"],
                         "help\nfold\nk\ns\n")
    assert code == EXIT_OK, err
    assert "in a team" not in out and "against keeper (3 players, 2 games)" in out
    assert "Legal now: keep, swap" in out and "'k' is keep" in out
    assert "'fold' is not an action" in out
    assert "You keep" in out and "You swap" in out and "Your reward over 2 games" in out


def test_toy_through_the_evaluator_and_the_gauntlet(toy: str) -> None:
    rules = TOY.rules(None, 3)
    twins = [agents.make("keeper", rules, game=toy) for _ in range(3)]
    table = play_table(twins, rules, deals=30, seed=4, game=toy)
    # the same cards in every rotation and one policy in every seat: each deal is a tie
    assert table.episodes == 90 and np.allclose(table.per_deal, 0.0)
    result = gauntlet("keeper", game=toy, games=200, seed=1)
    assert list(result.matches) == ["random"]
    mean, ci = result.score("random")
    assert mean - ci > 0 and "best exploit: random" in result.table()


def test_toy_gauntlet_from_the_command_line(toy: str, capsys, monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, ["gauntlet", "keeper", "--game", toy, "--games",
                                               "20"])
    assert code == EXIT_OK, err
    assert "Gauntlet against keeper" in out and "random" in out and "nan" not in out


def test_lockstep_plays_each_episode_as_alone(toy: str) -> None:
    """Episodes batched in lanes give the returns they give one at a time, and any AEC env
    (here under PettingZoo's wrappers, masks read through ``observe``) gives the same."""
    rules = TOY.rules("big", 3)
    players = [agents.make("keeper", rules, game=toy), agents.make("keeper", rules, game=toy)]
    episodes = [(seed, (seed % 2, 1 - seed % 2, 0)) for seed in range(25)]
    together = play_episodes(lambda: TOY.raw_env(rules), players, episodes, lanes=8)
    alone = play_episodes(lambda: TOY.raw_env(rules), players, episodes, lanes=1)
    wrapped = play_episodes(lambda: wrap(TOY.raw_env(rules)), players, episodes, lanes=8)
    assert np.array_equal(together, alone) and np.array_equal(together, wrapped)
    assert np.allclose(together.sum(axis=1), 0.0)
    assert (together.max(axis=1) == 1.0).all()


def test_an_unregistered_game_is_gone(capsys, monkeypatch) -> None:
    assert TOY.name not in games.names()
    code, _, err = run(capsys, monkeypatch, ["tournament", "--game", TOY.name, "random"])
    assert code == EXIT_USAGE and "invalid choice: 'toy'" in err


# ---------------------------------------------------------------------------------------------
# lo-hi and Hi MiLo! through the one evaluator


def test_lohi_heuristic_beats_random() -> None:
    result = tournament(["heuristic", "random"], "single_round", games=200, seed=1,
                        game="lohi")
    (table,) = result.tables
    assert table.episodes == 200 and table.names == ("heuristic", "random")
    (h, h_ci), (r, r_ci) = table.score(0), table.score(1)
    assert h - h_ci > 0 > r + r_ci and h == pytest.approx(-r)
    assert table.win_rate(0)[0] + table.win_rate(1)[0] == pytest.approx(1.0)
    assert "heuristic vs random" in result.table()


def test_lohi_fills_seats_and_stays_zero_sum() -> None:
    rules = games.get("lohi").rules("single_round", 3)
    result = tournament(["heuristic", "random"], rules, games=6, game="lohi")
    (table,) = result.tables
    assert table.names == ("heuristic", "random", "heuristic") and table.deals == 2
    assert table.per_deal.sum(axis=1) == pytest.approx(np.zeros(2), abs=1e-9)


def test_himilo_teams_and_ad_hoc_rows() -> None:
    result = tournament(["team", "random"], None, rounds=90, seed=2, game="himilo",
                        progress=False)
    assert [t.names for t in result.tables] == [("team",) * 4, ("random",) * 4,
                                                ("team", "random", "random", "random"),
                                                ("random", "team", "team", "team")]
    team, rand = (t.win_rate(0)[0] for t in result.tables[:2])
    assert team > rand
    for t in result.tables:  # one team, one result: every seat scores the same
        assert np.allclose(t.per_deal, t.per_deal[:, :1])
    text = result.table()
    assert "team win rate" in text and "team among random" in text and "random ×4" in text


def test_count_names_the_games_unit() -> None:
    assert unit_count(games.get("lohi"), games=5) == 5
    assert unit_count(games.get("himilo")) == 5_000
    with pytest.raises(ValueError, match="lo-hi counts games: use games=, not hands="):
        unit_count(games.get("lohi"), hands=5)
    with pytest.raises(ValueError, match="at least 1"):
        tournament(["team"], rounds=0, game="himilo")


# ---------------------------------------------------------------------------------------------
# the command line, every game


def test_tables_never_print_nan(capsys, monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, ["tournament", "--game", "himilo", "team",
                                               "random", "--rounds", "2", "--players", "3"])
    assert code == EXIT_OK, err
    assert "nan" not in out and "n/a" in out


def test_plot_into_a_new_folder(tmp_path, capsys, monkeypatch) -> None:
    path = tmp_path / "new" / "lohi.png"
    code, out, err = run(capsys, monkeypatch, ["tournament", "--game", "lohi", "heuristic",
                                               "random", "--games", "4", "--plot", str(path)])
    assert code == EXIT_OK, err
    assert path.stat().st_size > 1000 and f"plot saved to {path}" in out


@pytest.mark.parametrize("argv, message", [
    (["tournament", "--game", "lohi", "heuristic", "caller"], "unknown agent 'caller'"),
    (["tournament", "--game", "lohi", "random", "heuristic", "--games", "0"],
     "--games must be at least 1"),
    (["tournament", "--game", "lohi", "random", "heuristic", "--hands", "20"],
     "lo-hi counts games: use --games, not --hands"),
    (["tournament", "--game", "lohi", "random", "--rules", "classic"], "unknown lo-hi rules"),
    (["tournament", "--game", "lohi", "random", "--players", "6"], "seats 2 to 5"),
    (["tournament", "--game", "lohi", "random", "heuristic", "--plot", "o.bogus"],
     "cannot write a .bogus file"),
    (["tournament", "--game", "himilo", "random", "team", "--plot", "o.bogus"],
     "cannot write a .bogus file"),
    (["tournament", "--game", "himilo", "heuristic"], "unknown agent 'heuristic'"),
    (["tournament", "--game", "himilo", "team", "--hands", "2"], "Hi MiLo! counts rounds"),
    (["tournament", "--game", "himilo", "team", "--rules", "classic"], "unknown"),
    (["play", "--game", "himilo", "--opponent", "heuristic"], "unknown agent 'heuristic'"),
    (["play", "--game", "himilo", "--players", "6"], "seats 3 to 5"),
    (["play", "--game", "himilo", "--seat", "4"], "--seat must be 0..3"),
    (["play", "--game", "lohi", "--seat", "2"], "--seat must be 0..1"),
    (["play", "--game", "lohi", "--hands", "2"], "lo-hi counts games"),
    (["gauntlet", "heuristic", "--game", "lohi", "--rounds", "2"], "lo-hi counts games"),
    (["gauntlet", "team", "--game", "himilo", "--opponents", "caller"], "unknown agent"),
    (["exploit", "random", "--game", "lohi", "--hands", "2"], "lo-hi counts games"),
    (["exploit", "team", "--game", "himilo", "--decisions", "5"], "Hi MiLo! is cooperative"),
])
def test_bad_input_is_one_line_before_any_work(argv: list[str], message: str, capsys,
                                               monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, argv)
    assert code == EXIT_USAGE and out == ""
    assert err.startswith("hilo: error: ") and message in err and err.count("\n") == 1


def test_gauntlet_plays_the_games_other_agents(capsys, monkeypatch) -> None:
    code, out, err = run(capsys, monkeypatch, ["gauntlet", "team", "--game", "himilo",
                                               "--rounds", "12", "--players", "3",
                                               "--opponents", "random"])
    assert code == EXIT_OK, err
    assert "Gauntlet against team" in out and "weakest partnership: team among random" in out
    result = gauntlet("heuristic", "single_round", games=20, game="lohi", players=["random"])
    assert math.isfinite(result.score("random")[0]) and "reward per game" in result.table()


# ---------------------------------------------------------------------------------------------
# what a game can do: its spec says, and a tool it lacks refuses it in one line


def test_a_tool_the_toy_lacks_refuses_it_in_one_line(toy: str, capsys, monkeypatch,
                                                     tmp_path) -> None:
    code, out, err = run(capsys, monkeypatch, ["exploit", "keeper", "--game", toy, "--method",
                                               "lbr"])
    assert code == EXIT_USAGE and out == "" and err.count("\n") == 1
    assert "--method lbr: Swap (game 'toy') has no local best response ('lbr')" in err
    config = tmp_path / "toy.yaml"
    config.write_text(f"game: {toy}\nbaselines: [keeper]\n")
    code, out, err = run(capsys, monkeypatch, ["train", str(config)])
    assert code == EXIT_USAGE and err.count("\n") == 1
    assert "'sb3/ppo' is not allowed: a trainer of game 'toy' (backend/algorithm): it has " \
        "none" in err
    with pytest.raises(ValueError, match=r"Swap \(game 'toy'\) has no deal records"):
        play_table([agents.make("keeper", TOY.rules(), game=toy)] * 2, TOY.rules(), deals=1,
                   game=toy, record=True)
    assert agents.names(toy) == ["random", "keeper"]  # no trainer: no saved models by prefix


def test_each_game_says_what_it_can_do() -> None:
    hilo, lohi, himilo = (games.get(g) for g in ("hilo", "lohi", "himilo"))
    assert hilo.can("jax") and hilo.can("numpy") and hilo.can("lbr") and hilo.can("rllib/ppo")
    assert not lohi.can("jax") and not himilo.can("numpy") and himilo.can("sb3/value")
    assert TOY.capabilities == ("engine",)
    with pytest.raises(ValueError, match=r"lo-hi \(game 'lohi'\) has no JAX backend \('jax'\)"):
        lohi.require("jax")
    with pytest.raises(ValueError, match="unknown capability 'cuda'"):
        hilo.can("cuda")
    assert "jax:PATH" in agents.names("hilo") and "jax:PATH" not in agents.names("lohi")


@pytest.mark.parametrize("change, message", [
    ({"name": 5}, "a game's name is a word"),
    ({"name": ""}, "a game's name is a word"),
    ({"name": "two words"}, "a game's name is a word"),
    ({"title": ""}, "title is a non-empty text"),
    ({"presets": ()}, "presets is a non-empty tuple"),
    ({"presets": "standard"}, "presets is a non-empty tuple"),
    ({"min_players": 1.5}, "min_players is an integer"),
    ({"min_players": True}, "min_players is an integer"),
    ({"max_players": 1}, "is no range"),
    ({"backends": ("numpy",)}, "backends names 'engine'"),
    ({"tools": ("chess",)}, "tools is a tuple of names from"),
    ({"trainers": "sb3/ppo"}, "trainers is a tuple of names from"),
])
def test_a_spec_refuses_what_no_tool_can_use(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(TOY, **change)


def test_an_unknown_game_of_any_type_is_a_value_error() -> None:
    for name in (5, ["hilo"], "nope"):
        with pytest.raises(ValueError, match="unknown game"):
            games.get(name)


def test_a_built_in_game_stays(toy: str) -> None:
    with pytest.raises(ValueError, match="game 'hilo' is built in"):
        games.unregister("hilo")
    with pytest.raises(ValueError, match="game 'lohi' is built in"):
        games.register(dataclasses.replace(TOY, name="lohi"))
    assert games.names()[:3] == ["hilo", "lohi", "himilo"] and games.get("lohi").title == "lo-hi"
    games.register(dataclasses.replace(TOY, title="Swap again"))  # a run-time game is replaced
    assert games.get(toy).title == "Swap again"


def test_the_agent_registry_takes_only_what_it_can_make(toy: str) -> None:
    with pytest.raises(ValueError, match="the factory is a callable"):
        agents.register("lazy", "keeper", game=toy)
    with pytest.raises(ValueError, match="agent 'random' of Swap exists"):
        agents.register("random", lambda rules, seed: None, game=toy)
    with pytest.raises(ValueError, match="agent 'random' of Equation Hi-Lo is built in"):
        agent_registry.unregister("random")
    with pytest.raises(ValueError, match="an agent name is text, not None"):
        agent_registry.needs_extra(None)
    with pytest.raises(ValueError, match="must be a non-empty text"):
        agents.register(None, lambda rules, seed: None, game=toy)
    agents.register("nobody", lambda rules, seed: None, game=toy)
    try:
        with pytest.raises(ValueError, match="agent 'nobody': its factory returned None, not "
                                             "an Agent"):
            agents.make("nobody", game=toy)
    finally:
        agent_registry.unregister("nobody", game=toy)
    assert "nobody" not in agents.names(toy) and agents.make("random", game=toy)


def test_each_games_other_names_are_derived_from_its_id() -> None:
    """One id a game (``--game``, ``game:``); its PettingZoo module and env name and its
    OpenSpiel short name are aliases built from it."""
    for name in games.names():
        spec = games.get(name)
        module = importlib.import_module(f"hilo_env.{spec.pettingzoo_name}")
        assert module.raw_env is load(spec.env) and module.raw_env.metadata["name"] == \
            f"{name}_v0"
    assert games.get("hilo").openspiel_name == "python_hilo"
    pyspiel = pytest.importorskip("pyspiel")
    from hilo_env.envs import openspiel_game

    assert pyspiel.load_game(games.get("hilo").openspiel_name).get_type().short_name == \
        openspiel_game.SHORT_NAME
