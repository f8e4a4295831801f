"""The ``hilo`` command.

``hilo solve 4 7 9 8 --ops "/+-" --roots 1 [--json] [--rules classic|PATH] [--integer]``
    The best Low and High equations of a hand.
``hilo demo [--hands 3] [--seed 0] [--rules R]``
    Two baseline agents (heuristic vs caller) play a few hands, narrated; then the rulebook's
    two example hands, solved.
``hilo tournament random caller heuristic [--hands 20000] [--rules R] [--seed 0] [--plot F]``
    A round robin with duplicate deals: chips per hand with 95% CIs (``training.evaluate``).
``hilo play [--opponent heuristic] [--rules R] [--hands 3] [--seed 0] [--seat 0]``
    Play hands in the terminal against any registered agent (``agents.play``).
``hilo train configs/train/selfplay.yaml [--total-timesteps N] [--output-dir D] [--name N]``
    Self-play MaskablePPO training (``training.selfplay``); the config is checked first.

Bad input prints one line, ``hilo: error: ...``, on stderr and exits with status 2.
Each subcommand is a ``_cmd_*`` function registered in ``build_parser``; add new ones there.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import yaml

from hilo_env.equation_hilo import solver
from hilo_env.equation_hilo.rules import RuleSet, resolve

EXIT_OK, EXIT_USAGE = 0, 2
EXIT_PIPE = 141  # as a shell reports a command stopped by SIGPIPE (128 + 13)
EXIT_INTERRUPTED = 130
HILO = "hilo"
"""The name of Equation Hi-Lo for ``--game``: the default, served by this module."""
GAME_COMMANDS: dict[str, str] = {"lohi": "hilo_env.cli_lohi"}
"""The other games of ``--game``: name -> the module (on the top floor, beside this one) whose
``tournament(args)`` and ``play(args)`` run ``hilo tournament`` and ``hilo play`` for it and
return the exit status."""
_OPS_FLAGS = ("--ops", "-o")


class _UsageError(Exception):
    """Bad input from the user: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``main`` prints them), not usage text."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = _Parser(prog="hilo", description="Equation Hi-Lo: solver and game.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    deals = argparse.ArgumentParser(add_help=False)  # the options of every command that deals
    deals.add_argument("--rules", default="standard", help="a rules preset or a YAML path")
    deals.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    games = argparse.ArgumentParser(add_help=False)  # the options of every command per game
    games.add_argument("--game", choices=[HILO, *GAME_COMMANDS], default=HILO,
                       help=f"which game (default {HILO}: Equation Hi-Lo)")
    games.add_argument("--players", type=int, default=None,
                       help="players at the table (default: the rules' own)")

    p = sub.add_parser("solve", help="best Low and High equations of a hand",
                       description="Print the best Low (target 1) and High (target 20) equations "
                                   "of a hand: 4 numbers, 3 operators, 0..3 roots.")
    p.add_argument("numbers", nargs="+", type=int, metavar="N",
                   help="the four number cards' values, 0..10")
    p.add_argument("--ops", "-o", default="+-/",
                   help="the three operators, from + - * / (or − × ÷, x for ×); default '+-/'")
    p.add_argument("--roots", "-r", type=int, default=0, help="how many √ the hand holds, 0..3")
    p.add_argument("--rules", default=None,
                   help="a rules preset (standard, classic, duel) or a YAML path: applies its "
                        "integer_results")
    p.add_argument("--integer", action="store_true",
                   help="only whole-number results are valid (as under the classic rules)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("demo", parents=[deals], help="watch two agents play a few hands",
                       description="The heuristic agent plays the caller for a few seeded "
                                   "hands, narrated; then the rulebook's example hands, solved.")
    p.add_argument("--hands", type=int, default=3, help="hands to play (default 3)")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("tournament", parents=[deals, games],
                       help="duplicate round robin between agents",
                       description="Every pair (every table) of the named agents plays the same "
                                   "duplicate deals with seats rotated; prints each agent's "
                                   "chips per hand with a 95%% confidence interval.")
    p.add_argument("agents", nargs="+", metavar="AGENT",
                   help="agent names: random, caller, heuristic, ppo:PATH")
    p.add_argument("--hands", type=int, default=20_000,
                   help="hands per table, rounded up to whole duplicate deals (default 20000)")
    p.add_argument("--plot", metavar="FILE", default=None, help="save a bar chart (PNG, SVG...)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_tournament)

    p = sub.add_parser("play", parents=[deals, games],
                       help="play against an agent in the terminal",
                       description="Play a match against a registered agent: type actions "
                                   "such as 'call', 'raise 5', 'low'; 'help' lists the legal "
                                   "ones; 'quit' or Ctrl-D leaves.")
    p.add_argument("--opponent", default="heuristic",
                   help="agent name: random, caller, heuristic, ppo:PATH (default heuristic)")
    p.add_argument("--hands", type=int, default=3, help="hands in the match (default 3)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 acts first (default 0)")
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("train", help="self-play MaskablePPO training from a YAML config",
                       description="Train a MaskablePPO agent as a config says (fields: "
                                   "training/config.py); needs the train extra.")
    p.add_argument("config", help="a training config, such as configs/train/selfplay.yaml")
    p.add_argument("--total-timesteps", type=int, help="override total_timesteps")
    p.add_argument("--output-dir", help="override output_dir")
    p.add_argument("--name", help="override the run name")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_train)
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
        print(f"hilo: error: {message}", file=sys.stderr)
        return EXIT_USAGE


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
    integer = args.integer or (args.rules is not None and resolve(args.rules).integer_results)
    sol = solver.solve(args.numbers, args.ops, args.roots, integer_results=integer)
    if args.json:
        print(json.dumps(sol.to_dict(), ensure_ascii=False))
    else:
        print(format_solution(sol))
    return EXIT_OK


def format_solution(sol: solver.Solution) -> str:
    """A few lines for people: the hand, then the best Low and High equations."""
    ops = " ".join(solver.OP_SYMBOLS[o] for o in sol.operators)
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

    demo(("heuristic", "caller"), args.rules, hands=args.hands, seed=args.seed)
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


def _other_game(args: argparse.Namespace, command: str) -> int | None:
    """Run ``command`` of the game ``--game`` names, or None for Equation Hi-Lo."""
    if args.game == HILO:
        return None
    return getattr(importlib.import_module(GAME_COMMANDS[args.game]), command)(args)


def _rules(args: argparse.Namespace) -> str | RuleSet:
    """``--rules``, with ``--players`` applied when given."""
    return args.rules if args.players is None else resolve(args.rules,
                                                           num_players=args.players)


def _cmd_tournament(args: argparse.Namespace) -> int:
    status = _other_game(args, "tournament")
    if status is not None:
        return status
    from hilo_env.training.evaluate import tournament

    if args.hands < 1:
        raise _UsageError(f"--hands must be at least 1, not {args.hands}")
    try:
        result = tournament(args.agents, _rules(args), hands=args.hands, seed=args.seed,
                            progress=False if args.no_progress else None)
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
    status = _other_game(args, "play")
    if status is not None:
        return status
    from hilo_env.agents import check
    from hilo_env.agents.play import play

    check(args.opponent)
    try:
        play(args.opponent, _rules(args), hands=args.hands, seed=args.seed, seat=args.seat)
    except ImportError as exc:
        raise _UsageError(str(exc)) from None
    except KeyboardInterrupt:  # Ctrl-C while an agent thinks: leave as quietly as at a prompt
        print("\nBye.")
    return EXIT_OK


def _cmd_train(args: argparse.Namespace) -> int:
    from hilo_env.training.config import TrainConfig

    overrides = {k: v for k, v in (("total_timesteps", args.total_timesteps),
                                   ("output_dir", args.output_dir), ("name", args.name))
                 if v is not None}
    config = TrainConfig.from_yaml(args.config, **overrides)  # every field checked here
    try:
        from hilo_env.training.selfplay import train
    except ImportError as exc:
        raise _UsageError(f"training needs the train extra (pip install -e '.[train]'): "
                          f"{exc}") from None
    print(f"training {config.name}: {config.total_timesteps:,} decisions, outputs in "
          f"{config.run_dir}/ (tensorboard --logdir {config.run_dir}/tb)")
    try:
        model = train(config, progress=not args.no_progress, on_eval=_print_eval)
    except KeyboardInterrupt:
        print("hilo: training interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(f"model saved to {model}")
    return EXIT_OK


def _print_eval(step: int, scores: dict[str, tuple[float, float]]) -> None:
    line = ", ".join(f"{name} {mean:+.2f} ± {ci:.2f}" for name, (mean, ci) in scores.items())
    print(f"[{step:,} decisions] chips per hand against {line}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
