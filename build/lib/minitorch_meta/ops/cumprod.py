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

    def backward_graph(self, grad):
        # PyTorch's double backward: ``sum_{k >= i} gy[k] out[k] / x[i]`` without zeros (its
        # gradient reaches x through the output, hence this node, too); with a zero anywhere
        # (a read of the data, as PyTorch's), the exact products of the others.
        shape, dtype = self.input_specs[0]
        backend, x, axis = self.backend, self.x, self.axis
        if grad._dtype is not dtype:
            grad = grad.to(dtype)
        if not shape or shape[axis] <= 1 or x.size <= 1:
            return (grad,)
        xt = self.graph_input(0, x)
        if not int(backend.to_numpy(backend.sum(backend.binary("eq", x, x.dtype.type(0)),
                                                None, False))):
            weighted = grad * self.graph_output(self.out)
            return ((weighted.flip((axis,)).cumsum(axis).flip((axis,)) / xt).to(dtype),)
        return (_exact_gradient_graph(self, grad, xt, axis).to(dtype),)


def _exact_gradient_graph(node, grad, x, axis: int):
    """``gx[i] = sum over k >= i of gy[k] * prod(x[j] for j <= k, j != i)``, with recorded
    ops and no division (exact at zeros): row ``i`` of an ``n x n`` table holds ``x`` with
    ``x[i]`` replaced by 1, and its running product is every partial product without
    ``x[i]``. Costs ``n`` times the input's memory along ``axis``."""
    n = x.shape[axis]
    backend = node.backend
    steps = backend.arange(0, n, 1, dtypes.int64)
    rows, columns = backend.reshape(steps, (n, 1)), backend.reshape(steps, (1, n))
    off_diagonal = node.constant(backend.binary("ne", rows, columns))
    from_row_on = node.constant(backend.binary("ge", columns, rows))  # k >= i
    last = x.movedim(axis, -1)  # (..., n)
    table = last.unsqueeze(-2).expand(*last.shape[:-1], n, n).where(off_diagonal, 1)
    partial = table.cumprod(-1)  # [..., i, k]: prod over j <= k, j != i
    terms = (partial * grad.movedim(axis, -1).unsqueeze(-2)).where(from_row_on, 0)
    return terms.sum(-1).movedim(-1, axis)


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
