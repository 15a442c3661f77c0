"""Rounded division and remainders: floor_divide (``//``), remainder (``%``), fmod, and
``div`` with ``rounding_mode='trunc'`` or ``'floor'``.

All are binary ops with broadcasting, tensor or Python-scalar operands and PyTorch's type
promotion (integers stay integers). ``//`` and ``%`` round toward minus infinity, as
Python's do (``-7 % 2 == 1``); ``fmod`` and ``'trunc'`` toward zero, as C's
(``fmod(-7, 2) == -1``).

Gradients as PyTorch's: ``remainder``/``fmod`` pass the gradient to the dividend and
``-gy * quotient`` to the divisor; ``div`` with a rounding mode has zero gradients; and
``floor_divide``, like ``scalar % tensor``, has none at all (its node is PyTorch's
``NotImplemented``, and backward through it raises).
"""

from __future__ import annotations

from .. import dtypes
from .elementwise import Binary
from .rounding import zero_gradients_graph


class Division(Binary):
    """Base of the rounded divisions.

    Shape:
        ``a`` and ``b`` broadcast together; the output has the broadcast shape and the
        promoted dtype.

    Raises:
        NotImplementedError for bool operands; RuntimeError for an integer division by
        zero (a zero scalar divisor at the call, a zero element of an integer divisor
        tensor in forward: meta has no values to look at).
    """

    def infer(self, a, b=None):
        shape, dtype = super().infer(a, b)
        # An empty result divides nothing, so even a zero divisor is no error (PyTorch's)
        # (a divisor beyond an integer dtype wraps: 256 is 0 as uint8, as in PyTorch)
        if not dtype.is_floating_point and not self.reflected and self.scalar is not None \
                and dtypes.wrap_int(self.scalar, dtype) == 0 and 0 not in shape:
            raise _zero_division(self.op_name, "the divisor is 0")
        return shape, dtype

    def result_dtype(self, compute_dtype):
        if compute_dtype is dtypes.bool_:
            raise NotImplementedError(f"{self.op_name}: not implemented for bool tensors; "
                                      "convert first, e.g. with .int()")
        return compute_dtype

    def operands(self, backend, a, b):
        x, y = super().operands(backend, a, b)
        divisor_is_tensor = b is not None or self.reflected
        # (an operand of size 0 makes the broadcast result empty: nothing is divided)
        if divisor_is_tensor and not self.compute_dtype.is_floating_point and x.size \
                and y.size:
            zeros = int(backend.to_numpy(backend.sum(backend.binary("eq", y, 0), None, False)))
            if zeros:  # NumPy would give 0 there; PyTorch's CPU kernels raise
                raise _zero_division(self.op_name, f"the divisor has {zeros} zero element(s)")
        return x, y

    def has_derivative(self) -> bool:
        return True

    def _backward(self, grad, retain_graph: bool):
        if not self.has_derivative():  # raised on every backend, meta included
            raise RuntimeError(f"derivative for aten::{self.op_name} is not implemented")
        return super()._backward(grad, retain_graph)

    @property
    def backward_graph(self):
        # None where there is no derivative: the engine then calls ``_backward``, which raises
        if not self.has_derivative():
            return None
        return Binary.backward_graph.fget(self)


def _zero_division(op: str, what: str) -> RuntimeError:
    return RuntimeError(f"ZeroDivisionError: {op}: integer division by zero ({what}); "
                        "divide floating-point tensors to get inf/nan instead")


class FloorDivide(Division):
    """``a // b`` elementwise: the quotient rounded toward minus infinity."""

    op_name, kernel = "floor_divide", "floor_divide"
    backward_name = "torch::autograd::NotImplemented"

    def has_derivative(self) -> bool:
        return False


class Remainder(Division):
    """``a % b`` elementwise, with the sign of the divisor (Python's ``%``)."""

    op_name, kernel = "remainder", "remainder"
    saved_for_backward = ((0, 1), (1, 1))  # only the divisor's gradient reads them
    #: the kernel of the quotient whose ``-gy`` multiple is the divisor's gradient
    quotient = "floor_divide"

    @property
    def backward_name(self):
        if self.reflected:
            return "torch::autograd::NotImplemented"
        # PyTorch's overloads: remainder(Tensor, Scalar) is 0, remainder(Tensor, Tensor) 1
        return f"{self.op_name.capitalize()}Backward{0 if self.scalar is not None else 1}"

    def has_derivative(self) -> bool:
        return not self.reflected

    def save(self, x, y, out):
        self.x, self.y = x, y

    def grads(self, backend, gy):
        need_left, need_right = self.operand_needs()
        g_right = None
        if need_right:
            g_right = backend.unary("neg", backend.binary("mul", gy, self._quotient(backend)))
        return gy, g_right

    def _quotient(self, backend):
        """The rounded quotient ``x / y`` (the divisor's gradient is ``-gy`` times it)."""
        x, y = self.x, self.y
        if self.quotient == "floor_divide":
            return backend.binary("floor_divide", x, y)
        return backend.unary("trunc", backend.binary("div", x, y))

    def grads_graph(self, grad):
        # the quotient is piecewise constant: no gradient of its own
        g_right = None
        if self.operand_needs()[1]:
            g_right = -(grad * self.constant(self._quotient(self.backend)))
        return grad, g_right


class Fmod(Remainder):
    """``fmod(a, b)`` elementwise, with the sign of the dividend (C's ``fmod``)."""

    op_name, kernel, quotient = "fmod", "fmod", "trunc"


class DivFloor(Division):
    """``div(a, b, rounding_mode='floor')``: ``a // b``, but differentiable (zero
    gradients, PyTorch's ``DivBackward2``)."""

    op_name, backward_name, kernel = "div", "DivBackward2", "floor_divide"

    def backward(self, backend, gy):
        return tuple(backend.full(tuple(shape), 0, dtype) if need else None
                     for (shape, dtype), need in zip(self.input_specs, self.needs_input_grad))

    def backward_graph(self, grad):
        return zero_gradients_graph(self)


class DivTrunc(DivFloor):
    """``div(a, b, rounding_mode='trunc')``: the quotient rounded toward zero."""

    def forward(self, backend, a, b=None):
        x, y = self.operands(backend, a, b)
        if self.compute_dtype.is_floating_point:
            return backend.unary("trunc", backend.binary("div", x, y))
        # Integers: x - fmod(x, y) is an exact multiple of y, which floor division then
        # divides exactly (NumPy has no truncating integer division).
        return backend.binary("floor_divide", backend.binary("sub", x, backend.binary(
            "fmod", x, y)), y)


def rounding_class(rounding_mode: str) -> type:
    """The op of ``div(..., rounding_mode=...)`` for ``'trunc'`` and ``'floor'``."""
    if rounding_mode == "trunc":
        return DivTrunc
    if rounding_mode == "floor":
        return DivFloor
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found {rounding_mode!r}")
