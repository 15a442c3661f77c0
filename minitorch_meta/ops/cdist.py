"""``cdist``: the p-norm distance between every row of ``x1`` and every row of ``x2``.

Forward and backward both work on the differences ``x1[i] - x2[j]``, a block of rows of
``x1`` at a time so that the ``(rows, R, M)`` temporary stays near 4M elements whatever
the sizes. PyTorch computes the Euclidean case (p = 2) of more than 25 rows as a matrix
product, ``|a|² - 2 a·b + |b|²``, which loses the digits of nearby points to
cancellation; the differences keep them, so our values are at least as accurate as
PyTorch's (docs/differences.md). The gradient is PyTorch's: zero where a distance is zero,
ties of the infinity norm all receive it, and for p < 1 a zero difference gets none.
Its graph form (``backward_graph``, ``create_graph=True``) is the same rule on the whole
``(P, R, M)`` block of differences, written with recorded tensor ops.
"""

from __future__ import annotations

import math

from .. import dtypes
from . import shapes
from .function import Function
from .graph_backward import reduce_to_input
from .norms import _where_zero

#: elements of one block of differences (rows × R × M × batch)
_BLOCK = 1 << 22
_FLOATS = (dtypes.float32, dtypes.float64)


class Cdist(Function):
    """``out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p`` (p = 0 counts the
    coordinates that differ; p = inf takes the largest difference).

    Shape:
        ``x1`` ``(*B1, P, M)`` and ``x2`` ``(*B2, R, M)``, the batch dims broadcast together:
        ``(*B, P, R)``, in the inputs' (floating-point) dtype.

    Raises:
        RuntimeError for integer or mixed dtypes, fewer than 2 dims, different numbers of
        columns or a negative ``p``; ShapeError when the batch dims do not broadcast.
    """

    op_name, backward_name = "cdist", "CdistBackward0"
    saved_for_backward = (0, 1, "output")
    p = 2.0

    def infer(self, x1, x2):
        for name, x in (("X1", x1), ("X2", x2)):
            if x._dtype not in _FLOATS:  # PyTorch has no float16 cdist either
                raise RuntimeError(f"cdist only supports floating-point dtypes (float32 or "
                                   f"float64), {name} got: {x._dtype}; convert it with "
                                   f".float()")
        if x1._dtype is not x2._dtype:
            raise RuntimeError(f"cdist: expected X1 and X2 to have the same dtype, but got: "
                               f"{x1._dtype} != {x2._dtype}")
        a, b = tuple(x1._data.shape), tuple(x2._data.shape)
        for name, shape in (("X1", a), ("X2", b)):
            if len(shape) < 2:
                raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                                   f"{len(shape)}D (shape {shapes.fmt(shape)})")
        if a[-1] != b[-1]:
            raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a[-1]} "
                               f"X2: {b[-1]}")
        if not self.p >= 0:  # NaN too
            raise RuntimeError(f"cdist only supports non-negative p values, but got p={self.p}")
        try:
            batch = shapes.broadcast(self.op_name, a[:-2], b[:-2])
        except shapes.ShapeError:
            raise shapes.ShapeRuntimeError(
                self.op_name, f"the batch dims {shapes.fmt(a[:-2])} of X1 and "
                f"{shapes.fmt(b[:-2])} of X2 cannot be broadcast together: trailing dims "
                "must be equal or 1") from None
        self.columns, self.out_dtype = a[-1], x1._dtype
        return batch + (a[-2], b[-2]), x1._dtype

    def forward(self, backend, x1, x2):
        if self.recording:
            self.x1, self.x2 = x1, x2
        batch = shapes.broadcast(self.op_name, x1.shape[:-2], x2.shape[:-2])  # checked
        rows, others = x1.shape[-2], x2.shape[-2]
        out = backend.full(batch + (rows, others), 0, self.out_dtype)
        if not self.columns:  # no coordinates: every distance is 0
            return out
        for block in self._blocks(rows, others, batch):
            diff = self._differences(backend, x1, x2, block)
            backend.setitem(out, (Ellipsis, block, slice(None)), self._norm(backend, diff))
        if self.recording:
            self.out = out
        return out

    def backward(self, backend, gy):
        x1, x2 = self.x1, self.x2
        g1 = backend.full(gy.shape[:-1] + (x1.shape[-1],), 0, self.input_specs[0][1])
        g2 = backend.full(gy.shape[:-2] + x2.shape[-2:], 0, self.input_specs[1][1])
        if self.p != 0 and self.columns:
            for block in self._blocks(x1.shape[-2], x2.shape[-2], gy.shape[:-2]):
                diff = self._differences(backend, x1, x2, block)
                picked = (Ellipsis, block, slice(None), None)  # (..., rows, R, 1)
                w = backend.binary("mul", self._slope(backend, diff,
                                                      backend.getitem(self.out, picked)),
                                   backend.getitem(gy, picked))
                backend.setitem(g1, (Ellipsis, block, slice(None)), backend.sum(w, -2, False))
                g2 = backend.binary("sub", g2, backend.sum(w, -3, False))
        gx1 = backend.sum_to_shape(g1, x1.shape) if self.needs_input_grad[0] else None
        gx2 = backend.sum_to_shape(g2, x2.shape) if self.needs_input_grad[1] else None
        return gx1, gx2

    def backward_graph(self, grad):
        """``backward`` with tensor ops (``create_graph=True``): each pair's gradient is
        ``grad`` times the slope of its distance, summed over the other rows."""
        if not self.columns:  # no coordinates: the distances are constant zeros
            return tuple(self.constant(self.backend.full(shape, 0, dtype))
                         if need else None
                         for (shape, dtype), need in zip(self.input_specs, self.needs_input_grad))
        w = self._weighted_slopes(grad.unsqueeze(-1), self.x1, self.x2, self.out,
                                  lambda: self.graph_input(0, self.x1)[..., :, None, :]
                                  - self.graph_input(1, self.x2)[..., None, :, :],
                                  lambda: self.graph_output(self.out))
        return (reduce_to_input(w.sum(-2), self.input_specs[0])
                if self.needs_input_grad[0] else None,
                reduce_to_input(-w.sum(-3), self.input_specs[1])
                if self.needs_input_grad[1] else None)

    def _weighted_slopes(self, gy, x1, x2, out, differences, distances):
        """``gy`` (``(..., P, R, 1)``) times the slope of each distance by each coordinate of
        its difference (``(..., P, R, M)``), recorded. ``x1``, ``x2`` and ``out`` are the
        arrays, ``differences()`` and ``distances()`` (``(..., P, R)``) their tensors,
        asked for only where the slope depends on them."""
        backend, p = self.backend, self.p
        diff = self._differences(backend, x1, x2, slice(None))
        dist = backend.getitem(out, (Ellipsis, None))
        if p in (0, 1, math.inf):  # piecewise constant (signs, ties): a constant slope
            slope = self._slope(backend, diff, dist) if p else backend.full(diff.shape, 0,
                                                                             self.out_dtype)
            return gy * self.constant(slope)
        zero = diff.dtype.type(0)
        far, d = backend.binary("eq", dist, zero), differences()
        dist_t = distances().unsqueeze(-1)
        if p == 2:  # diff / dist, 0 where the distance is 0
            return gy * _where_zero(self, far, d, dist_t)
        # sign(d) (|d| / dist)^(p-1), 0 where d or the distance is 0: PyTorch's value there
        # (for p > 2 its derivative is 0 too; for 1 < p < 2 the true one is infinite)
        flat = self.constant(backend.binary("logical_or", backend.binary("eq", diff, zero),
                                            far))
        ratio = d.abs().masked_fill(flat, 1) / dist_t.masked_fill(self.constant(far), 1)
        slope = self.constant(backend.unary("sign", diff)) * ratio ** (p - 1)
        return gy * slope.masked_fill(flat, 0)

    def _blocks(self, rows: int, others: int, batch: tuple):
        """Slices of ``x1``'s rows whose differences fill about ``_BLOCK`` elements."""
        per_row = max(1, others * self.columns * math.prod(batch))
        step = max(1, _BLOCK // per_row)
        return [slice(start, min(start + step, rows)) for start in range(0, rows, step)]

    @staticmethod
    def _differences(backend, x1, x2, block):
        """``x1[..., i, None, :] - x2[..., None, :, :]`` for the rows ``i`` in ``block``."""
        a = backend.getitem(x1, (Ellipsis, block, None, slice(None)))
        b = backend.getitem(x2, (Ellipsis, None, slice(None), slice(None)))
        return backend.binary("sub", a, b)

    def _norm(self, backend, diff):
        p = self.p
        if p == 0:  # how many coordinates differ
            nonzero = backend.binary("ne", diff, diff.dtype.type(0))
            return backend.astype(backend.sum(nonzero, -1, False), self.out_dtype)
        size = backend.unary("abs", diff)
        if p == math.inf:
            return backend.max(size, -1, False)
        if p == 1:
            return backend.sum(size, -1, False)
        if p == 2:
            return backend.unary("sqrt", backend.sum(backend.binary("mul", diff, diff), -1, False))
        total = backend.sum(backend.binary("pow", size, diff.dtype.type(p)), -1, False)
        return backend.binary("pow", total, diff.dtype.type(1 / p))

    def _slope(self, backend, diff, dist):
        """d dist / d x1 for each difference (``x2``'s is its negative); 0 where the
        distance is 0, as PyTorch's."""
        zero, p = diff.dtype.type(0), self.p
        sign = backend.unary("sign", diff)
        if p == 1:
            slope = sign
        elif p == math.inf:  # every coordinate that attains the maximum
            slope = backend.binary("mul", sign, backend.binary("eq", backend.unary("abs", diff),
                                                               dist))
        else:
            safe = backend.where(backend.binary("eq", dist, zero), diff.dtype.type(1), dist)
            if p == 2:
                slope = backend.binary("div", diff, safe)
            else:  # sign(d) |d|^(p-1) / dist^(p-1)
                ratio = backend.binary("div", backend.unary("abs", diff), safe)
                slope = backend.binary("mul", sign,
                                       backend.binary("pow", ratio, diff.dtype.type(p - 1)))
                if p < 1:  # |0|^(p-1) is inf: PyTorch gives a zero difference no gradient
                    slope = backend.where(backend.binary("eq", diff, zero), zero, slope)
        return backend.where(backend.binary("eq", dist, zero), zero, slope)
