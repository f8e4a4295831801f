"""``hilo tournament --game himilo`` and ``hilo play --game himilo``: Hi MiLo! on the command line.

``hilo tournament --game himilo random team [--hands 5000] [--players 3..5] [--rules R]``
    Each named agent plays as a whole team on the same seeded deals; prints the team win rate
    per round and per best-of-five match with 95% confidence intervals
    (``training.evaluate_himilo``). ``--hands`` counts rounds.
``hilo play --game himilo [--opponent team] [--hands 1] [--seat 0] [--players N]``
    A person plays rounds in a team with bots (``agents.play_himilo``).

``--rules`` is a Hi MiLo! preset: ``standard`` (the default), ``medium``, ``difficult`` or
``hardcore``. The shared ``hilo play`` default opponent, ``heuristic`` (Equation Hi-Lo's),
means this game's rule-based ``team`` player. Bad input raises ValueError, which ``hilo``
prints as one line with exit status 2.
"""

from __future__ import annotations

import argparse

from hilo_env.agents.himilo import names
from hilo_env.himilo.rules import PRESETS, RuleSet, resolve

EXIT_OK = 0
DEFAULT_OPPONENT = "team"
SHARED_DEFAULT_OPPONENT = "heuristic"
"""``hilo play``'s default ``--opponent`` (Equation Hi-Lo's agent), read as ``team`` here."""


def _rules(args: argparse.Namespace) -> RuleSet:
    """``--rules`` (a Hi MiLo! preset) with ``--players`` applied when given."""
    if args.rules not in PRESETS:
        raise ValueError(f"--rules {args.rules!r} is not a Hi MiLo! preset; choose one of "
                         f"{list(PRESETS)}")
    players = getattr(args, "players", None)
    return resolve(args.rules) if players is None else resolve(args.rules, num_players=players)


def _check_agent(name: str) -> None:
    if name not in names():
        raise ValueError(f"unknown Hi MiLo! agent {name!r}; choose from {', '.join(names())}")


def tournament(args: argparse.Namespace) -> int:
    """Team win rates of the named agents; returns the exit status."""
    from hilo_env.training.evaluate_himilo import tournament as run

    rules = _rules(args)
    for name in args.agents:
        _check_agent(name)
    if args.hands < 1:
        raise ValueError(f"--hands must be at least 1, not {args.hands}")
    results = run(args.agents, rules, rounds=args.hands, seed=args.seed)
    for result in results:
        print(result.line())
    if getattr(args, "plot", None):
        print(f"plot saved to {_plot(results, args.plot)}")
    return EXIT_OK


def _plot(results: list, path: str) -> str:
    """A bar chart of the round win rates with their 95% CIs."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError("--plot needs matplotlib (pip install matplotlib)") from None
    rates = [r.round_rate() for r in results]
    fig, ax = plt.subplots(figsize=(4 + len(results), 3))
    ax.bar([r.agent for r in results], [100 * m for m, _ in rates],
           yerr=[100 * c for _, c in rates], capsize=4)
    ax.set_ylabel("team win rate per round (%)")
    ax.set_title(f"Hi MiLo!, {results[0].rules.num_players} players")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def play(args: argparse.Namespace) -> int:
    """A person with bots in the terminal; returns the exit status."""
    from hilo_env.agents.play_himilo import play as run

    opponent = args.opponent
    if opponent in (None, SHARED_DEFAULT_OPPONENT):
        opponent = DEFAULT_OPPONENT
    _check_agent(opponent)
    try:
        run(opponent, _rules(args), rounds=args.hands, seed=args.seed, seat=args.seat)
    except KeyboardInterrupt:
        print("\nBye.")
    return EXIT_OK
