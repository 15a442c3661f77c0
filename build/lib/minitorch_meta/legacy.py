"""PyTorch's legacy typed constructors: ``FloatTensor``, ``DoubleTensor``, ``LongTensor``,
``IntTensor``, ``BoolTensor``, ``ByteTensor``, ``CharTensor`` (int8), ``ShortTensor`` (int16).

``FloatTensor(2, 3)`` (sizes: ints or one ``Size``) is uninitialised, ``FloatTensor([1, 2])``
(data: a list, a tuple, a NumPy array) copies, ``FloatTensor(t)`` is ``t`` itself under a
new name (same storage) when ``t`` has that dtype, and ``FloatTensor()`` is empty. As in
PyTorch they make CPU tensors. Calling one returns a ``Tensor``; unlike PyTorch's,
``isinstance(x, FloatTensor)`` is never true (docs/differences.md).
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .size import Size
from .tensor import Tensor


def _is_size(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


class _LegacyTensorType:
    """Base of the typed constructors; a subclass sets ``dtype``."""

    dtype = None

    def __new__(cls, *args, device=None):
        from .device import to_device

        return construct(cls.__name__, cls.dtype, to_device("cpu"), args, device)


def construct(name: str, dtype, home, args: tuple, device=None) -> Tensor:
    """PyTorch's legacy constructor of ``dtype`` tensors on the device ``home``: no
    ``args`` an empty tensor, sizes (ints or one ``Size``) an uninitialised one, a sequence
    of data a copy, a tensor of ``dtype`` on ``home`` an alias of it (``AliasBackward0``).
    ``FloatTensor(...)`` (``home`` the CPU) and ``Tensor.new(...)`` (the tensor's own
    dtype and device) share it.

    Raises:
        RuntimeError for a ``device`` of another type than ``home``'s or a negative size;
        TypeError for anything else than sizes, data or a tensor of ``dtype``.
    """
    from .device import to_device
    from .factories import empty, tensor

    if device is not None and to_device(device).type != home.type:
        raise RuntimeError(f"legacy constructor expects device type: {home.type} but device "
                           f"type: {to_device(device).type} was passed")
    if not args:
        return empty(0, dtype=dtype, device=home)
    if all(_is_size(a) for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
        sizes = tuple(int(s) for s in (args[0] if isinstance(args[0], Size) else args))
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(sizes)}: {list(sizes)}")
        return empty(*sizes, dtype=dtype, device=home)
    if len(args) > 1:
        raise TypeError(f"{name}() takes sizes (ints) or one sequence of data, got "
                        f"{', '.join(type(a).__name__ for a in args)}")
    data = args[0]
    if isinstance(data, Tensor):
        return _alias(name, dtype, home, data)
    if isinstance(data, str) or not isinstance(data, (list, tuple, np.ndarray)):
        raise TypeError(f"{name}(): data must be a sequence (a list, a tuple or a NumPy "
                        f"array) or sizes (ints), got {type(data).__name__}")
    return tensor(data, dtype=dtype, device=home)


def _alias(name: str, dtype, home, data: Tensor) -> Tensor:
    """``data``'s storage as a new tensor (PyTorch's ``FloatTensor(t)``), same dtype and
    device type only; in ``data``'s graph, as PyTorch's alias."""
    if data._dtype is not dtype:
        raise TypeError(f"{name}(): expected a tensor of dtype {dtype}, got {data._dtype}; "
                        f"convert it with .to({dtype})")
    if data.device.type != home.type:
        raise RuntimeError(f"legacy constructor expects device type: {home.type} but device "
                           f"type: {data.device.type} was passed")
    return data[...]  # a view: same storage and version counter, ``AliasBackward0``


def _legacy(name: str, dtype, what: str) -> type:
    doc = (f"A {what} CPU tensor ({dtype}): ``{name}(*sizes)`` uninitialised, "
           f"``{name}(data)`` a copy, ``{name}(tensor)`` the same storage.")
    return type(name, (_LegacyTensorType,), {"dtype": dtype, "__doc__": doc,
                                             "__module__": "minitorch_meta"})


FloatTensor = _legacy("FloatTensor", dtypes.float32, "float32")
DoubleTensor = _legacy("DoubleTensor", dtypes.float64, "float64")
LongTensor = _legacy("LongTensor", dtypes.int64, "int64")
IntTensor = _legacy("IntTensor", dtypes.int32, "int32")
BoolTensor = _legacy("BoolTensor", dtypes.bool_, "bool")
ByteTensor = _legacy("ByteTensor", dtypes.uint8, "uint8")
CharTensor = _legacy("CharTensor", dtypes.int8, "int8")
ShortTensor = _legacy("ShortTensor", dtypes.int16, "int16")

__all__ = ["BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor", "FloatTensor",
           "IntTensor", "LongTensor", "ShortTensor"]
