"""Unary math with floating-point results: sin, cos, log1p, expm1, log2, log10, rsqrt,
reciprocal.

As in PyTorch, an integer or bool input is computed in the default float dtype
(``sin(tensor([1]))`` is float32); a float input keeps its dtype.
"""

from __future__ import annotations

import math

from .elementwise import Unary


class FloatUnary(Unary):
    """Base of the unary ops whose result is floating-point whatever the input.

    Shape:
        the output has the input's shape; its dtype is the input's when floating-point,
        else float32.
    """

    float_result = True


class Sin(FloatUnary):
    op_name, backward_name, kernel = "sin", "SinBackward0", "sin"
    saved_for_backward = (0,)

    def backward(self, backend, gy):
        return (backend.binary("mul", gy, backend.unary("cos", self.x)),)

    def backward_graph(self, grad):
        return (grad * self.graph_input(0, self.x).cos(),)


class Cos(FloatUnary):
    op_name, backward_name, kernel = "cos", "CosBackward0", "cos"
    saved_for_backward = (0,)

    def backward(self, backend, gy):
        return (backend.binary("mul", gy, backend.unary("neg", backend.unary("sin", self.x))),)

    def backward_graph(self, grad):
        return (grad * -self.graph_input(0, self.x).sin(),)


class Log1p(FloatUnary):
    op_name, backward_name, kernel = "log1p", "Log1PBackward0", "log1p"
    saved_for_backward = (0,)

    def backward(self, backend, gy):
        one = self.x.dtype.type(1)
        return (backend.binary("div", gy, backend.binary("add", self.x, one)),)

    def backward_graph(self, grad):
        return (grad / (self.graph_input(0, self.x) + 1),)


class Expm1(FloatUnary):
    op_name, backward_name, kernel = "expm1", "Expm1Backward0", "expm1"
    saved_for_backward = ("output",)

    def backward(self, backend, gy):  # d/dx (e^x - 1) = e^x = out + 1
        one = self.out.dtype.type(1)
        return (backend.binary("mul", gy, backend.binary("add", self.out, one)),)

    def backward_graph(self, grad):
        return (grad * (self.graph_output(self.out) + 1),)


class Log2(FloatUnary):
    op_name, backward_name, kernel = "log2", "Log2Backward0", "log2"
    saved_for_backward = (0,)
    #: d/dx log_b(x) = 1 / (x ln b)
    log_base = math.log(2.0)

    def backward(self, backend, gy):
        scale = backend.binary("mul", self.x, self.x.dtype.type(self.log_base))
        return (backend.binary("div", gy, scale),)

    def backward_graph(self, grad):
        return (grad / (self.graph_input(0, self.x) * self.log_base),)


class Log10(Log2):
    op_name, backward_name, kernel = "log10", "Log10Backward0", "log10"
    log_base = math.log(10.0)


class Rsqrt(FloatUnary):
    """``1 / sqrt(x)`` elementwise.

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """

    op_name, backward_name = "rsqrt", "RsqrtBackward0"
    saved_for_backward = ("output",)

    def compute(self, backend, x):
        return backend.binary("div", x.dtype.type(1), backend.unary("sqrt", x))

    def backward(self, backend, gy):  # -1/2 x^(-3/2) = -1/2 out^3
        out = self.out
        cube = backend.binary("mul", backend.binary("mul", out, out), out)
        return (backend.binary("mul", gy, backend.binary("mul", cube, out.dtype.type(-0.5))),)

    def backward_graph(self, grad):
        out = self.graph_output(self.out)
        return (grad * (out * out * out * -0.5),)


class Reciprocal(FloatUnary):
    """``1 / x`` elementwise.

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """

    op_name, backward_name = "reciprocal", "ReciprocalBackward0"
    saved_for_backward = ("output",)

    def compute(self, backend, x):
        return backend.binary("div", x.dtype.type(1), x)

    def backward(self, backend, gy):  # -1/x^2 = -out^2
        out = self.out
        return (backend.unary("neg", backend.binary("mul", gy, backend.binary("mul", out, out))),)

    def backward_graph(self, grad):
        out = self.graph_output(self.out)
        return (-(grad * (out * out)),)
