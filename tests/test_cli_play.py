"""``hilo play``, ``hilo tournament`` and ``hilo demo``: scripted input, bad input, exit codes."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from hilo_env.agents.play import parse_command, play
from hilo_env.cli import main
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.render import describe_legal

# Enough answers to finish a hand against the caller whatever is dealt: the ones that are not
# legal at a prompt are answered with the legal ones and the next line is read.
SCRIPT = ["bogus words", "raise 9999", "check", "discard +", "check", "discard +", "check",
          "low"]


def run(capsys, monkeypatch, argv, stdin=""):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_play_wrong_command_then_legal_ones_then_eof(capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch,
                         ["play", "--opponent", "caller", "--hands", "2", "--seed", "3"],
                         "\n".join(SCRIPT) + "\n")
    assert code == 0 and err == ""
    assert "'bogus words' is not an action. Legal now: fold, check, raise 2..100" in out
    assert "'raise 9999' is not an action" in out or "'raise 9999' is not legal now" in out
    assert "You are player_0 against caller" in out
    assert "declares Low" in out  # the first hand reached the showdown ...
    assert "this hand." in out
    assert "Bye." in out  # ... and the input ran out in the second: a clean exit
    assert "Traceback" not in out


def test_play_shows_equations_at_showdown(capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, ["play", "--opponent", "caller", "--hands", "1"],
                    "\n".join(SCRIPT) + "\n")
    assert "Low: " in out and " = " in out  # result lines with the equations
    assert "Your best equations: Low" in out
    assert "Match over after 1 hand" in out


def test_play_other_seat_and_rules(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, ["play", "--opponent", "heuristic", "--seat", "1",
                                             "--rules", "duel", "--hands", "1"], "help\n")
    assert code == 0
    assert "You are player_1 against heuristic" in out
    assert "player_0 (heuristic)" in out or "Match over" in out


def test_play_bad_options_exit_2(capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, ["play", "--opponent", "nobody"])
    assert code == 2 and "unknown agent 'nobody'" in err
    code, _, err = run(capsys, monkeypatch, ["play", "--seat", "5"])
    assert code == 2 and "--seat must be 0..1" in err
    code, _, err = run(capsys, monkeypatch, ["play", "--rules", "nonsense"])
    assert code == 2 and "unknown rules" in err


def test_play_ctrl_c_and_quit_end_cleanly():
    out = io.StringIO()

    def interrupt(prompt):
        raise KeyboardInterrupt

    assert play("caller", hands=1, read_line=interrupt, out=out) <= 0
    assert "Bye." in out.getvalue()
    out = io.StringIO()
    answers = iter(["quit"])
    play("random", hands=1, read_line=lambda prompt: next(answers), out=out)
    assert "Bye." in out.getvalue()


def test_parse_command():
    legal = [A.FOLD, A.CALL, *range(A.raise_to(3), A.raise_to(100) + 1)]
    assert parse_command("call", legal) == A.CALL
    assert parse_command("  Raise   5 ", legal) == A.raise_to(5)
    assert parse_command("bet 7", legal) == A.raise_to(7)
    assert parse_command("12", legal) == A.raise_to(12)
    assert parse_command("all-in", legal) == A.raise_to(100)
    assert parse_command("f", legal) == A.FOLD
    with pytest.raises(ValueError) as info:
        parse_command("check", legal)
    assert str(info.value) == "'check' is not legal now. Legal now: fold, call, raise 3..100"
    with pytest.raises(ValueError, match="not legal now"):
        parse_command("raise 2", legal)
    with pytest.raises(ValueError, match="is not an action"):
        parse_command("dance", legal)
    assert describe_legal([A.DECLARE_LOW, A.DECLARE_HIGH]) == "low, high"


def test_tournament_unknown_agent_exits_2(capsys, monkeypatch):
    code, out, err = run(capsys, monkeypatch, ["tournament", "random", "wizard"])
    assert code == 2 and out == ""
    assert err.startswith("hilo: error: unknown agent 'wizard'; choose from random, caller")


def test_tournament_bad_options_exit_2(capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, ["tournament", "random", "caller", "--hands", "0"])
    assert code == 2 and "--hands" in err
    code, _, err = run(capsys, monkeypatch, ["tournament", "random", "ppo:/no/model.zip"])
    assert code == 2 and "no model file" in err


def test_tournament_prints_the_table_and_saves_a_plot(capsys, monkeypatch, tmp_path):
    plot = tmp_path / "t.png"
    code, out, err = run(capsys, monkeypatch, ["tournament", "random", "caller", "heuristic",
                                               "--hands", "60", "--seed", "2", "--rules",
                                               "classic", "--plot", str(plot)])
    assert code == 0, err
    assert "classic rules" in out and "caller vs heuristic" in out and "95% CI" in out
    assert plot.stat().st_size > 1000 and f"plot saved to {plot}" in out


def test_demo_plays_hands_between_baselines(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, ["demo"])
    assert code == 0
    assert out.count("── Hand ") == 3
    assert "(heuristic)" in out and "(caller)" in out
    assert "After 3 hands: heuristic" in out
    code, again, _ = run(capsys, monkeypatch, ["demo"])
    assert again == out  # seeded


def test_play_subprocess_with_piped_stdin():
    done = subprocess.run([sys.executable, "-m", "hilo_env.cli", "play", "--opponent", "caller",
                           "--hands", "1"], input="nonsense\n", capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "is not an action" in done.stdout and "Bye." in done.stdout
    assert "Traceback" not in done.stderr
