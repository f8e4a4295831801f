"""The ``hilo`` command.

``hilo solve 4 7 9 8 --ops "/+-" --roots 1 [--json] [--rules classic|PATH] [--integer]``
    The best Low and High equations of a hand.
``hilo demo [--hands 3] [--seed 0] [--rules R]``
    Baseline agents (heuristic and caller, in turn, one per seat the rules have) play a few
    hands, narrated; then the rulebook's two example hands, solved.
``hilo tournament AGENT... [--game G] [--hands|--games|--rounds N] [--rules R] [--players N]
[--seed 0] [--plot F]``
    A duplicate round robin between a game's agents, seats rotated: each agent's score in the
    game's unit with 95% CIs (``training.evaluate``); in a cooperative game (Hi MiLo!) each
    agent as a whole team and alone among each other's team.
``hilo play [--game G] [--opponent NAME] [--rules R] [--players N] [--hands|--games|--rounds N]
[--seed 0] [--seat 0]``
    Play in the terminal against (or, in a cooperative game, with) any agent of the game; the
    default opponent is the game's rule-based baseline (``agents.play``).
``hilo train NAME|PATH [--total-timesteps N] [--output-dir D] [--name N]``
    Self-play PPO training from a bundled config by name (``hilo train --help`` lists them:
    ``training.config.bundled_configs``) or a YAML file, of the config's ``game`` with its
    ``backend``: ``sb3`` (MaskablePPO, ``training.selfplay``), ``rllib`` (Ray RLlib,
    ``training.rllib_train``) or ``jax`` (PPO in JAX, ``training.jax_ppo``); the config is
    checked first.
``hilo gauntlet AGENT [--game G] [--rules R] [--hands|--games|--rounds N] [--opponents ...]``
    An agent against each other agent of its game (Equation Hi-Lo: the gauntlet's scripted
    styles), duplicate deals (``training.gauntlet``).
``hilo exploit AGENT [--game G] [--rules R] [--minutes M | --decisions N] [--start ppo]
[--hands|--games N] [--method response|lbr] [--backend sb3|jax]``
    A lower bound on an agent's exploitability from a trained best response, in a competitive
    game (``training.exploit``); on Equation Hi-Lo rules OpenSpiel can enumerate, the exact
    NashConv (``envs.openspiel_policy``). ``--method lbr``: Equation Hi-Lo's local best
    response instead, trained on nothing (``training.lbr``). ``--backend jax``: the response
    trained by PPO in JAX (``training.jax_ppo``), for an agent with a jitted form.
``hilo population ppo_population|PATH [--start ppo] [--iterations 3] [--response-decisions N]``
    A PSRO-style loop: agents trained against their past selves and best responses to them,
    with each agent's exploitability bound (``training.population``).
``hilo strength [--deals N] [--gauntlet-deals N] [--lbr-deals N] [--response-decisions N]
[--response-seeds N] [--table-lbr-agents AGENT ...] [--jobs N]``
    One strength table of every shipped agent of every game: docs/strength.md and
    docs/strength.png (``training.strength``).
``hilo serve [--host 127.0.0.1] [--port 8765] [--public] [--max-games N] [--idle-minutes M]``
    A local web table (the ``web`` extra): play any game against agents, watch agents play,
    step through a replay (``hilo_env.web``, docs/web.md).

``hilo --version``
    The installed version of hilo_env.

Every game of the registry (``hilo_env.games``: ``hilo``, the default, ``lohi``, ``himilo``)
is served by the same commands through ``--game``; its rules, presets and player counts are
checked by its spec, and ``--hands``, ``--games`` and ``--rounds`` are one option counting the
game's unit (hands of Equation Hi-Lo, games of lo-hi, rounds of Hi MiLo!): the other two are
refused naming the right one. ``--rules`` defaults to the game's first preset.

Bad input prints one line, ``hilo: error: ...``, on stderr and exits with status 2, before any
work starts: a command checks its arguments (every count bounded above as well as below,
naming the bound: ``training.config.MAX_EPISODES``, ``MAX_DECISIONS``...; a flag the command
would ignore is refused), the agents it names, its rules, the files and folders it will write
(``hilo_env.outputs``) and the extras it needs (``train``: torch, stable-baselines3,
sb3-contrib, matplotlib; ``rllib``: ray, torch) first, and names the extra with the install
line that fits how hilo_env was installed. A refused command writes nothing.
Each subcommand is a ``_cmd_*`` function registered in ``build_parser``; add new ones there.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import yaml

from hilo_env import games
from hilo_env.agents.play import view
from hilo_env.agents.registry import names as agent_names
from hilo_env.agents.registry import needs_extra
from hilo_env.equation_hilo import solver
from hilo_env.equation_hilo.rules import RuleSet, resolve
from hilo_env.game_spec import UNITS, GameSpec
from hilo_env.outputs import check_file, check_folder
from hilo_env.training.config import (
    MAX_DECISIONS,
    MAX_EPISODES,
    MAX_REPEATS,
    MAX_SEED,
    MAX_THREADS,
)

EXIT_OK, EXIT_USAGE = 0, 2
EXIT_PIPE = 141  # as a shell reports a command stopped by SIGPIPE (128 + 13)
EXIT_INTERRUPTED = 130
MAX_MESSAGE = 500
"""Characters of an error message printed (a longer one is cut: ``...``)."""
GAUNTLET_COUNT = 2_000
"""Episodes of each gauntlet match when none is asked for."""
_OPS_FLAGS = ("--ops", "-o")
DEFAULT_EXPLOIT_MINUTES = 5.0
"""``hilo exploit``'s budget when neither ``--minutes`` nor ``--decisions`` is given."""
DEFAULT_EXPLOIT_DEALS = 2_000
"""Duplicate deals of each of ``hilo exploit``'s evaluations when no count is given."""
DEFAULT_EXPLOIT_EVALS = 5
"""``hilo exploit``'s evaluations over a run when ``--evals`` is not given."""
DEFAULT_RUNS = "runs"
"""The folder ``hilo exploit`` writes its run folder in when ``--output-dir`` is not given."""
MAX_MINUTES = 7 * 24 * 60.0
"""The longest ``hilo exploit --minutes``: a week."""
PLOT_FORMAT = "png"
"""The file type of a ``--plot`` named without one (``--plot chart`` writes ``chart.png``)."""
DISTRIBUTION = "hilo_env"
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "train": ("torch", "stable_baselines3", "sb3_contrib", "matplotlib"),
    "openspiel": ("pyspiel",),
    "rllib": ("ray", "torch"),
    "web": ("starlette", "uvicorn"),
    "jax": ("jax", "optax"),
}
"""The modules each pip extra of hilo_env brings, by the name they import as."""


class _UsageError(Exception):
    """Bad input from the user: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``main`` prints them), not usage text."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see '{self.prog} --help')")


class _Count(argparse.Action):
    """``--hands``, ``--games``, ``--rounds``: one option (dest ``count``) that remembers which
    spelling was typed (``count_unit``), so a command can refuse the wrong unit by name."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        namespace.count = values
        namespace.count_unit = (option_string or "--hands")[2:-1]


def _add_count(parser: argparse.ArgumentParser, what: str, default: str) -> None:
    """The count option of a command that plays a game: ``what`` one count stands for."""
    parser.add_argument(*(f"--{unit}s" for unit in UNITS), dest="count", type=int,
                        action=_Count, default=None, metavar="N",
                        help=f"{what}, in the game's unit: "
                             + ", ".join(f"--{games.get(g).unit}s for {g}"
                                         for g in games.names())
                             + f" (the other spellings are refused) (default: {default})")
    parser.set_defaults(count_unit=None)


def _agents_help() -> str:
    """Each game's agent names, for ``--help``."""
    return "; ".join(f"{g}: {', '.join(agent_names(g))}" for g in games.names())


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand; each option's help shows its default."""
    from hilo_env.training.config import bundled_configs

    per_game = _agents_help()
    presets = "; ".join(f"{g}: {', '.join(games.get(g).presets)}" for g in games.names())
    parser = _Parser(prog="hilo", description="Equation Hi-Lo: solver and game.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    deals = argparse.ArgumentParser(add_help=False)  # demo's options: Equation Hi-Lo's deals
    deals.add_argument("--rules", default="standard",
                       help="a rules preset (standard, classic, duel) or a YAML path "
                            "(default: %(default)s)")
    deals.add_argument("--seed", type=seed_value, default=0,
                       help="seed of the deals (default: %(default)s)")
    of_game = argparse.ArgumentParser(add_help=False)  # the options of every game's command
    of_game.add_argument("--game", choices=games.names(), default=games.DEFAULT,
                         help=f"which game (default: {games.DEFAULT}, "
                              f"{games.get(games.DEFAULT).title})")
    of_game.add_argument("--rules", default=None,
                         help=f"a rules preset of the game ({presets}) or, for hilo, a YAML "
                              "path (default: the game's first preset)")
    of_game.add_argument("--players", type=int, default=None,
                         help="players at the table (default: the rules' own)")
    of_game.add_argument("--seed", type=seed_value, default=0,
                         help="seed of the deals (default: %(default)s)")

    p = sub.add_parser("solve", help="best Low and High equations of a hand",
                       description="Print the best Low (target 1) and High (target 20) equations "
                                   "of a hand: 4 numbers, 3 operators, 0..3 roots.")
    p.add_argument("numbers", nargs="+", type=int, metavar="N",
                   help="the four number cards' values, 0..10")
    p.add_argument("--ops", "-o", default="+-/",
                   help="the three operators, from + - * / (or − × ÷, x for ×): a hand "
                        "holds + − ÷, a × in place of + or − (classic: of both); others "
                        "are solved as written, with a note (default: %(default)s)")
    p.add_argument("--roots", "-r", type=int, default=0,
                   help="how many √ the hand holds, 0..3 (default: %(default)s)")
    p.add_argument("--rules", default=None,
                   help="a rules preset (standard, classic, duel) or a YAML path: applies its "
                        "integer_results")
    p.add_argument("--integer", action="store_true",
                   help="only whole-number results are valid (as under the classic rules)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("demo", parents=[deals], help="watch baseline agents play a few hands",
                       description="The heuristic and caller agents play a few seeded hands, "
                                   "narrated (with more players the two take the seats in "
                                   "turn); then the rulebook's example hands, solved.")
    p.add_argument("--hands", type=int, default=3, help="hands to play (default: %(default)s)")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("tournament", parents=[of_game],
                       help="duplicate round robin between agents",
                       description="Every table of the named agents plays the same duplicate "
                                   "deals with seats rotated; prints each agent's score in the "
                                   "game's unit (chips per hand, reward per game...) with a 95% "
                                   "confidence interval. In a cooperative game each agent "
                                   "plays as a whole team, and alone among each other's team.")
    p.add_argument("agents", nargs="+", metavar="AGENT",
                   help=f"agent names of the game ({per_game})")
    _add_count(p, "episodes per table, rounded up to whole duplicate deals",
               "20000 hands, 2000 games, 5000 rounds")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="save a bar chart (PNG, SVG...; needs the train extra's matplotlib); "
                        "a missing folder is made")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--save-replays", metavar="DIR", default=None,
                   help="write each table's episodes to DIR as a replay file (docs/replays.md)")
    _add_allow_other_rules(p)
    p.set_defaults(func=_cmd_tournament)

    p = sub.add_parser("play", parents=[of_game],
                       help="play against (or with) an agent in the terminal",
                       description="Play a match against a registered agent of the game (in a "
                                   "cooperative game, with it as your partners): type the "
                                   "actions the game shows, such as 'call', 'raise 5', 'low'; "
                                   "'help' lists the legal ones; 'quit' or Ctrl-D leaves. "
                                   + " ".join(f"{games.get(g).title}: {view(g).SHORTCUTS}"
                                              for g in games.names() if view(g).SHORTCUTS))
    p.add_argument("--opponent", default=None,
                   help=f"agent name of the game ({per_game}) (default: the game's baseline: "
                        + ", ".join(f"{games.get(g).baseline} for {g}" for g in games.names())
                        + ")")
    _add_count(p, "episodes in the match", "3 hands, 1 game, 1 round")
    p.add_argument("--seat", type=int, default=0,
                   help="your seat, 0 acts first (default: %(default)s)")
    p.add_argument("--save-replay", metavar="FILE", default=None,
                   help="write the match to FILE as a replay (docs/replays.md), also when "
                        "you quit early")
    _add_allow_other_rules(p)
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("train", help="self-play PPO training from a YAML config",
                       description="Train a PPO agent as a config says (fields: "
                                   "training/config.py): with Stable-Baselines3 (backend: "
                                   "sb3, the default; needs the train extra) or Ray RLlib "
                                   "(backend: rllib; needs the rllib extra; a local Ray, "
                                   "or the cluster RAY_ADDRESS names) or PPO in JAX "
                                   "(backend: jax; needs the jax and train extras).")
    p.epilog = (f"Install the train extra with: {install_line('train')}; the rllib extra "
                f"with: {install_line('rllib')}; the jax extra with: {install_line('jax')}")
    p.add_argument("config", help="a training config: a bundled one by name ("
                                  + ", ".join(bundled_configs()) + ") or a YAML path")
    p.add_argument("--total-timesteps", type=int, help="override total_timesteps")
    p.add_argument("--output-dir", help="override output_dir")
    p.add_argument("--name", help="override the run name")
    p.add_argument("--init-model", metavar="MODEL_ZIP",
                   help="override init_model: start from a saved model's weights")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_train)

    p = sub.add_parser("gauntlet", parents=[of_game],
                       help="an agent against each other agent of its game",
                       description="Each opponent plays duplicate deals against the agent (at "
                                   "larger tables it takes every other seat); prints the "
                                   "agent's score against each with a 95% confidence "
                                   "interval, and the best exploit found. The opponents: in "
                                   "Equation Hi-Lo the gauntlet's scripted players (loose, "
                                   "tight, passive, aggressive, escalating, maniac, swinger, "
                                   "bluffer, trapper, caller); in the other games every other "
                                   "agent of the game.")
    p.add_argument("agent", metavar="AGENT", help=f"agent name of the game ({per_game})")
    _add_count(p, "episodes per match, rounded up to whole duplicate deals",
               f"{GAUNTLET_COUNT}")
    p.add_argument("--opponents", nargs="+", metavar="NAME", default=None,
                   help="play these agents instead, such as heuristic random (each takes "
                        "every seat but the agent's)")
    _add_allow_other_rules(p)
    p.set_defaults(func=_cmd_gauntlet)

    p = sub.add_parser("exploit", parents=[of_game],
                       help="a lower bound on an agent's exploitability (a best response)",
                       description="Train a best response (MaskablePPO) against the frozen "
                                   "agent for a budget, evaluate it at intervals in duplicate "
                                   "matches, and print a lower bound on the agent's "
                                   "exploitability in the game's unit with its 95% "
                                   "confidence interval and the learning curve (CSV and PNG in "
                                   "the run folder); needs the train extra. On Equation Hi-Lo "
                                   "rules OpenSpiel can enumerate (tiny), prints the exact "
                                   "exploitability (NashConv) and the game value instead; "
                                   "needs the openspiel extra.")
    p.epilog = (f"Install the train extra with: {install_line('train')}; the openspiel extra "
                f"with: {install_line('openspiel')}")
    p.add_argument("agent", metavar="AGENT", help=f"agent name of the game ({per_game})")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, default=None,
                        help=f"minutes the run takes, evaluations included (default: "
                             f"{DEFAULT_EXPLOIT_MINUTES} without --decisions)")
    budget.add_argument("--decisions", type=int, default=None,
                        help="learner decisions to train for, instead of --minutes")
    _add_count(p, "duplicate deals of each evaluation", "2000")
    p.add_argument("--evals", type=int, default=None,
                   help=f"evaluations over the run, the last at its end (default: "
                        f"{DEFAULT_EXPLOIT_EVALS})")
    p.add_argument("--output-dir", default=None,
                   help=f"runs go to OUTPUT_DIR/exploit_AGENT/ (default: {DEFAULT_RUNS})")
    p.add_argument("--start", metavar="MODEL", default=None,
                   help="start the response from a trained model's weights: ppo or "
                        "ppo:PATH (default: fresh weights)")
    p.add_argument("--method", choices=("response", "lbr"), default="response",
                   help="response: a trained best response (the default); lbr: a local "
                        "best response from the agent's action probabilities (Equation "
                        "Hi-Lo, any --players: LBR in one seat, the agent in the others; no "
                        "training, --hands duplicate deals)")
    p.add_argument("--backend", choices=("sb3", "jax"), default=None,
                   help="sb3: MaskablePPO (the default); jax: PPO in JAX on the JAX backend "
                        "(Equation Hi-Lo, an agent with a jitted form: random, caller, the "
                        "ppo models, jax:PATH; needs the jax extra)")
    p.set_defaults(func=_cmd_exploit)

    p = sub.add_parser("population", help="agents trained against a population of past "
                                          "agents and best responses (PSRO-style)",
                       description="From a start agent, in turn: train a best response to the "
                                   "agent (as hilo exploit AGENT --start AGENT --decisions N "
                                   "does) and record its bound, add both to the population, "
                                   "and train the next agent from the current one's weights "
                                   "against the config's baselines plus the population. "
                                   "Prints the exploitability bound of each agent; the last "
                                   "agent is OUTPUT_DIR/NAME/model.zip. Needs the train extra. "
                                   "A config with backend: jax runs it on the JAX trainer "
                                   "(jax: policies, model.npz; the jax extra too).")
    p.epilog = f"Install the train extra with: {install_line('train')}"
    p.add_argument("config", help="a training config (each agent's settings, total_timesteps "
                                  "and baselines): a bundled one by name (ppo_population) or "
                                  "a YAML path")
    p.add_argument("--start", metavar="MODEL", default="ppo",
                   help="the first agent: a shipped model (ppo, ppo_standard, "
                        "ppo_population), ppo:PATH or, with backend jax, jax:PATH (default: "
                        "%(default)s)")
    p.add_argument("--iterations", type=int, default=3,
                   help="agents to train after the start (default: %(default)s)")
    p.add_argument("--response-decisions", type=int, default=800_000,
                   help="learner decisions of each best response (default: %(default)s)")
    p.add_argument("--response-weight", type=int, default=2,
                   help="times each response is listed in the pool (default: %(default)s)")
    p.add_argument("--hands", type=int, default=2_000,
                   help="duplicate deals of each response's evaluations (default: %(default)s)")
    p.add_argument("--total-timesteps", type=int, help="override total_timesteps (per agent)")
    p.add_argument("--output-dir", help="override output_dir")
    p.add_argument("--name", help="override the run name")
    p.set_defaults(func=_cmd_population)

    p = sub.add_parser("strength", help="one strength table of every shipped agent of every "
                                        "game: docs/strength.md and a plot",
                       description="Every shipped agent of every game in duplicate round "
                                   "robins (head to head; team and ad-hoc rows in Hi MiLo!), "
                                   "and on Equation Hi-Lo's standard rules at 2 players each "
                                   "agent's best gauntlet player, LBR bound and optionally an "
                                   "RL best response's bound; on tiny the exact NashConv "
                                   "(training.strength). Writes the page and the plot.")
    p.add_argument("--deals", type=int, default=1_000,
                   help="duplicate deals of each head-to-head table (default: %(default)s)")
    p.add_argument("--gauntlet-deals", type=int, default=500,
                   help="duplicate deals of each gauntlet match (default: %(default)s)")
    p.add_argument("--lbr-deals", type=int, default=1_000,
                   help="duplicate deals of each LBR match, at 2 players and at each larger "
                        "table (default: %(default)s)")
    p.add_argument("--response-decisions", type=int, default=0,
                   help="decisions of each RL best response to each agent (needs the train "
                        "extra; the JAX trainer where the agent has a jitted form and the jax "
                        "extra is installed; default 0: left out)")
    p.add_argument("--response-seeds", type=int, default=2,
                   help="RL best responses to each agent, one per seed: the bound's spread "
                        "(default: %(default)s)")
    p.add_argument("--table-lbr-agents", nargs="+", default=["heuristic", "ppo"],
                   metavar="AGENT",
                   help="the agents whose LBR bound each larger Equation Hi-Lo table "
                        "measures (default: heuristic ppo)")
    p.add_argument("--jobs", type=int, default=1,
                   help="processes playing its steps at once (each match, each agent's "
                        "bounds): the same figures in less time on more cores (default: 1)")
    p.add_argument("--output", default="docs/strength.md",
                   help="the page to write (default: %(default)s)")
    p.add_argument("--plot", default="docs/strength.png",
                   help="the plot to write (default: %(default)s)")
    p.add_argument("--seed", type=seed_value, default=0,
                   help="seed of every match's deals (default: %(default)s)")
    p.set_defaults(func=_cmd_strength)

    p = sub.add_parser("serve", help="a local web table: play, watch agents, replay a file",
                       description="Serve a web table on this machine (needs the web extra): "
                                   "play any game against agents by name in a seat of your "
                                   "choice, watch agents play each other, step through a "
                                   "replay file forward and back. Open the address it prints "
                                   "in a browser; Ctrl-C stops it.")
    p.epilog = f"Install the web extra with: {install_line('web')}"
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default: %(default)s, this machine only)")
    p.add_argument("--port", type=int, default=8765, help="(default: %(default)s)")
    p.add_argument("--public", action="store_true",
                   help="allow a --host beyond this machine (prints a warning, and a token "
                        "every API call must carry)")
    p.add_argument("--max-games", type=int, default=256,
                   help="games held at once; the idlest is closed first (default: %(default)s)")
    p.add_argument("--idle-minutes", type=float, default=60,
                   help="a game untouched this long is closed (default: %(default)s)")
    p.set_defaults(func=_cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``hilo`` command; returns the exit status."""
    args_in = _join_ops(list(sys.argv[1:] if argv is None else argv))
    try:
        args = build_parser().parse_args(args_in)
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here rather than at exit
        return status
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except BrokenPipeError:  # the reader went away (``hilo demo | head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE
    except (_UsageError, ValueError, OSError, yaml.YAMLError) as exc:
        message = " ".join(str(exc).split())
        if len(message) > MAX_MESSAGE:
            message = message[:MAX_MESSAGE - 3] + "..."
        print(f"hilo: error: {message}", file=sys.stderr)
        return EXIT_USAGE


def version() -> str:
    """The installed version of hilo_env (``unknown`` when run from a bare source tree)."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def install_line(extra: str) -> str:
    """The pip command that adds ``extra``, fitting how hilo_env was installed: an editable
    checkout (``pip install -e``) gets ``pip install -e '<checkout>[extra]'``, anything else
    ``pip install 'hilo_env[extra]'``."""
    try:
        direct = importlib.metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        direct = None
    info = json.loads(direct) if direct else {}
    if info.get("dir_info", {}).get("editable") and info.get("url", "").startswith("file://"):
        checkout = info["url"][len("file://"):]
        where = "." if os.path.abspath(checkout) == os.getcwd() else checkout
        return f"pip install -e '{where}[{extra}]'"
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def require_extra(extra: str, purpose: str, modules: Sequence[str] | None = None) -> None:
    """Raise a usage error naming ``extra`` and its install line unless its modules (or the
    ones of them ``purpose`` needs) can be imported; looks them up without importing them
    (fast), so a command calls it before any work."""
    missing = [m for m in modules or EXTRA_MODULES[extra] if not _importable(m)]
    if missing:
        raise _UsageError(f"{purpose} needs the '{extra}' extra ({', '.join(missing)} missing): "
                          f"{install_line(extra)}")


def seed_value(text: str) -> int:
    """``--seed``: an integer >= 0, as NumPy's generators take (argparse names the option)."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if seed < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, not {text!r}")
    return seed


def _check_plot_format(path: str) -> None:
    """Refuse a ``--plot`` file type matplotlib cannot write before the tournament plays."""
    from matplotlib.backend_bases import FigureCanvasBase

    suffix = os.path.splitext(path)[1].lstrip(".").lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise _UsageError(f"--plot cannot write a .{suffix} file; use one of "
                          f"{', '.join(sorted(formats))}")


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken install, or a module set to None
        return False


def _join_ops(argv: list[str]) -> list[str]:
    """Glue ``--ops -*/`` into ``--ops=-*/``: argparse would read ``-*/`` as an option."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] in _OPS_FLAGS and i + 1 < len(argv):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


# ---------------------------------------------------------------------------------------------
# solve


def _cmd_solve(args: argparse.Namespace) -> int:
    rules = resolve(args.rules or "standard")
    integer = args.integer or (args.rules is not None and rules.integer_results)
    sol = solver.solve(args.numbers, args.ops, args.roots, integer_results=integer)
    dealt = solver.hand_operator_sets(rules)
    if sol.operators not in dealt:  # solvable, but say it is no hand of these rules
        print(f"hilo: note: no hand of the {args.rules or 'standard'} rules holds "
              f"{_symbols(sol.operators)} (they hold {', '.join(map(_symbols, dealt))}); "
              "solved as written", file=sys.stderr)
    if args.json:
        print(json.dumps(sol.to_dict(), ensure_ascii=False))
    else:
        print(format_solution(sol))
    return EXIT_OK


def _symbols(ops: str) -> str:
    """Operators as people write them: ``"+-/"`` -> ``"+ − ÷"``."""
    return " ".join(solver.OP_SYMBOLS[o] for o in ops)


def format_solution(sol: solver.Solution) -> str:
    """A few lines for people: the hand, then the best Low and High equations."""
    ops = _symbols(sol.operators)
    roots = f"{sol.roots} root" + ("" if sol.roots == 1 else "s")
    mode = "whole-number results only" if sol.integer_results else "any real result"
    lines = [f"Hand: {' '.join(map(str, sol.numbers))}   operators {ops}   {roots}   ({mode})"]
    for name, eq, target in (("Low ", sol.low, solver.LOW_TARGET),
                             ("High", sol.high, solver.HIGH_TARGET)):
        label = f"{name} (target {target:>2}):"
        if eq is None:
            lines.append(f"  {label} no valid equation (each one divides by zero"
                         + (" or is not whole)" if sol.integer_results else ")"))
        else:
            lines.append(f"  {label} {eq.equation} = {_num(eq.value)}   "
                         f"distance {_num(eq.distance)}")
    return "\n".join(lines)


def _num(x: float) -> str:
    """A result for people: whole numbers without decimals, others to 10 significant digits."""
    return str(int(x)) if float(x).is_integer() else f"{x:.10g}"


# ---------------------------------------------------------------------------------------------
# demo

_RULEBOOK_EXAMPLES = (
    # (rulebook equation, target, numbers, operators, roots)
    ("√4 ÷ 7 + 9 − 8", solver.LOW_TARGET, (4, 7, 9, 8), "/+-", 1),
    ("8 × 3 ÷ 1 − 4", solver.HIGH_TARGET, (8, 3, 1, 4), "*/-", 0),
)


def _cmd_demo(args: argparse.Namespace) -> int:
    from hilo_env.agents.play import demo

    _bounded("--hands", args.hands, 1, MAX_EPISODES)
    demo(None, args.rules, hands=args.hands, seed=args.seed)
    print()
    print("The solver on the rulebook's two examples (try: hilo solve 4 7 9 8 --ops /+- "
          "--roots 1):")
    for text, target, numbers, ops, roots in _RULEBOOK_EXAMPLES:
        value = solver.evaluate(text)
        side = "Low" if target == solver.LOW_TARGET else "High"
        print(f"Rulebook example ({side}, target {target}): {text} = {_num(value)}   "
              f"distance {_num(abs(value - target))}")
        print(format_solution(solver.solve(numbers, ops, roots)))
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# tournament and play (the logic lives in training.evaluate and agents.play)


def _game(args: argparse.Namespace) -> tuple[GameSpec, Any]:
    """The spec of ``--game`` and its rules (``--rules`` with ``--players``), checked now."""
    spec = games.get(args.game)
    return spec, spec.rules(args.rules, args.players)


def _count(args: argparse.Namespace, spec: GameSpec, default: int | None) -> int | None:
    """``--hands``/``--games``/``--rounds`` in the game's unit (``default`` when none)."""
    unit = f"{spec.unit}s"
    if args.count_unit is not None and args.count_unit != spec.unit:
        raise _UsageError(f"{spec.title} counts {unit}: use --{unit}, not "
                          f"--{args.count_unit}s")
    if args.count is None:
        return default
    _bounded(f"--{unit}", args.count, 1, MAX_EPISODES)
    return args.count


def _bounded(option: str, value: float, least: float, most: float) -> None:
    """A usage error naming ``option`` and the bound unless ``least <= value <= most``: a
    count past any run's length is refused now, not in a MemoryError later."""
    if value < least:
        raise _UsageError(f"{option} must be at least {least:,}, not {value:,}")
    if value > most:
        raise _UsageError(f"{option} must be at most {most:,}, not {value:,}")


def _plot_path(text: str) -> str:
    """``--plot``'s file, checked before any work: matplotlib installed, a file (not a
    folder) that can be written, of a type matplotlib writes; without a type, a ``.png``."""
    require_extra("train", "--plot", ["matplotlib"])
    if not (os.path.splitext(text)[1] or text.endswith(("/", os.sep)) or os.path.isdir(text)):
        text = f"{text}.{PLOT_FORMAT}"
    _check_plot_format(text)
    return str(_checked(check_file, text, "--plot"))


def _checked(check: Callable[[str, str], Any], path: str, what: str) -> Any:
    """``check(path, what)`` (:mod:`hilo_env.outputs`), its ValueError a usage error."""
    try:
        return check(path, what)
    except ValueError as exc:
        raise _UsageError(str(exc)) from None


def _check_agent(name: str, game: str | None = None) -> None:
    """A usage error unless ``name`` is an agent of ``game`` whose extra is installed."""
    from hilo_env.agents import check

    check(name, game)
    if needs_extra(name, game):
        require_extra(needs_extra(name, game), f"agent {name!r}")


def _add_allow_other_rules(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow-other-rules", action="store_true",
                   help="let a trained agent play rules other than those it was trained "
                        "under (refused by default, naming the fields; a longer match needs "
                        "no flag)")


def _cmd_tournament(args: argparse.Namespace) -> int:
    from hilo_env.training.evaluate import DEFAULT_COUNTS, tournament

    spec, rules = _game(args)
    count = _count(args, spec, DEFAULT_COUNTS[spec.unit])
    for name in args.agents:
        _check_agent(name, spec.name)
    if args.plot:
        args.plot = _plot_path(args.plot)
    if args.save_replays is not None:
        _checked(check_folder, args.save_replays, "--save-replays")
    try:
        result = tournament(args.agents, rules, count, seed=args.seed, game=spec.name,
                            progress=False if args.no_progress else None,
                            rules_name=args.rules or spec.default_rules,
                            save_replays=args.save_replays,
                            allow_other_rules=args.allow_other_rules)
    except ImportError as exc:  # a ppo: agent without the training extra
        raise _UsageError(str(exc)) from None
    except KeyboardInterrupt:
        print("hilo: tournament interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(result.table())
    if args.plot:
        print(f"plot saved to {result.plot(args.plot)}")
    return EXIT_OK


def _cmd_play(args: argparse.Namespace) -> int:
    from hilo_env.agents.play import play

    spec, rules = _game(args)
    opponent = spec.baseline if args.opponent is None else args.opponent
    _check_agent(opponent, spec.name)
    count = _count(args, spec, None)
    try:
        play(opponent, rules, count, seed=args.seed, seat=args.seat, game=spec.name,
             save_replay=args.save_replay, allow_other_rules=args.allow_other_rules)
    except ImportError as exc:
        raise _UsageError(str(exc)) from None
    except KeyboardInterrupt:  # Ctrl-C while an agent thinks: leave as quietly as at a prompt
        print("\nBye.")
    return EXIT_OK


def _cmd_serve(args: argparse.Namespace) -> int:
    require_extra("web", "hilo serve")
    from hilo_env.web.app import launch

    launch(args.host, args.port, args.public, args.max_games, args.idle_minutes)
    return EXIT_OK  # uvicorn stops cleanly at Ctrl-C


def _cmd_train(args: argparse.Namespace) -> int:
    config = _train_config(args)
    extra = "rllib" if config.backend == "rllib" else "train"
    if config.backend == "jax":  # the train extra draws its curve and TensorBoard logs
        require_extra("jax", "hilo train (backend jax)")
    require_extra(extra, f"hilo train (backend {config.backend})")
    _checked(check_folder, config.run_dir, "the run folder")
    try:
        if config.algorithm == "value":
            from hilo_env.training.value_iteration import train
        elif config.backend == "rllib":
            from hilo_env.training.rllib_train import train
        elif config.backend == "jax":
            from hilo_env.training.jax_ppo import train
        else:
            from hilo_env.training.selfplay import train
    except ImportError as exc:  # a module of the extra found but broken
        raise _UsageError(f"hilo train cannot import {exc.name or exc}: "
                          f"{install_line(extra)}") from None

    planned = f"{config.planned_decisions:,} decisions"
    if config.planned_decisions != config.total_timesteps:
        about = "" if config.backend == "sb3" and config.algorithm == "ppo" else "about "
        planned = (f"{about}{planned} ({config.total_timesteps:,} asked, in whole iterations "
                   f"of {config.rollout_decisions:,})")
    logs = f" (tensorboard --logdir {config.run_dir}/tb)" if config.algorithm == "ppo" else ""
    print(f"training {config.name}: {planned}, outputs in {config.run_dir}/{logs}")
    try:
        model = train(config, progress=not args.no_progress, on_eval=_eval_printer(config.game))
    except KeyboardInterrupt:
        print("hilo: training interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"model saved to {model}")
    return EXIT_OK


def _train_config(args: argparse.Namespace) -> Any:
    """The ``TrainConfig`` of ``args.config`` with the command line's ``--total-timesteps``,
    ``--output-dir``, ``--name`` and (``hilo train``) ``--init-model`` over its fields; every
    field checked here."""
    from hilo_env.training.config import TrainConfig

    overrides = {k: v for k, v in (("total_timesteps", args.total_timesteps),
                                   ("output_dir", args.output_dir), ("name", args.name),
                                   ("init_model", getattr(args, "init_model", None)))
                 if v is not None}
    return TrainConfig.from_yaml(args.config, **overrides)


def _eval_printer(game: str) -> Callable[[int, dict[str, tuple[float, float]], float], None]:
    """What ``hilo train`` prints at each evaluation, in the game's words."""
    spec = games.get(game)
    words = f"{spec.score} per {spec.unit} " + ("beside" if spec.cooperative else "against")

    def heard(step: int, scores: dict[str, tuple[float, float]], seconds: float) -> None:
        line = ", ".join(f"{name} {mean:+.2f} ± {ci:.2f}" for name, (mean, ci) in scores.items())
        print(f"[{step:,} decisions, {seconds / 60:.1f} min of learning] {words} {line}",
              flush=True)

    return heard



# ---------------------------------------------------------------------------------------------
# gauntlet and exploit (the logic lives in training.gauntlet and training.exploit)


def _cmd_gauntlet(args: argparse.Namespace) -> int:
    from hilo_env.training.gauntlet import gauntlet

    spec, rules = _game(args)  # bad rules fail before any hand
    count = _count(args, spec, GAUNTLET_COUNT)
    _check_agent(args.agent, spec.name)
    opponents = args.opponents  # None: the game's others that can sit here (the rest named)
    for name in opponents or ():
        _check_agent(name, spec.name)
    twice = [nm for i, nm in enumerate(opponents or ()) if nm in opponents[:i]]
    if twice:
        raise _UsageError(f"--opponents names {twice[0]!r} twice: each opponent plays one "
                          "match, so name each once")
    unit = "team win rate" if spec.cooperative else f"{spec.score} per {spec.unit}"

    def heard(player: str, match: Any) -> None:  # progress on stderr: a match takes minutes
        mean, ci = match.win_rate(0) if spec.cooperative else match.score(0)
        print(f"{args.agent} vs {player}: {mean:+.3f} ± {ci:.3f} {unit} "
              f"({match.seconds:.0f}s)", file=sys.stderr, flush=True)

    return _print_table("gauntlet", lambda: gauntlet(
        args.agent, rules, count, seed=args.seed, players=opponents, on_match=heard,
        rules_name=args.rules or spec.default_rules, game=spec.name,
        allow_other_rules=args.allow_other_rules), blank=False)


def _cmd_exploit(args: argparse.Namespace) -> int:
    spec, rules = _game(args)
    if spec.cooperative:
        raise _UsageError(f"hilo exploit trains an opponent, and {spec.title} is cooperative: "
                          "its seats share one reward")
    hands = _count(args, spec, DEFAULT_EXPLOIT_DEALS)
    if args.evals is not None:
        _bounded("--evals", args.evals, 1, MAX_REPEATS)
    if args.decisions is not None:
        _bounded("--decisions", args.decisions, 1, MAX_DECISIONS)
    _bounded("--seed", args.seed, 0, MAX_SEED)  # the trainer seeds NumPy's 32-bit generator
    if args.minutes is not None and not 0 < args.minutes <= MAX_MINUTES:
        raise _UsageError(f"--minutes must be a number > 0 and at most {MAX_MINUTES:,g} (a "
                          f"week), not {args.minutes}")
    _check_agent(args.agent, spec.name)
    training = [flag for flag, value in (("--start", args.start), ("--minutes", args.minutes),
                                         ("--decisions", args.decisions),
                                         ("--evals", args.evals),
                                         ("--output-dir", args.output_dir),
                                         ("--backend", args.backend)) if value is not None]
    if args.method == "lbr":
        try:
            spec.require("lbr")
        except ValueError as exc:
            raise _UsageError(f"--method lbr: {exc}") from None
        if training:
            raise _UsageError(f"--method lbr trains nothing, so {_ignored(training)}")
        from hilo_env.training.lbr import describe, lbr_match

        try:
            result = lbr_match(args.agent, rules, deals=hands, seed=args.seed)
        except ValueError as exc:
            raise _UsageError(str(exc)) from None
        print(describe(result))
        return EXIT_OK
    if spec.can("exact") and _exact_solvable(rules):
        ignored = training + ([f"--{spec.unit}s"] if args.count is not None else [])
        if ignored:
            raise _UsageError(f"on the {args.rules} rules the exploitability is exact "
                              f"(OpenSpiel): nothing is trained or played, so "
                              f"{_ignored(ignored)}")
        return _exact_exploit(args, rules)
    backend = args.backend or "sb3"
    evals = args.evals or DEFAULT_EXPLOIT_EVALS
    output_dir = DEFAULT_RUNS if args.output_dir is None else args.output_dir
    require_extra("train", "hilo exploit")
    if backend == "jax":
        require_extra("jax", "hilo exploit --backend jax")
        from hilo_env.training.jax_league import jitted_policy

        try:  # another game, or an agent without a jitted form, fails before any work
            jitted_policy(args.agent, rules, spec.name)
        except ValueError as exc:
            raise _UsageError(f"--backend jax: {exc}") from None
    from hilo_env.agents import make
    from hilo_env.training.exploit import check_start, exploit, model_file, run_name

    make(args.agent, rules, game=spec.name)  # an agent made for other rules says so now
    if args.start is not None:  # the start model loaded now: a bad one writes nothing
        try:
            check_start(args.start, backend)
            model_file(args.start, rules, spec.name)
        except ValueError as exc:
            raise _UsageError(f"--start: {exc}") from None
    _checked(check_folder, output_dir, "--output-dir")
    _checked(check_folder, os.path.join(output_dir, run_name(args.agent)), "--output-dir")
    minutes = DEFAULT_EXPLOIT_MINUTES if args.minutes is None and args.decisions is None \
        else args.minutes
    if minutes is not None:
        budget = f"{minutes:g} minutes in all, evaluations included"
        evaluations = f"{evals} evaluations and one first to time them"
    else:
        budget = f"{args.decisions:,} decisions of learning"
        evaluations = f"{evals} evaluations"
    start = f" from {args.start}" if args.start else ""
    rules_name = args.rules or spec.default_rules
    unit = f"{spec.score} per {spec.unit}"
    print(f"training a best response to {args.agent}{start} for {budget} ({spec.title}, "
          f"{rules_name} rules, {rules.num_players} players; {evaluations} of {hands:,} "
          "duplicate deals)", flush=True)

    def heard(point: Any) -> None:  # a training.exploit.CurvePoint
        print(f"[{point.decisions:,} decisions, {point.seconds / 60:.1f} min] {unit} "
              f"against {args.agent} {point.mean:+.2f} ± {point.ci:.2f}", flush=True)

    return _print_table("exploit", lambda: exploit(
        args.agent, rules_name, minutes=minutes, decisions=args.decisions, seed=args.seed,
        hands=hands, evals=evals, output_dir=output_dir, start=args.start,
        on_eval=heard, players=args.players or 0, game=spec.name, backend=backend))


def _ignored(flags: list[str]) -> str:
    """The end of a refusal of ``flags`` a command would not use."""
    return (f"{', '.join(flags)} would be ignored: leave "
            f"{'them' if len(flags) > 1 else 'it'} out")


def _print_table(command: str, run: Callable[[], Any], blank: bool = True) -> int:
    """Run a long command's work and print its result's ``table()`` (after a blank line with
    ``blank``); Ctrl-C ends it with status 130, a missing module of an extra is a usage
    error."""
    try:
        result = run()
    except ImportError as exc:
        raise _UsageError(str(exc)) from None
    except KeyboardInterrupt:
        print(f"hilo: {command} interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if blank:
        print()
    print(result.table())
    return EXIT_OK


def _cmd_population(args: argparse.Namespace) -> int:
    for option, most in (("iterations", MAX_REPEATS), ("response_decisions", MAX_DECISIONS),
                         ("response_weight", MAX_REPEATS), ("hands", MAX_EPISODES)):
        _bounded(f"--{option.replace('_', '-')}", getattr(args, option), 1, most)
    config = _train_config(args)
    if config.backend not in ("sb3", "jax"):
        raise _UsageError(f"hilo population trains with sb3 or jax, not backend "
                          f"{config.backend!r}")
    _check_agent(args.start)
    if config.backend == "jax":
        require_extra("jax", "hilo population (backend jax)")
    require_extra("train", "hilo population")
    _checked(check_folder, config.run_dir, "the run folder")
    from hilo_env.training.population import population

    print(f"population {config.name}: from {args.start}, {args.iterations} agents of "
          f"{config.total_timesteps:,} decisions, responses of {args.response_decisions:,}; "
          f"outputs in {config.run_dir}/", flush=True)

    def heard(it: Any) -> None:  # a training.population.Iteration
        print(f"[agent {it.index}: {it.agent}, {it.decisions:,} decisions] its best response "
              f"wins {it.bound.mean:+.2f} ± {it.bound.ci:.2f} chips per hand", flush=True)

    return _print_table("population", lambda: population(
        config, start=args.start, iterations=args.iterations,
        response_decisions=args.response_decisions, response_weight=args.response_weight,
        hands=args.hands, on_iteration=heard))


def _cmd_strength(args: argparse.Namespace) -> int:
    for option, least, most in (("deals", 1, MAX_EPISODES), ("gauntlet_deals", 1, MAX_EPISODES),
                                ("lbr_deals", 1, MAX_EPISODES),
                                ("response_decisions", 0, MAX_DECISIONS),
                                ("response_seeds", 1, MAX_REPEATS), ("jobs", 1, MAX_THREADS)):
        _bounded(f"--{option.replace('_', '-')}", getattr(args, option), least, most)
    for name in args.table_lbr_agents:
        try:
            _check_agent(name)
        except ValueError as exc:
            raise _UsageError(f"--table-lbr-agents: {exc}") from None
    args.output = str(_checked(check_file, args.output, "--output"))
    args.plot = _plot_path(args.plot)
    if args.response_decisions:
        require_extra("train", "--response-decisions")
    from hilo_env.training.strength import Budget, build, progress, write

    budget = Budget(deals=args.deals, gauntlet_deals=args.gauntlet_deals,
                    lbr_deals=args.lbr_deals, response_decisions=args.response_decisions,
                    response_seeds=args.response_seeds, seed=args.seed,
                    table_lbr_agents=tuple(args.table_lbr_agents))
    command = "hilo strength " + " ".join(sys.argv[2:])
    doc = write(build(budget, progress, command.strip(), args.jobs), args.output, args.plot)
    print(f"wrote {doc} and {args.plot}")
    return EXIT_OK


def _exact_solvable(rules: RuleSet) -> bool:
    """Whether OpenSpiel can enumerate ``rules`` (``envs.openspiel_policy.exact_solvable``,
    which needs no OpenSpiel), so ``hilo exploit`` computes the exact exploitability there."""
    from hilo_env.envs.openspiel_policy import exact_solvable

    return exact_solvable(rules)


def _exact_exploit(args: argparse.Namespace, rules: RuleSet) -> int:
    """``hilo exploit`` on rules OpenSpiel enumerates: the exact NashConv and the game value."""
    require_extra("openspiel", "the exact exploitability")
    from hilo_env.envs.openspiel_policy import exact_exploitability

    print(f"enumerating {args.rules} through OpenSpiel (python_hilo) ...", flush=True)
    result = exact_exploitability(args.agent, rules)
    print(f"{result.histories:,} histories, information sets per player "
          f"{list(result.infosets)}")
    print(f"exact NashConv of {args.agent} on {args.rules}: {result.nash_conv:.6f} chips per "
          "hand (what best responses to it gain, summed over the seats; 0 at a Nash "
          "equilibrium)")
    print(f"game value for player 0: {result.game_value:+.6f} chips per hand (CFR+); "
          f"{args.agent} in both seats: {result.agent_value:+.6f}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
