"""``hilo gauntlet AGENT``: the gauntlet's scripted players against one agent, duplicate deals.

Each player of :data:`agents.gauntlet.GAUNTLET` plays a duplicate match against the agent
(:func:`training.evaluate.play_table`; with more than two seats the player fills every other
seat). The result is the agent's chips per hand against each, with its 95% CI; the *best
exploit* is the player the agent does worst against. A player that wins chips off the agent
shows it can be exploited (a lower bound of its exploitability, as ``hilo exploit`` gives).

    from hilo_env.training.gauntlet import gauntlet
    print(gauntlet("heuristic", "standard", hands=2_000).table())
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hilo_env import agents
from hilo_env.agents.gauntlet import GAUNTLET
from hilo_env.equation_hilo.rules import RuleSet, resolve
from hilo_env.training.evaluate import TableResult, play_table


@dataclass
class GauntletResult:
    """The agent's duplicate match against each gauntlet player."""

    agent: str
    rules_name: str
    rules: RuleSet
    seed: int
    matches: dict[str, TableResult]
    """Player name -> the match; the agent sits in seat 0 of the first rotation."""
    seconds: float

    def score(self, player: str) -> tuple[float, float]:
        """The agent's mean chips per hand against ``player`` and its 95% CI half-width."""
        return self.matches[player].score(0)

    def best_exploit(self) -> str:
        """The player the agent loses most to (or wins least from)."""
        return min(self.matches, key=lambda p: self.score(p)[0])

    def table(self) -> str:
        """The results as text, worst match for the agent first."""
        n = self.rules.num_players
        lines = [f"Gauntlet against {self.agent}: {self.rules_name} rules, {n} players, seed "
                 f"{self.seed}; duplicate deals, seats rotated; {self.agent}'s chips per hand "
                 "with 95% CI", ""]
        width = max(len(p) for p in self.matches)
        head = f"{'player':<{width}}  {'chips/hand':>10}  {'95% CI':>17}  {'hands':>7}  time"
        lines += [head, "-" * len(head)]
        for p in sorted(self.matches, key=lambda p: self.score(p)[0]):
            mean, ci = self.score(p)
            m = self.matches[p]
            lines.append(f"{p:<{width}}  {mean:>+10.3f}  {interval(mean, ci):>17}  "
                         f"{m.hands:>7,}  {m.seconds:.1f}s")
        best = self.best_exploit()
        mean, ci = self.score(best)
        verdict = ("wins chips off it: the agent is exploitable" if mean + ci < 0 else
                   "does not beat it significantly" if mean - ci < 0 else
                   "loses to it too: no player here beats the agent")
        lines += ["", f"best exploit: {best}, {self.agent} {mean:+.3f} ± {ci:.3f} chips per "
                      f"hand; {best} {verdict}",
                  f"{sum(m.hands for m in self.matches.values()):,} hands in "
                  f"{self.seconds:.1f}s"]
        return "\n".join(lines)


def interval(mean: float, ci: float) -> str:
    """``[low, high]`` of a 95% CI, or ``n/a`` when it is not finite (a single deal)."""
    if not math.isfinite(ci):
        return "n/a"
    return f"[{mean - ci:+.3f}, {mean + ci:+.3f}]"


def gauntlet(agent: str, rules: RuleSet | str = "standard", hands: int = 2_000, seed: int = 0,
             players: Sequence[str] = GAUNTLET,
             on_match: Callable[[str, TableResult], None] | None = None,
             rules_name: str | None = None) -> GauntletResult:
    """Play ``agent`` (a registered name) against each of ``players``: ``hands`` hands each
    (rounded up to whole duplicate deals), the same deals in every match. ``on_match`` is
    called after each match; ``rules_name`` names the rules in the table (default: the
    preset or path given, or ``custom``)."""
    for name in (agent, *players):
        agents.check(name)
    if rules_name is None:
        rules_name = rules if isinstance(rules, str) else "custom"
    rules = resolve(rules).replace(hands_per_episode=1)
    n = rules.num_players
    deals = max(1, math.ceil(hands / n))
    start = time.perf_counter()
    matches = {}
    for i, name in enumerate(players):
        me = agents.make(agent, rules, seed=seed * 1000)
        player = agents.make(name, rules, seed=seed * 1000 + 1 + i)
        matches[name] = play_table([me, *[player] * (n - 1)], rules, deals, seed)
        if on_match is not None:
            on_match(name, matches[name])
    return GauntletResult(agent=agent, rules_name=str(rules_name), rules=rules, seed=seed,
                          matches=matches, seconds=time.perf_counter() - start)
