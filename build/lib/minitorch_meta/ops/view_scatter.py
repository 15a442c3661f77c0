"""``diagonal_scatter``, ``select_scatter`` and ``slice_scatter``: a copy of the input with
``src`` written into one of its views (a diagonal, a slice at an index, a strided range).

Each op only says which view (``region``); the base class copies the input, writes
``src`` (cast to the input's dtype, as PyTorch casts it) through that view of the copy,
and differentiates: the input's gradient is ``grad`` with the region zeroed, ``src``'s
is the region of ``grad``.
"""

from __future__ import annotations

from . import shapes
from .diagonal_view import Diagonal, diagonal_axes, diagonal_shape, diagonal_view
from .function import Function
from .layout import GetItem
from .views import Select


class ViewScatter(Function):
    """The input with ``src`` written over the view ``region`` of it.

    Shape:
        the input's shape and dtype; ``src`` has the region's shape.

    Raises:
        RuntimeError when ``src``'s shape is not the region's.
    """

    def region_shape(self, x) -> tuple:
        """The shape of the region of the tensor ``x``, after the op's checks of its
        hyper-parameters."""
        raise NotImplementedError

    def region(self, backend, a):
        """The view of ``a`` that ``src`` is written into."""
        raise NotImplementedError

    def infer(self, x, src):
        region = self.region_shape(x)
        src_shape = tuple(src._data.shape)
        if src_shape != region:
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src "
                               f"size = {list(src_shape)}, slice size = {list(region)}")
        return tuple(x._data.shape), x._dtype

    def forward(self, backend, x, src):
        out = backend.copy(x)
        backend.setitem(self.region(backend, out), Ellipsis, src)  # casts to out's dtype
        return out

    def backward(self, backend, gy):
        gx = gsrc = None
        if self.needs_input_grad[0]:
            gx = backend.copy(gy)
            backend.setitem(self.region(backend, gx), Ellipsis, gy.dtype.type(0))
        if self.needs_input_grad[1]:
            gsrc = backend.astype(backend.copy(self.region(backend, gy)), self.input_specs[1][1])
        return gx, gsrc

    def backward_graph(self, grad):
        gx = gsrc = None
        if self.needs_input_grad[0]:  # zeros written over the region
            zeros = self.backend.full(tuple(self.input_specs[1][0]), 0, grad._dtype)
            gx = type(self)(**self._hyper)(grad, self.constant(zeros))
        if self.needs_input_grad[1]:
            gsrc = self.region_graph(grad).to(self.input_specs[1][1])
        return gx, gsrc

    def region_graph(self, tensor):
        """The region of ``tensor``, as a recorded view (``backward_graph``)."""
        raise NotImplementedError


class DiagonalScatter(ViewScatter):
    """The input with ``src`` written over its ``diagonal(offset, dim1, dim2)``."""

    op_name, backward_name = "diagonal_scatter", "DiagonalScatterBackward0"
    offset, dim1, dim2 = 0, 0, 1

    def region_shape(self, x):
        shape = tuple(x._data.shape)
        self.axes = diagonal_axes(self.op_name, len(shape), self.dim1, self.dim2)
        return diagonal_shape(shape, self.offset, *self.axes)

    def region(self, backend, a):
        return diagonal_view(backend, a, self.offset, *self.axes)

    def region_graph(self, tensor):
        return Diagonal(offset=self.offset, dim1=self.dim1, dim2=self.dim2)(tensor)


class SelectScatter(ViewScatter):
    """The input with ``src`` written over its ``select(dim, index)``.

    Raises:
        IndexError for a 0-d input, a dim or an index out of range (``select``'s checks).
    """

    op_name, backward_name = "select_scatter", "SelectScatterBackward0"

    def region_shape(self, x):
        selector = Select(self.dim, self.position)
        shape, _ = selector.infer(x)
        # The Ellipsis keeps a selection of every dim a 0-d view rather than a scalar.
        self.selection = selector.index + (Ellipsis,)
        return shape

    def region(self, backend, a):
        return backend.getitem(a, self.selection)

    def region_graph(self, tensor):
        return Select(self.dim, self.position)(tensor)


class SliceScatter(ViewScatter):
    """The input with ``src`` written over ``input[start:end:step]`` along ``dim`` (None:
    from the start, to the end; negative: from the end; clamped to the dim, as PyTorch's
    slices are).

    Raises:
        IndexError for a dim out of range; RuntimeError for a step that is not positive.
    """

    op_name, backward_name = "slice_scatter", "SliceScatterBackward0"
    dim, start, end, step = 0, None, None, 1

    def region_shape(self, x):
        shape = tuple(x._data.shape)
        if not shape:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        if self.step <= 0:
            raise RuntimeError(f"slice step must be positive, but got step={self.step}")
        picked = slice(self.start, self.end, self.step)
        self.index = (slice(None),) * axis + (slice(*picked.indices(shape[axis])),)
        return shape[:axis] + (len(range(*picked.indices(shape[axis]))),) + shape[axis + 1:]

    def region(self, backend, a):
        return backend.getitem(a, self.index)

    def region_graph(self, tensor):
        return GetItem(self.index, self.index)(tensor)
