"""What ``hilo`` says to a first-time user (issue 31 items 13 and 15): every bundled training
config named in ``hilo train --help``, a note for operators no hand of the rules holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hilo_env import cli
from hilo_env.equation_hilo.rules import resolve
from hilo_env.equation_hilo.solver import hand_operator_sets

REPO = Path(__file__).resolve().parents[1]


def test_train_help_lists_every_bundled_config(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["train", "--help"]) == cli.EXIT_OK
    text = " ".join(capsys.readouterr().out.split())
    names = sorted(p.stem for p in (REPO / "configs" / "train").glob("*.yaml"))
    assert len(names) >= 10
    listed = text.split("a bundled one by name (")[1].split(")")[0]
    assert listed.split(", ") == names


@pytest.mark.parametrize(("rules", "expected"), [
    ("standard", ("+-/", "+*/", "-*/")), ("duel", ("+-/", "+*/", "-*/")),
    ("classic", ("+-/", "+*/", "-*/", "**/")), ("tiny", ("/",))])
def test_hand_operator_sets(rules: str, expected: tuple[str, ...]) -> None:
    assert hand_operator_sets(resolve(rules)) == expected


def test_hand_operator_sets_follow_the_multiply_fields() -> None:
    assert hand_operator_sets(resolve("standard", deck_multiply=0)) == ("+-/",)
    assert hand_operator_sets(resolve("standard", max_multiply=None, multiply_discards="+-x"))[-1] \
        == "**/"


@pytest.mark.parametrize(("argv", "note"), [
    (["1", "2", "3", "4", "--ops", "++-"], "no hand of the standard rules holds + + − "
                                           "(they hold + − ÷, + × ÷, − × ÷); solved as written"),
    (["1", "2", "3", "4", "--ops", "**/"], "no hand of the standard rules holds × × ÷"),
    (["1", "2", "3", "4", "--ops", "**/", "--rules", "classic"], None),
    (["4", "7", "9", "8", "--ops", "/+-", "--roots", "1"], None),
    (["1", "2", "3", "4", "--ops", "-*/", "--json"], None),
    (["1", "2", "3", "4", "--ops", "+++", "--json"], "no hand of the standard rules holds + + +"),
])
def test_solve_notes_operators_no_hand_holds(argv: list[str], note: str | None,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["solve", *argv]) == cli.EXIT_OK
    out, err = capsys.readouterr()
    if note is None:
        assert err == ""
    else:
        assert err.startswith("hilo: note: ") and note in err and err.count("\n") == 1
    if "--json" in argv:
        assert json.loads(out)["low"] is not None  # stdout stays pure JSON
    else:
        assert out.startswith("Hand: ")
