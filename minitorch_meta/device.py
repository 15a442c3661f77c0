"""``device``: where a tensor lives — ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"meta"``.

A ``device`` is a small value type. Used in a ``with`` block it also sets the default
device of every factory function and of module construction inside the block, as
``torch.device`` does; the previous default is restored on exit, even after an error.
"""

from __future__ import annotations

import threading

from .errors import DeviceError

KNOWN_TYPES = ("cpu", "cuda", "meta")


class device:  # noqa: N801 - the name PyTorch users write (torch.device)
    """A device type and an optional index: ``device("cuda:1")``, ``device("cuda", 1)``."""

    __slots__ = ("type", "index")

    def __init__(self, type: str | device, index: int | None = None):  # noqa: A002
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and index is None:  # torch.device(0) means cuda:0
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device() expects a string such as 'cpu' or 'cuda:0', got {type!r}")
        name, _, index_text = type.partition(":")
        if index_text:
            if index is not None:
                raise DeviceError(f"device {type!r} already has an index; got index={index} too")
            if not index_text.isdigit():
                raise DeviceError(f"invalid device string {type!r}: the index after ':' must be a "
                                  f"non-negative integer, e.g. 'cuda:0'")
            index = int(index_text)
        from .backends.registry import is_registered

        if not is_registered(name):
            raise DeviceError(f"unknown device type {name!r} in {type!r}; expected one of "
                              f"{', '.join(registered_types())}")
        if index is not None and index < 0:
            raise DeviceError(f"device index must be non-negative, got {index}")
        self.type = name
        self.index = index

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    # -- the ``with device("meta"):`` idiom -------------------------------------------
    def __enter__(self) -> device:
        _default_stack().append(self)
        return self

    def __exit__(self, *exc_info) -> None:
        _default_stack().pop()


def registered_types() -> list[str]:
    from .backends.registry import registered_types as types

    return types()


_local = threading.local()


def _default_stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def default_device() -> device | None:
    """The device set by the innermost ``with device(...)`` block, or None (meaning cpu)."""
    stack = _default_stack()
    return stack[-1] if stack else None


def to_device(value) -> device:
    """Normalise a ``device=`` argument; None means the current default device (cpu)."""
    if value is None:
        current = default_device()
        return current if current is not None else CPU
    if isinstance(value, device):
        return value
    return device(value)


def _cpu() -> device:
    d = object.__new__(device)
    d.type, d.index = "cpu", None
    return d


CPU = _cpu()
