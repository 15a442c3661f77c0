"""``build_table``: PyTorch's profiler table of an ``EventList``, in its layout.

Columns: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, then CPU Mem and
Self CPU Mem (``profile_memory``), # of Calls, Input Shapes (when events carry shapes) and
Source Location (when they carry stacks). Percentages are shares of the sum of all self
times, which counts every recorded moment once. There are no CUDA columns: no device clock
is read (docs/differences.md says why).
"""

from __future__ import annotations

from .events import format_time

_COLUMN = 12  # the width of every numeric column
_GAP = "  "


def format_memory(nbytes: int) -> str:
    """Bytes in PyTorch's format: ``"1.50 MB"``, ``"512 B"``."""
    for unit, size in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def _share(part: float, whole: float) -> str:
    return "NaN" if whole == 0 else f"{part * 100.0 / whole:.2f}%"


def _time(time_us: float, unit: str | None) -> str:
    """``format_time``, or the value in the one ``unit`` (``"s"``, ``"ms"``, ``"us"``) asked."""
    scale = {"s": 1e6, "ms": 1e3, "us": 1.0}.get(unit)
    return format_time(time_us) if scale is None else f"{time_us / scale:.3f}{unit}"


def _cut(text: str, width: int | None) -> str:
    if width is not None and len(text) >= width - 3:
        return text[:width - 3] + "..."
    return text


def _trim_path(path: str, width: int) -> str:
    """The end of a long path, its first three characters replaced by ``...``."""
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def _sorted(events, sort_by: str | None):
    if sort_by is None:
        return list(events)
    attribute = sort_by.replace("cuda", "device").replace("xpu", "device")
    if not events or not hasattr(events[0], attribute):
        raise AttributeError(f"table: cannot sort by {sort_by!r}: events have no such "
                             "attribute; use e.g. 'self_cpu_time_total', 'cpu_time_total', "
                             "'cpu_time', 'count' or 'self_cpu_memory_usage'")
    return sorted(events, key=lambda event: getattr(event, attribute), reverse=True)


class _Layout:
    """Column widths and alignments; formats a row of values."""

    def __init__(self):
        self.formats, self.widths = [], []

    def add(self, width: int, align: str = ">") -> None:
        self.formats.append("{:" + align + str(width) + "}")
        self.widths.append(width)

    def row(self, values) -> str:
        return "".join(f.format(v) + _GAP for f, v in zip(self.formats, values))

    def rule(self) -> str:
        return "".join("-" * w + _GAP for w in self.widths)


def build_table(events, sort_by=None, row_limit=100, max_src_column_width=75,
                max_name_column_width=55, max_shapes_column_width=80, header=None,
                top_level_events_only=False, time_unit=None, profile_memory=False) -> str:
    """The table as one string ('' for no events); see the module docstring."""
    if len(events) == 0:
        return ""
    events = _sorted(events, sort_by)
    has_shapes = any(event.input_shapes for event in events)
    stacks = [event.stack for event in events if event.stack]

    layout, headers = _Layout(), ["Name"]
    name_width = max(len(event.key) for event in events) + 4
    layout.add(min(name_width, max_name_column_width or name_width))
    headers += ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    for _ in headers[1:]:
        layout.add(_COLUMN)
    if has_shapes:
        headers.append("Input Shapes")
        shapes_width = max(len(str(event.input_shapes)) for event in events) + 4
        layout.add(min(shapes_width, max_shapes_column_width or shapes_width))
    src_width = None
    if stacks:
        headers.append("Source Location")
        src_width = max(len(entry) for stack in stacks for entry in stack) + 4
        src_width = min(src_width, max_src_column_width or src_width)
        layout.add(src_width, "<")

    # Every recorded moment counts once in the sum of self times: the percentages' whole.
    total_self = sum(event.self_cpu_time_total for event in events)
    lines = []
    if header is not None:
        lines += ["=" * len(layout.rule().rstrip()), header]
    if top_level_events_only:
        lines += ["=" * len(layout.rule().rstrip()),
                  "This report only display top-level ops statistics"]
    lines += [layout.rule(), layout.row(headers), layout.rule()]
    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_events_only and event.cpu_parent is not None:
            continue
        shown += 1
        lines += _rows(event, layout, total_self, time_unit, profile_memory, has_shapes,
                       src_width if stacks else None, max_name_column_width, len(headers))
    lines += [layout.rule(), f"Self CPU time total: {_time(total_self, time_unit)}"]
    return "".join(line + "\n" for line in lines)


def _rows(event, layout, total_self, time_unit, profile_memory, has_shapes, src_width,
          max_name_width, n_columns) -> list:
    """The line of one event (and, with stacks, one line per further stack entry)."""
    values = [_cut(event.key, max_name_width),
              _share(event.self_cpu_time_total, total_self),
              _time(event.self_cpu_time_total, time_unit),
              _share(event.cpu_time_total, total_self),
              _time(event.cpu_time_total, time_unit),
              _time(event.cpu_time, time_unit)]
    if profile_memory:
        values += [format_memory(event.cpu_memory_usage),
                   format_memory(event.self_cpu_memory_usage)]
    values.append(event.count)
    if has_shapes:
        values.append(str(event.input_shapes)[:layout.widths[len(values)]])
    if src_width is None:
        return [layout.row(values)]
    stack = event.stack or []
    values.append(_trim_path(stack[0], src_width) if stack else "")
    blank = [""] * (n_columns - 1)
    return ([layout.row(values)]
            + [layout.row(blank + [_trim_path(entry, src_width)]) for entry in stack[1:]]
            + [layout.row(blank + [""])])
