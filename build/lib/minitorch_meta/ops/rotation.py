"""``rot90``: the matrices over two dims turned by quarter turns, PyTorch's way.

No kernel of its own: a quarter turn from ``dims[0]`` toward ``dims[1]`` is a reversal of
``dims[1]`` (``reorder.reverse``, a copy) then the two dims swapped (a transpose of that
copy, as PyTorch's ``transpose_``, so the strides are PyTorch's too); a half turn reverses
both. Backward turns the gradient back by the opposite count.
"""

from __future__ import annotations

from . import shapes
from .function import Function
from .reorder import reverse


class Rot90(Function):
    """The input turned ``k`` quarter turns in the plane of ``dims`` (two ints), from the
    first dim toward the second (negative ``k``: the other way).

    Shape:
        the input's shape with ``dims`` swapped for an odd ``k``, unchanged for an even one.

    Raises:
        RuntimeError for dims that are not two different ones or an input of fewer than two
        dims; IndexError for a dim out of range.
    """

    op_name, backward_name = "rot90", "Rot90Backward0"
    k, dims = 1, (0, 1)

    def infer(self, x):
        shape = tuple(x._data.shape)
        if len(self.dims) != 2:
            raise RuntimeError(f"expected total rotation dims == 2, but got dims = "
                               f"{len(self.dims)}")
        if len(shape) < 2:
            raise RuntimeError(f"expected total dims >= 2, but got total dims = {len(shape)}")
        self.axes = tuple(shapes.normalize_dim(self.op_name, d, len(shape)) for d in self.dims)
        if self.axes[0] == self.axes[1]:
            raise RuntimeError(f"expected rotation dims to be different, but got dim0 = "
                               f"{self.dims[0]} and dim1 = {self.dims[1]}")
        if self.k % 2:
            out = list(shape)
            out[self.axes[0]], out[self.axes[1]] = shape[self.axes[1]], shape[self.axes[0]]
            return tuple(out), x._dtype
        return shape, x._dtype

    def forward(self, backend, x):
        return turn(backend, x, self.k, self.axes)

    def backward(self, backend, gy):
        return (turn(backend, gy, -self.k, self.axes),)

    def backward_graph(self, grad):
        return (Rot90(k=-self.k, dims=self.axes)(grad),)


def turn(backend, a, k: int, axes: tuple):
    """A copy of ``a`` turned ``k`` quarter turns from ``axes[0]`` toward ``axes[1]``."""
    first, second = axes
    k %= 4
    if k == 2:
        return reverse(backend, a, axes)
    if k == 0:
        return backend.copy(a)
    order = list(range(a.ndim))
    order[first], order[second] = second, first
    return backend.transpose(reverse(backend, a, (second if k == 1 else first,)), tuple(order))
