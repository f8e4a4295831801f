"""Hi MiLo! team evaluation: a team of one agent kind plays many rounds; the team win rate
per round and per best-of-five match, each with a 95% confidence interval.

Round ``i`` of an evaluation seeded ``seed`` is dealt by ``numpy.random.default_rng([seed,
i])`` with the dealer moving one seat clockwise per round, so every team meets the same deals.
Consecutive groups of five rounds make the matches (the team wins a match with 3 of its 5).

    python -m hilo_env.training.evaluate_himilo team --rounds 5000 --players 4
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hilo_env.agents.himilo import make
from hilo_env.himilo.engine import MATCH_ROUNDS, WIN, Round
from hilo_env.himilo.observation import Encoder, action_mask
from hilo_env.himilo.rules import RuleSet, resolve
from hilo_env.training.evaluate import mean_ci


@dataclass(frozen=True)
class TeamResult:
    """Outcomes of one team over the rounds of an evaluation."""

    agent: str
    rules: RuleSet
    wins: np.ndarray
    """(rounds,) bool: the team won round i."""

    @property
    def rounds(self) -> int:
        return int(self.wins.size)

    def round_rate(self) -> tuple[float, float]:
        """Team win rate per round and the half-width of its 95% CI."""
        return mean_ci(self.wins)

    def match_rate(self) -> tuple[float, float]:
        """Best-of-five win rate over the whole matches played, with its 95% CI half-width."""
        whole = self.rounds // MATCH_ROUNDS * MATCH_ROUNDS
        if whole == 0:
            return math.nan, math.nan
        matches = self.wins[:whole].reshape(-1, MATCH_ROUNDS).sum(axis=1) > MATCH_ROUNDS // 2
        return mean_ci(matches)

    def line(self) -> str:
        """One line for people."""
        (r, rc), (m, mc) = self.round_rate(), self.match_rate()
        return (f"{self.agent:<8} {self.rules.num_players} players  {self.rounds:>6} rounds  "
                f"round win rate {100 * r:5.2f}% ± {100 * rc:4.2f}  "
                f"best-of-5 match win rate {100 * m:5.2f}% ± {100 * mc:4.2f}")


def evaluate(agent: str, rules: RuleSet | str = "standard", rounds: int = 5_000,
             seed: int = 0) -> TeamResult:
    """Seat one ``agent`` in every seat (each its own seed) for ``rounds`` rounds."""
    rules = resolve(rules)
    if rounds < 1:
        raise ValueError(f"--hands (rounds) must be at least 1, not {rounds}")
    n = rules.num_players
    team = [make(agent, rules, seed=seed * n + s) for s in range(n)]
    encoder = Encoder(rules)
    wins = np.zeros(rounds, dtype=bool)
    for i in range(rounds):
        game = Round(rules, np.random.default_rng([seed, i]), dealer=(rules.dealer_seat + i) % n)
        while game.current_player is not None:
            seat = game.current_player
            obs = encoder.encode(game, seat) if team[seat].observes else None
            game.step(team[seat].act(obs, action_mask(game)))
        wins[i] = game.outcome == WIN
    return TeamResult(agent, rules, wins)


def tournament(agents: Sequence[str], rules: RuleSet | str = "standard", rounds: int = 5_000,
               seed: int = 0) -> list[TeamResult]:
    """Each named agent as a whole team on the same deals."""
    return [evaluate(name, rules, rounds, seed) for name in agents]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the team win rates of the named agents."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agents", nargs="+")
    parser.add_argument("--rounds", type=int, default=5_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rules = resolve(args.rules, num_players=args.players)
    for result in tournament(args.agents, rules, args.rounds, args.seed):
        print(result.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
