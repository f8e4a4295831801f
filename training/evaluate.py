"""Tournaments between agents: duplicate deals, seats rotated, 95% confidence intervals.

A *table* seats ``num_players`` agents. Each *deal* (a seed) is played once per seat rotation:
the game is reset with the same seed every time, so the same cards come out (up to the cards
a fold leaves undealt) while each agent sits in each seat once. This *duplicate* format
cancels most of the luck of the cards. An agent's score is its mean net chips per hand; the
95% confidence interval is taken over deals (each deal's rotations averaged first, so the
pairing is respected): ``mean ± 1.96 · sd / sqrt(deals)``.

Every hand is a fresh single-hand game (``hands_per_episode`` is set to 1), so every hand
starts from full stacks. Every table of a tournament uses the same deals.

    from hilo_env.training.evaluate import tournament
    result = tournament(["random", "caller", "heuristic"], "standard", hands=20_000)
    print(result.table())
    result.plot("tournament.png")
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from hilo_env import agents as agent_registry
from hilo_env.agents.base import Agent
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.observation import Encoder, action_mask
from hilo_env.equation_hilo.rules import RuleSet, resolve

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""
PROGRESS_MIN_HANDS = 2_000
"""Tournaments of this many hands or more show a progress bar (when tqdm is installed)."""


def deal_rng(seed: int, deal: int) -> np.random.Generator:
    """The generator that deals deal number ``deal`` of a tournament seeded ``seed``."""
    return np.random.default_rng([seed, deal])


def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return math.nan, math.nan
    if values.size == 1:
        return float(values[0]), math.inf
    return float(values.mean()), float(Z95 * values.std(ddof=1) / math.sqrt(values.size))


class DealRecord(NamedTuple):
    """A deal as the first decision of a hand finds it: what duplicate play must replay."""

    hidden: tuple[int, ...]
    """Each seat's hidden card."""
    up: tuple[tuple[int, ...], ...]
    """Each seat's face-up cards so far."""
    set_aside: tuple[int, ...]
    """Specials set aside so far (extra cards that were not numbers)."""
    deck: tuple[int, ...]
    """The undealt cards, top first."""
    hand_seed: int
    """The seed of the hand's reshuffles."""


@dataclass
class TableResult:
    """One table's duplicate match: per deal, each seated agent's mean chips per hand."""

    names: tuple[str, ...]
    """The agents at the table, in their seats of the first rotation."""
    per_deal: np.ndarray
    """``(deals, players)``: each agent's net chips per hand, averaged over the rotations."""
    house: float
    """Chips per hand the house took (odd chips), on average."""
    seconds: float
    """Wall time of the match."""
    records: list[list[DealRecord]] = field(default_factory=list)
    """With ``record``: per deal, per rotation, the cards as the first decision finds them."""

    @property
    def deals(self) -> int:
        return self.per_deal.shape[0]

    @property
    def hands(self) -> int:
        """Hands played (deals × rotations)."""
        return self.deals * len(self.names)

    def score(self, i: int) -> tuple[float, float]:
        """Mean chips per hand of the agent in seat ``i`` (first rotation) and its 95% CI."""
        return mean_ci(self.per_deal[:, i])

    def title(self) -> str:
        return " vs ".join(self.names)


def play_table(players: Sequence[Agent], rules: RuleSet | str, deals: int, seed: int = 0, *,
               record: bool = False, on_hand: Callable[[int], None] | None = None
               ) -> TableResult:
    """Play ``deals`` duplicate deals at one table of ``num_players`` agents.

    Deal ``d`` is dealt by :func:`deal_rng` ``(seed, d)`` in every rotation; in rotation ``r``
    seat ``s`` holds ``players[(s + r) % n]``. ``on_hand(k)`` is called after every ``k`` hands.
    """
    rules = resolve(rules)
    if rules.hands_per_episode != 1:
        rules = rules.replace(hands_per_episode=1)
    n = rules.num_players
    if len(players) != n:
        raise ValueError(f"a table of these rules seats {n} agents, not {len(players)}")
    encoder = Encoder(rules)
    per_deal = np.zeros((deals, n))
    house = 0
    records: list[list[DealRecord]] = []
    start = time.perf_counter()
    for d in range(deals):
        net = np.zeros(n)
        deal_records = []
        for r in range(n):
            game = Game(rules, deal_rng(seed, d))
            if record:
                deal_records.append(DealRecord(tuple(game.hidden), tuple(map(tuple, game.up)),
                                               tuple(game.set_aside), tuple(reversed(game.deck)),
                                               game.hand_seed))
            while game.phase < Phase.HAND_OVER:
                seat = game.current_player
                action = players[(seat + r) % n].act(encoder.encode(game, seat),
                                                     action_mask(game))
                game.step(int(action))
            for seat, chips in enumerate(game.result.net):
                net[(seat + r) % n] += chips
            house += game.result.house
        per_deal[d] = net / n
        if record:
            records.append(deal_records)
        if on_hand is not None:
            on_hand(n)
    return TableResult(names=tuple(p.name for p in players), per_deal=per_deal,
                       house=house / max(1, deals * n), seconds=time.perf_counter() - start,
                       records=records)


@dataclass
class TournamentResult:
    """Every table of a tournament, and each agent's overall score."""

    rules_name: str
    rules: RuleSet
    names: tuple[str, ...]
    tables: list[TableResult]
    seed: int
    seconds: float

    def overall(self, name: str) -> tuple[float, float, int]:
        """An agent's mean chips per hand over all its tables, the 95% CI half-width (over
        deals: a deal's score is its mean over the agent's seats and tables), and its hands."""
        columns = [t.per_deal[:, i] for t in self.tables for i, nm in enumerate(t.names)
                   if nm == name]
        if not columns:
            return math.nan, math.nan, 0
        mean, ci = mean_ci(np.mean(columns, axis=0))
        hands = sum(t.hands * sum(nm == name for nm in t.names) for t in self.tables)
        return mean, ci, hands

    def table(self) -> str:
        """The results as text: every match, then the overall standings."""
        n = self.rules.num_players
        lines = [f"Equation Hi-Lo tournament: {self.rules_name} rules, {n} players, seed "
                 f"{self.seed}; duplicate deals, seats rotated; chips per hand with 95% CI"]
        width = max(len(nm) for nm in self.names)
        match_w = max([len(t.title()) for t in self.tables] + [5])
        head = (f"{'match':<{match_w}}  {'agent':<{width}}  {'chips/hand':>10}  "
                f"{'95% CI':>17}  {'hands':>7}  {'time':>6}")
        lines += ["", head, "-" * len(head)]
        for t in self.tables:
            for i, nm in enumerate(t.names):
                mean, ci = t.score(i)
                label = t.title() if i == 0 else ""
                tail = f"  {t.hands:>7,}  {t.seconds:>5.1f}s" if i == 0 else ""
                lines.append(f"{label:<{match_w}}  {nm:<{width}}  {mean:>+10.3f}  "
                             f"{_interval(mean, ci):>17}{tail}")
        if len(self.tables) > 1:
            head = f"{'overall':<{width}}  {'chips/hand':>10}  {'95% CI':>17}  {'hands':>7}"
            lines += ["", head, "-" * len(head)]
            ranked = sorted(self.names, key=lambda nm: -self.overall(nm)[0])
            for nm in ranked:
                mean, ci, hands = self.overall(nm)
                lines.append(f"{nm:<{width}}  {mean:>+10.3f}  {_interval(mean, ci):>17}  "
                             f"{hands:>7,}")
        house = sum(t.house * t.hands for t in self.tables) / max(1, sum(t.hands
                                                                         for t in self.tables))
        lines += ["", f"house (odd chips): {house:.3f} chips per hand; "
                      f"{sum(t.hands for t in self.tables):,} hands in {self.seconds:.1f}s"]
        return "\n".join(lines)

    def plot(self, path: str | Path) -> Path:
        """Save a bar chart (overall, and per match) with 95% CIs; returns the path."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        path = Path(path)
        labels, means, cis = [], [], []
        for t in self.tables:
            for i, nm in enumerate(t.names):
                mean, ci = t.score(i)
                others = [o for j, o in enumerate(t.names) if j != i]
                labels.append(f"{nm}\nvs {', '.join(others)}")
                means.append(mean)
                cis.append(ci)
        overall = [self.overall(nm) for nm in self.names]
        fig, axes = plt.subplots(1, 2, figsize=(11, 0.9 + 0.45 * max(len(labels), 4)),
                                 gridspec_kw={"width_ratios": [1, 1.4]})
        for ax, names, ms, cs, title in (
                (axes[0], list(self.names), [o[0] for o in overall], [o[1] for o in overall],
                 "overall"),
                (axes[1], labels, means, cis, "per match")):
            y = np.arange(len(names))
            colors = ["tab:green" if m > 0 else "tab:red" for m in ms]
            ax.barh(y, ms, xerr=np.nan_to_num(cs, posinf=0.0), color=colors, capsize=3)
            ax.set_yticks(y, names, fontsize=8)
            ax.invert_yaxis()
            ax.axvline(0, color="black", lw=0.8)
            ax.set_xlabel("chips per hand (95% CI)")
            ax.set_title(title)
        fig.suptitle(f"Equation Hi-Lo, {self.rules_name} rules: duplicate tournament, "
                     f"seed {self.seed}", fontsize=10)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return path


def _interval(mean: float, ci: float) -> str:
    if not math.isfinite(ci):
        return "n/a"
    return f"[{mean - ci:+.3f}, {mean + ci:+.3f}]"


def seatings(names: Sequence[str], num_players: int) -> list[tuple[str, ...]]:
    """The tables of a round robin: every group of ``num_players`` distinct agents; with
    fewer agents than seats, one table with the agents repeated in turn."""
    if len(names) < 2:
        raise ValueError("a tournament needs at least two agents")
    if len(names) <= num_players:
        return [tuple(names[i % len(names)] for i in range(num_players))]
    return list(itertools.combinations(names, num_players))


def tournament(names: Sequence[str], rules: RuleSet | str = "standard", hands: int = 20_000,
               seed: int = 0, progress: bool | None = None) -> TournamentResult:
    """A round robin between registered agents: ``hands`` hands at each table (rounded up to
    whole duplicate deals), the same deals at every table. ``progress``: a tqdm bar (default:
    for long tournaments, when tqdm is installed)."""
    for nm in names:
        agent_registry.check(nm)
    if len(set(names)) != len(names):
        raise ValueError(f"each agent may be named once in a tournament, got {list(names)}")
    rules_name = rules if isinstance(rules, str) else "custom"
    rules = resolve(rules).replace(hands_per_episode=1)
    n = rules.num_players
    groups = seatings(names, n)
    deals = max(1, math.ceil(hands / n))
    total = deals * n * len(groups)
    bar = _progress_bar(total, progress)
    start = time.perf_counter()
    tables = []
    try:
        for g, group in enumerate(groups):
            players = [agent_registry.make(nm, rules, seed=seed * 1000 + 10 * g + i)
                       for i, nm in enumerate(group)]
            if bar is not None:
                bar.set_description(" vs ".join(group))
            tables.append(play_table(players, rules, deals, seed,
                                     on_hand=None if bar is None else bar.update))
    finally:
        if bar is not None:
            bar.close()
    return TournamentResult(rules_name=str(rules_name), rules=rules, names=tuple(names),
                            tables=tables, seed=seed, seconds=time.perf_counter() - start)


def _progress_bar(total: int, progress: bool | None) -> Any:
    if progress is None:
        progress = total >= PROGRESS_MIN_HANDS and sys.stderr.isatty()
    if not progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="hand", file=sys.stderr, leave=False)
