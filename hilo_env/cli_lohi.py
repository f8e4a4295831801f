"""``hilo tournament --game lohi`` and ``hilo play --game lohi``: lo-hi on the ``hilo``
command (registered in ``cli.GAME_COMMANDS``).

``hilo tournament --game lohi heuristic random [--hands 2000] [--players N] [--rules R]``
    Games with seats rotated; each agent's score and win rate with 95% CIs
    (``training.evaluate_lohi``). ``--hands`` counts games (the shared default, 20,000 full
    games, takes minutes: a 2-player game is about 30 ms for the heuristic against random);
    ``--players`` defaults to the number of agents named (at least 2).
``hilo play --game lohi [--opponent heuristic] [--hands 1] [--seat 0] [--players N]``
    A person against lo-hi agents in the terminal (``agents.play_lohi``).

``--rules`` is a lo-hi preset: ``standard`` (the default) or ``single_round``. Bad input
raises ValueError, which ``cli.main`` prints as one line, ``hilo: error: ...``, exit status 2.
"""

from __future__ import annotations

import argparse
import sys

from hilo_env.agents import lohi as lohi_agents
from hilo_env.lohi.rules import MIN_PLAYERS, RuleSet, resolve

EXIT_OK = 0


def _rules(args: argparse.Namespace, players: int | None) -> RuleSet:
    """``--rules`` as a lo-hi preset, with ``players`` seats when given."""
    return resolve(args.rules) if players is None else resolve(args.rules, num_players=players)


def tournament(args: argparse.Namespace) -> int:
    """Run a lo-hi tournament and print its table (and save ``--plot``)."""
    from hilo_env.training.evaluate_lohi import tournament as run

    for name in args.agents:
        lohi_agents.make(name)  # an unknown name fails here, naming the choices
    if args.hands < 1:
        raise ValueError(f"--hands (games) must be at least 1, not {args.hands}")
    players = args.players if args.players is not None else max(MIN_PLAYERS, len(args.agents))
    result = run(args.agents, _rules(args, players), games=args.hands, seed=args.seed,
                 progress=not args.no_progress and sys.stderr.isatty())
    print(result.table())
    if args.plot:
        print(f"plot saved to {result.plot(args.plot)}")
    return EXIT_OK


def play(args: argparse.Namespace) -> int:
    """A person against lo-hi agents in the terminal."""
    from hilo_env.agents.play_lohi import play as run

    lohi_agents.make(args.opponent)  # an unknown name fails here, naming the choices
    run(args.opponent, _rules(args, args.players), games=args.hands, seed=args.seed,
        seat=args.seat)
    return EXIT_OK
