"""``pdist``: the p-norm distance between every pair of rows of one matrix, the upper
triangle of ``cdist(x, x)`` read row by row.

It is ``cdist``'s op on ``x`` against itself (its differences, norms and PyTorch's
gradient rules), a block of rows at a time, with the pairs ``i < j`` of each block picked
by one boolean mask: the mask reads them in PyTorch's order, ``(0, 1), (0, 2), ...,
(1, 2), ...``, so each block fills one run of the output. Backward writes the gradient
(and the distances) of the run back into the block's ``(rows, N)`` grid, zero elsewhere,
and applies ``cdist``'s backward there. The graph form (``backward_graph``) does the same
on the whole ``(N, N)`` grid at once, with recorded ops.
"""

from __future__ import annotations

from .. import dtypes
from .cdist import Cdist
from .graph_backward import reduce_to_input
from .selection_graph import placed


class Pdist(Cdist):
    """``out[k] = ||x[i] - x[j]||_p`` for the ``k``-th pair ``i < j`` in row-major order
    (p = 0 counts the coordinates that differ; p = inf takes the largest difference).

    Shape:
        ``(N, M)`` -> ``(N * (N - 1) / 2,)``, in the input's (floating-point) dtype.

    Raises:
        RuntimeError for integer dtypes, a tensor that is not 2-D, or a negative ``p``;
        NotImplementedError for float16 (PyTorch's types).
    """

    op_name, backward_name = "pdist", "PdistBackward0"
    saved_for_backward = (0, "output")

    def infer(self, x):
        if x._dtype is dtypes.float16:
            raise NotImplementedError("pdist is not implemented for float16 (as in PyTorch); "
                                      "convert the input with .float()")
        if x._dtype not in (dtypes.float32, dtypes.float64):
            raise RuntimeError(f"pdist only supports floating-point dtypes (float32 or "
                               f"float64), got {x._dtype}; convert it with .float()")
        shape = tuple(x._data.shape)
        if len(shape) != 2:
            raise RuntimeError(f"pdist only supports 2D tensors, got: {len(shape)}D (shape "
                               f"{shape})")
        if not self.p >= 0:  # NaN too
            raise RuntimeError(f"pdist only supports non-negative p values, but got "
                               f"p={self.p}")
        rows, self.columns = shape
        self.out_dtype = x._dtype
        return (rows * (rows - 1) // 2,), x._dtype

    def forward(self, backend, x):
        rows = x.shape[0]
        out = backend.full((rows * (rows - 1) // 2,), 0, self.out_dtype)
        if self.recording:
            self.x, self.out = x, out
        if not self.columns:  # no coordinates: every distance is 0
            return out
        for block, run, later in self._runs(backend, rows):
            distances = self._norm(backend, self._differences(backend, x, x, block))
            backend.setitem(out, run, backend.getitem(distances, later))
        return out

    def backward(self, backend, gy):
        x = self.x
        gx = backend.full(x.shape, 0, self.input_specs[0][1])
        if self.p == 0 or not self.columns:
            return (gx,)
        for block, run, later in self._runs(backend, x.shape[0]):
            grid = (block.stop - block.start, x.shape[0])
            g, dist = (backend.full(grid, 0, self.out_dtype) for _ in range(2))
            backend.setitem(g, later, backend.getitem(gy, run))
            backend.setitem(dist, later, backend.getitem(self.out, run))
            diff = self._differences(backend, x, x, block)  # (rows, N, M)
            per_pair = (slice(None), slice(None), None)  # (rows, N, 1)
            w = backend.binary("mul", self._slope(backend, diff,
                                                  backend.getitem(dist, per_pair)),
                               backend.getitem(g, per_pair))
            part = backend.getitem(gx, block)
            backend.setitem(gx, block, backend.binary("add", part, backend.sum(w, 1, False)))
            gx = backend.binary("sub", gx, backend.sum(w, 0, False))
        return (gx,)

    def backward_graph(self, grad):
        """``backward`` with tensor ops (``create_graph=True``): the gradient and the
        distances placed on the pairs ``i < j`` of the ``(N, N)`` grid (zeros elsewhere,
        where the slope is then 0), and ``cdist``'s rule applied there."""
        backend, x = self.backend, self.x
        rows = x.shape[0]
        if not self.columns or rows < 2:  # no distances, or no coordinates: empty
            return (self.constant(backend.full(x.shape, 0, self.input_specs[0][1])),)
        later = self._pairs(backend, rows)
        grid = (rows, rows)
        dist = backend.full(grid, 0, self.out_dtype)
        backend.setitem(dist, later, self.out)
        gy = placed(self, grad, later, grid, grad.dtype).unsqueeze(-1)
        w = self._weighted_slopes(
            gy, x, x, dist,
            lambda: self.graph_input(0, x)[:, None, :] - self.graph_input(0, x)[None, :, :],
            lambda: placed(self, self.graph_output(self.out), later, grid, grad.dtype))
        return (reduce_to_input(w.sum(1) - w.sum(0), self.input_specs[0]),)

    @staticmethod
    def _pairs(backend, rows: int):
        """The boolean ``(N, N)`` mask of the pairs ``i < j``."""
        index = backend.arange(0, rows, 1, dtypes.int64)
        return backend.binary("gt", backend.getitem(index, (None, slice(None))),
                              backend.getitem(index, (slice(None), None)))

    def _runs(self, backend, rows: int):
        """``(block, run, later)`` per block of rows: the rows (a slice), their pairs' slice
        of the output, and the boolean ``(rows, N)`` mask of the pairs ``i < j``."""
        start = 0
        columns = backend.arange(0, rows, 1, dtypes.int64)
        for block in self._blocks(rows, rows, ()):
            count = sum(rows - 1 - i for i in range(block.start, block.stop))
            starts = backend.arange(block.start, block.stop, 1, dtypes.int64)
            later = backend.binary("gt", backend.getitem(columns, (None, slice(None))),
                                   backend.getitem(starts, (slice(None), None)))
            yield block, slice(start, start + count), later
            start += count
