"""``Tensor.apply_(fn)`` and ``Tensor.map_(other, fn)``: a Python function called on every
element, written back in place (PyTorch's CPU-only, slow-by-design escape hatch).

The values travel as Python numbers (``tolist``), so ``fn`` sees floats, ints or bools as
in PyTorch, and each result is converted back to the tensor's dtype with PyTorch's rules:
a float result in an integer tensor is truncated, one it cannot hold raises. A meta tensor
has no values to call ``fn`` on and is returned unchanged, as PyTorch returns it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .ops.elementwise import _finite_range
from .ops.shapes import ShapeError, broadcasts_to, fmt


def apply_(tensor, fn: Callable):
    """Replace each element ``v`` of ``tensor`` by ``fn(v)``; returns ``tensor``.

    Raises:
        TypeError: ``tensor`` is not on the CPU (or meta), or ``fn`` gives a non-number.
        RuntimeError: ``tensor`` requires grad, or a result overflows its dtype.
    """
    _check_target("apply_", tensor)
    if tensor.is_meta:
        return tensor
    convert = _converter(tensor.dtype)
    _write(tensor, _walk(tensor.tolist(), lambda v: convert(fn(v))))
    return tensor


def map_(tensor, other, fn: Callable):
    """Replace each element ``a`` of ``tensor`` by ``fn(a, b)``, ``b`` the element of
    ``other`` (broadcast to ``tensor``'s shape) at the same position; returns ``tensor``.

    Raises:
        TypeError: ``other`` is no tensor or has another dtype or device, or a tensor is
            not on the CPU (or meta).
        RuntimeError: either tensor requires grad, or a result overflows the dtype.
        ShapeError: ``other`` does not broadcast to ``tensor``'s shape.
    """
    from .tensor import Tensor

    if not isinstance(other, Tensor):
        raise TypeError(f"map_(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    _check_target("map_", tensor)
    _check_target("map_", other)
    if other.dtype is not tensor.dtype or other.device != tensor.device:
        raise TypeError(f"map_: expected a {tensor.dtype} tensor on '{tensor.device}' for "
                        f"'other' (got a {other.dtype} tensor on '{other.device}')")
    if not broadcasts_to(other.shape, tensor.shape):
        raise ShapeError("map_", f"other of shape {fmt(other.shape)} cannot be broadcast to "
                                 f"the tensor's shape {fmt(tensor.shape)}")
    if tensor.is_meta:
        return tensor
    convert = _converter(tensor.dtype)
    pairs = _walk2(tensor.tolist(), other.expand(tensor.shape).tolist(),
                   lambda a, b: convert(fn(a, b)))
    _write(tensor, pairs)
    return tensor


def _check_target(name: str, tensor) -> None:
    if tensor.requires_grad:  # even under no_grad, as in PyTorch
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    if tensor.device.type not in ("cpu", "meta"):
        raise TypeError(f"{name} is only implemented on CPU tensors (this one is on "
                        f"'{tensor.device}'); move it with .cpu() first")


def _walk(values, fn):
    """``fn`` over the numbers of a nested list (or of one number, for a 0-d tensor)."""
    if isinstance(values, list):
        return [_walk(v, fn) for v in values]
    return fn(values)


def _walk2(values, others, fn):
    if isinstance(values, list):
        return [_walk2(v, o, fn) for v, o in zip(values, others)]
    return fn(values, others)


def _converter(dtype) -> Callable:
    """A function turning ``fn``'s result into a number of ``dtype`` (PyTorch's rules)."""
    if dtype.is_floating_point:
        return _as_float
    if dtype.name == "bool":
        return bool
    low, high = _finite_range(dtype)

    def as_int(value):
        if isinstance(value, float) and not math.isfinite(value):
            number = value  # inf and NaN fit no integer type
        else:
            number = int(value) if isinstance(value, float) else _as_int(value)
        if not low <= number <= high:
            raise RuntimeError(f"value cannot be converted to type {dtype.name} without "
                               f"overflow (got {value!r})")
        return number

    return as_int


def _as_float(value) -> float:  # float() takes "1.5" too: PyTorch refuses a str
    if isinstance(value, str):
        raise TypeError("must be real number, not str")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"must be real number, not {type(value).__name__}") from None


def _as_int(value) -> int:
    if isinstance(value, str):
        raise TypeError("must be real number, not str")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"must be real number, not {type(value).__name__}") from None


def _write(tensor, values) -> None:
    """Store the new values (a nested list of ``tensor``'s shape) into its memory."""
    tensor._store(Ellipsis, tensor._backend.asarray(values, tensor.dtype))
