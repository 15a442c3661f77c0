"""``as_strided`` (a view of a tensor's memory with any sizes, strides and storage offset)
and ``as_strided_scatter`` (a copy with such a window overwritten), as PyTorch's.

Offsets count from the start of the memory block the tensor views (its storage), so
``x[1:].as_strided(size, stride, 0)`` starts at ``x``'s base's first element, as in
PyTorch: the view is the ``as_strided`` kernel, started ``offset - storage_offset(x)``
elements from ``x``'s first element. On data backends the window must lie inside the
storage (PyTorch's error); meta tensors have no storage and are not checked (nor are
PyTorch's).

Gradients go through the storage, as PyTorch's ``as_strided_backward``: ``StorageRemap``
adds a tensor's elements into a zero storage at their positions under one geometry (so
overlapping windows add up) and reads them back under another, dividing by how many
elements of that geometry share a position when they may overlap (an ``expand``ed
input). Its adjoint is the same op with the geometries swapped, so it is its own graph
formula: gradients of any order.
"""

from __future__ import annotations

from .. import dtypes
from ..backends.base import contiguous_strides
from .function import Function

#: PyTorch's name of the node of ``as_strided`` and of the gradients computed through it
AS_STRIDED_BACKWARD = "AsStridedBackward0"


def check_geometry(size: tuple, stride: tuple, offset: int) -> None:
    """PyTorch's checks of an ``as_strided`` geometry, in its order."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, "
                           f"got strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")


def storage_span(size: tuple, stride: tuple, offset: int) -> int:
    """How many elements from the storage's start a view of this geometry reaches (none
    when it is empty)."""
    if 0 in size:
        return 0
    return offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))


def check_in_storage(tensor, size: tuple, stride: tuple, offset: int) -> None:
    """PyTorch's error for a window reaching past ``tensor``'s storage (data backends)."""
    backend = tensor._backend
    if not backend.stores_data:
        return
    needed = storage_span(size, stride, offset)
    available = backend.storage_size(tensor._data)
    if needed > available:
        itemsize = tensor.dtype.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {itemsize} requiring a storage size "
                           f"of {needed * itemsize} are out of bounds for storage of size "
                           f"{available * itemsize}")


def geometry_of(tensor) -> tuple:
    """``(shape, strides, storage offset)`` of ``tensor``'s memory (meta: C-ordered, 0)."""
    backend, data = tensor._backend, tensor._data
    return tuple(data.shape), tuple(backend.strides(data)), backend.storage_offset(data)


def may_overlap(shape: tuple, strides: tuple) -> bool:
    """Whether two elements of this geometry may share a position (False only when they
    surely do not: each dim, by increasing stride, steps past all the smaller ones)."""
    reach = 0
    for stride, size in sorted((s, n) for n, s in zip(shape, strides) if n > 1):
        if stride <= reach:
            return True
        reach += (size - 1) * stride
    return False


def storage_positions(backend, geometry: tuple, base: int):
    """int64 array of the geometry's shape: each element's position in the storage,
    counted from position ``base``."""
    shape, strides, offset = geometry
    positions = backend.full((), offset - base, dtypes.int64)
    for axis, (size, stride) in enumerate(zip(shape, strides)):
        steps = backend.binary("mul", backend.arange(0, size, 1, dtypes.int64), stride)
        along = [1] * len(shape)
        along[axis] = size
        positions = backend.binary("add", positions, backend.reshape(steps, tuple(along)))
    return backend.reshape(positions, tuple(shape)) if shape else positions


class AsStrided(Function):
    """A view of ``x``'s storage: ``size`` elements ``stride`` apart (in elements) from
    position ``storage_offset`` (``x``'s own when None).

    Shape:
        ``size``; ``stride()`` is ``stride`` on data backends.
    """

    op_name, backward_name = "as_strided", AS_STRIDED_BACKWARD
    is_view = True

    def infer(self, x):
        size, stride = self.size, self.stride
        self.input_geometry = geometry_of(x)
        offset = self.storage_offset
        if offset is None:
            offset = self.input_geometry[2]
        check_geometry(size, stride, offset)
        check_in_storage(x, size, stride, offset)
        self.output_geometry = (size, stride, offset)
        return size, x.dtype

    def forward(self, backend, x):
        size, stride, offset = self.output_geometry
        return backend.as_strided(x, size, stride, offset - self.input_geometry[2])

    def _gradient(self) -> StorageRemap:
        shape, strides, _ = self.input_geometry
        counted = self.input_geometry if may_overlap(shape, strides) else None
        return StorageRemap(self.output_geometry, self.input_geometry, counted)

    def backward(self, backend, gy):
        return (self._gradient().forward(backend, gy),)

    def backward_graph(self, grad):
        return (self._gradient()(grad),)


class StorageRemap(Function):
    """A tensor of geometry ``source``'s shape written into a zero storage at ``source``'s
    positions (elements at one position add up), then, when ``counted`` (a geometry) is
    given, each position divided by how many elements of ``counted`` share it, and read
    at ``target``'s positions.

    Shape:
        ``source``'s shape -> ``target``'s shape, the dtype kept.
    """

    op_name, backward_name = "as_strided_backward", AS_STRIDED_BACKWARD

    def __init__(self, source: tuple, target: tuple, counted: tuple | None):
        super().__init__(source=source, target=target, counted=counted)

    def infer(self, x):
        return self.target[0], x.dtype

    def forward(self, backend, x):
        geometries = [g for g in (self.source, self.target, self.counted) if g is not None]
        base = min(g[2] for g in geometries)
        length = max(0, max(storage_span(*g) for g in geometries) - base)
        dtype = dtypes.from_numpy(x.dtype)
        storage = backend.index_add((length,), self._flat_positions(backend, self.source, base),
                                    backend.reshape(x, (-1,)), dtype)
        if self.counted is not None:
            at = self._flat_positions(backend, self.counted, base)
            count = backend.index_add((length,), at, backend.full(at.shape, 1, dtype), dtype)
            storage = backend.binary("div", storage, backend.binary("maximum", count, 1))
        return backend.getitem(storage, storage_positions(backend, self.target, base))

    @staticmethod
    def _flat_positions(backend, geometry: tuple, base: int):
        return backend.reshape(storage_positions(backend, geometry, base), (-1,))

    def _adjoint(self) -> StorageRemap:
        return StorageRemap(self.target, self.source, self.counted)

    def backward(self, backend, g):
        # "write at source, divide by the counts, read at target" is a product of matrices
        # whose transpose is "write at target, divide by the same counts, read at source"
        return (self._adjoint().forward(backend, g),)

    def backward_graph(self, grad):
        return (self._adjoint()(grad),)


class AsStridedScatter(Function):
    """A copy of ``x`` whose window ``size``/``stride``/``storage_offset`` (offsets in
    ``x``'s storage, ``x``'s own when None) holds ``src``: ``x``'s whole storage is copied
    and the result viewed with ``x``'s strides and offset, as PyTorch's (an ``x`` whose
    elements share memory is copied alone, in C order).

    Shape:
        ``x``'s shape and dtype; ``src`` has shape ``size`` (any dtype, cast).
    """

    op_name, backward_name = "as_strided_scatter", "AsStridedScatterBackward0"

    def infer(self, x, src):
        if x.requires_grad and not x.is_contiguous():
            raise RuntimeError("as_strided_scatter is currently only supported for contiguous "
                               "inputs (when the input requires grad); call .contiguous() "
                               "on it first")
        size, stride, offset = self.size, self.stride, self.storage_offset
        geometry = geometry_of(x)
        self.copied_alone = x._backend.has_internal_overlap(x._data)
        if self.copied_alone:
            # PyTorch copies such an input alone (C order), offsets then count from its start
            geometry = (geometry[0], contiguous_strides(geometry[0]), 0)
        self.result_geometry = geometry
        offset = geometry[2] if offset is None else offset
        check_geometry(size, stride, offset)
        check_in_storage(x, size, stride, offset)
        if tuple(src.shape) != size:
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src "
                               f"size = {list(src.shape)}, slice size = {list(size)}")
        if any(s == 0 and n > 1 for n, s in zip(size, stride)):
            raise RuntimeError("unsupported operation: more than one element of the "
                               "written-to tensor refers to a single memory location. Please "
                               "clone() the tensor before performing the operation.")
        self.window = (size, stride, offset)
        return tuple(x.shape), x.dtype

    def forward(self, backend, x, src):
        shape, strides, offset = self.result_geometry
        if self.copied_alone:
            storage = backend.reshape(backend.copy(x), (-1,))
        else:
            whole = backend.as_strided(x, (backend.storage_size(x),), (1,),
                                       -backend.storage_offset(x))
            storage = backend.copy(whole)
        size, stride, window_offset = self.window
        backend.setitem(backend.as_strided(storage, size, stride, window_offset), Ellipsis, src)
        return backend.as_strided(storage, shape, strides, offset)

    def _covered(self, backend, dtype):
        """bool array of the result's shape: which elements the window overwrote."""
        size = self.window[0]
        ones = backend.full(size, 1, dtype)
        hits = StorageRemap(self.window, self.result_geometry, None).forward(backend, ones)
        return backend.binary("gt", hits, 0)

    def _src_gradient(self) -> StorageRemap:
        return StorageRemap(self.result_geometry, self.window, None)

    def backward(self, backend, grad):
        gx = gsrc = None
        if self.needs_input_grad[0]:
            covered = self._covered(backend, self.input_specs[0][1])
            gx = backend.where(covered, backend.full((), 0, self.input_specs[0][1]), grad)
        if self.needs_input_grad[1]:
            gsrc = backend.astype(self._src_gradient().forward(backend, grad),
                                  self.input_specs[1][1])
        return gx, gsrc

    def backward_graph(self, grad):
        gx = gsrc = None
        if self.needs_input_grad[0]:
            covered = self._covered(self.backend, self.input_specs[0][1])
            gx = grad.masked_fill(self.constant(covered), 0)
        if self.needs_input_grad[1]:
            gsrc = self._src_gradient()(grad).to(self.input_specs[1][1])
        return gx, gsrc
