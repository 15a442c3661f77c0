"""The strong-Wolfe line search of ``LBFGS(line_search_fn="strong_wolfe")``, PyTorch's
(a port of Torch7's ``lswolfe.lua``), decision for decision so that the steps agree.

Along a descent direction ``d`` it looks for a step length ``t`` that satisfies the strong
Wolfe conditions, with ``f`` the loss and ``g.d`` the slope along ``d``::

    f(t) <= f(0) + c1 * t * slope(0)          (sufficient decrease)
    |slope(t)| <= -c2 * slope(0)               (the slope has flattened)

It works in two phases. *Bracketing* tries longer and longer steps (each one a cubic
interpolation of the last two, at least 1% further and at most ten times as far) until a
step satisfies both conditions or an interval is known to hold one. *Zooming* then
interpolates inside that interval, kept away from its ends, until a step satisfies them,
the interval shrinks below ``tolerance_change`` or the evaluations run out. It returns the
best step seen.

Everything here is plain Python floats; the gradients only ride along in ``Trial``, so
the search is the same on every device.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from ..tensor import Tensor


class Trial(NamedTuple):
    """One evaluated step length ``t``: the loss, the flat gradient and the slope ``g.d``."""

    t: float
    loss: float
    grad: Tensor
    slope: float


def cubic_minimum(a: Trial, b: Trial, bounds: tuple[float, float] | None = None) -> float:
    """The minimiser of the cubic through two trials' losses and slopes, clamped to
    ``bounds`` (by default the interval between them); its middle if the cubic has none."""
    low, high = bounds if bounds is not None else ((a.t, b.t) if a.t <= b.t else (b.t, a.t))
    d1 = a.slope + b.slope - _divide(3 * (a.loss - b.loss), a.t - b.t)
    d2_square = d1 * d1 - a.slope * b.slope
    if not d2_square >= 0:  # no minimum (or NaN)
        return (low + high) / 2.0
    d2 = math.sqrt(d2_square)
    # written from the farther point, as PyTorch does, so the rounding is the same
    near, far = (a, b) if a.t <= b.t else (b, a)
    minimum = far.t - (far.t - near.t) * _divide(far.slope + d2 - d1,
                                                 far.slope - near.slope + 2 * d2)
    return min(max(minimum, low), high)


def _divide(a: float, b: float) -> float:
    """``a / b`` with IEEE results for ``b == 0`` (inf or NaN), as PyTorch's tensor
    arithmetic gives them, rather than Python's ``ZeroDivisionError``."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def strong_wolfe(probe: Callable[[float], Trial], start: Trial, t: float, d_norm: float,
                 c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                 max_evals: int = 25) -> tuple[Trial, int]:
    """Search along a direction from ``start`` (the trial at ``t = 0``), first trying ``t``.

    Args:
        probe: evaluates the loss, gradient and slope at a step length.
        d_norm: the direction's largest absolute entry (the interval's length times it
            bounds how far the parameters can still move).
        max_evals: the most evaluations to spend (PyTorch's ``max_ls``).

    Returns:
        the chosen trial and the number of evaluations spent.
    """
    search = _Search(probe, start, c1, c2)
    bracket, done = search.bracket(t, max_evals)
    low = _ends(bracket)[0]
    if not done:
        low = search.zoom(bracket, low, d_norm, tolerance_change, max_evals)
    return bracket[low], search.evals


class _Search:
    """The counters and tests shared by the two phases of one search."""

    def __init__(self, probe: Callable[[float], Trial], start: Trial, c1: float, c2: float):
        self.probe, self.start, self.c1, self.c2 = probe, start, c1, c2
        self.evals = 0  # calls of probe
        self.iterations = 0  # PyTorch's ls_iter: trials after the first one

    def evaluate(self, t: float) -> Trial:
        self.evals += 1
        return self.probe(t)

    def too_high(self, trial: Trial) -> bool:
        """The loss did not decrease enough for this step length (Armijo fails)."""
        return trial.loss > self.start.loss + self.c1 * trial.t * self.start.slope

    def flat_enough(self, trial: Trial) -> bool:
        """The slope has flattened enough (the strong curvature condition holds)."""
        return abs(trial.slope) <= -self.c2 * self.start.slope

    def bracket(self, t: float, max_evals: int) -> tuple[list[Trial], bool]:
        """Lengthen the step until an interval holds a good step, or one step is good
        (then ``done``); returns the bracket (two trials, or the good one)."""
        previous, trial = self.start, self.evaluate(t)
        while self.iterations < max_evals:
            if self.too_high(trial) or (self.iterations > 1 and trial.loss >= previous.loss):
                return [previous, trial], False
            if self.flat_enough(trial):
                return [trial], True
            if trial.slope >= 0:  # past a minimum: it lies between the last two
                return [previous, trial], False
            longer = cubic_minimum(previous, trial,
                                   bounds=(trial.t + 0.01 * (trial.t - previous.t), trial.t * 10))
            previous, trial = trial, self.evaluate(longer)
            self.iterations += 1
        # out of evaluations: the interval from the start to the last step tried
        return [self.start, trial], False

    def zoom(self, bracket: list[Trial], low: int, d_norm: float, tolerance_change: float,
             max_evals: int) -> int:
        """Shrink the bracket (in place) until its low end satisfies both conditions;
        returns the position of the low end (kept as PyTorch keeps it, not recomputed)."""
        high = 1 - low
        near_edge_before = False  # the last trial was close to an end of the bracket
        while self.iterations < max_evals:
            if abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change:
                return low
            t, near_edge_before = _away_from_ends(cubic_minimum(bracket[0], bracket[1]),
                                                  bracket, near_edge_before)
            trial = self.evaluate(t)
            self.iterations += 1
            if self.too_high(trial) or trial.loss >= bracket[low].loss:
                bracket[high] = trial
                low, high = _ends(bracket)
                continue
            done = self.flat_enough(trial)
            if not done and trial.slope * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]  # the minimum lies on the other side
            bracket[low] = trial
            if done:
                return low
        return low


def _ends(bracket: list[Trial]) -> tuple[int, int]:
    """The positions of the bracket's lower-loss and higher-loss trials."""
    return (0, 1) if bracket[0].loss <= bracket[-1].loss else (1, 0)


def _away_from_ends(t: float, bracket: list[Trial], near_edge_before: bool
                    ) -> tuple[float, bool]:
    """Keep a trial step out of the outer tenths of the bracket once progress stalls.

    A step within a tenth of an end is allowed once; the next time (or if it lies on or
    beyond an end) it moves to a tenth of the bracket from the nearer end. Returns the step
    and whether it was left close to an end.
    """
    lo = min(bracket[0].t, bracket[1].t)
    hi = max(bracket[0].t, bracket[1].t)
    margin = 0.1 * (hi - lo)
    if not min(hi - t, t - lo) < margin:
        return t, False
    if not (near_edge_before or t >= hi or t <= lo):
        return t, True
    return (hi - margin if abs(t - hi) < abs(t - lo) else lo + margin), False
