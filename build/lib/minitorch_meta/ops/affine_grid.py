"""``affine_grid``: the sampling grid of a batch of affine maps (``F.affine_grid``).

Each output point is ``theta @ (x, y[, z], 1)``, where ``(x, y[, z])`` runs over the output
size's pixels in normalised coordinates (-1 and 1 at the outer pixels' centres with
``align_corners``, at their outer edges without). The ``(points, k + 1)`` base grid is made
from sizes alone, so forward and backward are each one ``einsum`` with it.
"""

from __future__ import annotations

from ..size import Size
from .function import Function
from .shapes import ShapeError


class AffineGridGenerator(Function):
    """The ``(N, *size[2:], k)`` grid of the affine maps ``theta`` (``(N, k, k + 1)``,
    ``k`` = 2 for a 4-D ``size``, 3 for a 5-D one) over the pixels of ``size``.

    ``grid[n, ..., i]`` is row ``i`` of ``theta[n]`` applied to the pixel's
    ``(x, y[, z], 1)``: the width's coordinate first, as ``grid_sample`` reads it.

    Shape:
        theta ``(N, 2, 3)`` with size ``(N, C, H, W)`` -> ``(N, H, W, 2)``;
        theta ``(N, 3, 4)`` with size ``(N, C, D, H, W)`` -> ``(N, D, H, W, 3)``;
        the output has theta's dtype.

    Raises:
        ValueError for a theta that is not floating point or not ``(N, k, k + 1)``, or a
        size that is not positive; NotImplementedError for a size that is not 4-D or
        5-D; ShapeError (a RuntimeError) when theta's batch is not ``size[0]``.
    """

    op_name, backward_name = "affine_grid", "AffineGridGeneratorBackward0"
    saved_for_backward = ()  # the base grid comes from sizes alone
    size, align_corners = (), False

    def infer(self, theta):
        size, shape = tuple(self.size), tuple(theta._data.shape)
        if not theta._dtype.is_floating_point:
            raise ValueError(f"Expected theta to have floating point type, but got "
                             f"{theta._dtype}")
        if len(size) not in (4, 5):
            raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and "
                                      f"3D affine transforms, respectively. Got size {size}.")
        k = len(size) - 2
        if len(shape) != 3 or shape[1:] != (k, k + 1):
            raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} "
                             f"for size {size}. Got {Size(shape)}.")
        spatial = size[2:]
        unit_span = self.align_corners and min(spatial) == 1  # PyTorch warns, and goes on
        if not unit_span and min(size) <= 0:
            raise ValueError(f"Expected non-zero, positive output size. Got {size}")
        if shape[0] != size[0]:
            raise ShapeError(self.op_name, f"theta holds {shape[0]} affine matrices but size "
                                           f"{size} asks for a batch of {size[0]}")
        self.k, self.dtype = k, theta._dtype
        return (size[0],) + spatial + (k,), theta._dtype

    def forward(self, backend, theta):
        base = base_grid(backend, self.size[2:], self.align_corners, self.dtype)
        points = backend.einsum("pi,nji->npj", base, theta)
        return backend.reshape(points, (theta.shape[0],) + tuple(self.size[2:]) + (self.k,))

    def backward(self, backend, gy):
        spatial = tuple(self.size[2:])
        base = base_grid(backend, spatial, self.align_corners, self.input_specs[0][1])
        g = backend.reshape(gy, (gy.shape[0], _product(spatial), self.k))
        return (backend.einsum("npj,pi->nji", g, base),)

    def backward_graph(self, grad):
        # linear in grad with a constant base grid: ``backward`` as a recorded product
        spatial = tuple(self.size[2:])
        base = self.constant(base_grid(self.backend, spatial, self.align_corners,
                                       self.input_specs[0][1]))
        g = grad.reshape(grad.shape[0], _product(spatial), self.k)
        return (g.transpose(1, 2).matmul(base),)


def base_grid(backend, spatial: tuple, align_corners: bool, dtype):
    """The ``(points, k + 1)`` array of every pixel's ``(x, y[, z], 1)``, in row-major
    order of ``spatial`` (``(H, W)`` or ``(D, H, W)``): column 0 runs over the last size."""
    k = len(spatial)
    grid = backend.empty(tuple(spatial) + (k + 1,), dtype)
    for column in range(k):
        axis = k - 1 - column  # x runs over the width, the last spatial size
        shape = [1] * k
        shape[axis] = spatial[axis]
        line = backend.reshape(_coordinates(backend, spatial[axis], align_corners, dtype),
                               tuple(shape))
        backend.setitem(grid, (Ellipsis, column), line)
    backend.setitem(grid, (Ellipsis, k), 1)
    return backend.reshape(grid, (_product(spatial), k + 1))


def _coordinates(backend, n: int, align_corners: bool, dtype):
    """PyTorch's ``linspace(-1, 1, n)``, scaled by ``(n - 1) / n`` without
    ``align_corners`` (pixel centres); a single pixel sits at 0."""
    if n <= 1:
        return backend.full((n,), 0, dtype)
    span = n - 1 if align_corners else n
    steps = backend.arange(0, n, 1, dtype)
    real = dtype.numpy.type
    # (2 i - (n - 1)) / span: the integers are exact, so one rounding (the ends are exactly
    # -1 and 1 with align_corners)
    centred = backend.binary("sub", backend.binary("mul", steps, real(2)), real(n - 1))
    return backend.binary("div", centred, real(span))


def _product(sizes) -> int:
    total = 1
    for n in sizes:
        total *= n
    return total
