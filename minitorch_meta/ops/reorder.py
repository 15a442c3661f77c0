"""``flip``, ``roll`` and ``repeat``: copies that reorder or replicate elements.

No arithmetic and no new kernel: ``flip`` reads the input through reversed slices,
``roll`` copies the two pieces of each rolled dimension into place, and ``repeat``
writes the input, broadcast, into an output seen with one extra axis per dimension.
Each backward undoes the move: flip again, roll back, sum the copies.
"""

from __future__ import annotations

from .. import dtypes
from ..int_arguments import as_int
from . import shapes
from .function import Function


class Flip(Function):
    """The elements in reverse order along each of ``dims`` (a tuple of ints).

    Shape:
        the input's shape.

    Raises:
        IndexError for a dim out of range, RuntimeError for a dim listed twice.
    """

    op_name, backward_name = "flip", "FlipBackward0"
    dims = ()

    def infer(self, x):
        shape = x._data.shape
        # An empty list reverses nothing here (a reduction's dim=() means every dim).
        self.axes = shapes.reduction_dims(self.op_name, self.dims, len(shape)) \
            if self.dims else ()
        return tuple(shape), x._dtype

    def forward(self, backend, x):
        return reverse(backend, x, self.axes)

    def backward(self, backend, gy):
        return (reverse(backend, gy, self.axes),)

    def backward_graph(self, grad):
        return (Flip(dims=self.axes)(grad),)


def reverse(backend, a, axes: tuple):
    """A C-ordered copy of ``a`` reversed along ``axes``: a copy, not NumPy's view with
    negative strides, which PyTorch's tensors cannot have."""
    if not axes:
        return backend.copy(a)
    index = tuple(slice(None, None, -1) if d in axes else slice(None) for d in range(a.ndim))
    return backend.copy(backend.getitem(a, index))


class Roll(Function):
    """The elements moved ``shifts[i]`` places forward along ``dims[i]``, those pushed past
    the end coming back at the start. With no ``dims``, the tensor is rolled as if
    flattened (one shift) and keeps its shape.

    Shape:
        the input's shape.

    Raises:
        RuntimeError when there is no shift, or when shifts and dims differ in number (no
        dims: one shift); IndexError for a dim out of range (any dim, on a 0-d tensor).
    """

    op_name, backward_name = "roll", "RollBackward0"
    shifts, dims = (), ()
    complex_aware = True  # moves elements only (torch.fft.fftshift rolls spectra)

    def infer(self, x):
        shape = x._data.shape
        shifts, dims = self.shifts, self.dims
        if not shifts:
            raise RuntimeError("roll: `shifts` required: give at least one shift")
        if len(shifts) != len(dims) and (dims or len(shifts) != 1):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               f"dims:{len(dims)}; give one dim per shift, or a single shift "
                               "and no dims to roll the flattened tensor")
        if dims and not shape:
            raise IndexError(f"roll: dimension specified as {dims[0]} but the tensor has no "
                             "dimensions; give no dims to roll a 0-d tensor")
        self.axes = tuple(shapes.normalize_dim(self.op_name, d, len(shape)) for d in dims)
        return tuple(shape), x._dtype

    def forward(self, backend, x):
        return self._roll(backend, x, 1)

    def backward(self, backend, gy):
        return (self._roll(backend, gy, -1),)

    def backward_graph(self, grad):
        return (Roll(shifts=tuple(-s for s in self.shifts), dims=self.dims)(grad),)

    def _roll(self, backend, a, sign: int):
        if not self.axes:
            flat = backend.reshape(a, (a.size,))
            out = rotate(backend, flat, 0, sign * self.shifts[0])
            return backend.copy(a) if out is flat else backend.reshape(out, a.shape)
        out = a
        for axis, shift in zip(self.axes, self.shifts):
            out = rotate(backend, out, axis, sign * shift)
        return backend.copy(out) if out is a else out  # never the input itself


def rotate(backend, a, axis: int, shift: int):
    """``a`` rolled by ``shift`` along ``axis`` (a new array), or ``a`` itself when that
    moves nothing."""
    n = a.shape[axis]
    k = shift % n if n else 0
    if k == 0:
        return a
    lead = (slice(None),) * axis
    out = backend.empty(a.shape, dtypes.from_numpy(a.dtype))
    backend.setitem(out, lead + (slice(k, None),), backend.getitem(a, lead + (slice(0, n - k),)))
    backend.setitem(out, lead + (slice(0, k),), backend.getitem(a, lead + (slice(n - k, None),)))
    return out


class Repeat(Function):
    """The tensor tiled ``repeats[i]`` times along dim ``i``; with more repeats than dims,
    the tensor is first seen with leading dims of size 1 (PyTorch's ``Tensor.repeat``,
    NumPy's ``tile``).

    Shape:
        ``(s0, ..., sn)`` with repeats ``(r0, ..., rn)`` -> ``(r0*s0, ..., rn*sn)``:
        ``(2, 3).repeat(4, 1, 2) -> (4, 2, 6)``.

    Raises:
        RuntimeError for fewer repeats than dims, or a negative repeat.
    """

    op_name, backward_name = "repeat", "RepeatBackward0"
    repeats = ()

    def infer(self, x):
        shape, repeats = tuple(x._data.shape), self.repeats
        if len(repeats) < len(shape):
            raise RuntimeError(f"repeat: number of dimensions of repeat dims can not be smaller "
                               f"than number of dimensions of tensor: got {len(repeats)} "
                               f"repeat(s) {repeats} for a tensor of shape {shapes.fmt(shape)}; "
                               "give one repeat per dimension (1 keeps a dimension as it is)")
        if any(r < 0 for r in repeats):
            raise RuntimeError(f"repeat: repeats must be non-negative, but got {repeats}")
        padded = (1,) * (len(repeats) - len(shape)) + shape
        # The output seen as (r0, s0, r1, s1, ...): each copy of the input is one index of
        # the r axes, so forward is one broadcast write and backward one sum over them.
        self.paired = tuple(v for r, s in zip(repeats, padded) for v in (r, s))
        self.spread = tuple(v for s in padded for v in (1, s))
        self.out_shape = tuple(r * s for r, s in zip(repeats, padded))
        self.out_dtype = x._dtype
        return self.out_shape, x._dtype

    def forward(self, backend, x):
        out = backend.empty(self.paired, self.out_dtype)
        backend.setitem(out, Ellipsis, backend.reshape(x, self.spread))
        return backend.reshape(out, self.out_shape)

    def backward(self, backend, gy):
        shape = tuple(self.input_specs[0][0])
        if not self.repeats:  # a 0-d tensor repeated by nothing: itself
            return (gy,)
        copies = tuple(range(0, len(self.paired), 2))
        g = backend.sum(backend.reshape(gy, self.paired), copies, False)
        return (backend.reshape(g, shape),)

    def backward_graph(self, grad):
        if not self.repeats:
            return (grad,)
        copies = tuple(range(0, len(self.paired), 2))
        return (grad.reshape(self.paired).sum(copies).reshape(tuple(self.input_specs[0][0])),)


def int_tuple(op: str, name: str, value, single: bool = True) -> tuple:
    """``value`` (an int when ``single``, or a tuple or list of ints) as a tuple of ints.

    Raises:
        TypeError for anything else (a float, a bool, a string), as PyTorch's argument
        parser does.
    """
    if isinstance(value, (tuple, list)):
        items = value
    elif single and not isinstance(value, bool) and hasattr(value, "__index__"):
        items = (value,)
    else:
        raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, not "
                        f"{type(value).__name__}")
    return tuple(as_int(op, name, v) for v in items)
