"""``TaskSpec``: what a ``Timer`` times (its code and labels, not its globals), and the
text that names it in a ``Measurement``'s repr and a ``Compare`` table."""

from __future__ import annotations

import dataclasses
import textwrap


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """The statement, setup and labels of one timed task. Frozen and hashable, so that
    ``Measurement.merge`` can group replicates of one task by it."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (else the one-line statement), with the sub-label after a colon; a
        multi-line statement is shown indented under ``stmt:``."""
        sub_label = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub_label
        if "\n" not in self.stmt:
            return self.stmt + sub_label
        in_brackets = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{in_brackets}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        """``setup: ...`` (indented under ``setup:`` when it has several lines), or ``""``
        when there is no setup."""
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The title, description and setup, one per line; a multi-line one is followed by
        a blank line."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


TASK_SPEC_FIELDS = tuple(field.name for field in dataclasses.fields(TaskSpec))
