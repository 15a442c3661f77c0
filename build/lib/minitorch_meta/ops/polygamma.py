"""``polygamma(n, x)``, the ``n``-th derivative of digamma, and ``mvlgamma(x, p)``, the
log of the multivariate gamma function.

Kernels: the backend's ``polygamma`` (``backends/xp_polygamma.py``) and ``lgamma``.
Gradients as PyTorch's (``polygamma(n)' = polygamma(n + 1)``,
``mvlgamma' = sum(digamma(x - i/2))``), with tensor-op twins for gradients of gradients,
so any order works. Integer and bool inputs give the default float dtype, as in PyTorch.
"""

from __future__ import annotations

import math

from .. import dtypes
from .unary_math import FloatUnary


class Polygamma(FloatUnary):
    """``psi^(n)(x)`` for a whole ``n >= 0`` (``n = 0`` is digamma, 1 trigamma); the poles
    0, -1, -2, ... give ``(-1)^(n+1) inf``.

    Shape:
        the output has the input's shape (float32 for an integer or bool input).

    Raises:
        RuntimeError for a negative ``n``, as PyTorch.
    """

    op_name, backward_name = "polygamma", "PolygammaBackward0"
    saved_for_backward = (0,)

    def __init__(self, n: int):
        super().__init__(n=n)

    def infer(self, x):
        if self.n < 0:
            raise RuntimeError(f"polygamma(n, x) does not support negative n; got n = {self.n}")
        return super().infer(x)

    def compute(self, backend, x):
        return backend.polygamma(self.n, x)

    def backward(self, backend, gy):
        return (backend.binary("mul", gy, backend.polygamma(self.n + 1, self.x)),)

    def backward_graph(self, grad):
        return (grad * Polygamma(self.n + 1)(self.graph_input(0, self.x)),)


class Mvlgamma(FloatUnary):
    """``log Gamma_p(x) = p (p - 1) / 4 log(pi) + sum(lgamma(x - i/2), i < p)``.

    Shape:
        the output has the input's shape (float32 for an integer or bool input).

    Raises:
        RuntimeError when ``p < 1`` or for a bool input, as PyTorch (on every device: the
        rule reads no data).
    """

    op_name, backward_name = "mvlgamma", "MvlgammaBackward0"
    saved_for_backward = (0,)

    def __init__(self, p: int):
        super().__init__(p=p)

    def infer(self, x):
        if self.p < 1:
            raise RuntimeError(f"mvlgamma: p has to be greater than or equal to 1; got p = "
                               f"{self.p}")
        if x._dtype is dtypes.bool_:
            raise RuntimeError("The input tensor may not be a boolean tensor; convert it "
                               "with .float() first")
        return super().infer(x)

    def _sum(self, backend, kernel, x):
        """``sum(kernel(x - i/2), i < p)``."""
        total = backend.unary(kernel, x)
        for i in range(1, self.p):
            total = backend.binary("add", total, backend.unary(
                kernel, backend.binary("sub", x, x.dtype.type(i / 2))))
        return total

    def compute(self, backend, x):
        constant = self.p * (self.p - 1) / 4 * math.log(math.pi)
        return backend.binary("add", self._sum(backend, "lgamma", x), x.dtype.type(constant))

    def backward(self, backend, gy):
        return (backend.binary("mul", gy, self._sum(backend, "digamma", self.x)),)

    def backward_graph(self, grad):
        from .special_math import Digamma

        x = self.graph_input(0, self.x)
        total = Digamma()(x)
        for i in range(1, self.p):
            total = total + Digamma()(x - i / 2)
        return (grad * total,)
