"""The special functions of elementwise math: erfc, erfinv, lgamma, digamma.

Their kernels are the backend's (``backends/xp_special.py``: series and approximations to
float64 round-off); gradients as PyTorch's. Integer and bool inputs give the default float
dtype, as in PyTorch. Each has a tensor-op twin of its gradient (``backward_graph``) for
gradients of gradients: lgamma's is digamma, digamma's ``polygamma(1, x)``, whose own
gradient is ``polygamma(2, x)`` and so on (``polygamma.py``).
"""

from __future__ import annotations

import math

from .polygamma import Polygamma
from .unary_math import FloatUnary

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class Erfc(FloatUnary):
    """``1 - erf(x)``, accurate where it is tiny (large ``x``).

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """

    op_name, backward_name, kernel = "erfc", "ErfcBackward0", "erfc"
    saved_for_backward = (0,)

    def backward(self, backend, gy):  # -2 / sqrt(pi) exp(-x²)
        x = self.x
        bell = backend.unary("exp", backend.unary("neg", backend.binary("mul", x, x)))
        return (backend.binary("mul", gy, backend.binary(
            "mul", bell, x.dtype.type(-_TWO_OVER_SQRT_PI))),)

    def backward_graph(self, grad):
        x = self.graph_input(0, self.x)
        return (grad * ((-(x * x)).exp() * -_TWO_OVER_SQRT_PI),)


class Erfinv(FloatUnary):
    """The inverse of ``erf`` on ``[-1, 1]`` (``±inf`` at ``±1``, NaN beyond).

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """

    op_name, backward_name, kernel = "erfinv", "ErfinvBackward0", "erfinv"
    saved_for_backward = ("output",)

    def backward(self, backend, gy):  # sqrt(pi) / 2 exp(erfinv(x)²)
        out = self.out
        rise = backend.unary("exp", backend.binary("mul", out, out))
        return (backend.binary("mul", gy, backend.binary(
            "mul", rise, out.dtype.type(1 / _TWO_OVER_SQRT_PI))),)

    def backward_graph(self, grad):
        out = self.graph_output(self.out)
        return (grad * ((out * out).exp() * (1 / _TWO_OVER_SQRT_PI)),)


class Lgamma(FloatUnary):
    """``log |Gamma(x)|`` (``inf`` at 0, the negative integers and ``±inf``).

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """

    op_name, backward_name, kernel = "lgamma", "LgammaBackward0", "lgamma"
    saved_for_backward = (0,)
    #: the kernel of the derivative
    derivative = "digamma"

    def backward(self, backend, gy):
        return (backend.binary("mul", gy, backend.unary(self.derivative, self.x)),)

    def backward_graph(self, grad):
        return (grad * self.derivative_op()(self.graph_input(0, self.x)),)

    def derivative_op(self):
        """The op of the derivative (its kernel is ``derivative``)."""
        return Digamma()


class Digamma(Lgamma):
    """``psi(x)``, the derivative of ``lgamma`` (``-inf`` at 0, ``inf`` at -0.0, NaN at
    the negative integers, as in PyTorch).

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """

    op_name, backward_name, kernel, derivative = "digamma", "DigammaBackward0", "digamma", \
        "trigamma"

    def derivative_op(self):
        return Polygamma(1)
