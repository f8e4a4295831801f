"""The gauntlet: scripted players of one extreme style each, to find what an agent leaks.

A strong agent should beat every one of them; a player that beats it names a weakness (it folds
too much to pressure, pays off big bets, misreads Swing...). ``hilo gauntlet AGENT`` plays
each against the agent in duplicate matches (:mod:`hilo_env.training.gauntlet`); each is also
an agent by name (``hilo tournament escalating heuristic``).

Every player judges its hand as the ``heuristic`` does (its *equity*, the expected share of
the pot from :class:`agents.equity.Estimator`), discards as it does, and declares as it does
(except ``swinger``); only the betting differs, as its :class:`Style` says:

| name         | style                                                                   |
|--------------|-------------------------------------------------------------------------|
| ``loose``    | calls almost anything, raises half the pot with a fair hand             |
| ``tight``    | folds unless the price is well covered, raises the pot only when strong |
| ``passive``  | checks and calls at the pot odds, never raises                          |
| ``aggressive``| raises the pot with an average hand and re-raises                      |
| ``escalating``| never folds, raises by the smallest amount every time it may           |
| ``maniac``   | never folds, raises to the cap every time it may                        |
| ``swinger``  | declares Swing whenever the rules allow it, and bets as if it could win |
| ``bluffer``  | plays like the heuristic, but raises the pot with its weakest hands too |
| ``trapper``  | only checks and calls strong hands until the last round, then shoves    |

With ``caller`` (the calling station of :mod:`agents.baselines`) that makes :data:`GAUNTLET`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hilo_env.agents.base import Agent
from hilo_env.agents.baselines import HeuristicAgent
from hilo_env.agents.table_view import TableView
from hilo_env.equation_hilo import actions as A
from hilo_env.equation_hilo.rules import RuleSet

CAP = math.inf
"""``Style.raise_size`` that raises to the hand's cap."""
MIN_RAISE = 0.0
"""``Style.raise_size`` that raises by one chip over the highest wager."""


@dataclass(frozen=True)
class Style:
    """How a gauntlet player bets. *Equity* is the heuristic's expected share of the pot."""

    call_margin: float | None
    """Fold to a bet when equity is below the pot odds plus this share of the pot (negative:
    calls worse prices); None: never folds."""
    raise_equity: float | None
    """Raise with at least this equity (0: always); None: never raises for value."""
    raise_size: float = 1.0
    """The raise as a share of the pot after calling; :data:`CAP` or :data:`MIN_RAISE`."""
    reraise: bool = False
    """Raise again in a round where it has already put chips in (else it only calls)."""
    bluff_equity: float | None = None
    """Also raise (a bluff) with at most this equity."""
    trap: bool = False
    """With raise-worthy equity, only check or call before the last betting round."""
    swing: bool = False
    """Declare Swing whenever the rules allow it."""


STYLES: dict[str, Style] = {
    "loose": Style(call_margin=-0.35, raise_equity=0.55, raise_size=0.5),
    "tight": Style(call_margin=0.15, raise_equity=0.75),
    "passive": Style(call_margin=0.0, raise_equity=None),
    "aggressive": Style(call_margin=0.0, raise_equity=0.5, reraise=True),
    "escalating": Style(call_margin=None, raise_equity=0.0, raise_size=MIN_RAISE, reraise=True),
    "maniac": Style(call_margin=None, raise_equity=0.0, raise_size=CAP, reraise=True),
    "swinger": Style(call_margin=-0.1, raise_equity=0.5, swing=True),
    "bluffer": Style(call_margin=0.02, raise_equity=0.62, bluff_equity=0.25),
    "trapper": Style(call_margin=0.0, raise_equity=0.65, raise_size=CAP, reraise=True,
                     trap=True),
}
"""The scripted styles, by agent name."""
GAUNTLET: tuple[str, ...] = (*STYLES, "caller")
"""The players ``hilo gauntlet`` sends against an agent, in order."""


class GauntletPlayer(HeuristicAgent):
    """A scripted player of one :class:`Style`: the heuristic's equity, discards and
    declarations (Swing for ``swing`` styles), the style's betting. Equity is computed only
    when the style's betting needs it."""

    def __init__(self, rules: RuleSet, seed: int | None = 0, *, style: Style) -> None:
        super().__init__(rules, seed)
        self.style = style

    def _declare(self, view: TableView, legal: np.ndarray) -> int:
        if self.style.swing and A.DECLARE_SWING in legal:
            return A.DECLARE_SWING
        return super()._declare(view, legal)

    def _bet(self, view: TableView, legal: np.ndarray) -> int:
        style = self.style
        pot, to_call, high = view.pot, view.to_call, view.highest_wager
        passive = A.CHECK if to_call == 0 else A.CALL
        eq = self.equity(view) if self._needs_equity() else 1.0
        if (to_call > 0 and style.call_margin is not None
                and eq * (pot + to_call) < to_call + style.call_margin * (pot + to_call)):
            return A.FOLD
        raises = legal[legal >= A.FIRST_RAISE]
        value = style.raise_equity is not None and eq >= style.raise_equity
        bluff = style.bluff_equity is not None and eq <= style.bluff_equity
        if raises.size == 0 or not (value or bluff):
            return passive
        if style.trap and value and view.betting_round < self.rules.num_bet_rounds - 1:
            return passive
        if view.round_wager > 0 and not style.reraise:
            return passive
        if style.raise_size == CAP:
            total = view.cap
        else:
            total = high + max(1, round((pot + to_call) * style.raise_size))
        return A.raise_to(min(max(total, high + 1), view.cap))

    def _needs_equity(self) -> bool:
        """False for styles whose betting ignores the cards (they never fold, always raise)."""
        s = self.style
        return not (s.call_margin is None and s.raise_equity == 0 and s.bluff_equity is None)


def factory(name: str) -> Callable[[RuleSet, int | None], Agent]:
    """``factory(rules, seed)`` making the gauntlet player ``name`` (a key of :data:`STYLES`)."""
    style = STYLES[name]

    def make(rules: RuleSet, seed: int | None) -> Agent:
        return GauntletPlayer(rules, seed, style=style)

    return make
