"""The ``hilo`` command.

``hilo solve 4 7 9 8 --ops "/+-" --roots 1 [--json] [--rules classic|PATH] [--integer]``
    The best Low and High equations of a hand.
``hilo demo``
    The rulebook's two example hands, solved.

Bad input prints one line, ``hilo: error: ...``, on stderr and exits with status 2.
Each subcommand is a ``_cmd_*`` function registered in ``build_parser``; add new ones there.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import NoReturn

import yaml

from hilo_env import solver
from hilo_env.rules import resolve

EXIT_OK, EXIT_USAGE = 0, 2
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

    p = sub.add_parser("demo", help="the rulebook's example hands, solved",
                       description="Solve the two example hands of the rulebook.")
    p.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``hilo`` command; returns the exit status."""
    args_in = _join_ops(list(sys.argv[1:] if argv is None else argv))
    try:
        args = build_parser().parse_args(args_in)
        return args.func(args)
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
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
    for i, (text, target, numbers, ops, roots) in enumerate(_RULEBOOK_EXAMPLES):
        if i:
            print()
        value = solver.evaluate(text)
        side = "Low" if target == solver.LOW_TARGET else "High"
        print(f"Rulebook example ({side}, target {target}): {text} = {_num(value)}   "
              f"distance {_num(abs(value - target))}")
        print(format_solution(solver.solve(numbers, ops, roots)))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
