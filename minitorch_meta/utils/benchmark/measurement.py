"""``Measurement``: the times a ``Timer`` took for one task, their statistics (median,
interquartile range, significant figures) and PyTorch's printed summary of them.

A measurement holds ``raw_times``: the seconds each of its blocks of ``number_per_run`` runs
took. Statistics are of the per-run times (``times``), computed once, on first use.
"""

from __future__ import annotations

import collections
import dataclasses
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from .task_spec import TASK_SPEC_FIELDS, TaskSpec
from .units import float32_log10, select_unit

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # seconds: no clock resolves finer than this

# An interquartile range above these fractions of the median draws a warning.
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The result of timing one task: ``raw_times[i]`` seconds for ``number_per_run`` runs.

    The task's fields (``stmt``, ``label``, ``sub_label``, ``description``, ``num_threads``,
    ...) read through as attributes. ``metadata`` is the user's, carried along untouched.
    """

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None

    def __post_init__(self) -> None:
        self._sorted_times: tuple[float, ...] = ()
        self._warnings: tuple[str, ...] = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        # only called for names not found otherwise: the task's fields read through
        if name in TASK_SPEC_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def times(self) -> list[float]:
        """The seconds of one run, per block (a block's time over its runs)."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        """The median of ``times`` (linear interpolation between the middle two)."""
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        """The interquartile range of ``times``: 75th minus 25th percentile."""
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """A rough count (1 to 4) of the median's digits the spread of the middle half of
        ``times`` supports: ``floor(log10(median / ci))`` with ``ci = 1.645 * std / sqrt(n)``
        over those times (at least 25 ns). ``Compare.trim_significant_figures`` uses it.
        """
        self._lazy_init()
        n_total = len(self._sorted_times)
        middle = self._sorted_times[n_total // 4:math.ceil(3 * n_total / 4)]
        # float32, as PyTorch's tensors of these Python floats are
        std = float(np.std(np.asarray(middle, dtype=np.float32)))
        sqrt_n = float(np.sqrt(np.float32(len(middle))))
        confidence_interval = max(1.645 * std / sqrt_n, _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(float32_log10(self._median / confidence_interval))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        """True when the interquartile range is 10% of the median or more."""
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        times = np.asarray(self._sorted_times, dtype=np.float64)
        self._median = float(np.quantile(times, 0.5))
        self._mean = float(np.mean(times))
        self._p25 = float(np.quantile(times, 0.25))
        self._p75 = float(np.quantile(times, 0.75))
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            self._add_warning("This suggests significant environmental influence.")
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            self._add_warning("This could indicate system fluctuation.")

    def _add_warning(self, message: str) -> None:
        relative_iqr = self.iqr / self.median * 100
        self._warnings += (f"  WARNING: Interquartile range is {relative_iqr:.1f}% "
                           f"of the median measurement.\n           {message}",)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """True when the interquartile range is below ``threshold`` times the median."""
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str | None:
        """The task's ``env`` (None when none was given: what PyTorch's returns too)."""
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        """The name of this task's row in a ``Compare`` table."""
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        """PyTorch's summary, e.g.::

            <minitorch_meta.utils.benchmark.measurement.Measurement object at 0x7f...>
            x + 1: float
              Median: 5.73 us
              IQR:    2.25 us (4.01 to 6.26)
              372 measurements, 100 runs per measurement, 1 thread
              WARNING: Interquartile range is 39.4% of the median measurement.
                       This suggests significant environmental influence.
        """
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({self._p25 / scale:.2f} to {self._p75 / scale:.2f})")
        runs = "per measurement," if n > 1 else ","
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{runs} {threads}")
        lines.append("\n".join(self._warnings))
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """One measurement per task (``TaskSpec``), holding the per-run times of all of its
        replicates (``number_per_run=1``; metadata, which may differ, is dropped)."""
        groups: dict[TaskSpec, list[float]] = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].extend(m.times)
        return [Measurement(number_per_run=1, raw_times=times, task_spec=task_spec)
                for task_spec, times in groups.items()]
