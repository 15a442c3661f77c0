"""``logsumexp``: ``log(sum(exp(x)))`` over dims, computed without overflow.

The largest value of each reduced slice is taken out before ``exp`` and added back after
``log``, so ``exp`` never sees more than 0. As in PyTorch, an infinite largest value is
not taken out (it would turn the slice into nan: ``inf - inf``): a slice holding ``+inf``
gives ``inf``, a slice of only ``-inf`` (or an empty slice) gives ``-inf``.
"""

from __future__ import annotations

import math

from .. import dtypes
from . import shapes
from .function import Function
from .reduction import drop_reduced_dims


class Logsumexp(Function):
    """``log(sum(exp(input)))`` over ``dim`` (an int or a tuple of ints; an empty tuple:
    every dim).

    Shape:
        the input's shape without the reduced dims (kept as 1 with ``keepdim``); integer
        and bool inputs give float32 (the default floating dtype), floating ones keep their
        dtype.

    Raises:
        IndexError for a dim out of range, RuntimeError for a dim given twice.
    """

    op_name, backward_name = "logsumexp", "LogsumexpBackward0"
    saved_for_backward = (0, "output")
    dim, keepdim = (), False

    def infer(self, x):
        shape = x._data.shape
        self.axes = shapes.reduction_dims(self.op_name, self.dim, len(shape))
        # The max of an empty slice does not exist: such slices skip the shift (0 anyway).
        self.empty_slices = any(shape[a] == 0 for a in self.axes)
        self.out_dtype = x._dtype if x._dtype.is_floating_point else dtypes.get_default_dtype()
        return shapes.reduce_shape(self.op_name, shape, self.axes, self.keepdim), self.out_dtype

    def forward(self, backend, x):
        if x.dtype != self.out_dtype.numpy:
            x = backend.astype(x, self.out_dtype)
        axes = self.axes or None  # a 0-d input has no axes: reduce "all" of it
        if self.empty_slices:
            shift = x.dtype.type(0)
        else:
            shift = backend.max(x, axes, True)
            infinite = backend.binary("eq", backend.unary("abs", shift), x.dtype.type(math.inf))
            shift = backend.where(infinite, x.dtype.type(0), shift)
        total = backend.sum(backend.unary("exp", backend.binary("sub", x, shift)), axes, True)
        kept = backend.binary("add", backend.unary("log", total), shift)
        if self.recording:
            self.x, self.kept = x, kept
        return drop_reduced_dims(backend, kept, self.axes, self.keepdim)

    def backward(self, backend, gy):
        # d/dx log(sum(exp(x))) = exp(x - logsumexp(x)), the softmax of the slice
        weights = backend.unary("exp", backend.binary("sub", self.x, self.kept))
        return (backend.binary("mul", backend.reshape(gy, self.kept.shape), weights),)

    def backward_graph(self, grad):
        # the output depends on x too: its gradient flows back through this node
        kept, backend = self.kept, self.backend
        out = self.graph_output(drop_reduced_dims(backend, kept, self.axes, self.keepdim))
        weights = (self.graph_input(0, self.x) - out.reshape(kept.shape)).exp()
        return (grad.reshape(kept.shape) * weights,)
