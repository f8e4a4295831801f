"""``hilo play``, ``hilo tournament`` and ``hilo demo``: scripted input, bad input, exit codes."""

from __future__ import annotations

import io
import itertools
import subprocess
import sys

import pytest

from hilo_env.agents import play as play_module
from hilo_env.agents.play import narration, play, third_person, view
from hilo_env.cli import main
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.terminal import parse_command
from hilo_env.himilo import actions as HIMILO
from hilo_env.himilo.rules import RuleSet as HimiloRules
from hilo_env.lohi import actions as LOHI

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

    assert play("caller", count=1, read_line=interrupt, out=out) <= 0
    assert "Bye." in out.getvalue()
    out = io.StringIO()
    answers = iter(["quit"])
    play("random", count=1, read_line=lambda prompt: next(answers), out=out)
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
    play("caller", count=1, read_line=lambda prompt: next(answers), out=out)
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


def test_an_opponent_that_needs_an_extra_says_it_loads_before_the_wait(monkeypatch):
    """A model whose library takes seconds to import (an extra's) is announced first; the
    shipped ``ppo`` plays in NumPy and needs none, so the extra is feigned here."""
    events = []
    monkeypatch.setattr(play_module, "needs_extra", lambda name, game: "rllib")
    real_make = play_module.make

    def make(name, rules, seed, game, allow_other_rules):
        events.append("made")
        return real_make("caller", rules, seed, game=game)

    monkeypatch.setattr(play_module, "make", make)
    out = io.StringIO()
    monkeypatch.setattr(out, "write", lambda text: events.append(text) or len(text))
    play("ppo", count=1, read_line=lambda prompt: "quit", out=out)
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


def test_h_declares_high_and_help_stays_on_help_words():
    declare = [A.DECLARE_LOW, A.DECLARE_HIGH, A.DECLARE_SWING]
    assert parse_command("h", declare) == A.DECLARE_HIGH
    assert parse_command("H", declare[:2]) == A.DECLARE_HIGH
    with pytest.raises(ValueError, match="'h' is not an action"):
        parse_command("h", [A.FOLD, A.CHECK])
    for word in ("help", "?", ""):
        out = io.StringIO()
        answers = iter([word, "quit"])
        play("caller", count=1, read_line=lambda prompt, a=answers: next(a), out=out)
        assert "Legal now: fold, check, raise 2..100" in out.getvalue()


def test_a_session_echoes_the_persons_actions():
    """Every action the person takes is said back; ``h`` at the declaration is High."""
    out = io.StringIO()
    answers = itertools.islice(itertools.cycle(["check", "call", "discard +", "discard -",
                                                "h"]), 200)
    play("caller", count=1, seed=3, read_line=lambda prompt: next(answers), out=out)
    text = out.getvalue()
    assert "  You check" in text and "  You declare high" in text
    assert "Shortcuts:" not in text  # 'h' was never read as 'help'
    assert "Match over after 1 hand" in text


def test_narration_reads_as_people_speak():
    hilo, lohi, himilo = view("hilo"), view("lohi"), view("himilo")
    bot = "player_1 (heuristic)"
    assert narration(hilo, A.DISCARD_PLUS, bot) == "  player_1 (heuristic) discards +"
    assert narration(hilo, A.CALL) == "  You call"
    assert narration(hilo, A.raise_to(5), bot) == "  player_1 (heuristic) raises to 5"
    assert narration(hilo, A.DECLARE_HIGH) == "  You declare high"
    assert narration(hilo, A.DECLARE_HIGH, bot) == "  player_1 (heuristic) declares (secretly)"
    assert narration(hilo, A.DECLARE_HIGH, bot, hidden=False).endswith("declares high")
    assert narration(lohi, LOHI.PICK_UP, bot).endswith("(heuristic) picks up")
    assert narration(lohi, LOHI.HIGHER, bot).endswith("(heuristic) chooses higher")
    assert narration(lohi, LOHI.string_to_action("play 7 7")) == "  You play 7 7"
    card = HIMILO.pass_card(3)
    assert narration(himilo, card) == f"  You {HIMILO.action_to_string(card)}"
    assert narration(himilo, card, "player_2 (team)") == "  player_2 (team) passes a card"
    assert narration(himilo, HIMILO.BID_HIGH, "player_2 (team)").endswith("team) bids high")
    assert [third_person(v) for v in ("fold", "pass 7S", "touch", "fix it")] == \
        ["folds", "passes 7S", "touches", "fixes it"]


def test_default_opponent_count_and_bad_arguments():
    out = io.StringIO()
    play(read_line=lambda prompt: "quit", out=out)
    assert "against heuristic (2 players, 3 hands)" in out.getvalue()
    with pytest.raises(ValueError, match="--hands must be at least 1, not 0"):
        play(count=0)
    with pytest.raises(ValueError, match="--games must be at least 1"):
        play(count=0, game="lohi")
    with pytest.raises(ValueError, match=r"--seat must be 0\.\.2 for 3 players, not 3"):
        play(seat=3, game="himilo", rules=HimiloRules(num_players=3))
    with pytest.raises(ValueError, match="unknown agent 'team'"):
        play("team")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        play(game="chess")


def test_the_readme_first_command_plays_the_shipped_ppo(capsys, monkeypatch):
    """``hilo play --opponent ppo`` deals a three-hand match to a model trained on one-hand
    matches: it plays, with a note; ``--players 4`` and ``ppo_standard`` too."""
    pytest.importorskip("sb3_contrib")
    for argv in (["play", "--opponent", "ppo"], ["play", "--opponent", "ppo_standard"],
                 ["play", "--opponent", "ppo", "--players", "4"]):
        code, out, err = run(capsys, monkeypatch, argv, "quit\n")
        assert code == 0 and err == "", (argv, err)
        said = " ".join(out.split())
        assert f"Note: {argv[2]} plays under other rules than it was trained under " \
               "(hands_per_episode: trained 1, asked 3)" in said, out
        assert "Bye." in out
    assert "it never chooses beyond 'raise 100', the last of the 109 actions it was trained " \
           "with." in said  # at 4 players a three-hand match raises the cap to 200


def test_allow_other_rules_is_a_flag(capsys, monkeypatch):
    """Rules a model was not trained under are refused on one line naming the flag, which
    lets it play; the tournament notes it under the table."""
    pytest.importorskip("sb3_contrib")
    code, out, err = run(capsys, monkeypatch, ["tournament", "ppo", "caller", "--rules", "duel",
                                               "--hands", "4", "--no-progress"])
    assert code == 2 and "tiebreak" in err and "--allow-other-rules" in err
    assert len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, monkeypatch, ["tournament", "ppo", "caller", "--rules", "duel",
                                               "--hands", "4", "--no-progress",
                                               "--allow-other-rules"])
    assert code == 0, err
    assert out.rstrip().splitlines()[-1].startswith("Note: ppo plays under other rules")
    code, out, err = run(capsys, monkeypatch, ["play", "--opponent", "ppo", "--rules", "duel",
                                               "--allow-other-rules"], "quit\n")
    assert code == 0 and "Note: ppo plays under other rules" in " ".join(out.split())
    code, out, err = run(capsys, monkeypatch, ["gauntlet", "ppo", "--rules", "duel",
                                               "--opponents", "caller", "--hands", "4",
                                               "--allow-other-rules"])
    assert code == 0, err
