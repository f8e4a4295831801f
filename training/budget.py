"""A training run's clock under a time budget, evaluations included, shared by the SB3 trainer
(:mod:`training.selfplay`) and the JAX trainer (:mod:`training.jax_ppo`).

A run with ``seconds`` ends within about that much wall time, as ``hilo exploit --minutes``
asks: it evaluates once before learning (the curve's first point, and how long an evaluation
takes), skips an evaluation that would leave no room for the last (:meth:`RunClock.fits` of
two), and stops learning while the last still fits (of one), judged by the longest evaluation
so far. ``eval_every_seconds`` asks for evaluations on the same wall clock
(:meth:`RunClock.due`). Learning time leaves the evaluations out (:meth:`RunClock.learning`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class RunClock:
    """Wall time since :meth:`start`, the evaluations' share of it, and the budget."""

    def __init__(self, seconds: float | None = None,
                 eval_every_seconds: float | None = None) -> None:
        self.seconds, self.every = seconds, eval_every_seconds
        self.began = time.perf_counter()
        self.evaluating = 0.0
        """Seconds spent in evaluations."""
        self.longest = 0.0
        """The longest evaluation, in seconds."""
        self.ticks = 0.0
        """Evaluations asked for on the clock so far (``eval_every_seconds``)."""

    def start(self) -> None:
        """Start the clock: learning begins now."""
        self.began = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.began

    def learning(self) -> float:
        """Seconds of learning so far (evaluations left out)."""
        return self.elapsed() - self.evaluating

    def fits(self, evaluations: int) -> bool:
        """Whether ``evaluations`` more evaluations, as long as the longest so far, fit in the
        budget (always, without one)."""
        return self.seconds is None or self.elapsed() + evaluations * self.longest < self.seconds

    def due(self) -> bool:
        """Whether an evaluation is due on the clock (``eval_every_seconds``); counts it."""
        if not self.every:
            return False
        ticks = self.elapsed() // self.every
        if ticks <= self.ticks:
            return False
        self.ticks = ticks
        return True

    @contextmanager
    def evaluation(self) -> Iterator[float]:
        """Time an evaluation; yields the learning seconds before it."""
        learned, began = self.learning(), time.perf_counter()
        yield learned
        took = time.perf_counter() - began
        self.evaluating, self.longest = self.evaluating + took, max(self.longest, took)
