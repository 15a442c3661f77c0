"""``cumprod``: the running product along a dim, with PyTorch's gradient at zeros.

The gradient of ``out[k] = x[0] * ... * x[k]`` with respect to ``x[i]`` (``i <= k``) is the
product of the other factors. Before the first zero of a slice that is ``out[k] / x[i]``, so
those inputs take the running sum of ``gy * out`` from the end, divided by ``x``. The first
zero's own gradient is the product of the elements before it times the running products
after it (up to the next zero), weighted by ``gy``; every input after the first zero has a
zero among its partners, so its gradient is 0. This is PyTorch's exact rule (first-order
backward), computed with masks rather than a branch on the data, so no value is read back
to the host on CUDA.
"""

from __future__ import annotations

from .. import dtypes
from .cumulative import Cumsum, flip


class Cumprod(Cumsum):
    """``out[..., i, ...] = prod(input[..., :i + 1, ...])`` along ``dim``.

    Shape:
        the input's shape; the dtype is ``dtype`` when given, else the input's for floating
        inputs and int64 for integer and bool ones. A 0-d input is its own running product.

    Raises:
        IndexError for a dim out of range; RuntimeError for an integer ``dtype`` on an input
        that requires grad; NotImplementedError for ``dtype=torch.bool``.
    """

    op_name, backward_name = "cumprod", "CumprodBackward0"
    saved_for_backward = (0, "output")
    running = "product"

    def forward(self, backend, x):
        if x.dtype != self.out_dtype.numpy:
            x = backend.astype(x, self.out_dtype)
        out = backend.copy(x) if x.ndim == 0 else backend.cumprod(x, self.axis)
        if self.recording:
            self.x, self.out = x, out
        return out

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        gx = gy if not shape else _gradient(backend, gy, self.x, self.out, self.axis)
        return (gx if gx.dtype == dtype.numpy else backend.astype(gx, dtype),)


def _gradient(backend, gy, x, out, axis: int):
    """The gradient of ``cumprod(x)`` along ``axis`` for the output gradient ``gy``."""
    zero, one = x.dtype.type(0), x.dtype.type(1)
    is_zero = backend.binary("eq", x, zero)
    zeros_so_far = backend.cumsum(backend.astype(is_zero, dtypes.int64), axis)
    before = backend.binary("eq", zeros_so_far, 0)  # before the slice's first zero
    from_first = backend.binary("eq", zeros_so_far, 1)  # from the first zero to the second
    first = backend.binary("logical_and", is_zero, from_first)
    # Before the first zero: sum over k >= i of gy[k] * out[k] / x[i] (out[k] is 0 from the
    # first zero on, so those terms add nothing).
    weighted = backend.where(before, backend.binary("mul", gy, out), zero)
    tail_sums = flip(backend, backend.cumsum(flip(backend, weighted, axis), axis), axis)
    plain = backend.binary("div", tail_sums, backend.where(before, x, one))
    # At the first zero: prod(x before it) * sum over k up to the next zero of
    # gy[k] * prod(x strictly between it and k).
    prefix = backend.prod(backend.where(before, x, one), axis, True)
    between = backend.binary("logical_and", from_first, backend.unary("logical_not", is_zero))
    runs = backend.cumprod(backend.where(between, x, one), axis)
    reach = backend.sum(backend.where(from_first, backend.binary("mul", gy, runs), zero),
                        axis, True)
    at_first = backend.where(first, backend.binary("mul", prefix, reach), zero)
    return backend.where(before, plain, at_first)
