"""Tournaments between agents of any game: duplicate deals, seats rotated, 95% confidence
intervals.

A *table* seats ``num_players`` agents. Each *deal* (a seed) is played once per seat rotation:
the game is reset with the same seed every time, so the same cards come out (as far as the
play lets them) while each agent sits in each seat once. This *duplicate* format cancels most
of the luck of the cards. An agent's score is its mean reward per episode of the game (the
game's ``unit``: chips per hand in Equation Hi-Lo, reward per game in lo-hi, the team's reward
per round in Hi MiLo!) and its win rate the share of its episodes with a positive reward; the
95% confidence interval is taken over deals (each deal's rotations averaged first, so the
pairing is respected): ``mean ± 1.96 · sd / sqrt(deals)``.

Equation Hi-Lo plays on its engine directly, every hand a fresh single-hand game
(``hands_per_episode`` set to 1, so every hand starts from full stacks); every other game plays
its PettingZoo AEC env (``games.get(game).raw_env(rules)``), many tables in lockstep
(:mod:`training.lockstep`). Every table of a tournament uses the same deals. In a cooperative
game (``spec.cooperative``) each named agent plays as a whole team, and each one alone among
each other's team (ad-hoc teamwork).

    from hilo_env.training.evaluate import tournament
    result = tournament(["random", "caller", "heuristic"], "standard", hands=20_000)
    result = tournament(["heuristic", "random"], game="lohi", games=2_000)
    print(result.table())
    result.plot("tournament.png")
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from hilo_env import agents as agent_registry
from hilo_env import games
from hilo_env.agents.base import Agent
from hilo_env.equation_hilo.engine import Game, Phase
from hilo_env.equation_hilo.observation import Encoder, action_mask
from hilo_env.equation_hilo.rules import RuleSet, resolve
from hilo_env.game_spec import GameSpec
from hilo_env.replays import Episode as ReplayEpisode
from hilo_env.replays import Replay
from hilo_env.training.lockstep import play_episodes

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""
PROGRESS_MIN_HANDS = 2_000
"""Tournaments of this many episodes or more show a progress bar (when tqdm is installed)."""
DEFAULT_COUNTS = {"hand": 20_000, "game": 2_000, "round": 5_000}
"""Episodes per table of a tournament when none is asked for, by the game's unit (a lo-hi game
is some 50 decisions, a hand of Equation Hi-Lo about 6)."""


def deal_rng(seed: int, deal: int) -> np.random.Generator:
    """The generator that deals deal number ``deal`` of a tournament seeded ``seed``."""
    return np.random.default_rng([seed, deal])


def deal_seed(seed: int, deal: int) -> int:
    """The ``env.reset(seed=...)`` of deal number ``deal`` of a tournament seeded ``seed``."""
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0])


def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return math.nan, math.nan
    if values.size == 1:
        return float(values[0]), math.inf
    return float(values.mean()), float(Z95 * values.std(ddof=1) / math.sqrt(values.size))


def interval(mean: float, ci: float, percent: bool = False) -> str:
    """``[low, high]`` of a 95% CI, or ``n/a`` when it is not finite (a single deal)."""
    if not math.isfinite(ci):
        return "n/a"
    if percent:
        return f"[{mean - ci:.1%}, {mean + ci:.1%}]"
    return f"[{mean - ci:+.3f}, {mean + ci:+.3f}]"


def unit_count(spec: GameSpec, count: int | None = None, default: int | None = None,
               **named: int) -> int:
    """The episodes asked for: ``count``, or the game's unit by name (``hands=`` in Equation
    Hi-Lo, ``games=`` in lo-hi, ``rounds=`` in Hi MiLo!), else ``default`` (None: the unit's
    :data:`DEFAULT_COUNTS`). ValueError for another unit's name or a count under 1."""
    word = f"{spec.unit}s"
    for other in named:
        if other != word:
            raise ValueError(f"{spec.title} counts {word}: use {word}=, not {other}=")
    if count is not None and named:
        raise ValueError(f"give count or {word}=, not both")
    count = named.get(word, count)
    if count is None:
        count = DEFAULT_COUNTS[spec.unit] if default is None else default
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 1:
        raise ValueError(f"{word} must be a whole number at least 1, not {count!r}")
    return int(count)


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
    """One table's duplicate match: per deal, each seated agent's mean reward per episode."""

    names: tuple[str, ...]
    """The agents at the table, in their seats of the first rotation."""
    per_deal: np.ndarray
    """``(deals, players)``: each agent's reward per episode (net chips per hand in Equation
    Hi-Lo), averaged over the rotations."""
    house: float | None
    """Chips per hand the house took (odd chips), on average; None in a game without one."""
    seconds: float
    """Wall time of the match."""
    records: list[list[DealRecord]] = field(default_factory=list)
    """With ``record``: per deal, per rotation, the cards as the first decision finds them."""
    wins: np.ndarray | None = None
    """``(deals, players)``: each agent's share of episodes won (a positive reward); None for
    Equation Hi-Lo, whose score is its chips."""

    @property
    def deals(self) -> int:
        return self.per_deal.shape[0]

    @property
    def episodes(self) -> int:
        """Episodes played (deals × rotations): hands, games or rounds, as the game counts."""
        return self.deals * len(self.names)

    @property
    def hands(self) -> int:
        """Episodes played, by Equation Hi-Lo's name for them."""
        return self.episodes

    def score(self, i: int) -> tuple[float, float]:
        """Mean reward per episode of the agent in seat ``i`` (first rotation), its 95% CI."""
        return mean_ci(self.per_deal[:, i])

    def win_rate(self, i: int) -> tuple[float, float]:
        """Share of episodes won by the agent in seat ``i`` (first rotation), its 95% CI."""
        if self.wins is None:
            raise ValueError("this table counted chips, not wins")
        return mean_ci(self.wins[:, i])

    def title(self) -> str:
        return " vs ".join(self.names)


def play_table(players: Sequence[Agent], rules: Any, deals: int, seed: int = 0, *,
               game: str | None = None, record: bool = False,
               on_episodes: Callable[[int], None] | None = None,
               replay: Replay | None = None) -> TableResult:
    """Play ``deals`` duplicate deals of ``game`` (default: Equation Hi-Lo) at one table.

    In rotation ``r`` seat ``s`` holds ``players[(s + r) % n]``; deal ``d`` is dealt by
    :func:`deal_rng` ``(seed, d)`` in Equation Hi-Lo, by ``reset(seed=deal_seed(seed, d))`` in
    the other games. ``on_episodes(k)`` is called after every ``k`` episodes; ``record``
    (Equation Hi-Lo) keeps each deal's cards; ``replay`` (an ``env``-dealt
    :class:`~hilo_env.replays.Replay`) gets every episode.
    """
    spec = games.get(game)
    if deals < 1:
        raise ValueError(f"a table plays at least 1 deal, not {deals}")
    if spec.can("records"):
        return _play_hilo_table(players, rules, deals, seed, record, on_episodes, replay)
    if record:
        spec.require("records")
    rules = spec.rules(rules)
    n = seat_count(spec, rules)
    if len(players) != n:
        raise ValueError(f"a table of these {spec.title} rules seats {n} agents, not "
                         f"{len(players)}")
    start = time.perf_counter()
    rotations = [tuple((s + r) % n for s in range(n)) for r in range(n)]
    episodes = [(deal_seed(seed, d), seating) for d in range(deals) for seating in rotations]
    actions: list[list[int]] | None = None if replay is None else []
    returns = play_episodes(lambda: spec.raw_env(rules), players, episodes,
                            on_episode=on_episodes, actions=actions)
    if replay is not None:
        replay.episodes.extend(
            ReplayEpisode(taken, [players[p].name for p in seating], episode_seed)
            for (episode_seed, seating), taken in zip(episodes, actions, strict=True))
    # returns[e, s] belongs to players[rotations[r][s]]: gather it by player
    by_player = np.argsort(np.array(rotations), axis=1)  # (rotations, players) -> seat
    rows = returns.reshape(deals, n, n)
    per_player = np.take_along_axis(rows, by_player[None], axis=2)
    return TableResult(names=tuple(p.name for p in players), per_deal=per_player.mean(axis=1),
                       house=None, seconds=time.perf_counter() - start,
                       wins=(per_player > 0).mean(axis=1))


def seat_count(spec: GameSpec, rules: Any) -> int:
    """The seats of a table of ``spec``'s game under ``rules`` (its env's agents)."""
    return len(spec.raw_env(rules).possible_agents)


def _play_hilo_table(players: Sequence[Agent], rules: RuleSet | str, deals: int, seed: int,
                     record: bool, on_episodes: Callable[[int], None] | None,
                     replay: Replay | None) -> TableResult:
    """Equation Hi-Lo's table on its engine, one hand at a time (:func:`play_table`)."""
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
            taken = []
            while game.phase < Phase.HAND_OVER:
                seat = game.current_player
                action = players[(seat + r) % n].act(encoder.encode(game, seat),
                                                     action_mask(game))
                game.step(int(action))
                taken.append(int(action))
            if replay is not None:  # deal_rng(seed, d) is the env's reset(seed=[seed, d])
                replay.episodes.append(ReplayEpisode(
                    taken, [players[(s + r) % n].name for s in range(n)], [seed, d]))
            for seat, chips in enumerate(game.result.net):
                net[(seat + r) % n] += chips
            house += game.result.house
        per_deal[d] = net / n
        if record:
            records.append(deal_records)
        if on_episodes is not None:
            on_episodes(n)
    return TableResult(names=tuple(p.name for p in players), per_deal=per_deal,
                       house=house / max(1, deals * n), seconds=time.perf_counter() - start,
                       records=records)


@dataclass
class TournamentResult:
    """Every table of a tournament, and each agent's overall score."""

    rules_name: str
    rules: Any
    names: tuple[str, ...]
    tables: list[TableResult]
    seed: int
    seconds: float
    spec: GameSpec = field(default_factory=games.get)
    """The game played."""
    notes: tuple[str, ...] = ()
    """The agents' :attr:`~agents.base.Agent.rules_note` lines, printed under the table."""

    def overall(self, name: str) -> tuple[float, float, int]:
        """An agent's mean reward per episode over all its tables, the 95% CI half-width (over
        deals: a deal's score is its mean over the agent's seats and tables), and its
        episodes."""
        columns = [t.per_deal[:, i] for t in self.tables for i, nm in enumerate(t.names)
                   if nm == name]
        if not columns:
            return math.nan, math.nan, 0
        mean, ci = mean_ci(np.mean(columns, axis=0))
        episodes = sum(t.episodes * sum(nm == name for nm in t.names) for t in self.tables)
        return mean, ci, episodes

    def rows(self) -> list[tuple[str, str, float, float, TableResult, int]]:
        """One row per result shown: ``(match, agent, mean, ci, table, seat)``. A cooperative
        game's row is a team's win rate (its seats share one result); a competitive game's is
        each seat's reward."""
        rows = []
        for t in self.tables:
            if self.spec.cooperative:
                match = (f"{t.names[0]} ×{len(t.names)}" if len(set(t.names)) == 1 else
                         f"{t.names[0]} among {t.names[1]}")
                rows.append((match, t.names[0], *t.win_rate(0), t, 0))
                continue
            for i, nm in enumerate(t.names):
                rows.append((t.title() if i == 0 else "", nm, *t.score(i), t, i))
        return rows

    def table(self) -> str:
        """The results as text: every match, then the overall standings."""
        spec, n = self.spec, len(self.tables[0].names)
        units = f"{spec.unit}s"
        measure = "team win rate" if spec.cooperative else f"{spec.score} per {spec.unit}"
        wins = not spec.cooperative and all(t.wins is not None for t in self.tables)
        lines = [f"{spec.title} tournament: {self.rules_name} rules, {n} players, seed "
                 f"{self.seed}; duplicate deals, seats rotated; {measure} with 95% CI"
                 + (", win rate" if wins else "")]
        rows = self.rows()
        name_w = max(len(nm) for nm in self.names)
        match_w = max([len(r[0]) for r in rows] + [5])
        label = f"{spec.score}/{spec.unit}"
        col_w = max(10, len(label))
        head = (f"{'match':<{match_w}}  {'agent':<{name_w}}  {label:>{col_w}}  "
                f"{'95% CI':>17}" + (f"  {'win rate':>16}" if wins else "")
                + f"  {units:>7}  {'time':>6}")
        lines += ["", head, "-" * len(head)]
        for match, nm, mean, ci, t, i in rows:
            value = f"{mean:>{col_w}.1%}" if spec.cooperative else f"{mean:>+{col_w}.3f}"
            tail = f"  {t.episodes:>7,}  {t.seconds:>5.1f}s" if match else ""
            won = f"  {_rate(*t.win_rate(i)):>16}" if wins else ""
            lines.append(f"{match:<{match_w}}  {nm:<{name_w}}  {value}  "
                         f"{interval(mean, ci, spec.cooperative):>17}{won}{tail}")
        if len(self.tables) > 1 and not spec.cooperative:
            head = f"{'overall':<{name_w}}  {label:>{col_w}}  {'95% CI':>17}  {units:>7}"
            lines += ["", head, "-" * len(head)]
            ranked = sorted(self.names, key=lambda nm: -self.overall(nm)[0])
            for nm in ranked:
                mean, ci, episodes = self.overall(nm)
                lines.append(f"{nm:<{name_w}}  {mean:>+{col_w}.3f}  {interval(mean, ci):>17}  "
                             f"{episodes:>7,}")
        total = sum(t.episodes for t in self.tables)
        if all(t.house is not None for t in self.tables):
            house = sum(t.house * t.episodes for t in self.tables) / max(1, total)
            lines += ["", f"house (odd chips): {house:.3f} chips per hand; "
                          f"{total:,} hands in {self.seconds:.1f}s"]
        else:
            lines += ["", f"{total:,} {units} in {self.seconds:.1f}s"]
        return "\n".join(lines + [f"Note: {note}." for note in self.notes])

    def plot(self, path: str | Path) -> Path:
        """Save a bar chart (overall, and per match) with 95% CIs; returns the path (its
        folder is made when missing)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        spec, path = self.spec, Path(path)
        labels, means, cis = [], [], []
        for match, nm, mean, ci, t, i in self.rows():
            others = [o for j, o in enumerate(t.names) if j != i]
            labels.append(match if spec.cooperative else f"{nm}\nvs {', '.join(others)}")
            means.append(mean)
            cis.append(ci)
        panels = [(labels, means, cis, "per match")]
        if not spec.cooperative:
            overall = [self.overall(nm) for nm in self.names]
            panels.insert(0, (list(self.names), [o[0] for o in overall],
                              [o[1] for o in overall], "overall"))
        xlabel = ("team win rate" if spec.cooperative else
                  f"{spec.score} per {spec.unit}") + " (95% CI)"
        fig, axes = plt.subplots(1, len(panels),
                                 figsize=(5.5 * len(panels), 0.9 + 0.45 * max(len(labels), 4)),
                                 squeeze=False)
        for ax, (names, ms, cs, title) in zip(axes[0], panels, strict=True):
            y = np.arange(len(names))
            colors = ["tab:green" if m > 0 else "tab:red" for m in ms]
            ax.barh(y, ms, xerr=np.nan_to_num(cs, posinf=0.0), color=colors, capsize=3)
            ax.set_yticks(y, names, fontsize=8)
            ax.invert_yaxis()
            ax.axvline(0, color="black", lw=0.8)
            ax.set_xlabel(xlabel)
            ax.set_title(title)
        fig.suptitle(f"{spec.title}, {self.rules_name} rules: duplicate tournament, "
                     f"seed {self.seed}", fontsize=10)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return path


def _rate(mean: float, ci: float) -> str:
    return f"{mean:.1%} ± " + ("n/a" if not math.isfinite(ci) else f"{ci:.1%}")


def seatings(names: Sequence[str], num_players: int) -> list[tuple[str, ...]]:
    """The tables of a round robin: every group of ``num_players`` distinct agents; with
    fewer agents than seats, one table with the agents repeated in turn."""
    if len(names) < 2:
        raise ValueError("a tournament needs at least two agents")
    if len(names) <= num_players:
        return [tuple(names[i % len(names)] for i in range(num_players))]
    return list(itertools.combinations(names, num_players))


def team_seatings(names: Sequence[str], num_players: int) -> list[tuple[str, ...]]:
    """The tables of a cooperative game: each agent as a whole team, then for each ordered
    pair (A, B) one A among B partners."""
    if not names:
        raise ValueError("a tournament needs at least one agent")
    teams = [(nm,) * num_players for nm in names]
    return teams + [(a, *(b,) * (num_players - 1)) for a, b in itertools.permutations(names, 2)]


def tournament(names: Sequence[str], rules: Any = None, count: int | None = None,
               seed: int = 0, *, game: str | None = None, progress: bool | None = None,
               rules_name: str | None = None, save_replays: str | Path | None = None,
               allow_other_rules: bool = False, **unit: int) -> TournamentResult:
    """A round robin between registered agents of ``game`` (default: Equation Hi-Lo):
    ``count`` episodes at each table (or by the unit's name: ``hands=``, ``games=``,
    ``rounds=``), rounded up to whole duplicate deals, the same deals at every table.
    ``rules``: a preset name, a RuleSet (or for Equation Hi-Lo a YAML path); None: the game's
    default preset; ``rules_name`` names them in the table (default: the preset or path given,
    or ``custom``). ``progress``: a tqdm bar (default: for long tournaments, when tqdm is
    installed). ``save_replays``: a folder each table's episodes are written to, one replay
    file a table (:mod:`hilo_env.replays`). ``allow_other_rules``: trained agents play rules
    other than their own (:mod:`agents.ppo`); the table notes it."""
    spec = games.get(game)
    count = unit_count(spec, count, **unit)
    names = list(names)
    for nm in names:
        agent_registry.check(nm, spec.name)
    if len(set(names)) != len(names):
        raise ValueError(f"each agent may be named once in a tournament, got {names}")
    rules_name, rules, n, deals = match_setup(spec, rules, count, rules_name)
    groups = team_seatings(names, n) if spec.cooperative else seatings(names, n)
    start = time.perf_counter()
    seated = [[agent_registry.make(nm, rules, seed=seed * 1000 + 10 * g + i, game=spec.name,
                                   allow_other_rules=allow_other_rules)
               for i, nm in enumerate(group)]
              for g, group in enumerate(groups)]  # every agent made (or refused) before play
    bar = _progress_bar(deals * n * len(groups), progress, spec.unit)
    tables = []
    try:
        for group, players in zip(groups, seated, strict=True):
            if bar is not None:
                bar.set_description(" vs ".join(group))
            replay = None if save_replays is None else \
                Replay.new(spec.name, rules, {"by": "env"})
            tables.append(play_table(players, rules, deals, seed, game=spec.name,
                                     on_episodes=None if bar is None else bar.update,
                                     replay=replay))
            if replay is not None:
                replay.save(Path(save_replays) / replay_name(len(tables), group))
    finally:
        if bar is not None:
            bar.close()
    notes = tuple(dict.fromkeys(a.rules_note for row in seated for a in row if a.rules_note))
    return TournamentResult(rules_name=rules_name, rules=rules, names=tuple(names),
                            tables=tables, seed=seed, seconds=time.perf_counter() - start,
                            spec=spec, notes=notes)


def replay_name(table: int, group: Sequence[str]) -> str:
    """The replay file of table number ``table`` (from 1): ``01-heuristic-vs-random.json``,
    any character a file name may not hold in an agent's name (``ppo:PATH``) as ``_``."""
    title = "-vs-".join(re.sub(r"[^A-Za-z0-9_.]+", "_", name) for name in group)
    return f"{table:02d}-{title}.json"


class MatchSetup(NamedTuple):
    """What a match of a tournament or gauntlet is played under."""

    rules_name: str
    """The rules' name in tables: the preset or path given, or ``custom``."""
    rules: Any
    """The RuleSet (Equation Hi-Lo's with ``hands_per_episode`` 1: one hand an episode)."""
    seats: int
    deals: int
    """Duplicate deals: ``count`` episodes rounded up to whole rotations of the seats."""


def match_setup(spec: GameSpec, rules: Any, count: int,
                rules_name: str | None = None) -> MatchSetup:
    """The rules, seats and deals of a match of ``count`` episodes of ``spec``'s game."""
    if rules_name is None:
        rules_name = spec.default_rules if rules is None else \
            rules if isinstance(rules, str) else "custom"
    rules = spec.rules(rules)
    if spec.match_fields:  # one deal an episode
        rules = dataclasses.replace(rules, **dict.fromkeys(spec.match_fields, 1))
    n = seat_count(spec, rules)
    return MatchSetup(str(rules_name), rules, n, max(1, math.ceil(count / n)))


def _progress_bar(total: int, progress: bool | None, unit: str) -> Any:
    if progress is None:
        progress = total >= PROGRESS_MIN_HANDS and sys.stderr.isatty()
    if not progress:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit=unit, file=sys.stderr, leave=False)
