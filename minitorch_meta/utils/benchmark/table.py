"""The table ``Compare`` prints for the measurements of one label, in PyTorch's layout.

Rows are tasks (``sub_label``, else ``stmt``), grouped by thread count under a
``N threads: ----`` rule and, when several environments are present, marked with theirs;
columns are ``description``s. Each cell is the task's median in the unit of the table's
fastest median. A column prints its numbers to a common width; trimmed to significant
figures, to as many decimals as its least precise measurement supports.
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Iterable
from typing import Any

from .measurement import Measurement
from .units import float32_log10, select_unit, trim_sigfig, unit_to_english

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    """The distinct elements, in the order they first appear."""
    return list(dict.fromkeys(elements))


_UNSPECIFIED_ENV = "Unspecified env"


def _env_name(m: Measurement) -> str:
    # PyTorch fails on an unnamed env beside named ones; we print this instead
    return _UNSPECIFIED_ENV if m.env is None else m.env


class _Column:
    """One description's cells: the number format shared by the column."""

    def __init__(self, grouped_results: list[tuple[Measurement | None, ...]],
                 time_scale: float, trim_significant_figures: bool,
                 highlight_warnings: bool) -> None:
        self._grouped_results = grouped_results
        flat = [m for m in itertools.chain.from_iterable(grouped_results) if m is not None]
        self._time_scale = time_scale
        self._trim = trim_significant_figures
        self._highlight = highlight_warnings and any(m.has_warnings for m in flat)
        leading_digits = [math.ceil(float32_log10(m.median / time_scale)) for m in flat]
        unit_digits = max(leading_digits)
        decimal_digits = min(max(m.significant_figures - digits, 0)
                             for digits, m in zip(leading_digits, flat)) if self._trim else 1
        length = unit_digits + decimal_digits + (1 if decimal_digits else 0)
        warning_width = 7 if self._highlight else 0
        self._template = f"{{:>{length}.{decimal_digits}f}}{{:>{warning_width}}}"

    def results_for(self, group: int) -> tuple[Measurement | None, ...]:
        return self._grouped_results[group]

    def num_to_str(self, value: float | None, estimated_sigfigs: int,
                   spread: float | None) -> str:
        """``value`` in the column's format (blank of that width for a missing cell), with
        `` (! XX%)`` after it when warnings are highlighted and its spread is high."""
        if value is None:
            return " " * len(self.num_to_str(1, estimated_sigfigs, None))
        if self._trim:
            value = trim_sigfig(value, estimated_sigfigs)
        warning = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return self._template.format(value, warning)


def _color_segment(segment: str, value: float, best_value: float) -> str:
    """``segment`` coloured by how ``value`` compares with the best of its row or column."""
    if value <= best_value * 1.01 or value <= best_value + 100e-9:
        return BEST + BOLD + segment + TERMINATE * 2
    if value <= best_value * 1.1:
        return GOOD + BOLD + segment + TERMINATE * 2
    if value >= best_value * 5:
        return VERY_BAD + BOLD + segment + TERMINATE * 2
    if value >= best_value * 2:
        return BAD + segment + TERMINATE * 2
    return segment


class _Row:
    """One task's cells, and the thread-count rule above it when a new count starts."""

    def __init__(self, results: list[Measurement | None], row_group: int, render_env: bool,
                 env_str_len: int, time_scale: float, colorize: Colorize,
                 num_threads: int | None) -> None:
        self._results = results
        self._row_group = row_group
        self._render_env = render_env
        self._env_str_len = env_str_len
        self._time_scale = time_scale
        self._colorize = colorize
        self._num_threads = num_threads
        self._columns: tuple[_Column, ...] = ()

    def register_columns(self, columns: tuple[_Column, ...]) -> None:
        self._columns = columns

    def as_column_strings(self) -> list[str]:
        first = next(m for m in self._results if m is not None)
        env = f"({_env_name(first)})" if self._render_env else ""
        output = ["  " + env.ljust(self._env_str_len + 4) + first.as_row_name]
        for m, column in zip(self._results, self._columns):
            if m is None:
                output.append(column.num_to_str(None, 1, None))
            else:
                output.append(column.num_to_str(m.median / self._time_scale,
                                                m.significant_figures,
                                                m.iqr / m.median if m.has_warnings else None))
        return output

    def row_separator(self, overall_width: int) -> list[str]:
        if self._num_threads is None:
            return []
        return [f"{self._num_threads} threads: ".ljust(overall_width, "-")]

    def _best_values(self, count: int) -> list[float | None]:
        if self._colorize == Colorize.ROWWISE:
            return [min(m.median for m in self._results if m is not None)] * count
        if self._colorize == Colorize.COLUMNWISE:
            bests = []
            for column in self._columns:
                medians = [m.median for m in column.results_for(self._row_group) if m is not None]
                bests.append(min(medians) if medians else None)
            return bests
        return [-1.0] * count

    def finalize_column_strings(self, column_strings: list[str],
                                col_widths: list[int]) -> list[str]:
        best_values = self._best_values(len(column_strings))
        row = [column_strings[0].ljust(col_widths[0])]
        for text, width, m, best in zip(column_strings[1:], col_widths[1:], self._results,
                                        best_values):
            text = text.center(width)
            if self._colorize != Colorize.NONE and m is not None and best is not None:
                text = _color_segment(text, m.median, best)
            row.append(text)
        return row


class Table:
    """The table of measurements sharing one label."""

    def __init__(self, results: list[Measurement], colorize: Colorize,
                 trim_significant_figures: bool, highlight_warnings: bool) -> None:
        if len({m.label for m in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self._colorize = colorize
        self._trim_significant_figures = trim_significant_figures
        self._highlight_warnings = highlight_warnings
        self.label = results[0].label
        self.time_unit, self.time_scale = select_unit(min(m.median for m in results))
        self.row_keys = ordered_unique(self.row_fn(m) for m in results)
        # stable: rows of one thread count and env keep the order their tasks came in
        self.row_keys.sort(key=lambda key: (key[0], _UNSPECIFIED_ENV if key[1] is None else key[1]))
        self.column_keys = ordered_unique(self.col_fn(m) for m in results)
        self.rows, self.columns = self.populate_rows_and_columns()

    @staticmethod
    def row_fn(m: Measurement) -> tuple[int, str | None, str]:
        return m.num_threads, m.env, m.as_row_name

    @staticmethod
    def col_fn(m: Measurement) -> str | None:
        return m.description

    def _grid(self) -> list[list[Measurement | None]]:
        grid: list[list[Measurement | None]] = [[None] * len(self.column_keys)
                                                for _ in self.row_keys]
        row_position = {key: i for i, key in enumerate(self.row_keys)}
        col_position = {key: j for j, key in enumerate(self.column_keys)}
        for m in self.results:
            grid[row_position[self.row_fn(m)]][col_position[self.col_fn(m)]] = m
        return grid

    def populate_rows_and_columns(self) -> tuple[tuple[_Row, ...], tuple[_Column, ...]]:
        grid = self._grid()
        envs = {_env_name(m) for m in self.results}
        render_env = len(envs) > 1
        env_str_len = max(len(env) for env in envs) if render_env else 0
        rows: list[_Row] = []
        rows_by_group: list[list[list[Measurement | None]]] = []
        prior_num_threads, prior_env = -1, ""
        for (num_threads, env, _), cells in zip(self.row_keys, grid):
            thread_transition = num_threads != prior_num_threads
            if thread_transition:
                prior_num_threads, prior_env = num_threads, ""
                rows_by_group.append([])
            rows.append(_Row(cells, len(rows_by_group) - 1, render_env and env != prior_env,
                             env_str_len, self.time_scale, self._colorize,
                             num_threads if thread_transition else None))
            rows_by_group[-1].append(cells)
            prior_env = env
        columns = tuple(
            _Column([tuple(cells[j] for cells in group) for group in rows_by_group],
                    self.time_scale, self._trim_significant_figures,
                    self._highlight_warnings)
            for j in range(len(self.column_keys)))
        for row in rows:
            row.register_columns(columns)
        return tuple(rows), columns

    def render(self) -> str:
        # PyTorch fails on a measurement without description; we leave its heading blank
        string_rows = [["", *(key or "" for key in self.column_keys)]]
        string_rows.extend(row.as_column_strings() for row in self.rows)
        num_cols = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend([""] * (num_cols - len(r)))
        col_widths = [max(len(cell) for cell in column) for column in zip(*string_rows)]
        lines = ["  |  ".join(cell.center(w) for cell, w in zip(string_rows[0], col_widths))]
        overall_width = len(lines[0])
        for strings, row in zip(string_rows[1:], self.rows):
            lines.extend(row.row_separator(overall_width))
            lines.append("  |  ".join(row.finalize_column_strings(strings, col_widths)))
        title = f" {self.label or ''} ".center(overall_width - 2, "-")
        has_warnings = self._highlight_warnings and any(m.has_warnings for m in self.results)
        legend = ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
                  if has_warnings else "")
        body = "\n".join(lines)
        return (f"[{title}]\n{body}\n\nTimes are in {unit_to_english(self.time_unit)}s "
                f"({self.time_unit}).\n{legend}")
