"""The regularised incomplete gamma functions ``igamma(a, x) = P(a, x)`` (``special.gammainc``)
and ``igammac(a, x) = Q(a, x) = 1 - P(a, x)`` (``special.gammaincc``).

Kernels: the backend's ``igamma`` and ``igammac`` (``backends/xp_incomplete_gamma.py``;
float16 and float32 computed in float64). As PyTorch, only floating-point tensors are
accepted, and the gradient is taken in ``x`` only:
``d/dx P(a, x) = exp((a - 1) log x - x - lgamma(a))`` (PyTorch's expression, so the values
at ``x = 0`` agree too), ``-`` that for ``Q``, also as a recorded formula (any order in
``x``). Asking for the gradient in ``a`` raises PyTorch's ``NotImplementedError`` in
backward.
"""

from __future__ import annotations

from .trigonometric import FloatOnlyBinary


def _density(backend, a, x):
    """``x^(a-1) e^-x / Gamma(a)``, the derivative of ``P(a, x)`` in ``x``."""
    log_x = backend.unary("log", x)
    exponent = backend.binary("mul", backend.binary("sub", a, a.dtype.type(1)), log_x)
    exponent = backend.binary("sub", backend.binary("sub", exponent, x),
                              backend.unary("lgamma", a))
    return backend.unary("exp", exponent)


class Igamma(FloatOnlyBinary):
    """``P(a, x)``, the regularised lower incomplete gamma function, elementwise.

    Shape:
        ``a`` and ``x`` broadcast together; the output has the broadcast shape.

    Raises:
        NotImplementedError for integer or bool tensors (both), and in backward when
        ``a`` needs a gradient.
    """

    op_name, backward_name, kernel = "igamma", "IgammaBackward0", "igamma"
    saved_for_backward = (0, 1)
    sign = 1.0

    def save(self, x, y, out):
        self.x, self.y = x, y

    def _no_derivative_in_a(self):
        return NotImplementedError(
            f"the derivative for '{self.op_name}: input' is not implemented.")

    def grads(self, backend, gy):
        self.refuse_left_gradient(self._no_derivative_in_a())
        density = _density(backend, self.x, self.y)
        if self.sign < 0:
            density = backend.unary("neg", density)
        return None, backend.binary("mul", gy, density)

    def grads_graph(self, grad):
        self.refuse_left_gradient(self._no_derivative_in_a())
        a, x = self.graph_operand(0, self.x), self.graph_operand(1, self.y)
        density = ((a - 1) * x.log() - x - a.lgamma()).exp()
        return None, grad * density if self.sign > 0 else -(grad * density)


class Igammac(Igamma):
    """``Q(a, x) = 1 - P(a, x)``, the regularised upper incomplete gamma function.

    Shape:
        ``a`` and ``x`` broadcast together; the output has the broadcast shape.

    Raises:
        NotImplementedError for integer or bool tensors (both), and in backward when
        ``a`` needs a gradient.
    """

    op_name, backward_name, kernel = "igammac", "IgammacBackward0", "igammac"
    sign = -1.0
