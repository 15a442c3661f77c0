"""``vander``: the Vandermonde matrix, whose columns are powers of a vector.

One ``pow`` kernel call of the column of ``x`` against a row of exponents. The gradient of
column ``j`` is ``e_j * x ** (e_j - 1)``; the exponent is floored at 0 so that the constant
column (``e_j = 0``) gives ``0 * 1`` rather than ``0 * x ** -1``, which is NaN at ``x = 0``.
The graph formula reads those powers ``x ** (e_j - 1)`` off a Vandermonde matrix with one
column fewer (this op again), which has no such NaN and can be differentiated to any order.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function


class Vander(Function):
    """Columns ``x ** (N - 1), ..., x, 1``, or ``1, x, ..., x ** (N - 1)`` with
    ``increasing``.

    Shape:
        ``x (n,)`` -> ``(n, N)`` (``N`` defaults to ``n``); floating inputs keep their
        dtype, integer and bool ones give int64.

    Raises:
        ShapeRuntimeError (a RuntimeError, as PyTorch's) unless ``x`` is 1-D; RuntimeError
        for a negative ``N``.
    """

    op_name = "vander"
    saved_for_backward = (0,)
    N, increasing = None, False

    @property
    def backward_name(self):
        # PyTorch's kernel ends in a flip, or (increasing) in a write into a slice
        return "torch::autograd::CopySlices" if self.increasing else "FlipBackward0"

    def infer(self, x):
        shape = tuple(x._data.shape)
        if len(shape) != 1:
            raise shapes.ShapeRuntimeError(self.op_name, f"x must be a one-dimensional tensor, "
                                                         f"but got shape {shapes.fmt(shape)}")
        columns = shape[0] if self.N is None else self.N
        if columns < 0:
            raise RuntimeError(f"vander: N must be non-negative, but got N={columns}")
        self.columns = columns
        self.out_dtype = x._dtype if x._dtype.is_floating_point else dtypes.int64
        return (shape[0], columns), self.out_dtype

    def _exponents(self, backend):
        n, dtype = self.columns, self.out_dtype
        if self.increasing:
            return backend.arange(0, n, 1, dtype)
        return backend.arange(n - 1, -1, -1, dtype)

    def forward(self, backend, x):
        if x.dtype != self.out_dtype.numpy:
            x = backend.astype(x, self.out_dtype)
        if self.recording:
            self.x = x
        return backend.binary("pow", backend.reshape(x, (-1, 1)), self._exponents(backend))

    def backward(self, backend, gy):
        e = self._exponents(backend)
        lowered = backend.binary("maximum", backend.binary("sub", e, e.dtype.type(1)),
                                 e.dtype.type(0))
        slope = backend.binary("mul", e, backend.binary("pow", backend.reshape(self.x, (-1, 1)),
                                                        lowered))
        return (backend.sum(backend.binary("mul", gy, slope), 1, False),)

    def backward_graph(self, grad):
        # the columns with a nonzero exponent, and the powers one lower than theirs
        powers = Vander(N=max(self.columns - 1, 0), increasing=self.increasing)(
            self.graph_input(0, self.x))
        e = self._exponents(self.backend)
        kept = slice(1, None) if self.increasing else slice(0, max(self.columns - 1, 0))
        slope = powers * self.constant(self.backend.getitem(e, kept))
        return ((grad[:, kept] * slope).sum(1),)
