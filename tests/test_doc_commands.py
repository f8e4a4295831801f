"""Every ``hilo`` command line of README.md and docs/*.md runs, as a new user types it, from a
folder outside the repository (issue 31, Proof).

Command lines are read from the documents' code blocks and backtick spans. Each runs through
``hilo_env.cli.main`` in a fresh empty folder (the console script itself runs in
:func:`test_the_console_script_runs_outside_the_repository`), with its budgets made small:
the options of :data:`SMALL` get their small value, and a command that plays or trains without
naming a budget gets one (:data:`ADDED`). It must exit with status 0. Not run, each for a
reason: templates (placeholders such as ``AGENT`` or ``<game>``, ``[options]``, ``...``,
``a|b`` alternatives), a bare command name of a command that needs arguments (``hilo
exploit`` in a sentence), and the commands of :data:`SKIP`, whose budget cannot be made small.
"""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from hilo_env import cli, games

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SMALL = {"--hands": "10", "--games": "4", "--rounds": "6", "--minutes": "0.02",
         "--decisions": "2000", "--total-timesteps": "1000", "--iterations": "1",
         "--response-decisions": "2000", "--evals": "1"}
"""Budget options and the small values the commands run with."""
COUNTED = ("tournament", "gauntlet", "exploit")
"""Commands that play episodes: a count in the game's unit is added where none is given."""
ADDED = {"exploit": ["--evals", "1"], "train": ["--total-timesteps", "1000"]}
"""Budget options added where a command leaves them at their (large) default."""
QUIET = ("tournament", "train")
"""Commands with a progress bar, run with ``--no-progress``."""
SKIP = {
    "hilo train rllib_league": "starts Ray, and evaluates against every baseline for the "
                               "config's eval_hands, which no option shrinks; "
                               "tests/test_rllib.py trains the same config shrunk",
    "hilo train ppo_standard": "evaluates against three baselines for the config's "
                               "eval_hands, which no option shrinks (about 40 s at "
                               "--total-timesteps 1000); hilo train smoke and tiny run here",
    "hilo train ppo_overlap": "as ppo_standard (about 40 s at --total-timesteps 1000), with "
                              "collector processes; tests/test_overlap.py runs it shrunk",
    "hilo population ppo_population --start ppo_standard":
        "every agent and response is evaluated for the config's eval_hands, which no option "
        "shrinks (about 65 s at --iterations 1); tests/test_population.py runs it shrunk",
    "hilo serve": "a server: it runs until stopped",
    "hilo train lohi_2p --total-timesteps 2500000":
        "plays 64 whole lo-hi games a rollout and evaluates against its baselines for the "
        "config's eval_hands, which no option shrinks (about 30 s at --total-timesteps 1000); "
        "tests/test_train_games.py trains lo-hi and Hi MiLo! through the same trainer shrunk",
    "hilo train lohi_4p --total-timesteps 2000000": "as lohi_2p, at 4 players (about 130 s)",
    "hilo train lohi_4p_heuristic --init-model runs/lohi_4p/model.zip":
        "starts from the model its first stage (hilo train lohi_4p) writes",
    "hilo train himilo_4p": "as lohi_2p, for Hi MiLo! (about 35 s)",
    **{f"hilo train himilo_value_{n}p": "plays whole iterations of 1 M decisions and evaluates "
       "for the config's eval_hands, which no option shrinks; tests/test_value_iteration.py "
       "trains himilo_value_smoke through the same trainer" for n in (3, 4, 5)},
    "hilo train jax_smoke": "compiles the JAX trainer (about 50 s here); tests/test_jax_ppo.py "
                            "trains jax_smoke's sizes",
    "hilo train jax_scratch": "65,536 decisions an iteration at [256, 256], after a compile of "
                              "a minute or two; tests/test_jax_ppo.py trains backend jax at "
                              "jax_smoke's sizes",
    "hilo train jax_gpu": "made for a GPU: 65,536 games a step, about 1 M decisions an "
                          "iteration (minutes each on this CPU)",
    "hilo train jax_heuristic": "as jax_scratch, with the heuristic's host callback at every "
                                "opponent turn; tests/test_jax_ppo.py plays the callback",
    "hilo exploit ppo_standard --start ppo_standard --decisions 800000 --seed 1 --backend jax "
    "--evals 1": "compiles the JAX trainer at [256, 256] (a minute or two here); "
                 "tests/test_jax_ppo.py runs hilo exploit's backend jax at jax_smoke's sizes",
    "hilo exploit ppo_standard --start ppo_standard --minutes 10 --seed 1 --backend jax "
    "--evals 2": "as the 800,000-decision response with --backend jax",
    "hilo exploit ppo --start ppo --minutes 10 --seed 1 --backend jax --evals 2":
        "as the 800,000-decision response with --backend jax",
}
"""Documented commands not run here, with the reason."""
XFAIL: dict[str, str] = {}
"""Documented commands known to fail, each with its issue: the test flips when it is fixed."""
PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*$|[<\[|]|\.\.\.")


def documented_commands() -> dict[str, list[str]]:
    """Every ``hilo ...`` line of the documents (code-block lines and backtick spans, with
    whitespace folded), by the documents that show it."""
    found: dict[str, list[str]] = {}
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
        lines = [line.strip().removeprefix("$ ").split("  #")[0]
                 for block in blocks for line in block.replace("\\\n", " ").splitlines()]
        prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
        lines += re.findall(r"`(hilo [^`]+)`", prose)
        for line in lines:
            command = " ".join(line.split())
            if command.startswith("hilo "):
                found.setdefault(command, []).append(path.name)
    return found


def is_template(command: str) -> bool:
    return any(PLACEHOLDER.search(word) for word in command.split()[1:])


def is_a_name(argv: list[str]) -> bool:
    """A bare command name whose command needs arguments (or is not there yet): a mention."""
    if len(argv) != 1:
        return False
    try:
        cli.build_parser().parse_args(argv)
    except Exception:  # the parser's usage error: arguments missing
        return True
    return False


def small(argv: list[str]) -> list[str]:
    """``argv`` with its budgets made small (:data:`SMALL`, :data:`ADDED`)."""
    out = [SMALL.get(argv[i - 1], word) if i and argv[i - 1] in SMALL else word
           for i, word in enumerate(argv)]
    command = out[0]
    game = out[out.index("--game") + 1] if "--game" in out else games.DEFAULT
    unit = f"--{games.get(game).unit}s"
    if command in COUNTED and unit not in out:
        out += [unit, SMALL[unit]]
    trains = not (command == "exploit" and "lbr" in out)  # --method lbr refuses budgets
    for option, value in zip(ADDED.get(command, [])[::2], ADDED.get(command, [])[1::2],
                             strict=True):
        if option not in out and not (option == "--total-timesteps" and "--minutes" in out) \
                and trains:
            out += [option, value]
    if command == "exploit" and trains and "--minutes" not in out and "--decisions" not in out:
        out += ["--decisions", SMALL["--decisions"]]
    if command in QUIET:
        out.append("--no-progress")
    return out


COMMANDS = documented_commands()
RUN = sorted(c for c in COMMANDS if not is_template(c) and c not in SKIP
             and not is_a_name(shlex.split(c)[1:]))


def test_the_documents_give_commands_and_every_exception_is_current() -> None:
    assert len(RUN) >= 20, RUN
    assert {"hilo demo", "hilo train smoke"} <= set(RUN)
    assert set(SKIP) <= set(COMMANDS), "a skipped command left the documents"
    assert set(XFAIL) <= set(RUN), "an expected failure left the documents"


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=XFAIL[c])) if c in XFAIL
    else c for c in RUN])
def test_documented_command_runs_outside_the_repository(
        command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = small(shlex.split(command)[1:])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))  # hilo play: leave at once
    status = cli.main(argv)
    err = capsys.readouterr().err
    assert status == cli.EXIT_OK, f"{' '.join(argv)} (from {COMMANDS[command]}): {err[-800:]}"


def git_ignored(path: str) -> bool:
    """Whether git ignores ``path`` in this checkout (a run's outputs, such as ``runs/``, are
    what a documented command wrote, not files of the repository)."""
    try:
        found = subprocess.run(["git", "check-ignore", "-q", path], cwd=REPO,
                               capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return found.returncode == 0


def test_no_documented_line_reads_a_path_of_the_repository() -> None:
    """A relative path that exists only in the repository (``configs/rules/duel.yaml``) fails
    in any other folder: the documents name presets and bundled configs instead (issue 31
    item 13). Checked in every command line and every quoted string of a Python block."""
    quoted = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for block in re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
            quoted += [(word, path.name) for word in re.findall(r"[\"']([^\"'\s]+)[\"']", block)]
    words = [(word, where) for command, where in COMMANDS.items()
             for word in shlex.split(command)[1:]]
    local = [(word, where) for word, where in words + quoted
             if "/" in word and not Path(word).is_absolute() and (REPO / word).exists()
             and not git_ignored(word)]
    assert not local, f"paths that work only from the repository root: {local}"


def test_the_console_script_runs_outside_the_repository(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("hilo")
    if not script.is_file():
        pytest.skip("hilo_env is not installed with its console script here")
    for command, says in (("hilo demo --hands 1", "Rulebook example (High, target 20)"),
                          ('hilo solve 8 3 1 4 --ops "*/-"', "= 20   distance 0")):
        run = subprocess.run([str(script), *shlex.split(command)[1:]], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert says in run.stdout
