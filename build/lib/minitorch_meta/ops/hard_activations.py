"""Piecewise-linear activations: ``hardtanh`` (and ``relu6``, its ``[0, 6]`` case),
``hardsigmoid`` and ``hardswish``.

Their gradients at the kinks are PyTorch's, which finite differences cannot see:
``hardtanh`` passes the gradient only strictly inside ``(min_val, max_val)`` (``clamp``
passes it at the bounds too, which is why this is not ``clamp``), ``hardsigmoid`` only
strictly inside ``(-3, 3)``, and ``hardswish``'s is 0 up to -3 included and 1 from 3 on.
A NaN input gives a NaN output; its gradient is PyTorch's (passed by ``hardtanh`` and
``hardswish``, zero for ``hardsigmoid``).
"""

from __future__ import annotations

from .. import dtypes
from .activations import number
from .elementwise import Unary, _bound_scalar


class Hardtanh(Unary):
    """``min(max(x, min_val), max_val)`` elementwise; integer tensors keep their dtype.

    Shape:
        the output has the input's shape and dtype.

    Raises:
        ValueError: ``min_val > max_val`` (PyTorch's message).
        RuntimeError: a bool input, or a bound the input's dtype cannot hold.
    """

    op_name, backward_name = "hardtanh", "HardtanhBackward0"
    saved_for_backward = (0,)
    _hyper = ("min_val", "max_val")

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0):
        self.min_val = number("hardtanh", "min_val", 2, min_val)
        self.max_val = number("hardtanh", "max_val", 3, max_val)
        if self.min_val > self.max_val:
            raise ValueError("min_val cannot be greater than max_val")

    def infer(self, x):
        dtype = x._dtype
        if dtype is dtypes.bool_:
            raise RuntimeError("Bool inputs not supported for hardtanh")
        if dtype.numpy.kind == "u" and min(self.min_val, self.max_val) < 0:
            raise RuntimeError(f"cannot do hardtanh on an unsigned type with negative limits "
                               f"(min_val={self.min_val}, max_val={self.max_val}, input dtype "
                               f"{dtype})")
        # The bounds take the input's dtype: an integer tensor keeps its dtype and a float
        # bound is truncated toward zero, as PyTorch converts it.
        bounds = (self.min_val, self.max_val)
        if not dtype.is_floating_point:
            bounds = tuple(int(b) for b in bounds)
        self.low, self.high = (_bound_scalar(self.op_name, name, b, dtype)
                               for name, b in zip(("min_val", "max_val"), bounds))
        return x._data.shape, dtype

    def forward(self, backend, x):
        if self.recording:
            self.x = x
        # where, not maximum/minimum: a bound equal to x gives x itself (-0.0 stays -0.0 in
        # relu6, as in PyTorch), and NaN, below and above nothing, stays NaN
        above = backend.where(backend.binary("gt", x, self.high), self.high, x)
        return backend.where(backend.binary("lt", x, self.low), self.low, above)

    def backward(self, backend, gy):
        # zero where x <= min_val or x >= max_val; NaN is neither, so it passes
        outside = backend.binary("add", backend.binary("le", self.x, self.low),
                                 backend.binary("ge", self.x, self.high))  # bool + bool: or
        return (backend.where(outside, gy.dtype.type(0), gy),)

    def backward_graph(self, grad):  # the mask is piecewise constant: no gradient of its own
        outside = self.backend.binary("add", self.backend.binary("le", self.x, self.low),
                                      self.backend.binary("ge", self.x, self.high))
        return (grad.masked_fill(self.constant(outside), 0),)


def _relu6_clip(backend, x):
    """``min(max(x + 3, 0), 6)``: hardsigmoid's and hardswish's shared ramp, times 6."""
    t = x.dtype.type
    return backend.binary("minimum", backend.binary("maximum", backend.binary("add", x, t(3)),
                                                    t(0)), t(6))


class Hardsigmoid(Unary):
    """``min(max(x + 3, 0), 6) / 6`` elementwise.

    Shape:
        the output has the input's shape.
    """

    op_name, backward_name, floating_only = "hardsigmoid", "HardsigmoidBackward0", True
    saved_for_backward = (0,)

    def forward(self, backend, x):
        if self.recording:
            self.x = x
        return backend.binary("div", _relu6_clip(backend, x), x.dtype.type(6))

    def backward(self, backend, gy):
        t = gy.dtype.type
        inside = backend.binary("mul", backend.binary("gt", self.x, t(-3)),
                                backend.binary("lt", self.x, t(3)))  # bool * bool: and
        return (backend.where(inside, backend.binary("mul", gy, t(1 / 6)), t(0)),)

    def backward_graph(self, grad):  # the mask is piecewise constant: no gradient of its own
        backend, x = self.backend, self.x
        inside = backend.binary("mul", backend.binary("gt", x, x.dtype.type(-3)),
                                backend.binary("lt", x, x.dtype.type(3)))
        return ((grad * (1 / 6)).where(self.constant(inside), 0),)


class Hardswish(Unary):
    """``x * min(max(x + 3, 0), 6) / 6`` elementwise.

    Shape:
        the output has the input's shape.
    """

    op_name, backward_name, floating_only = "hardswish", "HardswishBackward0", True
    saved_for_backward = (0,)

    def forward(self, backend, x):
        if self.recording:
            self.x = x
        return backend.binary("div", backend.binary("mul", x, _relu6_clip(backend, x)),
                              x.dtype.type(6))

    def backward(self, backend, gy):
        # 0 for x <= -3, x / 3 + 1/2 for -3 < x < 3, 1 otherwise (NaN included)
        x, t = self.x, gy.dtype.type
        ramp = backend.binary("add", backend.binary("div", x, t(3)), t(0.5))
        slope = backend.where(backend.binary("lt", x, t(3)), ramp, t(1))
        slope = backend.where(backend.binary("le", x, t(-3)), t(0), slope)
        return (backend.binary("mul", gy, slope),)

    def backward_graph(self, grad):
        # the ramp depends on x; where it applies is piecewise constant
        backend, x = self.backend, self.x
        t = x.dtype.type
        slope = (self.graph_input(0, x) / 3 + 0.5).where(
            self.constant(backend.binary("lt", x, t(3))), 1)
        return (grad * slope.masked_fill(self.constant(backend.binary("le", x, t(-3))), 0),)
