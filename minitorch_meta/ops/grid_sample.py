"""``grid_sample`` on 4-D inputs: each output pixel reads the input at a point of the grid.

``grid_taps.py`` turns each grid component into the taps it reads along its axis
(positions, weights, and the weights' derivatives); the op combines the two axes' taps into
``k * k`` points per output pixel (``k`` = 1, 2 or 4), gathers them from the input ringed
with zeros (``zeros`` padding's outside) with one advanced index, and sums them weighted.
Backward adds the weighted gradient back through the same index (``index_add``, a
scatter-add: neighbouring output pixels share taps) and, for the grid, sums each tap's
value times its weight's derivative. ``grid_sample_graph.py`` writes the same with recorded
tensor ops, for gradients of gradients.
"""

from __future__ import annotations

from .. import dtypes
from . import grid_sample_graph as graph
from .avg_pooling import _require_dtype
from .function import Function
from .graph_backward import reduce_to_input
from .grid_taps import axis_taps
from .shapes import ShapeError

MODES = ("bilinear", "nearest", "bicubic")
PADDING_MODES = ("zeros", "border", "reflection")


class GridSampler2D(Function):
    """``input`` sampled at the points of ``grid``: ``grid[n, h, w]`` holds the ``(x, y)``
    in [-1, 1] (-1 the left or top, 1 the right or bottom) that output pixel ``(h, w)``
    reads from ``input[n]``, interpolated by ``mode``; points outside the input read as
    ``padding_mode`` says (see ``grid_taps.py``).

    Shape:
        input ``(N, C, H, W)`` and grid ``(N, H_out, W_out, 2)`` -> ``(N, C, H_out, W_out)``;
        float16, float32 or float64, one dtype for both (float16 is computed in float32).

    Raises:
        ShapeError (a RuntimeError) for batch sizes that differ, a grid whose last size is
        not 2, an empty spatial size, or inputs that are not 4-D (bicubic) or of different
        ranks; NotImplementedError for a 5-D input and grid (3-D sampling) and for a dtype
        that is not floating point; RuntimeError when the dtypes differ.
    """

    op_name, backward_name = "grid_sampler()", "GridSampler2DBackward0"
    saved_for_backward = (0, 1)
    mode, padding_mode, align_corners = "bilinear", "zeros", False

    def infer(self, x, grid):
        xs, gs = tuple(x._data.shape), tuple(grid._data.shape)
        sizes = f"input with sizes {list(xs)} and grid with sizes {list(gs)}"
        if not xs or not gs or xs[0] != gs[0]:
            raise ShapeError(self.op_name, f"expected grid and input to have same batch size, "
                                           f"but got {sizes}")
        if gs[-1] != len(xs) - 2:
            raise ShapeError(self.op_name, f"expected grid to have size {len(xs) - 2} in last "
                                           f"dimension, but got grid with sizes {list(gs)}")
        for d in range(2, len(xs)):
            if xs[d] <= 0:
                raise ShapeError(self.op_name, f"expected input to have non-empty spatial "
                                               f"dimensions, but input has sizes {list(xs)} "
                                               f"with dimension {d} being empty")
        if self.mode == "bicubic" and len(xs) != 4:
            raise ShapeError(self.op_name, "bicubic interpolation only supports 4D input")
        if len(xs) == len(gs) == 5:
            raise NotImplementedError("grid_sample: 5-D input and grid (3-D sampling) are not "
                                      "supported by minitorch_meta; only a 4-D input "
                                      "(N, C, H, W) with a (N, H_out, W_out, 2) grid")
        if len(xs) != 4 or len(gs) != 4:
            raise ShapeError(self.op_name, f"expected 4D input and grid with same number of "
                                           f"dimensions, but got {sizes}")
        if x._dtype is not grid._dtype:
            raise RuntimeError(f"grid_sampler(): expected input and grid to have the same "
                               f"dtype, but input is {x._dtype} and grid is {grid._dtype}; "
                               f"convert the grid with .to({x._dtype})")
        _require_dtype("grid_sampler_2d_cpu_kernel_impl", x._dtype,
                       (dtypes.float16, dtypes.float32, dtypes.float64))
        self.out_dtype = x._dtype
        return xs[:2] + gs[1:3], x._dtype

    # -- forward and backward ---------------------------------------------------------
    def forward(self, backend, x, grid):
        N, C, H, W = x.shape
        work = dtypes.float32 if self.out_dtype is dtypes.float16 else self.out_dtype
        x, grid = backend.astype(x, work), backend.astype(grid, work)
        points = self._points(backend, grid, H, W)
        values = backend.getitem(_ringed(backend, x, work), _index(backend, points[0], N, C))
        out = _weighted_sum(backend, values, points[1])
        if self.recording:
            self.x, self.grid, self.points = x, grid, points
        out = backend.reshape(out, (N, C) + tuple(grid.shape[1:3]))
        return backend.astype(out, self.out_dtype)

    def backward(self, backend, gy):
        x, (flat, weights, slopes_x, slopes_y) = self.x, self.points
        N, C, H, W = x.shape
        work = dtypes.from_numpy(x.dtype)
        gy = backend.reshape(backend.astype(gy, work), (N, C, 1, flat.shape[-1]))
        index = _index(backend, flat, N, C)
        gx = ggrid = None
        if self.needs_input_grad[0]:
            spread = gy if weights is None else backend.binary("mul", gy, weights)
            ringed = backend.index_add((N, C, (H + 2) * (W + 2)), index, spread, work)
            ringed = backend.reshape(ringed, (N, C, H + 2, W + 2))
            gx = backend.copy(backend.getitem(ringed, (Ellipsis, slice(1, H + 1),
                                                       slice(1, W + 1))))
            gx = backend.astype(gx, self.out_dtype)
        if self.needs_input_grad[1]:
            ggrid = self._grid_gradient(backend, gy, x, index, slopes_x, slopes_y)
        return gx, ggrid

    def backward_graph(self, grad):
        """``backward`` with tensor ops (``create_graph=True``): the taps' positions are
        constants, their weights and slopes tensors of the grid (``grid_sample_graph``)."""
        backend, x, grid = self.backend, self.x, self.grid
        N, C, H, W = x.shape
        flat = self.points[0]
        index = _index(backend, flat, N, C)
        gy = grad.reshape(N, C, 1, flat.shape[-1])
        if gy.dtype.numpy != x.dtype:
            gy = gy.to(dtypes.from_numpy(x.dtype))
        gx = ggrid = None
        if self.mode == "nearest":  # one tap of weight 1; no gradient for the grid
            if self.needs_input_grad[0]:
                gx = reduce_to_input(graph.input_gradient(self, gy, index, x.shape, gy.dtype),
                                     self.input_specs[0])
            if self.needs_input_grad[1]:
                ggrid = self.constant(backend.full(self.input_specs[1][0], 0, self.out_dtype))
            return gx, ggrid
        weights, slopes_x, slopes_y = self._weight_tensors(backend, grid, H, W)
        if self.needs_input_grad[0]:
            gx = graph.input_gradient(self, gy * weights, index, x.shape, gy.dtype)
            gx = reduce_to_input(gx, self.input_specs[0])
        if self.needs_input_grad[1]:
            ggrid = graph.grid_gradient(self, gy, self.graph_input(0, x), index, slopes_x,
                                        slopes_y, grid.shape)
            ggrid = reduce_to_input(ggrid, self.input_specs[1])
        return gx, ggrid

    def _weight_tensors(self, backend, grid, H: int, W: int) -> tuple:
        """The taps' weights and their x and y slopes as tensors of the grid (N, 1, k*k, P),
        for ``backward_graph``."""
        N, P = grid.shape[0], grid.shape[1] * grid.shape[2]
        flat_grid = backend.reshape(grid, (N, P, 2))
        # not finite: NaN minus itself; such a grid value's weights keep their values
        unusable = backend.binary("ne", backend.binary("sub", flat_grid, flat_grid),
                                  grid.dtype.type(0))
        delta = self.graph_input(1, grid).reshape(N, P, 2) - self.constant(flat_grid)
        delta = delta.masked_fill(self.constant(unusable), 0)
        axes = []
        for i, size in ((0, W), (1, H)):
            coord = backend.getitem(flat_grid, (slice(None), slice(None), i))
            taps = axis_taps(backend, coord, size, self.mode, self.padding_mode,
                             self.align_corners)
            axes.append(graph.axis_weights(self, backend, coord, delta[:, None, :, i], taps,
                                           size))
        (wx, sx), (wy, sy) = axes
        return graph.outer(wy, wx), graph.outer(wy, sx), graph.outer(sy, wx)

    def _points(self, backend, grid, H: int, W: int) -> tuple:
        """``(flat, weights, slopes_x, slopes_y)``: each output pixel's ``k * k`` taps as
        flat positions in the zero-ringed ``(H + 2) * (W + 2)`` plane (N, 1, k*k, P), their
        weights (N, 1, k*k, P; None for ``nearest``) and the weights' derivatives with
        respect to the grid's x and y (None for ``nearest``)."""
        N, P = grid.shape[0], grid.shape[1] * grid.shape[2]
        flat_grid = backend.reshape(grid, (N, P, 2))
        taps = [axis_taps(backend, backend.getitem(flat_grid, (slice(None), slice(None), i)),
                          size, self.mode, self.padding_mode, self.align_corners)
                for i, size in ((0, W), (1, H))]
        (px, wx, sx), (py, wy, sy) = taps
        flat = _outer(backend, "add", backend.binary("mul", py, W + 2), px)
        if wx is None:
            return flat, None, None, None
        return (flat, _outer(backend, "mul", wy, wx), _outer(backend, "mul", wy, sx),
                _outer(backend, "mul", sy, wx))

    def _grid_gradient(self, backend, gy, x, index, slopes_x, slopes_y):
        """``(N, H_out, W_out, 2)``: for x (and y), the sum over channels and taps of the
        gradient times each tap's value times its weight's x (y) derivative."""
        grid_shape, _ = self.input_specs[1]
        if slopes_x is None:  # nearest: piecewise constant in the grid
            return backend.full(tuple(grid_shape), 0, self.out_dtype)
        N, C = x.shape[:2]
        values = backend.getitem(_ringed(backend, x, dtypes.from_numpy(x.dtype)), index)
        per_tap = backend.sum(backend.binary("mul", values, gy), 1, True)  # over channels
        out = backend.empty((N, slopes_x.shape[-1], 2), dtypes.from_numpy(x.dtype))
        for i, slopes in enumerate((slopes_x, slopes_y)):
            total = backend.sum(backend.binary("mul", per_tap, slopes), (1, 2), False)
            backend.setitem(out, (slice(None), slice(None), i), total)
        return backend.astype(backend.reshape(out, tuple(grid_shape)), self.out_dtype)


def _outer(backend, name: str, rows, columns):
    """``rows`` (N, k, P) and ``columns`` (N, k, P) combined pairwise by ``name``, every row
    tap with every column tap: (N, 1, k*k, P), row-major (y outer, x inner)."""
    N, k, P = rows.shape
    both = backend.binary(name, backend.reshape(rows, (N, k, 1, P)),
                          backend.reshape(columns, (N, 1, k, P)))
    return backend.reshape(both, (N, 1, k * k, P))


def _ringed(backend, x, dtype):
    """``x`` (N, C, H, W) inside a ring of zeros, flattened: (N, C, (H + 2) * (W + 2))."""
    N, C, H, W = x.shape
    out = backend.full((N, C, H + 2, W + 2), 0, dtype)
    backend.setitem(out, (Ellipsis, slice(1, H + 1), slice(1, W + 1)), x)
    return backend.reshape(out, (N, C, (H + 2) * (W + 2)))


def _index(backend, flat, N: int, C: int) -> tuple:
    """The advanced index that picks ``ringed[n, c, flat[n, 0, t, p]]``: (N, C, k*k, P)."""
    n = backend.reshape(backend.arange(0, N, 1, dtypes.int64), (N, 1, 1, 1))
    c = backend.reshape(backend.arange(0, C, 1, dtypes.int64), (1, C, 1, 1))
    return n, c, flat


def _weighted_sum(backend, values, weights):
    """(N, C, P): the taps' values summed with their weights (nearest's one tap as is)."""
    N, C, _, P = values.shape
    if weights is None:
        return backend.reshape(values, (N, C, P))
    return backend.sum(backend.binary("mul", values, weights), 2, False)
