"""Small top-level functions PyTorch scripts meet: ``concatenate`` (``cat``), ``fill``,
``detach``/``detach_``, ``get_device``, ``typename``, the deprecated ``range`` and
``vmap`` (``torch.func.vmap``)."""

from __future__ import annotations

import math
from numbers import Number

from . import dtypes
from .autograd import no_grad
from .autograd.graph_node import show_as_op
from .caller_warnings import warn_at_caller
from .factories import arange, full_like, zeros_like
from .func import vmap
from .functions import cat, where
from .ops.masked import fill_scalar, fill_value
from .tensor import Tensor

RANGE_DEPRECATED = ("torch.range is deprecated and will be removed in a future release "
                    "because its behavior is inconsistent with Python's range builtin. "
                    "Instead, use torch.arange, which produces values in [start, end).")


def concatenate(tensors, axis: int = 0) -> Tensor:
    """``cat(tensors, dim=axis)``, under NumPy's name.

    Shape:
        as ``cat``.
    """
    return cat(tensors, axis)


def fill(input: Tensor, value) -> Tensor:
    """A new tensor of ``input``'s shape, dtype and device, every element ``value`` (a
    number, or a 0-d tensor whose gradient is the sum of the output's).

    Shape:
        ``input``'s.

    Raises:
        RuntimeError for a value tensor with dimensions, or a number the dtype cannot hold.
    """
    number, value_tensor = fill_value("fill", value)
    if value_tensor is not None and value_tensor.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value_tensor.dim()} dimensions.")
    if value_tensor is None:
        filled, name, inputs = fill_scalar("fill", number, input.dtype).item(), "FillBackward0", (
            input,)
    else:
        filled = value_tensor.to(input.device, input.dtype)
        name, inputs = "FillBackward1", (input, value_tensor)
    if input.requires_grad:
        # PyTorch's node gives the input a zero gradient: a where that picks the value
        # everywhere has that gradient (and the value's, summed)
        out = where(zeros_like(input, dtype=dtypes.bool_), input, filled)
    elif value_tensor is None:
        out = full_like(input, filled)
    else:
        out = filled.expand(*input.shape).clone()
    show_as_op(out, name, inputs)
    return out


def detach(input: Tensor) -> Tensor:
    """``input.detach()``: the same data, outside the graph.

    Shape:
        unchanged.
    """
    return input.detach()


def detach_(input: Tensor) -> Tensor:
    """``input.detach_()``: ``input`` itself, taken out of the graph."""
    return input.detach_()


def get_device(input: Tensor) -> int:
    """``input.get_device()``: the CUDA device index, -1 on any other device."""
    return input.get_device()


def typename(obj) -> str:
    """The type of ``obj`` as a string: a tensor's ``type()`` (``'torch.FloatTensor'``),
    else the dotted name of ``obj`` (a class or function) or of its class; builtins bare
    (``'int'``)."""
    if isinstance(obj, Tensor):
        return obj.type()
    named = obj if hasattr(obj, "__qualname__") else type(obj)
    module = getattr(named, "__module__", None) or ""
    qualname = named.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def range(start: Number, end: Number, step: Number = 1, *, dtype=None, device=None,  # noqa: A001
          requires_grad: bool = False) -> Tensor:
    """Deprecated (with PyTorch's warning): ``start, start + step, ...`` up to and
    including ``end``, of the default float dtype unless ``dtype``.

    Shape:
        ``(floor((end - start) / step) + 1,)``.

    Raises:
        RuntimeError for a zero step, or a step whose sign leads away from ``end``.
    """
    warn_at_caller(RANGE_DEPRECATED)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError(f"upper bound and lower bound inconsistent with step sign "
                           f"(start={start}, end={end}, step={step})")
    count = math.floor((end - start) / step) + 1
    dtype = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
    # start + i * step for each i in double precision, as PyTorch computes each element
    # (not a running sum), then rounded once to the dtype
    with no_grad():
        values = (arange(count, dtype=dtypes.float64, device=device) * step + start).to(dtype)
    return values.requires_grad_(requires_grad)


__all__ = ["concatenate", "fill", "detach", "detach_", "get_device", "typename", "range",
           "vmap"]
