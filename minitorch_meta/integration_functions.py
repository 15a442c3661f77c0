"""The trapezoidal rule along a dim: ``trapezoid`` (and its old name ``trapz``) and
``cumulative_trapezoid``.

PyTorch's compositions, op for op, so that values, dtypes (an integer ``y`` gives the
default float dtype, through the ``* 0.5`` or ``/ 2``) and ``grad_fn`` names match:

- spacing ``dx`` (a number): ``(sum(y) - (y[0] + y[-1]) / 2) * dx``, and for the running
  form ``cumsum(dx / 2 * (left + right))``;
- sample points ``x``: ``sum((left + right) * diff(x)) / 2``, and ``cumsum(...) / 2``;

where ``left`` and ``right`` are ``y`` without its last and without its first sample.
"""

from __future__ import annotations

from numbers import Number

from . import dtypes
from . import functions as F
from . import shape_functions as SF
from .ops import shapes
from .tensor_arguments import require_tensor


def _axis(op: str, y, dim: int) -> int:
    if y.dim() == 0:
        raise IndexError(f"{op}: Dimension specified as {dim} but tensor has no dimensions")
    return shapes.normalize_dim(op, dim, y.dim())


def _part(t, axis: int, part: slice):
    """``t`` cut to ``part`` along ``axis`` (a view)."""
    return t[(slice(None),) * axis + (part,)]


def _neighbours(y, axis: int) -> tuple:
    """``y`` without its last sample and without its first, along ``axis``."""
    return _part(y, axis, slice(0, -1)), _part(y, axis, slice(1, None))


def _spacing(op: str, y, x, axis: int):
    """``diff(x)`` along ``axis``, shaped to broadcast with ``y``'s intervals: a 1-D ``x``
    lies along ``axis``; an N-D one broadcasts with ``y`` itself."""
    if x.dim() == 1:
        if x.shape[0] != y.shape[axis]:
            raise shapes.ShapeRuntimeError(op, f"There must be one `x` value for each sample "
                                               f"point, but x has {x.shape[0]} and y has "
                                               f"{y.shape[axis]} along dim {axis}")
        x = F.reshape(x, tuple(-1 if d == axis else 1 for d in range(y.dim())))
        spacing_axis = axis
    else:
        spacing_axis = axis + x.dim() - y.dim() if x.dim() < y.dim() else axis
    left, right = _neighbours(x, spacing_axis)
    return right - left


def _check_arguments(op: str, y, x, dx) -> None:
    require_tensor(op, "y", y, 1)
    if x is not None:
        require_tensor(op, "x", x, 2)
    if any(t is not None and t.dtype is dtypes.bool_ for t in (x, y)):
        which = "`y`" if x is None else "`x` or `y`"
        raise RuntimeError(f"{op}: received a bool input for {which}, but bool is not "
                           "supported (convert it, e.g. with .float())")
    if x is not None and dx is not None:
        raise TypeError(f"{op}() received an invalid combination of arguments: give the "
                        "sample points x or the spacing dx, not both")
    if dx is not None and (not isinstance(dx, Number) or isinstance(dx, complex)):
        raise TypeError(f"{op}(): argument 'dx' must be a real number, not "
                        f"{type(dx).__name__}")


def trapezoid(y, x=None, *, dx: Number | None = None, dim: int = -1):
    """The integral of ``y`` along ``dim`` by the trapezoidal rule, with sample points
    ``x`` (1-D along ``dim``, or broadcastable with ``y``) or a constant spacing ``dx``
    (default 1).

    Shape:
        ``y``'s shape without ``dim``.
    """
    _check_arguments("trapezoid", y, x, dx)
    axis = _axis("trapezoid", y, dim)
    if y.shape[axis] == 0:  # no interval: zeros, as PyTorch's (not part of any graph)
        from .factories import zeros

        return zeros(tuple(s for d, s in enumerate(y.shape) if d != axis), dtype=y.dtype,
                     device=y.device)
    if x is None:
        ends = SF.select(y, axis, 0) + SF.select(y, axis, -1)
        halves = F._composed(ends * 0.5, "MulBackward1")  # mul(Tensor, Scalar), as PyTorch's
        return F._composed((F.sum(y, axis) - halves) * (1 if dx is None else dx),
                           "MulBackward1")
    left, right = _neighbours(y, axis)
    area = F.sum((left + right) * _spacing("trapezoid", y, x, axis), axis)
    return F._composed(area / 2.0, "DivBackward1")


trapz = trapezoid


def cumulative_trapezoid(y, x=None, *, dx: Number | None = None, dim: int = -1):
    """The running integral of ``y`` along ``dim`` by the trapezoidal rule (see
    ``trapezoid``): element ``i`` is the integral up to sample ``i + 1``.

    Shape:
        ``y``'s shape with one sample fewer along ``dim`` (none for an empty dim).
    """
    _check_arguments("cumulative_trapezoid", y, x, dx)
    axis = _axis("cumulative_trapezoid", y, dim)
    left, right = _neighbours(y, axis)
    if x is None:
        # mul(Tensor, Scalar), as PyTorch's: MulBackward1
        halves = F._composed((left + right) * ((1 if dx is None else dx) / 2.0), "MulBackward1")
        return F.cumsum(halves, axis)
    steps = (left + right) * _spacing("cumulative_trapezoid", y, x, axis)
    return F._composed(F.cumsum(steps, axis) / 2.0, "DivBackward1")
