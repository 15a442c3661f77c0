"""``device``: where a tensor lives — ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"meta"``.

A ``device`` is a small value type. Used in a ``with`` block it also sets the default
device of every factory function and of module construction inside the block, as
``torch.device`` does; the previous default is restored on exit, even after an error.
Outside every block the default is cpu, or what ``set_default_device`` chose: like the
blocks, that choice belongs to the calling thread (as PyTorch's does), kept in ``_local``.
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
    """The device set by the innermost ``with device(...)`` block, else by
    ``set_default_device``, or None (meaning cpu)."""
    stack = _default_stack()
    return stack[-1] if stack else getattr(_local, "base", None)


def set_default_device(device_: str | device | int | None) -> None:
    """Make ``device_`` the default of factories and module construction for this thread
    (``with device(...)`` blocks still win inside them); None goes back to cpu.

    Raises:
        DeviceError: ``device_`` names no registered device type.
    """
    _local.base = None if device_ is None else to_device(device_)


def get_default_device() -> device:
    """The device a factory would use now: the innermost ``with device(...)`` block's, else
    ``set_default_device``'s, else cpu. ``"cuda"`` is given with its index (``cuda:0``)."""
    current = to_device(None)
    if current.index is None and current.type == "cuda":
        from .backends.registry import get_backend

        return get_backend(current).device
    return current


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
