"""``block_diag``: tensors of at most two dims placed along the diagonal of a zero matrix.

Forward writes each block into its slice of zeros (one ``setitem`` per input, which also
converts it to the promoted dtype); backward hands each input its slice of the gradient,
in the input's shape and dtype.
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function


class BlockDiag(Function):
    """The inputs as diagonal blocks: a 0-d tensor is a ``1 x 1`` block, a vector of ``n``
    elements a ``1 x n`` row, a matrix itself.

    Shape:
        ``(sum of the blocks' rows, sum of their columns)``; the dtype is the inputs'
        promoted one.

    Raises:
        ShapeRuntimeError (a RuntimeError, as PyTorch's) for an input of more than 2 dims.
    """

    op_name, backward_name = "block_diag", "BlockDiagBackward0"

    def infer(self, *tensors):
        blocks, dtype = [], tensors[0]._dtype
        for i, t in enumerate(tensors):
            shape = tuple(t._data.shape)
            if len(shape) > 2:
                raise shapes.ShapeRuntimeError("torch.block_diag", f"Input tensors must have 2 "
                                                                   f"or fewer dimensions. Input "
                                                                   f"{i} has {len(shape)} "
                                                                   f"dimensions (shape "
                                                                   f"{shapes.fmt(shape)})")
            blocks.append((1,) * (2 - len(shape)) + shape)
            dtype = dtypes.promote(dtype, t._dtype)
        self.blocks, self.out_dtype = blocks, dtype
        return (sum(h for h, _ in blocks), sum(w for _, w in blocks)), dtype

    def _places(self):
        """The ``(rows, columns)`` slices of each block in the output."""
        row = column = 0
        for h, w in self.blocks:
            yield slice(row, row + h), slice(column, column + w)
            row, column = row + h, column + w

    def forward(self, backend, *arrays):
        rows, columns = sum(h for h, _ in self.blocks), sum(w for _, w in self.blocks)
        out = backend.full((rows, columns), 0, self.out_dtype)
        for a, block, place in zip(arrays, self.blocks, self._places()):
            backend.setitem(out, place, backend.reshape(a, block))
        return out

    def backward(self, backend, gy):
        grads = []
        for need, spec, place in zip(self.needs_input_grad, self.input_specs, self._places()):
            if not need:
                grads.append(None)
                continue
            shape, dtype = spec
            g = backend.reshape(backend.getitem(gy, place), tuple(shape))
            # a copy, never a view of gy (which another input's gradient also reads)
            grads.append(backend.copy(g) if g.dtype == dtype.numpy else backend.astype(g, dtype))
        return tuple(grads)

    def backward_graph(self, grad):
        grads = []
        for need, spec, place in zip(self.needs_input_grad, self.input_specs, self._places()):
            if not need:
                grads.append(None)
                continue
            shape, dtype = spec
            g = grad[place].reshape(tuple(shape))
            grads.append(g if g._dtype is dtype else g.to(dtype))
        return tuple(grads)
