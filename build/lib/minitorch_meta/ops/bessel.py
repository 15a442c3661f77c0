"""The modified Bessel functions of the first kind: ``i0``, ``i1`` and their exponentially
scaled forms ``i0e = exp(-|x|) i0`` and ``i1e = exp(-|x|) i1``.

Their kernels are the backend's (``backends/xp_bessel.py``). Gradients are PyTorch's
formulas, with tensor-op twins for gradients of gradients:
``i0' = i1``, ``i0e' = i1e - sgn(x) i0e``, ``i1' = i0 - i1 / x`` and
``i1e' = i0e - i1e (sgn(x) + 1 / x)``; the last two are 1/2 where ``|x|`` is at most the
dtype's epsilon (their limit at 0), computed there at ``x = eps`` so that nothing divides
by zero. Integer and bool inputs give the default float dtype, as in PyTorch.
"""

from __future__ import annotations

from .. import dtypes
from ..type_info import finfo
from .unary_math import FloatUnary


def _eps(array) -> float:
    """The epsilon of ``array``'s dtype: below it, ``i1``'s derivative is taken as 1/2."""
    return finfo(dtypes.from_numpy(array.dtype)).eps


class I0(FloatUnary):
    """``i0(x) = sum((x²/4)^k / (k!)²)``, even, 1 at 0.

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """

    op_name, backward_name, kernel = "i0", "I0Backward0", "i0"
    saved_for_backward = (0,)

    def backward(self, backend, gy):
        return (backend.binary("mul", gy, backend.unary("i1", self.x)),)

    def backward_graph(self, grad):
        return (grad * I1()(self.graph_input(0, self.x)),)


class I0e(FloatUnary):
    """``exp(-|x|) i0(x)``, even, 1 at 0, about ``1 / sqrt(2 pi |x|)`` far from it.

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """

    op_name, backward_name, kernel = "special_i0e", "SpecialI0EBackward0", "i0e"
    saved_for_backward = (0, "output")

    def backward(self, backend, gy):
        x = self.x
        rise = backend.binary("sub", backend.unary("i1e", x),
                              backend.binary("mul", backend.unary("sign", x), self.out))
        return (backend.binary("mul", gy, rise),)

    def backward_graph(self, grad):
        x = self.graph_input(0, self.x)
        sign = self.constant(self.backend.unary("sign", self.x))  # piecewise constant
        return (grad * (I1e()(x) - sign * self.graph_output(self.out)),)


class I1(FloatUnary):
    """``i1(x) = x/2 sum((x²/4)^k / (k! (k + 1)!))``, odd, 0 at 0.

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """

    op_name, backward_name, kernel = "special_i1", "SpecialI1Backward0", "i1"
    saved_for_backward = (0, "output")
    #: the kernel of the order-0 function of the same scaling
    order_zero = "i0"

    def backward(self, backend, gy):
        x, out = self.x, self.out
        eps = x.dtype.type(_eps(x))
        not_tiny = backend.binary("gt", backend.unary("abs", x), eps)
        safe = backend.where(not_tiny, x, eps)
        rise = backend.binary("sub", backend.unary(self.order_zero, safe),
                              backend.binary("mul", out, self._over_x(backend, safe)))
        return (backend.binary("mul", gy, backend.where(not_tiny, rise, x.dtype.type(0.5))),)

    def _over_x(self, backend, safe):
        """The factor of the output in the derivative: ``1 / x``."""
        return backend.binary("div", safe.dtype.type(1), safe)

    def backward_graph(self, grad):
        from ..functions import where

        eps = _eps(self.x)
        not_tiny = self.constant(self.backend.binary(
            "gt", self.backend.unary("abs", self.x), self.x.dtype.type(eps)))
        safe = where(not_tiny, self.graph_input(0, self.x), eps)
        rise = self._order_zero_op()(safe) - self.graph_output(self.out) * self._over_x_graph(
            safe)
        return (grad * where(not_tiny, rise, 0.5),)

    def _order_zero_op(self):
        return I0()

    def _over_x_graph(self, safe):
        return 1.0 / safe


class I1e(I1):
    """``exp(-|x|) i1(x)``, odd, 0 at 0 and at ``±inf``.

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """

    op_name, backward_name, kernel = "special_i1e", "SpecialI1EBackward0", "i1e"
    order_zero = "i0e"

    def _over_x(self, backend, safe):  # sgn(x) + 1 / x
        return backend.binary("add", backend.unary("sign", safe),
                              backend.binary("div", safe.dtype.type(1), safe))

    def _order_zero_op(self):
        return I0e()

    def _over_x_graph(self, safe):
        return self.constant(self.backend.unary("sign", safe._data)) + 1.0 / safe
