"""``scatter`` and ``scatter_add``: the inverse of ``gather``, writing along ``dim``.

``out[i][index[i][j]] = src[i][j]`` for ``dim=1`` (and so on): like ``gather``, the index
becomes one advanced index into the output (``sorting.along_axis``), paired with
``arange``\\ s over the other dims. ``scatter`` writes through it (a value repeated at one
position: the last write wins, where PyTorch leaves the winner unspecified);
``scatter_add`` adds through the ``index_add`` kernel, a scatter-add that accumulates
repeated positions. An index may be smaller than ``src``: only its leading block of
``src`` is read.

Gradients are PyTorch's: the input's is the output's gradient, with zeros where
``scatter`` overwrote it; ``src``'s is the output's gradient gathered at the index (its
unread block gets zeros).
"""

from __future__ import annotations

from .. import dtypes
from . import shapes
from .function import Function
from .gather import check_range
from .masked import fill_scalar
from .selection_graph import picked, placed, written_mask, zeroed
from .sorting import along_axis

INDEX_DTYPES = (dtypes.int64, dtypes.int32)


class Scatter(Function):
    """The input with ``src``'s elements (or the number ``value``) written at the index's
    positions along ``dim`` (``add=True``: added there instead, ``scatter_add``).

    Shape:
        the input's shape and dtype. The index has the input's number of dims (a 0-d
        tensor counts as one of one element); along every dim it is no larger than
        ``src``, and along every dim but ``dim`` no larger than the input. An empty index
        changes nothing and is not checked further.

    Raises:
        RuntimeError for an index that is not int64/int32, of another number of dims or
        too large, for ``src`` of another dtype, or for a position outside ``dim`` (data
        backends only); IndexError for a dim out of range.
    """

    op_name = "scatter"
    saved_for_backward = (1,)  # backward reads the index
    dim, value, add = 0, None, False

    @property
    def backward_name(self):
        if self.add:
            return "ScatterAddBackward0"
        return "ScatterBackward0" if self.value is None else "ScatterBackward1"

    def infer(self, x, index, src=None):
        shape, index_shape = tuple(x._data.shape), tuple(index._data.shape)
        if index._dtype not in INDEX_DTYPES:
            raise RuntimeError(f"{self.op_name}(): Expected dtype int32/int64 for index, but "
                               f"got {index._dtype}; convert it with .long()")
        if src is not None and src._dtype is not x._dtype:
            raise RuntimeError(f"{self.op_name}(): Expected self.dtype to be equal to "
                               f"src.dtype, but got {x._dtype} and {src._dtype}; convert src "
                               f"with .to({x._dtype})")
        self.axis = shapes.normalize_dim(self.op_name, self.dim, len(shape))
        # A 0-d tensor counts as one of one element, as in PyTorch.
        self.x_shape, self.index_shape = shape or (1,), index_shape or (1,)
        self.src_shape = None if src is None else tuple(src._data.shape) or (1,)
        if index._data.size:
            self._check_sizes(shape, index_shape, None if src is None else src._data.shape)
        if self.value is not None:
            self.scalar = fill_scalar(self.op_name, self.value, x._dtype)
        self.out_dtype = x._dtype
        return shape, x._dtype

    def _check_sizes(self, shape, index_shape, src_shape) -> None:
        if len(self.index_shape) != len(self.x_shape):
            raise RuntimeError(f"{self.op_name}(): Index tensor must have the same number of "
                               f"dimensions as self tensor, but got an index of shape "
                               f"{shapes.fmt(index_shape)} for self of shape "
                               f"{shapes.fmt(shape)}")
        if self.src_shape is not None and len(self.src_shape) != len(self.index_shape):
            raise RuntimeError(f"{self.op_name}(): Index tensor must have the same number of "
                               f"dimensions as src tensor, but got an index of shape "
                               f"{shapes.fmt(index_shape)} for src of shape "
                               f"{shapes.fmt(src_shape)}")
        for d, i in enumerate(self.index_shape):
            too_large = (d != self.axis and i > self.x_shape[d]) or (
                self.src_shape is not None and i > self.src_shape[d])
            if too_large:
                against = "" if src_shape is None else (f" and to be no larger size than src "
                                                        f"{shapes.fmt(src_shape)}")
                raise RuntimeError(f"{self.op_name}(): Expected index "
                                   f"{shapes.fmt(index_shape)} to be no larger than self "
                                   f"{shapes.fmt(shape)} apart from dimension {self.axis}"
                                   f"{against}")

    def forward(self, backend, x, index, src=None):
        check_range(backend, self.op_name, index, self.x_shape[self.axis], self.axis)
        picks = along_axis(backend, backend.reshape(index, self.index_shape), self.axis)
        if self.recording:
            self.picks = picks
        if src is None:
            values = self.scalar
        else:
            values = backend.getitem(backend.reshape(src, self.src_shape), self._block())
        if self.add:
            added = backend.index_add(self.x_shape, picks, values, self.out_dtype)
            return backend.binary("add", x, backend.reshape(added, x.shape))
        out = backend.copy(backend.reshape(x, self.x_shape))
        backend.setitem(out, picks, values)
        return backend.reshape(out, x.shape)

    def backward(self, backend, gy):
        gx = gsrc = None
        shaped = backend.reshape(gy, self.x_shape)
        if self.needs_input_grad[0]:
            if self.add:
                gx = gy
            else:  # the overwritten positions do not reach the output
                gx = backend.copy(shaped)
                backend.setitem(gx, self.picks, gy.dtype.type(0))
                gx = backend.reshape(gx, gy.shape)
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            src_shape, dtype = self.input_specs[2]
            gsrc = backend.full(self.src_shape, 0, dtype)
            backend.setitem(gsrc, self._block(), backend.getitem(shaped, self.picks))
            gsrc = backend.reshape(gsrc, tuple(src_shape))
        return gx, None, gsrc

    def backward_graph(self, grad):
        gx = gsrc = None
        if self.needs_input_grad[0]:
            gx = grad
            if not self.add:
                written = written_mask(self.backend, self.x_shape, self.picks)
                gx = zeroed(self, grad, self.backend.reshape(written, tuple(grad.shape)))
        if len(self.needs_input_grad) > 2 and self.needs_input_grad[2]:
            src_shape, dtype = self.input_specs[2]
            read = picked(self, grad.reshape(self.x_shape), self.picks)
            gsrc = placed(self, read, self._block(), self.src_shape, dtype)
            gsrc = gsrc.reshape(tuple(src_shape))
        return gx, None, gsrc

    def _block(self) -> tuple:
        """The leading block of ``src`` that the index covers."""
        return tuple(slice(0, n) for n in self.index_shape)
