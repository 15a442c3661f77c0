"""``Compare``: measurements side by side, one table per label (see ``table.py``).

Replicates of one task (same ``TaskSpec``) are merged first, so several runs of a benchmark
loop can be given together. ``trim_significant_figures`` prints only the digits each
measurement supports, ``colorize`` marks the best and worst cells of each column (or row),
``highlight_warnings`` flags cells with a wide interquartile range.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable

from .measurement import Measurement
from .table import Colorize, Table


class Compare:
    """A formatted table of many measurements; ``print()`` it or take ``str()`` of it.

    Args:
        results: the ``Measurement``s to show.

    Raises:
        ValueError: when a result is not a ``Measurement``.
    """

    def __init__(self, results: Iterable[Measurement]) -> None:
        self._results: list[Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results: Iterable[Measurement]) -> None:
        """Add ``results`` to those shown."""
        results = list(results)
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Print each median only to the digits its spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Colour cells by how they compare with the best of their column (or row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark cells whose interquartile range is 10% of their median or more."""
        self._highlight_warnings = True

    def print(self) -> None:
        """Print the tables."""
        print(str(self))

    def _render(self) -> list[str]:
        by_label: dict[str | None, list[Measurement]] = collections.defaultdict(list)
        for m in Measurement.merge(self._results):
            by_label[m.label].append(m)
        return [Table(group, self._colorize, self._trim_significant_figures,
                      self._highlight_warnings).render() for group in by_label.values()]
