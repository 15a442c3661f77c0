"""``record_function(name)``: a named range in the profiler's results, as a ``with`` block
or a decorator. Ranges nest: the ops and ranges inside one count in its CPU total, not in
its self time. Outside a profiler it records nothing and costs next to nothing."""

from __future__ import annotations

import contextlib

from .recorder import active_recorders


class record_function(contextlib.ContextDecorator):  # noqa: N801 - PyTorch's name
    """Label the code inside the block (or the decorated function) as ``name`` in every
    profiler recording now. ``args`` is kept for PyTorch's signature; nothing shows it.

    Raises:
        TypeError: ``name`` is not a str.
    """

    def __init__(self, name: str, args: str | None = None):
        if not isinstance(name, str):
            raise TypeError(f"record_function: expected the range's name as a str, got "
                            f"{type(name).__name__} ({name!r})")
        self.name = name
        self.args = args
        # One list of open ranges per entry not yet left: a decorated function may recurse.
        self._entries: list = []

    def __enter__(self) -> record_function:
        self._entries.append([(recorder, recorder.open_range(
            self.name, [] if recorder.record_shapes else None, is_user_annotation=True))
            for recorder in active_recorders()])
        return self

    def __exit__(self, *exc_info) -> bool:
        for recorder, event in reversed(self._entries.pop()):
            recorder.close_range(event)
        return False
