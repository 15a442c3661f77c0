"""Activations that cut a band of values: ``hardshrink``, ``softshrink`` and ``threshold``.

Each is one ``Function`` with PyTorch's own kernel formula, so that the values and the
gradients at the band's edges, where finite differences cannot see, are PyTorch's:

- ``hardshrink``: ``0`` where ``-lambd <= x <= lambd``, else ``x``; the gradient passes
  outside the band (its edges excluded);
- ``softshrink``: ``x - lambd`` above the band, ``x + lambd`` below it, 0 inside; the
  same gradient mask;
- ``threshold``: ``value`` where ``x <= threshold``, else ``x``; the gradient passes where
  ``x > threshold``.

A NaN lies in no band: it stays NaN and its gradient passes, as in PyTorch.
"""

from __future__ import annotations

from .. import dtypes
from .activations import _FloatingActivation, number
from .elementwise import _bound_scalar, _finite_range
from .function import Function


class _Band(_FloatingActivation):
    """Base of ``hardshrink`` and ``softshrink``: the band ``[-lambd, lambd]``.

    Shape:
        the output has the input's shape and dtype.
    """

    _hyper = ("lambd",)

    def __init__(self, lambd: float = 0.5):
        self.lambd = number(self.op_name, "lambd", 2, lambd)

    def forward(self, backend, x):
        t = x.dtype.type
        high, low = t(self.lambd), t(-self.lambd)
        if self.recording:
            self.outside = _outside(backend, x, low, high)
        return self.compute(backend, x, low, high)

    def backward(self, backend, gy):
        return (backend.where(self.outside, gy, gy.dtype.type(0)),)

    def backward_graph(self, grad):  # the mask has no gradient of its own
        return (grad.where(self.constant(self.outside), 0),)


def _outside(backend, x, low, high):
    """``not (low <= x <= high)``: True outside the band, and for NaN."""
    inside = backend.binary("mul", backend.binary("ge", x, low),
                            backend.binary("le", x, high))  # bool * bool: and
    return backend.unary("logical_not", inside)


class Hardshrink(_Band):
    """``x`` outside ``[-lambd, lambd]``, ``0`` inside, elementwise.

    Shape:
        the output has the input's shape and dtype.

    Raises:
        TypeError: ``lambd`` is not a number. NotImplementedError: the input is not
            floating-point.
    """

    op_name, backward_name, kernel_name = "hardshrink", "HardshrinkBackward0", "hardshrink_cpu"
    saved_for_backward = (0,)

    def compute(self, backend, x, low, high):
        return backend.where(_outside(backend, x, low, high), x, x.dtype.type(0))


class Softshrink(_Band):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, ``0`` between,
    elementwise; ``lambd`` must be at least 0.

    Shape:
        the output has the input's shape and dtype.

    Raises:
        TypeError: ``lambd`` is not a number. NotImplementedError: the input is not
            floating-point. RuntimeError: ``lambd`` is negative or NaN (PyTorch's message).
    """

    op_name, backward_name, kernel_name = "softshrink", "SoftshrinkBackward0", "softshrink_check"
    saved_for_backward = (0,)

    def infer(self, x):
        shape, dtype = super().infer(x)
        largest = _finite_range(dtype)[1]
        if not 0 <= self.lambd <= largest:  # False for NaN too
            raise RuntimeError(
                f"lambda must be in range [0, {largest:g}] for input dtype "
                f"{dtypes.SCALAR_TYPE_NAMES[dtype]}, but found {self.lambd:g}")
        return shape, dtype

    def compute(self, backend, x, low, high):
        # 0 inside the band (+0.0: PyTorch's sign of that zero varies with its vector width),
        # else moved by lambd towards 0 (NaN, outside, stays NaN)
        moved = backend.where(backend.binary("gt", x, high), backend.binary("sub", x, high),
                              backend.binary("sub", x, low))
        return backend.where(_outside(backend, x, low, high), moved, x.dtype.type(0))


class Threshold(Function):
    """``value`` where ``x <= threshold``, else ``x``, elementwise; integer tensors keep
    their dtype (both numbers then truncated toward zero, as PyTorch converts them).

    Shape:
        the output has the input's shape and dtype.

    Raises:
        TypeError: ``threshold`` or ``value`` is not a number.
        NotImplementedError: a bool input (PyTorch's message).
        RuntimeError: a number the input's dtype cannot hold.
    """

    op_name, backward_name = "threshold", "ThresholdBackward0"
    saved_for_backward = (0,)
    _hyper = ("threshold", "value")

    def __init__(self, threshold: float, value: float):
        self.threshold = number("threshold", "threshold", 2, threshold)
        self.value = number("threshold", "value", 3, value)

    def infer(self, x):
        dtype = x._dtype
        if dtype is dtypes.bool_:
            raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool': threshold "
                                      "takes numeric tensors; convert the input first, e.g. "
                                      "with .int()")
        numbers = (self.threshold, self.value)
        if not dtype.is_floating_point:
            numbers = tuple(int(n) for n in numbers)
        self.bound, self.fill = (_bound_scalar(self.op_name, name, n, dtype)
                                 for name, n in zip(("threshold", "value"), numbers))
        return x._data.shape, dtype

    def forward(self, backend, x):
        below = backend.binary("le", x, self.bound)
        if self.recording:
            self.below = below  # all backward needs of x
        return backend.where(below, self.fill, x)

    def backward(self, backend, gy):
        return (backend.where(self.below, gy.dtype.type(0), gy),)

    def backward_graph(self, grad):  # the mask has no gradient of its own
        return (grad.where(self.constant(self.backend.unary("logical_not", self.below)), 0),)
