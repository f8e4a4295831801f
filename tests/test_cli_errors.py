"""Every user error on the command line: one line ``hilo: error: ...``, exit status 2, no
traceback, before any work starts; bad rule files and training configs name the file and the
field. Also the extras checked up front, ``--help``, ``--version`` and the demo's seating."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

import pytest

from hilo_env import cli, games
from hilo_env.agents import names as agent_names
from hilo_env.cli import EXIT_USAGE, main
from hilo_env.equation_hilo.rules import MAX_STARTING_STACK, MAX_YAML_BYTES, RuleSet
from hilo_env.training.config import TrainConfig

ALIAS_BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]"
       for a, b in zip("abcdefgh", "bcdefghi", strict=True)]
) + "\n"
"""Nine levels of nested aliases: 9**9 strings (about 387 million) if expanded."""

GOOD_CONFIG = "name: t\ntotal_timesteps: 64\nnum_envs: 2\nn_steps: 4\nbatch_size: 8\n"

# (rules file text, what the one-line message must contain besides the file's name)
BAD_RULE_FILES = {
    "preset_list": ("preset: [a]\n", "unknown rules preset"),
    "preset_number": ("preset: 5\n", "unknown rules preset"),
    "int_key": ("1: 2\n", "field names are text"),
    "deal_int": ("deal: 5\n", "'deal'"),
    "deal_null": ("deal: null\n", "'deal'"),
    "deal_text": ("deal: hidden\n", "'deal'"),
    "deal_no_bet": ("deal: [hidden, up, up, up]\n", "'bet' (at least once)"),
    "deal_numbers": ("deal: [1, 2, 3]\n", "'deal'"),
    "players_bool": ("num_players: true\n", "'num_players'"),
    "players_float": ("num_players: 2.5\n", "'num_players'"),
    "players_many": ("num_players: 9\n", "'num_players'"),
    "stack_huge": (f"starting_stack: {10**7}\n", "'starting_stack'"),
    "stack_text": ("starting_stack: lots\n", "'starting_stack'"),
    "ante_over": ("ante: 1000\n", "'ante'"),
    "swing_text": ("swing: maybe\n", "'swing'"),
    "tiebreak_list": ("tiebreak: [a]\n", "'tiebreak'"),
    "odd_chip_map": ("odd_chip: {a: 1}\n", "'odd_chip'"),
    "multiply_list": ("max_multiply: [1]\n", "'max_multiply'"),
    "unknown_field": ("num_player: 3\n", "unknown rule field"),
    "long_field": ("x" * 500 + ": 1\n", "unknown rule field"),
    "duel_three": ("preset: duel\nnum_players: 3\n", "exactly 2 players"),
    "a_list": ("- a\n- b\n", "expected a mapping"),
    "bad_yaml": ("a: [\n", "not valid YAML at line"),
    "alias_bomb": (ALIAS_BOMB, "aliases"),
    "field_twice": ("ante: 1\nswing: true\nante: 2\n", "line 3, column 1: key 'ante' is set twice"),
    "too_big": ("# " + "x" * MAX_YAML_BYTES + "\n", "larger than 64 KiB"),
}

# (config text, what the message must contain besides the file's name)
BAD_CONFIGS = {
    "rules_list": ("rules: [a]\n", "'rules'"),
    "rules_preset_list": ("rules: {preset: [a]}\n", "'rules'"),
    "rules_unknown": ("rules: nonsense\n", "'rules'"),
    "int_key": ("1: 2\n", "field names are text"),
    "baselines_int": ("baselines: [5]\n", "'baselines'"),
    "baselines_text": ("baselines: random\n", "'baselines'"),
    "baselines_unknown": ("baselines: [wizard]\n", "'baselines'"),
    "output_dir_list": ("output_dir: [a, b]\n", "'output_dir'"),
    "name_list": ("name: [a]\n", "'name'"),
    "name_dots": ("name: ..\n", "'name'"),
    "steps_bool": ("total_timesteps: true\n", "'total_timesteps'"),
    "steps_float": ("total_timesteps: 1.5\n", "'total_timesteps'"),
    "seed_negative": ("seed: -1\n", "'seed'"),
    "lr_inf": ("learning_rate: .inf\n", "'learning_rate'"),
    "lr_text": ("learning_rate: fast\n", "'learning_rate'"),
    "gamma_nan": ("gamma: .nan\n", "'gamma'"),
    "batch_one": ("batch_size: 1\n", "'batch_size'"),
    "net_arch_int": ("net_arch: 5\n", "'net_arch'"),
    "net_arch_text": ("net_arch: [a]\n", "'net_arch'"),
    "unknown_field": ("lr: 0.1\n", "unknown config field"),
    "a_list": ("- a\n", "expected a mapping"),
    "alias_bomb": (ALIAS_BOMB, "aliases"),
}


@pytest.fixture(autouse=True)
def no_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing here may train: a config that slipped through would fail the test at once."""
    def train(*args: object, **kwargs: object) -> None:
        raise AssertionError("a training run started")

    monkeypatch.setitem(sys.modules, "hilo_env.training.selfplay",
                        types.SimpleNamespace(train=train))


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_usage_error(code: int, out: str, err: str) -> str:
    """Exit status 2, one line on stderr, no traceback anywhere; returns the line."""
    assert code == EXIT_USAGE, (code, out, err)
    assert "Traceback" not in out + err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hilo: error: "), err
    assert len(lines[0]) < 1000  # no 82 MB messages
    return lines[0]


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str], str]:
    def write(name: str, text: str) -> str:
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        return str(path)

    return write


BAD_ARGV = [
    # solve
    ["solve"], ["solve", "1", "2", "3"], ["solve", "1", "2", "3", "4", "5"],
    ["solve", "1", "2", "3", "11"], ["solve", "a", "b", "c", "d"],
    ["solve", "1", "2", "3", "4", "--ops", "++"], ["solve", "1", "2", "3", "4", "--ops", "abc"],
    ["solve", "1", "2", "3", "4", "--ops", ""], ["solve", "1", "2", "3", "4", "--roots", "4"],
    ["solve", "1", "2", "3", "4", "--roots", "-1"], ["solve", "1", "2", "3", "4", "-r", "x"],
    ["solve", "1", "2", "3", "4", "--rules", "nonsense"], ["solve", "1", "2", "3", "4", "--ops"],
    ["solve", "1", "2", "3", "4", "--bogus"],
    # demo
    ["demo", "--hands", "0"], ["demo", "--hands", "-3"], ["demo", "--hands", "x"],
    ["demo", "--seed", "x"], ["demo", "--seed", "-1"], ["demo", "--rules", "nonsense"],
    ["demo", "--rules", "no.yaml"],
    ["demo", "--rules", "x" * 5000],
    # tournament
    ["tournament"], ["tournament", "random", "wizard"], ["tournament", "random", "5"],
    ["tournament", "random", "caller", "--hands", "0"],
    ["tournament", "random", "caller", "--hands", "-1"],
    ["tournament", "random", "ppo:/no/model.zip", "--hands", "2"],
    ["tournament", "random", "caller", "--players", "1", "--hands", "2"],
    ["tournament", "random", "caller", "--players", "9", "--hands", "2"],
    ["tournament", "random", "caller", "--players", "x"],
    ["tournament", "random", "caller", "--game", "chess"],
    ["tournament", "random", "caller", "--seed", "-5", "--hands", "2"],
    ["tournament", "random", "caller", "--hands", "2", "--plot", "chart.xyz"],
    ["tournament", "random", "random", "--hands", "2"], ["tournament", "random", "--hands", "2"],
    ["tournament", "random", "caller", "--rules", "duel", "--players", "3", "--hands", "2"],
    # play
    ["play", "--opponent", "nobody"], ["play", "--opponent", ""], ["play", "--seat", "5"],
    ["play", "--seat", "-1"], ["play", "--hands", "0"], ["play", "--rules", "nonsense"],
    ["play", "--opponent", "ppo:/nope.zip"], ["play", "--players", "9"],
    # train
    ["train"], ["train", "missing.yaml"], ["train", "smoke", "--total-timesteps", "x"],
    # the command itself
    [], ["bogus"], ["--bogus"],
]


@pytest.mark.parametrize("argv", BAD_ARGV, ids=lambda argv: " ".join(argv)[:40] or "(none)")
def test_bad_invocation_is_one_line_exit_2(capsys: pytest.CaptureFixture[str],
                                           argv: list[str]) -> None:
    assert_usage_error(*run(capsys, argv))


@pytest.mark.parametrize("command", [
    ["demo", "--hands", "1"], ["play", "--hands", "1"],
    ["tournament", "random", "caller", "--hands", "2"],
    ["solve", "1", "2", "3", "4"],
])
@pytest.mark.parametrize("case", sorted(BAD_RULE_FILES))
def test_bad_rule_file_names_file_and_field(capsys: pytest.CaptureFixture[str],
                                            write: Callable[[str, str], str],
                                            command: list[str], case: str) -> None:
    text, fragment = BAD_RULE_FILES[case]
    path = write(case, text)
    start = time.perf_counter()
    line = assert_usage_error(*run(capsys, [*command, "--rules", path]))
    assert time.perf_counter() - start < 2  # the alias bomb and the big file are not expanded
    assert path in line and fragment in line, line


def test_bad_rule_file_is_a_value_error_everywhere(write: Callable[[str, str], str]) -> None:
    for case, (text, fragment) in BAD_RULE_FILES.items():
        path = write(case, text)
        with pytest.raises(ValueError, match=re.escape(fragment)):
            RuleSet.from_yaml(path)


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_training_config_names_file_and_field(capsys: pytest.CaptureFixture[str],
                                                  write: Callable[[str, str], str],
                                                  case: str) -> None:
    text, fragment = BAD_CONFIGS[case]
    path = write(case, GOOD_CONFIG + text if not text.startswith("-") else text)
    line = assert_usage_error(*run(capsys, ["train", path]))
    assert path in line and fragment in line, line
    with pytest.raises(ValueError):
        TrainConfig.from_yaml(path)


def test_train_config_with_a_bad_rules_file(capsys: pytest.CaptureFixture[str],
                                             write: Callable[[str, str], str]) -> None:
    rules = write("nobet", BAD_RULE_FILES["deal_no_bet"][0])
    config = write("config", GOOD_CONFIG + f"rules: {rules}\n")
    line = assert_usage_error(*run(capsys, ["train", config]))
    assert config in line and "'rules'" in line and rules in line and "'deal'" in line


@pytest.mark.parametrize("override", [
    ["--total-timesteps", "0"], ["--name", "a/b"], ["--name", ""], ["--output-dir", ""],
])
def test_bad_train_override(capsys: pytest.CaptureFixture[str],
                            write: Callable[[str, str], str], override: list[str]) -> None:
    assert_usage_error(*run(capsys, ["train", write("good", GOOD_CONFIG), *override]))


def test_rules_bounds() -> None:
    RuleSet(starting_stack=MAX_STARTING_STACK)
    with pytest.raises(ValueError, match=r"'starting_stack'.*1\.\.10,000"):
        RuleSet(starting_stack=MAX_STARTING_STACK + 1)
    with pytest.raises(ValueError, match=r"'deal'.*'bet' \(at least once\)"):
        RuleSet(deal=["hidden", "up", "up", "up"])
    with pytest.raises(ValueError, match="'deal'"):
        RuleSet(deal=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError) as info:  # a huge bad value is quoted short
        RuleSet(tiebreak="x" * 100_000)
    assert len(str(info.value)) < 200


NETWORK = Path(__file__).resolve().parent.parent / "agents" / "models" / "himilo_value_4p.npz"


@pytest.mark.parametrize("damage", ["truncated", "flipped", "not_a_zip"])
@pytest.mark.parametrize("argv", [["tournament", "random", "jax:{}", "--hands", "2"],
                                  ["tournament", "random", "value:{}", "--game", "himilo",
                                   "--players", "4", "--rounds", "2"]], ids=["jax", "value"])
def test_a_corrupt_network_file_is_one_line_naming_it(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path, argv: list[str],
                                                      damage: str) -> None:
    data = NETWORK.read_bytes()
    path = tmp_path / "net.npz"
    path.write_bytes({"truncated": data[:len(data) // 2],
                      "flipped": data[:200] + bytes(b ^ 0xFF for b in data[200:260]) + data[260:],
                      "not_a_zip": b"PK\x03\x04 not a zip"}[damage])
    if argv[2].startswith("value:"):  # the value agent reads its rules file first
        rules = NETWORK.with_name(NETWORK.name + ".rules.yaml")
        path.with_name(path.name + ".rules.yaml").write_bytes(rules.read_bytes())
    line = assert_usage_error(*run(capsys, [a.format(path) for a in argv]))
    assert f"cannot read the policy file {str(path)!r}" in line


def test_subprocess_errors_have_no_traceback(write: Callable[[str, str], str]) -> None:
    for argv in (["demo", "--rules", write("nobet", BAD_RULE_FILES["deal_no_bet"][0])],
                 ["train", write("bomb", ALIAS_BOMB)], ["solve", "1", "2"]):
        done = subprocess.run([sys.executable, "-m", "hilo_env.cli", *argv],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == EXIT_USAGE, done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
        assert done.stderr.startswith("hilo: error: ")


# ---------------------------------------------------------------------------------------------
# extras, checked before any work


def hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` look uninstalled, as a missing extra would."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


@pytest.mark.parametrize("argv, missing", [
    (["tournament", "random", "caller", "--hands", "2", "--plot", "t.png"], "matplotlib"),
    # a user's SB3 model (the shipped ones play in NumPy, with no extra)
    (["tournament", "random", "ppo:{model}", "--hands", "2"], "torch"),
    (["play", "--opponent", "ppo:{model}"], "sb3_contrib"),
    (["train", "smoke"], "torch"),
])
def test_missing_extra_fails_first_naming_it(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch,
                                             argv: list[str], missing: str,
                                             tmp_path: Path) -> None:
    model = tmp_path / "model.zip"
    model.touch()
    argv = [arg.format(model=model) for arg in argv]
    hide(monkeypatch, missing)
    monkeypatch.setattr(cli, "install_line", lambda extra: f"pip install 'hilo_env[{extra}]'")
    code, out, err = run(capsys, argv)
    line = assert_usage_error(code, out, err)
    assert out == ""  # no header, no table, no prompt: nothing ran
    assert f"needs the 'train' extra ({missing} missing): pip install 'hilo_env[train]'" in line


def test_install_line_fits_the_install(monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path) -> None:
    class Dist:
        def __init__(self, direct: str | None) -> None:
            self.direct = direct

        def read_text(self, name: str) -> str | None:
            return self.direct

    checkout = tmp_path / "checkout"
    checkout.mkdir()
    editable = f'{{"url": "file://{checkout}", "dir_info": {{"editable": true}}}}'
    monkeypatch.setattr(cli.importlib.metadata, "distribution", lambda name: Dist(editable))
    assert cli.install_line("train") == f"pip install -e '{checkout}[train]'"
    monkeypatch.chdir(checkout)
    assert cli.install_line("train") == "pip install -e '.[train]'"
    monkeypatch.setattr(cli.importlib.metadata, "distribution", lambda name: Dist(None))
    assert cli.install_line("train") == "pip install 'hilo_env[train]'"


# ---------------------------------------------------------------------------------------------
# --help, --version, demo seating


def test_help_shows_defaults_agents_and_no_double_percent(
        capsys: pytest.CaptureFixture[str]) -> None:
    texts = {}
    for command in ("solve", "demo", "tournament", "play", "train"):
        assert main([command, "--help"]) == 0
        texts[command] = capsys.readouterr().out
    assert all("%%" not in text for text in texts.values())
    flat = {command: " ".join(text.split()) for command, text in texts.items()}  # any width
    assert "95% confidence" in flat["tournament"]
    for game in games.names():  # every game's agents, any another test registered too
        listed = f"{game}: {', '.join(agent_names(game))}"
        assert listed in flat["tournament"] and listed in flat["play"]
    assert "ppo, " in flat["tournament"] and "ppo, " in flat["play"]
    assert "(default: standard)" in flat["demo"] and "(default: 0)" in flat["solve"]
    assert "(default: +-/)" in flat["solve"]
    assert "(default: the game's baseline: heuristic for hilo" in flat["play"]
    assert "--hands N, --games N, --rounds N" in flat["tournament"]
    assert "total wager" in flat["play"]
    assert "[train]" in flat["train"]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"hilo {cli.version()}"


def test_demo_seats_one_agent_per_player(capsys: pytest.CaptureFixture[str],
                                         write: Callable[[str, str], str]) -> None:
    code, out, err = run(capsys, ["demo", "--hands", "1", "--rules",
                                  write("four", "num_players: 4\n")])
    assert code == 0, err
    assert "heuristic vs caller vs heuristic #2 vs caller #2, 1 hand," in out
    assert "These rules seat 4 players" in out


# ---------------------------------------------------------------------------------------------
# counts bounded, outputs and names checked, flags that would be ignored refused: before any
# work


@pytest.mark.parametrize("argv, bound", [
    (["tournament", "random", "caller", "--hands", "1000000000000000"], "--hands must be at most"),
    (["tournament", "random", "caller", "--game", "lohi", "--games", "10000001"],
     "--games must be at most 10,000,000"),
    (["play", "--hands", "10000001"], "--hands must be at most"),
    (["gauntlet", "random", "--hands", "10000001"], "--hands must be at most"),
    (["demo", "--hands", "10000001"], "--hands must be at most"),
    (["exploit", "random", "--hands", "10000001"], "--hands must be at most"),
    (["exploit", "random", "--decisions", "10000000000000"], "--decisions must be at most"),
    (["exploit", "random", "--evals", "1000000"], "--evals must be at most"),
    (["exploit", "random", "--minutes", "1e12"], "--minutes must be a number > 0 and at most"),
    (["exploit", "random", "--seed", "4294967296"], "--seed must be at most 4,294,967,295"),
    (["population", "ppo_population", "--iterations", "1000000"], "--iterations must be at most"),
    (["population", "ppo_population", "--response-decisions", "10000000000000"],
     "--response-decisions must be at most"),
    (["population", "ppo_population", "--response-weight", "1000000"],
     "--response-weight must be at most"),
    (["population", "ppo_population", "--hands", "10000001"], "--hands must be at most"),
    (["strength", "--deals", "10000001"], "--deals must be at most"),
    (["strength", "--gauntlet-deals", "10000001"], "--gauntlet-deals must be at most"),
    (["strength", "--lbr-deals", "10000001"], "--lbr-deals must be at most"),
    (["strength", "--response-decisions", "10000000000000"],
     "--response-decisions must be at most"),
    (["strength", "--response-seeds", "1000000"], "--response-seeds must be at most"),
    (["strength", "--jobs", "1000000"], "--jobs must be at most"),
    (["train", "smoke", "--total-timesteps", "10000000000000"], "'total_timesteps'"),
])
def test_a_huge_count_is_refused_naming_the_bound(capsys: pytest.CaptureFixture[str],
                                                  argv: list[str], bound: str) -> None:
    line = assert_usage_error(*run(capsys, argv))
    assert bound in line, line


@pytest.fixture
def nothing_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The long commands' work fails the test if it starts."""
    def work(*args: object, **kwargs: object) -> None:
        raise AssertionError("the command's work started")

    from hilo_env.training import evaluate, strength

    monkeypatch.setattr(strength, "build", work)
    monkeypatch.setattr(evaluate, "tournament", work)


@pytest.mark.parametrize("argv, message", [
    (["strength", "--plot", "x.xyz"], "--plot cannot write a .xyz file"),
    (["strength", "--output", "{file}/x.md"], "is a file, not a folder"),
    (["strength", "--plot", "{folder}/"], "is a folder: give a file name"),
    (["strength", "--output", "{folder}"], "is a folder: give a file name"),
    (["strength", "--table-lbr-agents", "heuristic", "nosuch"],
     "--table-lbr-agents: unknown agent 'nosuch'"),
    (["tournament", "random", "caller", "--hands", "2", "--save-replays", "{file}/replays"],
     "--save-replays"),
    (["tournament", "random", "caller", "--hands", "2", "--plot", "{folder}/"],
     "is a folder: give a file name"),
    (["play", "--save-replay", "{folder}"], "--save-replay"),
    (["play", "--save-replay", "{file}/match.json"], "is a file, not a folder"),
    (["exploit", "random", "--decisions", "9", "--output-dir", "{file}"],
     "is a file, not a folder"),
    (["exploit", "random", "--decisions", "9", "--output-dir", ""], "--output-dir is empty"),
])
def test_outputs_and_names_are_checked_before_any_work(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path, nothing_runs: None,
                                                       argv: list[str], message: str) -> None:
    (tmp_path / "a_file").write_text("keep")
    (tmp_path / "a_folder").mkdir()
    where = {"file": tmp_path / "a_file", "folder": tmp_path / "a_folder"}
    code, out, err = run(capsys, [a.format(**where) for a in argv])
    assert message in assert_usage_error(code, out, err)
    assert out == ""  # no header, no table, no prompt
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a_file", "a_folder"]
    assert (tmp_path / "a_file").read_text() == "keep"


def test_a_plot_without_a_file_type_is_a_png_named_as_written(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, ["tournament", "random", "caller", "--hands", "2",
                                  "--plot", str(tmp_path / "chart")])
    assert code == 0, err
    assert out.splitlines()[-1] == f"plot saved to {tmp_path / 'chart.png'}"
    assert [p.name for p in tmp_path.iterdir()] == ["chart.png"]


@pytest.mark.parametrize("start", ["ppo:{tmp}/corrupt.zip", "ppo:{models}/lohi_ppo_2p.zip"])
def test_a_refused_exploit_start_writes_nothing(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path, start: str) -> None:
    (tmp_path / "corrupt.zip").write_bytes(b"PK\x03\x04 not a model")
    run_dir = tmp_path / "runs" / "exploit_random"
    run_dir.mkdir(parents=True)
    (run_dir / "config.yaml").write_text("an earlier run's\n")
    before = sorted(tmp_path.rglob("*"))
    start = start.format(tmp=tmp_path, models=NETWORK.parent)
    code, out, err = run(capsys, ["exploit", "random", "--start", start, "--decisions", "100",
                                  "--output-dir", str(tmp_path / "runs")])
    assert "--start: agent" in assert_usage_error(code, out, err)
    assert out == ""
    assert sorted(tmp_path.rglob("*")) == before
    assert (run_dir / "config.yaml").read_text() == "an earlier run's\n"


@pytest.mark.parametrize("argv, message", [
    (["exploit", "random", "--method", "lbr", "--backend", "jax"],
     "--method lbr trains nothing, so --backend would be ignored"),
    (["exploit", "random", "--method", "lbr", "--start", "ppo", "--minutes", "3"],
     "--start, --minutes would be ignored: leave them out"),
    (["exploit", "random", "--method", "lbr", "--backend", "sb3", "--evals", "2",
      "--output-dir", "x", "--decisions", "9"], "--decisions, --evals, --output-dir, --backend"),
    (["exploit", "random", "--rules", "tiny", "--minutes", "2", "--hands", "5"],
     "exploitability is exact (OpenSpiel): nothing is trained or played, so --minutes, "
     "--hands would be ignored"),
    (["gauntlet", "random", "--opponents", "caller", "random", "caller"],
     "--opponents names 'caller' twice"),
])
def test_flags_the_command_would_ignore_are_refused(capsys: pytest.CaptureFixture[str],
                                                    argv: list[str], message: str) -> None:
    code, out, err = run(capsys, argv)
    assert message in assert_usage_error(code, out, err)
    assert out == ""
