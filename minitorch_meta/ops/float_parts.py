"""The parts of a float and its special values: frac, copysign, signbit, sgn, heaviside,
fmax/fmin (NaN-ignoring maximum and minimum) and nan_to_num.
"""

from __future__ import annotations

from .. import dtypes
from ..dtypes import array_kind
from . import complex_support
from .elementwise import Binary, Maximum, Unary, _finite_range
from .rounding import Sign
from .trigonometric import FloatBinary


class Frac(Unary):
    """The fractional part ``x - trunc(x)``, with the sign of ``x``; floating-point only.

    Shape:
        the output has the input's shape and dtype.

    Raises:
        NotImplementedError for an integer or bool input (as PyTorch).
    """

    op_name, backward_name = "frac", "FracBackward0"

    def infer(self, x):
        if not x._dtype.is_floating_point:
            raise NotImplementedError(f"frac: not implemented for {x._dtype} tensors (whole "
                                      "numbers have no fractional part); convert first, e.g. "
                                      "with .float()")
        return super().infer(x)

    def compute(self, backend, x):
        return backend.binary("sub", x, backend.unary("trunc", x))

    def backward(self, backend, gy):
        return (gy,)

    def backward_graph(self, grad):
        return (grad,)


class Copysign(FloatBinary):
    """``|a|`` with the sign of ``b`` (its sign bit: -0.0 counts as negative); ``b`` may be
    a Python number.

    Shape:
        ``a`` and ``b`` broadcast together; the output has the broadcast shape.
    """

    op_name, kernel = "copysign", "copysign"
    saved_for_backward = ((0, 0), ("output", 0))

    @property
    def backward_name(self):
        return "CopysignBackward0" if self.scalar is None else "CopysignBackward1"

    def save(self, x, y, out):
        self.x, self.out = x, out

    def grads(self, backend, gy):
        # PyTorch's: out / a (the sign flip), and 0 where a == 0; b gets zeros
        need_left, need_right = self.operand_needs()
        g_left = g_right = None
        if need_left:
            zero = gy.dtype.type(0)
            ratio = backend.binary("div", self.out, self.x)
            ratio = backend.where(backend.binary("eq", self.x, zero), zero, ratio)
            g_left = backend.binary("mul", gy, ratio)
        if need_right:
            g_right = backend.binary("mul", gy, gy.dtype.type(0))
        return g_left, g_right


class Signbit(Unary):
    """Whether the sign bit is set (True for -0.0 and negative NaN); no gradient.

    Shape:
        the output has the input's shape; its dtype is bool.
    """

    op_name, backward_name = "signbit", "SignbitBackward0"
    differentiable = False

    def infer(self, x):
        return x._data.shape, dtypes.bool_

    def forward(self, backend, x):
        if array_kind(x.dtype) == "f":
            return backend.unary("signbit", x)
        return backend.binary("lt", x, x.dtype.type(0))  # integers (bool: never negative)


class Sgn(Sign):
    """``x / |x|``, which for real tensors is ``sign`` (0 at 0 and NaN; zero gradient), and
    for complex ones the point of the unit circle in ``x``'s direction (0 at 0).

    Shape:
        the output has the input's shape and dtype.
    """

    op_name, backward_name = "sgn", "SgnBackward0"
    complex_aware = True

    def forward(self, backend, x):
        if x.dtype.kind != "c":
            return super().forward(backend, x)
        out = complex_support.sgn(backend, x)
        if self.recording:
            self.x, self.out = x, out
        return out

    def backward(self, backend, gy):
        if self.input_specs[0][1].is_complex:
            return (complex_support.sgn_backward(backend, gy, self.x, self.out),)
        return super().backward(backend, gy)

    @property
    def backward_graph(self):
        # No recorded form of the complex formula: differentiable once (graph_backward.py).
        if self.input_specs[0][1].is_complex:
            return None
        return super().backward_graph


class Heaviside(Binary):
    """The step function: 0 where ``input < 0``, ``values`` where ``input == 0``, 1 where
    ``input > 0`` (and 0 at NaN, as PyTorch's kernel). No derivative: backward through it
    raises, as in PyTorch.

    Shape:
        ``input`` and ``values`` broadcast together; the output has the broadcast shape.

    Raises:
        RuntimeError when the two tensors' dtypes differ (PyTorch has no such kernel).
    """

    op_name, backward_name = "heaviside", "torch::autograd::NotImplemented"

    def infer(self, a, b=None):
        if a._dtype is not b._dtype:
            raise RuntimeError(f"heaviside is not yet implemented for tensors with different "
                               f"dtypes (input {a._dtype}, values {b._dtype}); convert one, "
                               "e.g. values.to(input.dtype)")
        return super().infer(a, b)

    def forward(self, backend, a, b=None):
        x, values = self.operands(backend, a, b)
        zero = x.dtype.type(0)
        step = backend.astype(backend.binary("gt", x, zero), self.compute_dtype)
        return backend.where(backend.binary("eq", x, zero), values, step)

    def _backward(self, grad, retain_graph: bool):
        # raised on every backend, meta included
        raise RuntimeError("derivative for aten::heaviside is not implemented")


class Fmax(Maximum):
    """The larger of two tensors elementwise, ignoring NaN (NaN only where both are).

    The gradient goes to ``a`` where ``a >= b`` or ``b`` is NaN, else to ``b`` (PyTorch's
    rule: a tie goes wholly to ``a``).

    Shape:
        ``a`` and ``b`` broadcast together; the output has the broadcast shape and the
        promoted dtype.
    """

    op_name, backward_name, kernel = "fmax", "FmaxBackward0", "fmax"
    #: the comparison true where ``a`` wins (ties included)
    wins = "ge"

    def grads(self, backend, gy):
        left = self._left_wins(backend)
        zero = gy.dtype.type(0)
        need_left, need_right = self.operand_needs()
        return (backend.where(left, gy, zero) if need_left else None,
                backend.where(left, zero, gy) if need_right else None)

    def grads_graph(self, grad):
        # the choice is piecewise constant in the operands: no gradient of its own
        left = self._left_wins(self.backend)
        need_left, need_right = self.operand_needs()
        return (grad.where(self.constant(left), 0) if need_left else None,
                grad.where(self.constant(self.backend.unary("logical_not", left)), 0)
                if need_right else None)

    def _left_wins(self, backend):
        """Where the gradient goes to ``a``: ``a`` wins (ties included) or ``b`` is NaN."""
        return backend.binary("logical_or", backend.binary(self.wins, self.x, self.y),
                              backend.unary("isnan", self.y))


class Fmin(Fmax):
    """The smaller of two tensors elementwise, ignoring NaN (NaN only where both are).

    Shape:
        ``a`` and ``b`` broadcast together; the output has the broadcast shape and the
        promoted dtype.
    """

    op_name, backward_name, kernel, wins = "fmin", "FminBackward0", "fmin", "le"


class NanToNum(Unary):
    """NaN, inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (by default 0 and the
    dtype's largest and smallest finite values). Integer and bool tensors come back
    unchanged. The gradient passes where the input is finite and is 0 elsewhere.

    Shape:
        the output has the input's shape and dtype.
    """

    op_name, backward_name = "nan_to_num", "NanToNumBackward0"
    saved_for_backward = (0,)
    _hyper = ("nan", "posinf", "neginf")

    def __init__(self, nan: float = 0.0, posinf: float | None = None,
                 neginf: float | None = None):
        self.nan, self.posinf, self.neginf = nan, posinf, neginf

    def infer(self, x):
        dtype = x._dtype
        if dtype.is_floating_point:
            low, high = _finite_range(dtype)
            self.values = tuple(dtype.numpy.type(v) for v in (
                self.nan, high if self.posinf is None else self.posinf,
                low if self.neginf is None else self.neginf))
        return super().infer(x)

    def forward(self, backend, x):
        if array_kind(x.dtype) != "f":
            return backend.copy(x)
        if self.recording:
            self.x = x
        nan, posinf, neginf = self.values
        out = backend.where(backend.unary("isnan", x), nan, x)
        out = backend.where(backend.binary("eq", x, x.dtype.type("inf")), posinf, out)
        return backend.where(backend.binary("eq", x, x.dtype.type("-inf")), neginf, out)

    def backward(self, backend, gy):
        return (backend.where(backend.unary("isfinite", self.x), gy, gy.dtype.type(0)),)

    def backward_graph(self, grad):  # the mask has no gradient of its own
        return (grad.where(self.constant(self.backend.unary("isfinite", self.x)), 0),)
