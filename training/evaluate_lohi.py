"""lo-hi tournaments: the same deals with seats rotated, each agent's mean score and win rate
with 95% confidence intervals over deals.

A *table* seats ``num_players`` agents, the names in order and repeated when fewer than the
seats. Each *deal* (a seed) is played once per seat rotation: the game's chance hook is seeded
the same each time, so round 1 is dealt the same while every agent takes every seat once
(later rounds drift apart as the play differs). A game's score is its reward (the winner +1,
every other seat -1/(n-1), plus any round rewards); an agent's score per deal is the mean over
the seats it held in that deal's rotations, and its 95% CI is taken over deals
(``training.evaluate.mean_ci``).

    from hilo_env.training.evaluate_lohi import tournament
    result = tournament(["heuristic", "random"], "standard", games=2_000)
    print(result.table())
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hilo_env.agents import lohi as lohi_agents
from hilo_env.lohi.engine import Game, SeededShuffle
from hilo_env.lohi.observation import Encoder, action_mask
from hilo_env.lohi.rules import RuleSet, resolve
from hilo_env.training.evaluate import mean_ci

PROGRESS_STEPS = 10
"""How many progress lines a tournament with progress on prints (to stderr)."""


@dataclass(frozen=True)
class AgentScore:
    """One agent's result: means over deals with their 95% CI half-widths."""

    name: str
    score: float
    score_ci: float
    win_rate: float
    win_ci: float


@dataclass(frozen=True)
class TournamentResult:
    """A finished tournament: its setting and one :class:`AgentScore` per distinct name."""

    rules: RuleSet
    deals: int
    seed: int
    seats: tuple[str, ...]
    scores: tuple[AgentScore, ...]
    decisions: int
    """Decisions taken over all games (for a sense of game length)."""

    @property
    def games(self) -> int:
        return self.deals * len(self.seats)

    def table(self) -> str:
        """A text table for people: one line per agent."""
        n = self.rules.num_players
        lines = [f"lo-hi, {n} players ({', '.join(self.seats)}), {self.games} games "
                 f"({self.deals} deals x {n} seatings), seed {self.seed}, "
                 f"{self.decisions / self.games:.0f} decisions a game",
                 f"{'agent':<12} {'score per game':>22} {'win rate':>20}"]
        for s in self.scores:
            lines.append(f"{s.name:<12} {s.score:+10.3f} ± {s.score_ci:.3f}{'':>5}"
                         f"{s.win_rate:8.1%} ± {s.win_ci:.1%}")
        return "\n".join(lines)

    def plot(self, path: str | Path) -> Path:
        """Save a bar chart of the scores with their 95% CIs; returns the path."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        path = Path(path)
        fig, ax = plt.subplots(figsize=(6, 1 + 0.5 * len(self.scores)))
        y = np.arange(len(self.scores))
        means = [s.score for s in self.scores]
        ax.barh(y, means, xerr=[s.score_ci for s in self.scores], capsize=3,
                color=["tab:green" if m > 0 else "tab:red" for m in means])
        ax.set_yticks(y, [s.name for s in self.scores])
        ax.invert_yaxis()
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlabel("reward per game (95% CI)")
        ax.set_title(f"lo-hi, {self.rules.num_players} players, {self.games} games")
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return path


def play_game(agents: Sequence, rules: RuleSet, seed: int,
              encoder: Encoder | None = None) -> Game:
    """One game of ``agents`` (one per seat, in seat order) on the deal ``seed``."""
    encoder = encoder or Encoder(rules)
    game = Game(rules, SeededShuffle(seed))
    while not game.over:
        seat = game.current_player
        game.step(agents[seat].act(encoder.encode(game, seat), action_mask(game)))
    return game


def tournament(names: Sequence[str], rules: RuleSet | str = "standard", games: int = 2_000,
               seed: int = 0, progress: bool = False) -> TournamentResult:
    """Play at least ``games`` games (whole deals of every seat rotation) at one table."""
    rules = resolve(rules)
    n = rules.num_players
    if not names:
        raise ValueError("name at least one lo-hi agent")
    if len(names) > n:
        raise ValueError(f"{len(names)} agents for {n} seats: name at most {n} "
                         f"(or raise --players)")
    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")
    seats = tuple(names[i % len(names)] for i in range(n))
    agents = [lohi_agents.make(name, rules, seed + i) for i, name in enumerate(seats)]
    distinct = list(dict.fromkeys(seats))
    deals = -(-games // n)
    scores = np.zeros((len(distinct), deals))
    wins = np.zeros((len(distinct), deals))
    held = np.array([seats.count(name) * n for name in distinct], dtype=np.float64)
    encoder = Encoder(rules)
    decisions = 0
    for deal in range(deals):
        for shift in range(n):
            seating = [agents[(s + shift) % n] for s in range(n)]
            game = play_game(seating, rules, seed * 1_000_003 + deal, encoder)
            decisions += game.turns
            for s, agent in enumerate(seating):
                i = distinct.index(agent.name)
                scores[i, deal] += game.payoffs[s]
                wins[i, deal] += s == game.winner
        if progress and (deal + 1) % max(1, deals // PROGRESS_STEPS) == 0:
            print(f"  {deal + 1}/{deals} deals", file=sys.stderr, flush=True)
    scores /= held[:, None]
    wins /= held[:, None]
    result = []
    for i, name in enumerate(distinct):
        mean, ci = mean_ci(scores[i])
        rate, rate_ci = mean_ci(wins[i])
        result.append(AgentScore(name, mean, ci, rate, rate_ci))
    return TournamentResult(rules, deals, seed, seats, tuple(result), decisions)
