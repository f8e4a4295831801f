"""``hilo gauntlet AGENT``: one agent against each opponent of its game, duplicate deals.

Each opponent plays a duplicate match against the agent (:func:`training.evaluate.play_table`;
with more than two seats the opponent fills every other seat). By default the opponents are,
in Equation Hi-Lo, the gauntlet's scripted players (:data:`agents.gauntlet.GAUNTLET`) and, in
the other games, every other agent of the game (:func:`default_players`). The result is the
agent's score against each in the game's unit (chips per hand...; in a cooperative game the
team's win rate with the agent among the opponent's partners), with its 95% CI; the *best
exploit* is the opponent the agent does worst against. An opponent that wins off the agent
shows it can be exploited (a lower bound of its exploitability, as ``hilo exploit`` gives).

    from hilo_env.training.gauntlet import gauntlet
    print(gauntlet("heuristic", "standard", hands=2_000).table())
    print(gauntlet("heuristic", game="lohi", games=500).table())
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hilo_env import agents, games
from hilo_env.game_spec import GameSpec, load
from hilo_env.training.evaluate import (
    TableResult,
    interval,
    match_setup,
    play_table,
    unit_count,
)

DEFAULT_COUNT = 2_000
"""Episodes of each match when none is asked for."""


@dataclass
class GauntletResult:
    """The agent's duplicate match against each opponent."""

    agent: str
    rules_name: str
    rules: Any
    seed: int
    matches: dict[str, TableResult]
    """Opponent name -> the match; the agent sits in seat 0 of the first rotation."""
    seconds: float
    spec: GameSpec = field(default_factory=games.get)
    """The game played."""
    left_out: dict[str, str] = field(default_factory=dict)
    """Default opponents that cannot sit at these rules (no model for the table size, an
    extra not installed...), each with the reason."""

    def score(self, player: str) -> tuple[float, float]:
        """The agent's mean reward per episode against ``player`` (in a cooperative game the
        team's win rate) and its 95% CI half-width."""
        match = self.matches[player]
        return match.win_rate(0) if self.spec.cooperative else match.score(0)

    def best_exploit(self) -> str:
        """The player the agent loses most to (or wins least from)."""
        return min(self.matches, key=lambda p: self.score(p)[0])

    def table(self) -> str:
        """The results as text, worst match for the agent first."""
        spec, n = self.spec, len(next(iter(self.matches.values())).names)
        coop = spec.cooperative
        measure = (f"the team's win rate with {self.agent} among the player's partners" if coop
                   else f"{self.agent}'s {spec.score} per {spec.unit}")
        lines = [f"Gauntlet against {self.agent}: {self.rules_name} rules, {n} players, seed "
                 f"{self.seed}; duplicate deals, seats rotated; {measure} with 95% CI", ""]
        label = "team win" if coop else f"{spec.score}/{spec.unit}"
        col_w = max(10, len(label))
        width = max(len(p) for p in [*self.matches, "player"])
        head = (f"{'player':<{width}}  {label:>{col_w}}  {'95% CI':>17}  "
                f"{spec.unit + 's':>7}  time")
        lines += [head, "-" * len(head)]
        for p in sorted(self.matches, key=lambda p: self.score(p)[0]):
            mean, ci = self.score(p)
            m = self.matches[p]
            value = f"{mean:>{col_w}.1%}" if coop else f"{mean:>+{col_w}.3f}"
            lines.append(f"{p:<{width}}  {value}  {interval(mean, ci, coop):>17}  "
                         f"{m.episodes:>7,}  {m.seconds:.1f}s")
        best = self.best_exploit()
        mean, ci = self.score(best)
        if coop:
            lines += ["", f"weakest partnership: {self.agent} among {best}, team win rate "
                          f"{mean:.1%} ± {ci:.1%}"]
        else:
            verdict = (f"wins {spec.score} off it: the agent is exploitable" if mean + ci < 0
                       else "does not beat it significantly" if mean - ci < 0 else
                       "loses to it too: no player here beats the agent")
            lines += ["", f"best exploit: {best}, {self.agent} {mean:+.3f} ± {ci:.3f} "
                          f"{spec.score} per {spec.unit}; {best} {verdict}"]
        lines.append(f"{sum(m.episodes for m in self.matches.values()):,} {spec.unit}s in "
                     f"{self.seconds:.1f}s")
        lines += [f"left out: {name} ({reason})" for name, reason in self.left_out.items()]
        return "\n".join(lines)


def default_players(agent: str, game: str | None = None) -> list[str]:
    """The opponents of ``agent`` when none are named: Equation Hi-Lo's gauntlet of scripted
    players, or every other agent of the game's table."""
    spec = games.get(game)
    if spec.gauntlet:
        return list(load(spec.gauntlet))
    return [nm for nm in spec.agent_factories() if nm != agent]


def seatable(names: Sequence[str], rules: Any, game: str | None = None,
             allow_other_rules: bool = False) -> tuple[list[str], dict[str, str]]:
    """Those of ``names`` that can be made for ``rules``, and why each other cannot (its
    error: a model for other table sizes, an extra not installed...)."""
    fit, left_out = [], {}
    for name in names:
        try:
            agents.make(name, rules, seed=0, game=game, allow_other_rules=allow_other_rules)
        except (ValueError, ImportError, OSError) as exc:
            left_out[name] = " ".join(str(exc).split())
        else:
            fit.append(name)
    return fit, left_out


def gauntlet(agent: str, rules: Any = None, count: int | None = None, seed: int = 0,
             players: Sequence[str] | None = None,
             on_match: Callable[[str, TableResult], None] | None = None,
             rules_name: str | None = None, *, game: str | None = None,
             allow_other_rules: bool = False, **unit: int) -> GauntletResult:
    """Play ``agent`` (a registered name of ``game``, default Equation Hi-Lo) against each of
    ``players`` (None: those of :func:`default_players` that can sit at ``rules``, the others
    listed in the result's ``left_out``): ``count`` episodes each (or by the unit's
    name: ``hands=``, ``games=``, ``rounds=``; rounded up to whole duplicate deals), the same
    deals in every match. ``on_match`` is called after each match; ``rules_name`` names the
    rules in the table (default: the preset or path given, or ``custom``);
    ``allow_other_rules``: trained agents play rules other than their own (:mod:`agents.ppo`)."""
    spec = games.get(game)
    count = unit_count(spec, count, DEFAULT_COUNT, **unit)
    agents.check(agent, spec.name)
    for name in players or ():
        agents.check(name, spec.name)
    if players is not None and len(set(players)) < len(players):
        twice = next(nm for i, nm in enumerate(players) if nm in players[:i])
        raise ValueError(f"opponent {twice!r} is named twice: each plays one match")
    rules_name, rules, n, deals = match_setup(spec, rules, count, rules_name)
    left_out: dict[str, str] = {}
    if players is None:
        players, left_out = seatable(default_players(agent, spec.name), rules, spec.name,
                                     allow_other_rules)
    players = list(players)
    if not players:
        raise ValueError(f"{spec.title} has no other agent to play {agent!r} against at these "
                         "rules" + "".join(f"; {nm}: {why}" for nm, why in left_out.items()))
    start = time.perf_counter()
    seated = {name: (agents.make(agent, rules, seed=seed * 1000, game=spec.name,
                                 allow_other_rules=allow_other_rules),
                     agents.make(name, rules, seed=seed * 1000 + 1 + i, game=spec.name,
                                 allow_other_rules=allow_other_rules))
              for i, name in enumerate(players)}  # every agent made (or refused) before play
    matches = {}
    for name, (me, player) in seated.items():
        matches[name] = play_table([me, *[player] * (n - 1)], rules, deals, seed,
                                   game=spec.name)
        if on_match is not None:
            on_match(name, matches[name])
    return GauntletResult(agent=agent, rules_name=rules_name, rules=rules, seed=seed,
                          matches=matches, seconds=time.perf_counter() - start, spec=spec,
                          left_out=left_out)
