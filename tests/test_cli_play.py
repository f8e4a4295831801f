"""``hilo play``, ``hilo tournament`` and ``hilo demo``: scripted input, bad input, exit codes."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from hilo_env.agents.play import parse_command, play
from hilo_env.cli import main
from hilo_env.equation_hilo import actions as A

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
    assert A.describe_legal([A.DECLARE_LOW, A.DECLARE_HIGH]) == "low, high"


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


def test_play_intro_legend_and_width(capsys, monkeypatch):
    _, out, _ = run(capsys, monkeypatch, ["play", "--opponent", "caller", "--hands", "1"],
                    "quit\n")
    intro = out.split("──")[0]
    assert "G gold, S silver, B bronze, K black" in " ".join(intro.split())
    assert "D marks the dealer button, > the player to act" in " ".join(intro.split())
    assert all(len(line) <= 80 for line in intro.splitlines())
    assert "discard +" in intro  # never wrapped between an action and its argument


def test_help_lists_the_shortcuts():
    out = io.StringIO()
    answers = iter(["help", "quit"])
    play("caller", hands=1, read_line=lambda prompt: next(answers), out=out)
    text = " ".join(out.getvalue().split())
    assert "Legal now: fold, check, raise 2..100" in text
    assert "a bare number N is 'raise N'" in text and "'all-in'" in text
    assert "N is your total wager this hand" in text


def test_refused_raise_says_what_n_is():
    legal = [A.FOLD, A.CHECK, *range(A.raise_to(2), A.raise_to(100) + 1)]
    with pytest.raises(ValueError) as info:
        parse_command("raise 1", legal)
    assert "N in 'raise N' is your total wager this hand, 2..100 now" in str(info.value)
    with pytest.raises(ValueError, match=r"total wager this hand, 2\.\.100"):
        parse_command("500", legal)
    with pytest.raises(ValueError, match="no raise is allowed now"):
        parse_command("raise 5", [A.FOLD, A.CALL])
    with pytest.raises(ValueError) as info:
        parse_command("check", [A.FOLD, A.CALL])
    assert "total wager" not in str(info.value)


def test_ppo_opponent_says_it_loads_before_the_wait(monkeypatch):
    from hilo_env.agents import play as play_module

    events = []
    real_make = play_module.make

    def make(name, rules, seed):
        events.append("made")
        return real_make("caller", rules, seed)

    monkeypatch.setattr(play_module, "make", make)
    out = io.StringIO()
    monkeypatch.setattr(out, "write", lambda text: events.append(text) or len(text))
    play("ppo", hands=1, read_line=lambda prompt: "quit", out=out)
    assert events.index("Loading the ppo model...") < events.index("made")


def test_terminal_reader_drops_keys_typed_meanwhile(monkeypatch):
    import termios

    from hilo_env.agents.play import terminal_reader

    calls = []

    class Tty(io.StringIO):
        def isatty(self):
            return True

        def fileno(self):
            return 7

    monkeypatch.setattr(termios, "tcflush", lambda fd, queue: calls.append((fd, queue)))
    monkeypatch.setattr("builtins.input", lambda prompt: calls.append(prompt) or "call")
    assert terminal_reader(Tty())("your action> ") == "call"
    assert calls == [(7, termios.TCIFLUSH), "your action> "]  # flushed before the prompt

    def fails(fd, queue):
        raise termios.error(25, "not a tty")

    monkeypatch.setattr(termios, "tcflush", fails)
    assert terminal_reader(Tty())("> ") == "call"  # a failed flush is harmless
