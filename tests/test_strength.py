"""The strength table (training.strength): who sits at which table, what each model trained
against, and the page and plot written from a report."""

from __future__ import annotations

from pathlib import Path

import pytest

from hilo_env import games
from hilo_env.training.evaluate import tournament
from hilo_env.training.strength import (
    Bounds,
    Budget,
    Report,
    Response,
    Step,
    TableBound,
    head_to_head,
    response_backend,
    run,
    seated_agents,
    table_bound,
    trained_against,
    trained_key,
    write,
)
from tests.helpers import registered_coin

STANDARD = games.get("hilo").rules(None, 2)


def test_the_table_seats_each_model_once_and_leaves_the_gauntlet_out() -> None:
    pytest.importorskip("sb3_contrib")
    names = seated_agents("hilo", STANDARD)
    assert names[:3] == ["random", "caller", "heuristic"]
    assert "ppo" in names and "ppo_population" not in names  # one model file, one name
    assert "ppo_3p" not in names and "cfr_tiny" not in names and "maniac" not in names
    assert seated_agents("hilo", games.get("hilo").rules("tiny")) == [
        "random", "caller", "heuristic", "cfr_tiny"]


def test_training_opponents_come_from_the_models_config() -> None:
    pytest.importorskip("sb3_contrib")
    population = trained_against("hilo", "ppo", STANDARD)
    assert {"heuristic", "aggressive", "tight", "escalating"} <= set(population)
    assert "caller" in trained_against("hilo", "ppo_standard", STANDARD)
    assert trained_against("hilo", "heuristic", STANDARD) is None
    four = games.get("himilo").rules("standard", 4)
    assert trained_against("himilo", "value", four) == ["team", "itself in every seat (self-play)"]


def test_page_and_plot_are_written_from_a_report(tmp_path: Path) -> None:
    result = tournament(["random", "caller"], STANDARD, 4, seed=1, progress=False,
                        rules_name="standard, 2 players")
    pairs = head_to_head(result)
    assert pairs["random", "caller"][0] == pytest.approx(-pairs["caller", "random"][0])
    report = Report(budget=Budget(deals=2), tournaments=[result], command="hilo strength")
    report.bounds = {"random": Bounds(gauntlet=("maniac", -50.0, 3.0), lbr=(30.0, 2.0)),
                     "caller": Bounds(gauntlet=("trapper", -9.0, 1.0), lbr=(20.0, 2.0))}
    report.trained[trained_key("hilo", "caller", 2)] = ["trapper"]
    doc = write(report, tmp_path / "strength.md", tmp_path / "strength.png")
    text = doc.read_text()
    assert "| random |  | " in text and "`.venv/bin/hilo strength`" in text
    assert "| caller | trapper (in sample) | -9.00 ± 1.00 | +20.00 ± 2.00 (0s) | not run |" in text
    assert "`caller` +20.00 ± 2.00 (exploitability >= +18.00)" in text  # the closing note
    assert (tmp_path / "strength.png").stat().st_size > 0
    assert "*None found*" not in text
    report.bounds["random"] = Bounds(gauntlet=("maniac", -50.0, 3.0), lbr=(30.0, 2.0),
                                     responses=[Response(60.0, 1.0, 2_000, 7, "jax"),
                                                Response(0.4, 0.5, 2_048, 8, "jax")])
    report.bounds["caller"] = Bounds(gauntlet=("trapper", -9.0, 1.0), lbr=(20.0, 2.0),
                                     responses=[Response(-0.3, 0.5, 2_000, 7, "sb3")])
    text = write(report, tmp_path / "strength.md", tmp_path / "strength.png").read_text()
    assert ("| +60.00 ± 1.00 (seed 7, 2,000 decisions, JAX trainer); +0.40 ± 0.50 (seed 8, "
            "2,048 decisions, JAX trainer, none found) |") in text  # one found: not listed
    assert "| -0.30 ± 0.50 (seed 7, 2,000 decisions, MaskablePPO, none found) |" in text
    assert "*None found*: no RL response to caller beats it" in text  # said, once


def test_larger_tables_get_an_lbr_bound_or_say_why_not() -> None:
    three = games.get("hilo").rules(None, 3)
    with registered_coin() as coin:
        refused = table_bound(coin, three, Budget(lbr_deals=2))
    assert refused == TableBound(3, "coin")  # nothing played
    measured = table_bound("caller", three, Budget(lbr_deals=2))
    assert (measured.players, measured.agent, measured.deals) == (3, "caller", 2)
    assert measured.lbr is not None and measured.lbr[0] > 0


def test_steps_in_several_processes_give_what_one_by_one_gives() -> None:
    """``hilo strength --jobs 2``: the same results, in the steps' order, as one process."""
    steps = [Step(f"{name} against random", tournament, (["random", name], STANDARD, 20, 3),
                  lambda result: None) for name in ("caller", "heuristic")]
    steps.append(Step("LBR against caller, 3 players", table_bound,
                      ("caller", games.get("hilo").rules(None, 3), Budget(lbr_deals=3)),
                      lambda result: None))
    said: list[str] = []
    alone, together = run(steps, 1), run(steps, 2, said.append)
    for one, other in zip(alone[:2], together[:2], strict=True):
        assert head_to_head(one) == head_to_head(other) and one.names == other.names
    assert together[2].lbr == alone[2].lbr and together[2].deals == 3
    assert said[0] == "3 steps in 2 processes" and len(said) == 4


def test_the_page_shows_the_larger_tables_lbr_bounds(tmp_path: Path) -> None:
    result = tournament(["random", "caller"], STANDARD, 2, seed=1, progress=False,
                        rules_name="standard, 2 players")
    report = Report(budget=Budget(deals=2), tournaments=[result], command="hilo strength")
    report.bounds = {"caller": Bounds(gauntlet=("trapper", -9.0, 1.0), lbr=(20.0, 2.0))}
    report.table_bounds = [TableBound(3, "heuristic"),
                           TableBound(3, "ppo", (4.0, 1.5), 10_000, 300.0),
                           TableBound(6, "ppo", (1.0, 2.0), 10_000, 1_200.0)]
    text = write(report, tmp_path / "strength.md", tmp_path / "strength.png").read_text()
    assert "## Equation Hi-Lo, standard rules, 3-6 players: LBR bounds" in text
    assert "| 3 | ppo | +4.00 ± 1.50 | exploitability >= +2.50 | 10,000 | 5.0 min |" in text
    assert "| 6 | ppo | +1.00 ± 2.00 | no exploit found by LBR" in text
    assert "| 3 | heuristic | refused (it gives no action probabilities)" in text
    closing = text[text.index("## Closing note"):]
    assert "`ppo` at 3 players +4.00 ± 1.50 (exploitability >= +2.50)" in closing
    assert "LBR refuses `heuristic` there: no action probabilities" in closing


def test_responses_train_on_the_jax_trainer_where_it_is_installed(monkeypatch) -> None:
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    assert {response_backend(n) for n in ("ppo", "caller", "heuristic")} == {"jax"}
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)  # no jax extra
    assert response_backend("ppo") == "sb3"
