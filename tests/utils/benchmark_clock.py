"""A deterministic clock for timing tests: it moves only when the timed statement ticks it
(``tick_seconds`` per run) and, with ``jitter``, by a seeded random amount at each reading,
so that two timers making the same calls read the same times."""

from __future__ import annotations

import random


class FakeClock:
    def __init__(self, tick_seconds: float = 1e-6, jitter: float = 0.0, seed: int = 0):
        self.now = 0.0
        self.tick_seconds = tick_seconds
        self.jitter = jitter
        self._random = random.Random(seed)

    def __call__(self) -> float:
        self.now += self.jitter * self._random.random()
        return self.now

    def tick(self) -> None:
        self.now += self.tick_seconds
