"""The ``hilo solve`` and ``hilo demo`` commands."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hilo_env.cli import EXIT_PIPE, main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_plain(capsys):
    code, out, err = run(capsys, "solve", "4", "7", "9", "8", "--ops", "/+-", "--roots", "1")
    assert code == 0 and err == ""
    assert "Low  (target  1): √4 ÷ 9 + 8 − 7 = 1.222222222   distance 0.2222222222" in out
    assert "High (target 20): 8 − √4 ÷ 7 + 9 = 16.71428571" in out


def test_solve_json(capsys):
    code, out, _ = run(capsys, "solve", "8", "3", "1", "4", "--ops", "×÷−", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["integer_results"] is False
    assert data["operators"] == "-*/" and data["numbers"] == [1, 3, 4, 8]
    assert data["high"]["value"] == 20 and data["high"]["distance"] == 0
    assert data["high"]["equation"] == "3 ÷ 1 × 8 − 4"
    assert set(data["low"]) >= {"equation", "value", "distance", "target"}


def test_solve_no_valid_equation(capsys):
    code, out, _ = run(capsys, "solve", "0", "0", "0", "0", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["low"] is None and data["high"] is None
    _, out, _ = run(capsys, "solve", "0", "0", "0", "0")
    assert out.count("no valid equation") == 2


def test_solve_rules_classic_means_whole_results(capsys):
    argv = ("solve", "1", "2", "3", "4", "--ops", "-*/", "--json")
    _, out, _ = run(capsys, *argv)
    assert json.loads(out)["high"]["value"] == 11.5
    for extra in (("--rules", "classic"), ("--integer",), ("--rules", "standard", "--integer")):
        _, out, _ = run(capsys, *argv, *extra)
        data = json.loads(out)
        assert data["integer_results"] is True and data["high"]["value"] == 10
    _, out, _ = run(capsys, *argv, "--rules", "duel")
    assert json.loads(out)["integer_results"] is False


def test_solve_rules_from_yaml(capsys, tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("preset: classic\n")
    _, out, _ = run(capsys, "solve", "1", "2", "3", "4", "--ops", "-*/", "--rules", str(path),
                    "--json")
    assert json.loads(out)["integer_results"] is True


def test_ops_starting_with_minus(capsys):
    code, out, _ = run(capsys, "solve", "8", "3", "1", "4", "--ops", "-*/")
    assert code == 0 and "3 ÷ 1 × 8 − 4 = 20" in out


@pytest.mark.parametrize("argv, message", [
    (("solve", "1", "2", "3", "4", "5"), "exactly 4 numbers"),
    (("solve", "1", "2", "3", "11"), "not a card value"),
    (("solve", "1", "2", "3", "four"), "invalid int value"),
    (("solve", "1", "2", "3", "4", "--ops", "+-^"), "unknown operator"),
    (("solve", "1", "2", "3", "4", "--ops", "+-"), "2 operator(s) has exactly 3 numbers"),
    (("solve", "1", "2", "3", "4", "--roots", "4"), "roots must be"),
    (("solve", "1", "2", "3", "4", "--rules", "nosuch"), "unknown rules"),
    (("solve", "1", "2", "3", "4", "--rules", "/nonexistent/rules.yaml"), "No such file"),
    (("solve", "1", "2", "3", "4", "--frobnicate"), "unrecognized arguments"),
    ((), "required"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("hilo: error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_demo(capsys):
    code, out, _ = run(capsys, "demo")
    assert code == 0
    assert "√4 ÷ 7 + 9 − 8 = 1.285714286" in out
    assert "8 × 3 ÷ 1 − 4 = 20" in out
    assert out.count("Low  (target  1)") == 2


def test_console_entry_point_subprocess():
    cmd = [sys.executable, "-m", "hilo_env.cli", "solve", "4", "7", "9", "8", "--ops", "/+-",
           "--roots", "1", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["low"]["equation"] == "√4 ÷ 9 + 8 − 7"
    bad = subprocess.run([*cmd[:4], "11", "7", "9", "8"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_a_reader_that_stops_early_gets_no_error():
    """``hilo demo | head -1``: the closed pipe ends the command quietly."""
    proc = subprocess.Popen([sys.executable, "-m", "hilo_env.cli", "demo"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the command writes anything: its first write fails
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait() == EXIT_PIPE
    assert stderr == ""
