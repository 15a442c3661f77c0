"""Ops that move elements around without arithmetic: views, transposes, indexing, copies."""

from __future__ import annotations

from .. import dtypes
from ..autograd.indexed_gradient import IndexedGradient
from ..backends.base import contiguous_strides, is_basic_index
from ..caller_warnings import warn_at_caller
from ..memory_formats import copy_with_strides
from . import shapes
from .function import Function
from .graph_backward import gradient_node_name


class View(Function):
    """The same elements in a new shape; one dimension may be -1 (inferred).

    Shape:
        ``numel`` is unchanged: ``(2, 3, 4).view(6, -1) -> (6, 4)``.
    """

    op_name, backward_name = "view", "ViewBackward0"
    _hyper = ("shape",)
    is_view = True
    complex_aware = True  # layout only: any dtype (reshape, flatten, squeeze... inherit it)

    def __init__(self, shape):
        # An explicit parameter, not Function's keywords: view is one of the hottest ops.
        self.shape = shape

    def infer(self, x):
        self.out_shape = shapes.view_shape(self.op_name, x._data.shape, self.shape)
        return self.out_shape, x._dtype

    def forward(self, backend, x):
        return backend.reshape(x, self.out_shape)

    def backward(self, backend, gy):
        return (backend.reshape(gy, tuple(self.input_specs[0][0])),)

    def backward_graph(self, grad):
        return (grad.reshape(tuple(self.input_specs[0][0])),)


class Reshape(View):
    op_name, backward_name = "reshape", "ViewBackward0"


class Flatten(View):
    """Merge dims ``start_dim..end_dim`` into one.

    Shape:
        ``(N, C, H, W)`` with ``start_dim=1`` -> ``(N, C*H*W)``.
    """

    op_name, backward_name = "flatten", "ViewBackward0"
    start_dim, end_dim = 0, -1
    # keyword hyper-parameters, as most ops (View's own ``__init__`` takes only a shape)
    __init__, _hyper = Function.__init__, Function._hyper

    def infer(self, x):
        self.out_shape = shapes.flatten_shape(tuple(x._data.shape), self.start_dim, self.end_dim)
        return self.out_shape, x._dtype


class Permute(Function):
    """Reorder dimensions (``transpose`` swaps two, ``t`` swaps the two of a matrix).

    Shape:
        ``out.shape[i] == x.shape[dims[i]]``.
    """

    op_name, backward_name = "permute", "PermuteBackward0"
    is_view = True
    complex_aware = True

    def infer(self, x):
        shape = x._data.shape  # a plain tuple: ``x.shape`` would build a Size per read
        ndim = len(shape)
        axes = tuple([shapes.normalize_dim(self.op_name, d, ndim) for d in self.dims])
        if sorted(axes) != list(range(ndim)):
            raise shapes.ShapeError(self.op_name,
                                    f"dims {self.dims} are not a permutation of the {ndim} "
                                    f"dimensions of shape {shapes.fmt(shape)}")
        self.axes = axes
        return tuple([shape[a] for a in axes]), x._dtype

    def forward(self, backend, x):
        return backend.transpose(x, self.axes)

    def backward(self, backend, gy):
        return (backend.transpose(gy, self._inverse()),)

    def backward_graph(self, grad):
        return (grad.permute(self._inverse()),)

    def _inverse(self) -> tuple:
        """The permutation that undoes this one."""
        inverse = [0] * len(self.axes)
        for i, a in enumerate(self.axes):
            inverse[a] = i
        return tuple(inverse)


class Transpose(Permute):
    op_name, backward_name = "transpose", "TransposeBackward0"

    def infer(self, x):
        self.dims = shapes.transpose_axes("transpose", len(x.shape), self.dim0, self.dim1)
        return super().infer(x)


class T(Permute):
    op_name, backward_name = "t", "TBackward0"

    def infer(self, x):
        if len(x._data.shape) > 2:
            raise shapes.ShapeError("t", f"expects a tensor with <= 2 dimensions, but got a "
                                         f"{len(x.shape)}-D tensor of shape {shapes.fmt(x.shape)}; "
                                         "use transpose(dim0, dim1) or permute")
        # Reversing at most two dimensions is always a valid permutation: no need for the
        # general check of Permute (``linear`` calls ``weight.t()`` on every forward).
        self.dims = self.axes = tuple(range(len(x._data.shape)))[::-1]
        return x._data.shape[::-1], x._dtype


class Unsqueeze(View):
    """Insert a dimension of size 1 at ``dim``.

    Shape:
        ``(3, 4).unsqueeze(0) -> (1, 3, 4)``.
    """

    op_name, backward_name = "unsqueeze", "UnsqueezeBackward0"
    # keyword hyper-parameters, as most ops (View's own ``__init__`` takes only a shape)
    __init__, _hyper = Function.__init__, Function._hyper

    def infer(self, x):
        shape = x._data.shape
        d = shapes.normalize_dim("unsqueeze", self.dim, len(shape) + 1)
        self.out_shape = tuple(shape[:d]) + (1,) + tuple(shape[d:])
        return self.out_shape, x._dtype


class Squeeze(View):
    """Remove dimensions of size 1 (all, only ``dim``, or those of a tuple of dims).

    Shape:
        ``(1, 3, 1).squeeze() -> (3,)``; ``(1, 3, 1).squeeze((0, 1)) -> (3, 1)``.
    """

    op_name = "squeeze"
    dim = None
    # keyword hyper-parameters, as most ops (View's own ``__init__`` takes only a shape)
    __init__, _hyper = Function.__init__, Function._hyper

    @property
    def backward_name(self):
        if isinstance(self.dim, (tuple, list)):
            return "SqueezeBackward2"
        return "SqueezeBackward0" if self.dim is None else "SqueezeBackward1"

    def infer(self, x):
        shape = tuple(x._data.shape)
        if self.dim is None:
            self.out_shape = tuple(s for s in shape if s != 1)
        elif isinstance(self.dim, (tuple, list)):
            # an empty tuple squeezes nothing (a reduction's would mean every dim)
            axes = shapes.reduction_dims("squeeze", self.dim, len(shape)) if self.dim else ()
            self.out_shape = tuple(s for i, s in enumerate(shape) if s != 1 or i not in axes)
        else:
            d = shapes.normalize_dim("squeeze", self.dim, len(shape))
            self.out_shape = shape[:d] + shape[d + 1:] if shape and shape[d] == 1 else shape
        return self.out_shape, x.dtype


class Expand(View):
    """A broadcast view to a larger shape (-1 keeps a size), as PyTorch's: no copy, the
    broadcast dimensions step 0 through the input's memory, so ``x.expand(3, 10**9)``
    costs nothing and writes to ``x`` show through it. Writes into it that would put
    two values into one element are refused (``Tensor._store``).

    Shape:
        ``(3, 1).expand(3, 4) -> (3, 4)``; strides ``(1, 1) -> (1, 0)``.
    """

    op_name, backward_name = "expand", "ExpandBackward0"

    def infer(self, x):
        # ShapeRuntimeError: PyTorch raises RuntimeError for each of these
        lead = len(self.shape) - len(x.shape)
        if lead < 0:
            raise shapes.ShapeRuntimeError("expand", f"the number of sizes provided "
                                                     f"({len(self.shape)}) must be greater or "
                                                     "equal to the number of dimensions in the "
                                                     f"tensor ({len(x.shape)}): "
                                                     f"{shapes.fmt(self.shape)} for a tensor "
                                                     f"of shape {shapes.fmt(x.shape)}")
        if any(s == -1 for s in self.shape[:lead]):
            raise shapes.ShapeRuntimeError("expand", f"-1 is not allowed in a leading, "
                                                     f"non-existing dimension: "
                                                     f"{shapes.fmt(self.shape)} for a tensor "
                                                     f"of shape {shapes.fmt(x.shape)}")
        target = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(self.shape))
        if not shapes.broadcasts_to(x.shape, target):
            raise shapes.ShapeRuntimeError("expand", f"the expanded size "
                                                     f"{shapes.fmt(self.shape)} must match the "
                                                     f"existing size {shapes.fmt(x.shape)} at "
                                                     "every non-singleton dimension")
        self.out_shape = target
        return target, x.dtype

    def forward(self, backend, x):
        strides = expanded_strides(x.shape, backend.strides(x), self.out_shape)
        return backend.as_strided(x, self.out_shape, strides)

    def backward(self, backend, gy):
        return (backend.sum_to_shape(gy, tuple(self.input_specs[0][0])),)

    def backward_graph(self, grad):
        return (grad.sum_to_size(tuple(self.input_specs[0][0])),)


def expanded_strides(shape, strides, out_shape) -> tuple:
    """The strides (in elements) of ``shape``'s memory seen as ``out_shape``: 0 along new
    leading dimensions and along size-1 dimensions that grow, the input's own elsewhere."""
    lead = len(out_shape) - len(shape)
    return tuple(0 if i < lead or (shape[i - lead] == 1 and size != 1) else strides[i - lead]
                 for i, size in enumerate(out_shape))


class GetItem(Function):
    """``x[index]``: ints, slices, None, Ellipsis, and integer/boolean tensors.

    Shape:
        NumPy's indexing rules.
    """

    op_name = "getitem"
    is_view = True  # basic indexing (see __init__ for integer and boolean arrays)
    complex_aware = True
    _hyper = ("index", "shape_index")

    def __init__(self, index, shape_index):
        # Explicit parameters, not Function's keywords: ``x[k]`` in a loop is hot.
        # ``index`` goes to the kernel, ``shape_index`` (tensors replaced by NumPy arrays)
        # to the shape rule.
        self.index, self.shape_index = index, shape_index
        if type(index) is not int and type(index) is not slice:
            # Basic indexing gives a view; integer or boolean arrays give a copy.
            self.is_view = not any(_is_array_index(i) for i in
                                   (shape_index if isinstance(shape_index, tuple)
                                    else (shape_index,)))
            self.unsqueezes = (self.is_view and type(index) is tuple
                               and any(i is None for i in index) and is_basic_index(index))

    unsqueezes = False  # a view index holding None (see _unsqueezed_strides)

    @property
    def backward_name(self):
        # PyTorch applies the index items in order; the node shown is the last one that
        # does something (full slices and Ellipsis are skipped).
        items = self.shape_index if isinstance(self.shape_index, tuple) else (self.shape_index,)
        if any(_is_array_index(i) for i in items):
            return "IndexBackward0"
        if not isinstance(self.shape_index, tuple) and isinstance(self.shape_index, slice):
            return "SliceBackward0"
        # the input's shape, unless asked before the op ran (the profiler names it first)
        specs = getattr(self, "input_specs", None)
        sizes = _item_sizes(items, specs[0][0]) if specs else [None] * len(items)
        for item, size in zip(reversed(items), reversed(sizes)):
            if item is None:
                return "UnsqueezeBackward0"
            if isinstance(item, slice):
                if not _covers_dim(item, size):
                    return "SliceBackward0"
            elif item is not Ellipsis:
                return "SelectBackward0"
        return "AliasBackward0"

    axes = None  # how NumPy's result is reordered into PyTorch's (see infer)

    def infer(self, x):
        shape = shapes.indexing_shape(x._data.shape, x._dtype.numpy, self.shape_index)
        if not self.is_view:
            self.axes = shapes.torch_index_axes(self.shape_index, x._data.ndim, len(shape))
            if self.axes is not None:
                shape = tuple(shape[a] for a in self.axes)
            # no element is read, so index values out of range are not looked at (PyTorch)
            self.empty_result = (shape, x._dtype) if 0 in shape else None
        return shape, x._dtype

    empty_result = None  # (shape, dtype) of a result with no elements

    def forward(self, backend, x):
        if self.empty_result is not None:
            return backend.empty(*self.empty_result)
        out = backend.getitem(x, self.index)
        if self.is_view:
            if self.unsqueezes and backend.stores_data:
                strides = _unsqueezed_strides(self.index, x.shape, backend.strides(x))
                if backend.strides(out) != strides:
                    out = backend.as_strided(out, out.shape, strides)
            return out
        if self.axes is not None:
            out = backend.transpose(out, self.axes)
        # PyTorch's advanced indexing returns a new C-ordered tensor; NumPy's puts the
        # indexed dims' memory first when they are not the leading dims, and may leave
        # other strides than PyTorch's on dims of size 1.
        if not backend.is_contiguous(out):
            return backend.copy(out)
        strides = contiguous_strides(out.shape)
        return out if backend.strides(out) == strides else backend.as_strided(out, out.shape,
                                                                              strides)

    def _numpy_axes(self):
        return tuple(sorted(range(len(self.axes)), key=self.axes.__getitem__))

    def backward(self, backend, gy):
        # Not written out as a full array here: the engine adds it in place at the index
        # (``IndexedGradient``), so the n slices of an unbind cost n slices, not n inputs.
        shape, dtype = self.input_specs[0]
        if self.empty_result is not None:
            return (backend.full(tuple(shape), 0, dtype),)
        if self.axes is not None:
            gy = backend.transpose(gy, self._numpy_axes())
        return (IndexedGradient(self.index, gy, tuple(shape), dtype),)

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        if self.axes is not None:
            grad = grad.permute(self._numpy_axes())
        return (IndexedZeros(self.index, self.shape_index, tuple(shape), dtype,
                             self.name())(grad),)


def _unsqueezed_strides(items: tuple, shape: tuple, strides: tuple) -> tuple:
    """The strides PyTorch gives ``x[items]`` (ints, slices, None, Ellipsis): it applies
    the items in order, and the dimension a None inserts steps by the span of the dimension
    then at its place (1 when last), so ``x[None, 1]`` of a (4, 2) ``x`` has (8, 1). NumPy
    gives such dimensions the stride 0, and which dimension followed is lost afterwards."""
    sizes, steps, dim = list(shape), list(strides), 0
    for item in items:
        if item is None:
            steps.insert(dim, sizes[dim] * steps[dim] if dim < len(sizes) else 1)
            sizes.insert(dim, 1)
            dim += 1
        elif item is Ellipsis:
            dim += len(shape) - sum(i is not None and i is not Ellipsis for i in items)
        elif type(item) is int:
            del sizes[dim], steps[dim]
        else:  # a slice
            start, stop, step = item.indices(sizes[dim])
            sizes[dim] = len(range(start, stop, step))
            steps[dim] *= step
            dim += 1
    return tuple(steps)


def _item_sizes(items: tuple, shape: tuple) -> list:
    """The size of the dim each item of a basic index applies to (None for None and
    Ellipsis)."""
    sizes, dim = [], 0
    for item in items:
        if item is Ellipsis:
            dim += len(shape) - sum(i is not None and i is not Ellipsis for i in items)
            sizes.append(None)
        elif item is None:
            sizes.append(None)
        else:
            sizes.append(shape[dim] if dim < len(shape) else None)
            dim += 1
    return sizes


def _covers_dim(item: slice, size) -> bool:
    """Whether PyTorch skips the slice as a no-op: it starts at 0 (as written), reaches the
    end of the dim (``x[-1, :3]`` on a dim of 2 is a select alone) and steps by 1."""
    return (item.start is None or item.start == 0) and item.step in (None, 1) and (
        item.stop is None or (size is not None and item.stop >= size))


class IndexedZeros(Function):
    """``x[index]``'s gradient as a recorded op (``create_graph=True``): zeros of ``x``'s
    shape with the incoming gradient added at ``index``. Its own gradient reads the same
    index, so it is ``GetItem`` again.

    Shape:
        ``grad`` has the shape of ``x[index]``; the output has ``x``'s shape.
    """

    op_name = "getitem_backward"
    complex_aware = True
    _hyper = ("index", "shape_index", "shape", "dtype", "backward_name")

    def __init__(self, index, shape_index, shape, dtype, getitem_name):
        self.index, self.shape_index, self.shape, self.dtype = index, shape_index, shape, dtype
        self.backward_name = gradient_node_name(getitem_name)

    def infer(self, grad):
        return self.shape, self.dtype

    def forward(self, backend, grad):
        return backend.index_add(self.shape, self.index, grad, self.dtype)

    def backward(self, backend, gy):
        return (backend.getitem(gy, self.index),)

    def backward_graph(self, grad):
        return (GetItem(self.index, self.shape_index)(grad),)


def _is_array_index(item) -> bool:
    """An integer/boolean array or a bool (not a 0-d integer, which selects like an int)."""
    if type(item) is bool:
        return True  # ``x[True]`` is a copy with a new dim, in NumPy and in PyTorch
    ndim = getattr(item, "ndim", None)
    return ndim is not None and (ndim > 0 or item.dtype.kind == "b")


#: PyTorch's warning for ``.to(real dtype)`` of a complex tensor (the real part is kept)
COMPLEX_TO_REAL = "Casting complex values to real discards the imaginary part"


class ToCopy(Function):
    """A copy on another device and/or with another dtype; gradients flow back.

    Shape:
        unchanged.
    """

    op_name, backward_name = "to", "ToCopyBackward0"
    complex_aware = True
    #: the copy's strides (a memory format's, see ``memory_format_functions.copy_to``);
    #: None: C-ordered, or as the dtype conversion leaves them
    strides = None

    def infer(self, x):
        return x.shape, self.dtype

    def __call__(self, x):
        # Crosses backends, so it cannot use the single-backend dispatch of Function.
        from ..autograd import is_grad_enabled
        from ..tensor import Tensor

        source, target = x._backend, self.target
        if source.stores_data and target.stores_data:
            array = x._data if source is target else target.asarray(source.to_numpy(x._data), None)
            array = target.astype(array, self.dtype) if array.dtype != self.dtype.numpy else array
            if self.strides is not None and (array is x._data
                                             or target.strides(array) != self.strides):
                array = copy_with_strides(target, array, self.strides, self.dtype)
            elif array is x._data:
                array = target.copy(array)
        else:
            if source.stores_data is False and target.stores_data:
                from ..backends.meta import HOW_TO_GET_DATA
                from ..errors import MetaDataError

                raise MetaDataError(f"cannot copy a meta tensor to '{target.device}': "
                                    f"{HOW_TO_GET_DATA}")
            array = (target.empty(tuple(x.shape), self.dtype) if self.strides is None
                     else target.empty_strided(tuple(x.shape), self.strides, self.dtype))
        if x._dtype.is_complex and not (self.dtype.is_complex or self.dtype.numpy.kind == "b"):
            warn_at_caller(COMPLEX_TO_REAL)  # bool keeps "nonzero", losing nothing it asks
        # A copy into an integer or bool dtype has no gradient, as in PyTorch.
        if is_grad_enabled() and x.requires_grad and (self.dtype.is_floating_point
                                                      or self.dtype.is_complex):
            self.backend = target
            self.source = source
            self._next_nodes = (x.grad_fn if x.grad_fn is not None else x._accumulator(),)
            self.needs_input_grad = (True,)
            self.input_specs = ((x.shape, x.dtype),)
            self._freed = False
            return Tensor._make(array, target, requires_grad=True, grad_fn=self)
        return Tensor._make(array, target)

    def _backward(self, grad, retain_graph):
        shape, dtype = self.input_specs[0]
        source = self.source
        if source.stores_data and self.backend.stores_data:
            g = source.asarray(self.backend.to_numpy(grad), None)
            return (source.astype(g, dtype),)
        return (source.empty(tuple(shape), dtype),)

    def backward_graph(self, grad):
        dtype = self.input_specs[0][1]
        if grad.dtype.is_complex and not dtype.is_complex:
            grad = grad.real  # a real input's gradient is the real part (PyTorch's rule)
        return (grad.to(self.source.device, dtype),)


class Clone(Function):
    """A copy of the data on the same device.

    Shape:
        unchanged.
    """

    op_name, backward_name = "clone", "CloneBackward0"
    complex_aware = True
    #: the copy's strides (a memory format's, see ``memory_format_functions``); None: the
    #: copy kernel's C-ordered ones
    strides = None

    def infer(self, x):
        return x.shape, x.dtype

    def forward(self, backend, x):
        if self.strides is None:
            return backend.copy(x)
        return copy_with_strides(backend, x, self.strides, dtypes.from_numpy(x.dtype))

    def backward(self, backend, gy):
        return (gy,)

    def backward_graph(self, grad):
        return (grad,)


class Cat(Function):
    """Join tensors along an existing dimension ``dim``.

    Shape:
        every input has the same shape except along ``dim``, where the sizes add up:
        ``cat([(2, 3), (4, 3)], dim=0) -> (6, 3)``.
    """

    op_name, backward_name = "cat", "CatBackward0"
    dim = 0
    complex_aware = True

    def infer(self, *tensors):
        if not tensors:
            raise ValueError("torch.cat(): expected a non-empty list of Tensors")
        first = tuple(tensors[0].shape)
        if not first:
            raise shapes.ShapeError("cat", "zero-dimensional tensor (at position 0) cannot be "
                                           "concatenated")
        axis = shapes.normalize_dim("cat", self.dim, len(first))
        dtype = tensors[0].dtype
        for i, t in enumerate(tensors[1:], 1):
            shape = tuple(t.shape)
            if len(shape) != len(first):
                raise shapes.ShapeError("cat", f"tensors must have the same number of "
                                               f"dimensions: got {len(first)} and {len(shape)} "
                                               f"(tensor number {i} has shape {shapes.fmt(shape)})")
            for d, (a, b) in enumerate(zip(first, shape)):
                if d != axis and a != b:
                    raise shapes.ShapeError("cat", f"sizes of tensors must match except in "
                                                   f"dimension {axis}. Expected size {a} but got "
                                                   f"size {b} for tensor number {i} in the list")
            dtype = dtypes.promote(dtype, t.dtype)
        self.axis, self.out_dtype = axis, dtype
        self.sizes = [t.shape[axis] for t in tensors]
        out = list(first)
        out[axis] = sum(self.sizes)
        return tuple(out), dtype

    def _slices(self):
        offset = 0
        for size in self.sizes:
            yield (slice(None),) * self.axis + (slice(offset, offset + size),)
            offset += size

    def forward(self, backend, *arrays):
        shape = list(arrays[0].shape)
        shape[self.axis] = sum(self.sizes)
        out = backend.empty(tuple(shape), self.out_dtype)
        for index, array in zip(self._slices(), arrays):
            backend.setitem(out, index, array)
        return out

    def backward(self, backend, gy):
        grads = []
        for index, need, spec in zip(self._slices(), self.needs_input_grad, self.input_specs):
            g = backend.getitem(gy, index) if need else None
            if g is not None and g.dtype != spec[1].numpy:
                g = backend.astype(g, spec[1])
            grads.append(g)
        return tuple(grads)

    def backward_graph(self, grad):
        grads = []
        for index, need, spec in zip(self._slices(), self.needs_input_grad, self.input_specs):
            grads.append(grad[index].to(spec[1]) if need else None)
        return tuple(grads)
