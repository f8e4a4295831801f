"""The layout holds: data flows one way (the envs and the agents beside each other, neither
importing the other), no two modules import each other even through a chain, no module
imports another's underscored name, no tool outside a game's folder and the registry asks
for a game by its name, and a wheel installs nothing generic at the top of site-packages
(docs/architecture.md)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIRS = {"hilo_env": ROOT / "hilo_env", "hilo_env.agents": ROOT / "agents",
                "hilo_env.training": ROOT / "training"}
RL_LIBRARIES = ("gymnasium", "pettingzoo", "stable_baselines3", "sb3_contrib", "torch", "ray",
                "pyspiel", "jax")
ABOVE_THE_GAME = ("hilo_env.agents", "hilo_env.envs", "hilo_env.training", "hilo_env.cli")
GAMES = tuple(sorted(d.name for d in (ROOT / "hilo_env").iterdir()
                     if (d / "engine.py").is_file()))
"""The game folders: each holds a game's engine."""
ABOVE_THE_AGENTS = ("hilo_env.envs", "hilo_env.training", "hilo_env.cli")
ABOVE_THE_ENVS = ("hilo_env.agents", "hilo_env.training", "hilo_env.cli")
"""What the envs may not import: they take opponents through a protocol of their own."""
ENV_TOOLS = ("hilo_env.envs.openspiel_policy",)
"""Modules under envs/ that are tools over agents rather than envs (exact exploitability of
an agent by name, the ``cfr_tiny`` model's writer): they may import the agents."""
JAX_BACKEND = ("hilo_env.equation_hilo.jax_backend", "hilo_env.equation_hilo.jax_batching",
               "hilo_env.equation_hilo.jax_chance")
"""The game-folder modules that may import jax (and nothing else of RL_LIBRARIES)."""


def modules() -> dict[str, Path]:
    """Every module of the installed package by its dotted name."""
    out = {}
    for package, folder in PACKAGE_DIRS.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("").parts
            name = ".".join((package, *rel))
            out[name.removesuffix(".__init__")] = path
    return out


def imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names imported from it) for every import statement of a file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append((node.module, [alias.name for alias in node.names]))
    return out


def test_every_module_is_found() -> None:
    assert {"equation_hilo", "lohi"} <= set(GAMES)
    found = modules()
    for name in ("hilo_env.equation_hilo.engine", "hilo_env.agents.baselines",
                 "hilo_env.training.selfplay", "hilo_env.envs.vector_env", "hilo_env.cli"):
        assert name in found


@pytest.mark.parametrize("name", sorted(modules()))
def test_imports_flow_one_way(name: str) -> None:
    for module, names in imports(modules()[name]):
        imported = [module, *(f"{module}.{n}" for n in names)]
        game = next((g for g in GAMES if f"{name}.".startswith(f"hilo_env.{g}.")), None)
        if game is not None:  # a game folder: no RL library, nothing above it, no other game
            others = tuple(f"hilo_env.{g}" for g in GAMES if g != game)
            jax_ok = name in JAX_BACKEND and (module == "jax" or module.startswith("jax."))
            assert jax_ok or not module.startswith(RL_LIBRARIES), (name, module)
            assert not any(i.startswith(ABOVE_THE_GAME + others) for i in imported), (name,
                                                                                    module)
        if name.startswith("hilo_env.agents"):
            assert not any(i.startswith(ABOVE_THE_AGENTS) for i in imported), (name, module)
        if name.startswith("hilo_env.envs") and name not in ENV_TOOLS:
            assert not any(i.startswith(ABOVE_THE_ENVS) for i in imported), (name, module)
        if name != "hilo_env.cli":
            assert module != "hilo_env.cli", name


def import_graph() -> dict[str, set[str]]:
    """Each module's imports of the package's modules: every import statement of the file,
    inside functions and ``TYPE_CHECKING`` blocks too."""
    found = modules()
    graph: dict[str, set[str]] = {}
    for name, path in found.items():
        graph[name] = set()
        for module, names in imports(path):
            for imported in [f"{module}.{n}" for n in names] or [module]:
                target = imported if imported in found else module
                if target in found and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycles_are_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_modules_import_each_other() -> None:
    """Not even lazily, behind ``TYPE_CHECKING`` or through a chain of modules."""
    assert cycles(import_graph()) == []


ENVS_WITH_TORCH = {"hilo_env.envs.sb3": "stable_baselines3",
                   "hilo_env.envs.rllib_env": "ray.rllib"}
"""The env modules whose own library imports torch."""


def test_importing_an_env_imports_no_torch() -> None:
    envs = [n for n in modules() if n.startswith(("hilo_env.envs", "hilo_env.hilo_v0",
                                                 "hilo_env.lohi_v0", "hilo_env.himilo_v0"))
            and n not in ENVS_WITH_TORCH]
    assert "hilo_env.envs.vector_env" in envs and "hilo_env.envs.aec_learner" in envs
    check = (f"import sys; import {', '.join(envs)}; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch')[:1])")
    out = subprocess.run([sys.executable, "-c", check], text=True, capture_output=True,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


GAME_NAME_COMPARISON = re.compile(
    r"""(==|!=|\bis|\bin|\bcase)\s*[([{]?\s*(games\.DEFAULT\b|["'](NAMES)["'])"""
    r"""|(games\.DEFAULT\b|["'](NAMES)["'])\s*(==|!=|\bis\b)""")
"""A comparison with the default game or a game's name (NAMES: every registered game's):
``==``, ``!=``, ``is``, membership in a literal, a ``case``."""


def game_name_comparisons(text: str, names: list[str]) -> list[str]:
    """The lines of ``text`` that compare with the default game or one of ``names``."""
    pattern = re.compile(GAME_NAME_COMPARISON.pattern.replace("NAMES", "|".join(names)))
    return [line.strip() for line in text.splitlines() if pattern.search(line)]


def test_game_name_comparisons_are_found() -> None:
    names = ["hilo", "lohi"]
    compared = ['if spec.name == games.DEFAULT:', 'x = game != "lohi"', "if 'hilo' == g: pass",
                "ok = g in ('lohi', 'hilo')", 'case "hilo":', "if games.DEFAULT is name:"]
    named = ['game = "lohi"', "spec = games.get(games.DEFAULT)", 'make("x", game="hilo")',
             'if spec.can("jax"):']
    assert game_name_comparisons("\n".join(compared + named), names) == compared


def test_no_tool_asks_for_a_game_by_name() -> None:
    """Outside a game's folder and the registry, a tool asks the spec what a game can do
    (``spec.can``, ``spec.require``), never whether it is a given game."""
    from hilo_env import games

    registry = {"hilo_env.games", "hilo_env.game_spec"}
    offenders = {}
    for name, path in modules().items():
        game = next((g for g in GAMES if f"{name}.".startswith(f"hilo_env.{g}.")), None)
        if game is None and name not in registry:
            found = game_name_comparisons(path.read_text(), games.names())
            if found:
                offenders[name] = found
    assert offenders == {}


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_underscored_name_crosses_modules(name: str) -> None:
    for module, names in imports(modules()[name]):
        if module.startswith("hilo_env"):
            private = [n for n in names if n.startswith("_") and n != "__all__"]
            assert not private, (name, module, private)


def test_the_wheel_installs_only_hilo_env(tmp_path: Path) -> None:
    """agents/, training/ and configs/ install as hilo_env.agents, hilo_env.training and
    hilo_env.configs; the LICENSE ships; the bundled configs are found by name when installed."""
    pytest.importorskip("setuptools")
    source = tmp_path / "source"  # a copy: a build leaves build/ behind in its source tree
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("hilo_env", "agents", "training", "configs"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps",
                    "--no-build-isolation", "--quiet", "-w", str(tmp_path)],
                   check=True, cwd=tmp_path, capture_output=True)
    wheel = next(tmp_path.glob("hilo_env-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"hilo_env"}
    bundled = [f"hilo_env/configs/{p.relative_to(ROOT / 'configs').as_posix()}"
               for p in sorted((ROOT / "configs").glob("*/*.yaml"))]
    assert "hilo_env/configs/train/smoke.yaml" in bundled
    assert "hilo_env/configs/rules/duel.yaml" in bundled
    for inside in ("hilo_env/agents/baselines.py", "hilo_env/agents/models/ppo_standard.npz",
                   "hilo_env/training/selfplay.py", "hilo_env/equation_hilo/engine.py",
                   "hilo_env/envs/vector_env.py", *bundled):
        assert inside in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)

    # installed from the wheel, run from a folder that is not the repository
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", str(wheel), "--no-deps", "--quiet",
                    "--target", str(site)], check=True, capture_output=True)
    check = ("from hilo_env.training.config import TrainConfig, config_path; "
             "print(config_path('smoke')); print(TrainConfig.from_yaml('smoke').name)")
    out = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, text=True,
                         capture_output=True, env={**os.environ, "PYTHONPATH": str(site)})
    assert out.returncode == 0, out.stderr
    found, name = out.stdout.split()
    assert Path(found) == site / "hilo_env" / "configs" / "train" / "smoke.yaml"
    assert name == "smoke"


def test_bundled_configs_are_found_by_name(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """`hilo train smoke` reads the bundled configs/train/smoke.yaml from any folder; a file
    wins over a name; an unknown name lists the bundled ones."""
    from hilo_env.training.config import bundled_configs, config_path

    monkeypatch.chdir(tmp_path)
    assert set(bundled_configs()) == {p.stem for p in (ROOT / "configs" / "train").glob("*.yaml")}
    for name in ("smoke", "selfplay", "ppo_standard"):
        assert config_path(name).read_text() == (ROOT / f"configs/train/{name}.yaml").read_text()
    (tmp_path / "smoke").write_text("name: mine\n")
    assert config_path("smoke") == Path("smoke")
    with pytest.raises(ValueError, match=r"bundled config \[.*'ppo_standard', .*'smoke'"):
        config_path("smok")
    for missing in ("configs/train/smoke.yaml", "smoke.yaml"):
        with pytest.raises(ValueError, match="no training config at"):
            config_path(missing)
