"""``linalg.cross``: the cross product of 3-vectors laid along one dim, with broadcasting.

The three components are basic slices of the inputs (views), combined by the ``mul`` and
``sub`` kernels and written into the output's three slices. The gradient is itself two
cross products: ``b x gy`` for ``a`` and ``gy x a`` for ``b``, summed back to each input's
shape when it was broadcast. The graph formula is the same two cross products with this
op, so the gradient can be differentiated to any order.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function
from .graph_backward import reduce_to_input


class LinalgCross(Function):
    """``a x b`` along ``dim``, where both inputs have size 3.

    Shape:
        the inputs broadcast together (they have the same number of dims); the output has
        the broadcast shape.

    Raises:
        ShapeRuntimeError (a RuntimeError, as PyTorch's) for inputs of different ranks,
        shapes that do not broadcast, or a dim whose size is not 3; IndexError for a dim
        out of range; TypeError for two dtypes.
    """

    op_name, backward_name = "linalg.cross", "LinalgCrossBackward0"
    saved_for_backward = ((0, 1), (1, 0))
    dim = -1

    def infer(self, a, b):
        shapes.require_same_dtype(self.op_name, "input", a._dtype, "other", b._dtype)
        sa, sb = tuple(a._data.shape), tuple(b._data.shape)
        if len(sa) != len(sb):
            raise shapes.ShapeRuntimeError(self.op_name, f"inputs must have the same number of "
                                                         f"dimensions, but got shapes "
                                                         f"{shapes.fmt(sa)} and {shapes.fmt(sb)}")
        self.axis = shapes.normalize_dim(self.op_name, self.dim, len(sa))
        if sa[self.axis] != 3 or sb[self.axis] != 3:
            raise shapes.ShapeRuntimeError(self.op_name, f"inputs dimension {self.dim} must "
                                                         f"have length 3. Got {sa[self.axis]} "
                                                         f"and {sb[self.axis]} (shapes "
                                                         f"{shapes.fmt(sa)} and {shapes.fmt(sb)})")
        if a._dtype is dtypes.bool_:  # PyTorch's kernel has no bool (a product of booleans)
            raise NotImplementedError("\"cross\" not implemented for 'Bool'")
        return shapes.broadcast(self.op_name, sa, sb), a._dtype

    def forward(self, backend, a, b):
        if self.recording:
            self.a, self.b = a, b
        return cross(backend, a, b, self.axis)

    def backward(self, backend, gy):
        ga = gb = None
        if self.needs_input_grad[0]:
            ga = backend.sum_to_shape(cross(backend, self.b, gy, self.axis),
                                      tuple(self.input_specs[0][0]))
        if self.needs_input_grad[1]:
            gb = backend.sum_to_shape(cross(backend, gy, self.a, self.axis),
                                      tuple(self.input_specs[1][0]))
        return ga, gb

    def backward_graph(self, grad):
        need_a, need_b = self.needs_input_grad
        ga = gb = None
        if need_a:
            b = self.graph_input(1, self.b)
            ga = reduce_to_input(LinalgCross(dim=self.axis)(b, grad), self.input_specs[0])
        if need_b:
            a = self.graph_input(0, self.a)
            gb = reduce_to_input(LinalgCross(dim=self.axis)(grad, a), self.input_specs[1])
        return ga, gb


def cross(backend, a, b, axis: int):
    """``a x b`` along ``axis`` (size 3 in both; the other dims broadcast), on kernels."""

    def part(x, i):  # component i, the dim kept (size 1) so that the parts broadcast
        return backend.getitem(x, (slice(None),) * axis + (slice(i, i + 1),))

    shape = shapes.broadcast("linalg.cross", a.shape, b.shape)
    out = backend.empty(shape, dtypes.from_numpy(a.dtype))
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        value = backend.binary("sub", backend.binary("mul", part(a, j), part(b, k)),
                               backend.binary("mul", part(a, k), part(b, j)))
        backend.setitem(out, (slice(None),) * axis + (slice(i, i + 1),), value)
    return out

