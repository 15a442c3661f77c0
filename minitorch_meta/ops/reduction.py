"""Reductions: ``sum``, ``mean``, ``max`` (whole tensor, or values and indices over a dim),
``amax``/``amin`` (values only, over any dims) and ``argmax``."""

from __future__ import annotations

import math

from .. import dtypes
from . import shapes
from .cumulative import accumulation_dtype
from .function import Function


def _axes(op, dim, ndim):
    """``all``/``any``'s axes: None for every one, but an empty tuple reduces none (as in
    PyTorch, unlike ``sum``); a dim given twice is refused as by every reduction."""
    if dim is None:
        return None
    return shapes.reduction_dims(op, dim, ndim) if shapes.given_dims(op, dim) else ()


def _expand_grad(backend, gy, input_shape, axes):
    """Broadcast a reduced gradient back over the reduced axes of ``input_shape``."""
    if axes is None:
        kept = (1,) * len(input_shape)
    else:
        kept = tuple(1 if i in axes else s for i, s in enumerate(input_shape))
    gy = backend.reshape(gy, kept)
    return backend.binary("add", backend.full(tuple(input_shape), 0, _dtype_of(gy)), gy)


def _dtype_of(array):
    return dtypes.from_numpy(array.dtype)


def expand_grad_graph(grad, input_shape, axes):
    """``_expand_grad`` with tensor ops, for ``backward_graph``: a recorded broadcast."""
    if axes is None:
        kept = (1,) * len(input_shape)
    else:
        kept = tuple(1 if i in axes else s for i, s in enumerate(input_shape))
    return grad.reshape(kept).expand(tuple(input_shape))


class Sum(Function):
    """Sum over ``dim`` (all dimensions when None), in ``dtype`` when given (the input is
    converted to it first, as PyTorch does).

    Shape:
        the input's shape without the reduced dims (kept as 1 with ``keepdim``); the dtype
        is ``dtype`` when given, else the input's for floating inputs and int64 for integer
        and bool ones.

    Raises:
        RuntimeError for an integer ``dtype`` on an input that requires grad.
    """

    op_name = "sum"
    dim, keepdim, dtype = None, False, None
    complex_aware = True

    @property
    def backward_name(self):
        return "SumBackward0" if self.dim is None else "SumBackward1"

    def infer(self, x):
        shape = x._data.shape
        # dim=() or [] reduces every dim, as in PyTorch (not none, as NumPy's axis=())
        self.axes = None if self.dim is None else shapes.reduction_dims(self.op_name, self.dim,
                                                                         len(shape))
        if self.dtype is None:  # the common case, kept free of the helper's checks
            dtype = x._dtype if x._dtype.is_floating_point or x._dtype.is_complex \
                else dtypes.int64
        else:
            dtype = accumulation_dtype(self.op_name, x, self.dtype)
        self.out_dtype = dtype
        return shapes.reduce_shape(self.op_name, shape, self.axes, self.keepdim), dtype

    def forward(self, backend, x):
        wanted = self.out_dtype
        if self.dtype is not None and x.dtype != wanted.numpy:
            x = backend.astype(x, wanted)  # sum in ``dtype``, as PyTorch
        out = backend.sum(x, self.axes, self.keepdim)
        # Integers and bools sum to int64, as in PyTorch (NumPy: uint8 sums to uint64).
        if out.dtype != wanted.numpy:
            out = backend.astype(out, wanted)
        return backend.asarray(out, None) if out.ndim == 0 else out

    def backward(self, backend, gy):
        shape, dtype = self.input_specs[0]
        if gy.dtype != dtype.numpy:  # a ``dtype=`` result: the gradient comes back converted
            gy = backend.astype(gy, dtype)
        return (_expand_grad(backend, gy, shape, self.axes),)

    def backward_graph(self, grad):
        shape, dtype = self.input_specs[0]
        if grad._dtype is not dtype:
            grad = grad.to(dtype)
        return (expand_grad_graph(grad, shape, self.axes),)


class Mean(Sum):
    """Arithmetic mean over ``dim`` (all dimensions when None), of a floating tensor, or of
    any tensor with a floating ``dtype`` (the input is converted to it first).

    Shape:
        the input's shape without the reduced dims (kept as 1 with ``keepdim``); the dtype
        is ``dtype`` when given, else the input's.

    Raises:
        RuntimeError for an integer or bool input without a floating ``dtype``, and for an
        integer or bool ``dtype`` (PyTorch: "could not infer output dtype").
    """

    op_name = "mean"

    @property
    def backward_name(self):
        return "MeanBackward0" if self.dim is None else "MeanBackward1"

    def infer(self, x):
        # RuntimeError: PyTorch's type ("could not infer output dtype")
        if self.dtype is not None:
            wanted = dtypes.to_dtype(self.dtype)
            if not wanted.is_floating_point and not wanted.is_complex:
                raise RuntimeError(f"mean(): could not infer output dtype: dtype must be a "
                                   f"floating-point dtype, got {wanted}; pass e.g. "
                                   "dtype=torch.float32")
        elif not x.dtype.is_floating_point and not x.dtype.is_complex:
            raise RuntimeError(f"mean: expected a floating-point tensor, got dtype {x.dtype}; "
                               "convert it with .float() or pass dtype=torch.float32")
        shape, dtype = super().infer(x)
        sizes = x._data.shape
        axes = self.axes if self.axes is not None else range(len(sizes))
        self.count = math.prod([sizes[a] for a in axes])
        return shape, dtype

    def forward(self, backend, x):
        out = super().forward(backend, x)
        return backend.binary("div", out, out.dtype.type(self.count))

    def backward(self, backend, gy):
        return super().backward(backend, backend.binary("div", gy, gy.dtype.type(self.count)))

    def backward_graph(self, grad):
        return super().backward_graph(grad / self.count)


class MaxAll(Function):
    """The largest element; the gradient is shared evenly between tied maxima (PyTorch's).

    Shape:
        a 0-d output.
    """

    op_name, backward_name = "max", "MaxBackward1"
    saved_for_backward = (0, "output")

    def infer(self, x):
        if 0 in x.shape:
            raise RuntimeError(f"{self.op_name}(): expected a non-empty tensor, got shape "
                               f"{shapes.fmt(x.shape)}; specify the reduction dim with 'dim'")
        return (), x.dtype

    def forward(self, backend, x):
        out = backend.asarray(self._reduce(backend, x), None)
        self.x, self.out = x, out
        return out

    def _reduce(self, backend, x):
        return backend.max(x, None, False)

    def backward(self, backend, gy):
        mask = self._ties(backend)
        ties = backend.sum(mask, None, False)
        share = backend.binary("div", gy, backend.astype(ties, _dtype_of(gy)))
        return (backend.binary("mul", mask, share),)

    def backward_graph(self, grad):
        backend = self.backend
        mask = self._ties(backend)  # constants of the input
        ties = backend.astype(backend.sum(mask, None, False), grad._dtype)
        return (self.constant(mask) * (grad / self.constant(ties)),)

    def _ties(self, backend):
        """Where the input equals the result; when the result is NaN (NaN wins), where the
        input is NaN, so the NaNs share the gradient as in PyTorch rather than no element
        taking it and every gradient becoming 0/0."""
        if bool(backend.to_numpy(backend.unary("isnan", self.out))):  # a host sync, as torch
            return backend.unary("isnan", self.x)
        return backend.binary("eq", self.x, self.out)


class MinAll(MaxAll):
    """The smallest element: ``max``'s twin (tied minima share the gradient). Not
    ``-max(-x)``, which is wrong for unsigned and bool tensors and for the most negative
    integer.

    Shape:
        a 0-d output.
    """

    op_name, backward_name = "min", "MinBackward1"

    def _reduce(self, backend, x):
        return backend.min(x, None, False)


class MaxDim(Function):
    """Maximum values and their indices along ``dim``.

    Shape:
        both outputs have the input's shape without ``dim`` (kept as 1 with ``keepdim``).
    """

    op_name, backward_name, multiple_outputs = "max", "MaxBackward0", True
    keepdim = False

    def infer(self, x):
        op = self.op_name
        self.axis = shapes.normalize_dim(op, self.dim, len(x.shape))
        refuse_empty_dim(op, x.shape, self.axis)
        shape = shapes.reduce_shape(op, x.shape, self.dim, self.keepdim)
        return [(shape, x.dtype), (shape, dtypes.int64)]

    def forward(self, backend, x):
        index, values = self._extremes(backend, x)
        self.index = index
        if not self.keepdim:
            index = backend.reshape(index, values.shape)
        return values, index

    def backward(self, backend, gy):
        dtype = self.input_specs[0][1]
        gy = backend.reshape(gy, self.index.shape)
        return (backend.astype(backend.binary("mul", self._chosen(backend), gy), dtype),)

    def backward_graph(self, grad):
        chosen = self.constant(self._chosen(self.backend))
        return (chosen * grad.reshape(tuple(self.index.shape)),)

    def _extremes(self, backend, x):
        """The index (dim kept) and the value (as ``keepdim``) of each slice's maximum."""
        return backend.argmax(x, self.axis, True), backend.max(x, self.axis, self.keepdim)

    def _chosen(self, backend):
        """A bool array of the input's shape, True at each slice's chosen index (one-hot
        along the axis)."""
        shape = self.input_specs[0][0]
        kept = [1] * len(shape)
        kept[self.axis] = shape[self.axis]
        positions = backend.reshape(backend.arange(0, shape[self.axis], 1, dtypes.int64), kept)
        return backend.binary("eq", positions, self.index)


class MinDim(MaxDim):
    """Minimum values and their indices along ``dim``: ``MaxDim``'s twin.

    Shape:
        both outputs have the input's shape without ``dim`` (kept as 1 with ``keepdim``).
    """

    op_name, backward_name = "min", "MinBackward0"

    def _extremes(self, backend, x):
        return backend.argmin(x, self.axis, True), backend.min(x, self.axis, self.keepdim)


class Amax(Function):
    """The largest value over ``dim`` (every dim when it is None or empty): PyTorch's
    ``amax``, which returns no indices, so the gradient is shared evenly between the tied
    maxima of each reduced slice (``max(dim)`` instead gives it all to one index).

    Shape:
        the input's shape without the reduced dims (kept as 1 with ``keepdim``).

    Raises:
        RuntimeError reducing every dim of an empty tensor and IndexError reducing over a
        dim of size 0 (the max of nothing has no value); IndexError for a dim out of range
        and RuntimeError for a dim given twice.
    """

    op_name, backward_name = "amax", "AmaxBackward0"
    saved_for_backward = (0, "output")
    dim, keepdim = (), False

    def infer(self, x):
        shape = x._data.shape
        # PyTorch looks for empty slices before it looks for repeated dims
        empty = empty_reduction(self.op_name, shape, self.dim)
        if empty == "all":
            raise RuntimeError(f"{self.op_name}(): Expected reduction dim to be specified for "
                               f"input.numel() == 0 (input shape {shapes.fmt(shape)}). Specify "
                               "the reduction dim with the 'dim' argument.")
        if empty is not None:
            raise IndexError(f"{self.op_name}(): Expected reduction dim {empty} to have non-zero "
                             f"size (input shape {shapes.fmt(shape)}).")
        self.axes = shapes.reduction_dims(self.op_name, self.dim, len(shape), ranges_first=True)
        return shapes.reduce_shape(self.op_name, shape, self.axes, self.keepdim), x._dtype

    def _reduce(self, backend, x):
        return backend.max(x, self.axes, True)

    def forward(self, backend, x):
        kept = self._reduce(backend, x)  # reduced dims kept as 1: backward broadcasts it
        if self.recording:
            self.x, self.kept = x, kept
        return drop_reduced_dims(backend, kept, self.axes, self.keepdim)

    def backward(self, backend, gy):
        ties = backend.binary("eq", self.x, self.kept)
        count = backend.sum(ties, self.axes, True)
        share = backend.binary("div", backend.reshape(gy, self.kept.shape),
                               backend.astype(count, _dtype_of(gy)))
        return (backend.binary("mul", ties, share),)

    def backward_graph(self, grad):
        backend = self.backend
        ties = backend.binary("eq", self.x, self.kept)  # constants of the input
        count = backend.astype(backend.sum(ties, self.axes, True), grad._dtype)
        share = grad.reshape(tuple(self.kept.shape)) / self.constant(count)
        return (self.constant(ties) * share,)


class Amin(Amax):
    """The smallest value over ``dim``: ``amax``'s twin (ties share the gradient).

    Shape:
        the input's shape without the reduced dims (kept as 1 with ``keepdim``).
    """

    op_name, backward_name = "amin", "AminBackward0"

    def _reduce(self, backend, x):
        return backend.min(x, self.axes, True)


def empty_reduction(op, shape, dim):
    """Why a reduction without an identity (max, min, the inf norm) cannot run: ``"all"``
    when it covers every dim (``dim`` None or empty) of an empty tensor, the first ``dim``
    (as the user wrote it) of size 0, or None when every reduced slice has elements.

    Raises:
        IndexError for a dim out of range, checked in the order given, as PyTorch does.
    """
    if math.prod(shape) != 0:
        return None
    given = shapes.given_dims(op, dim)
    if not given:
        return "all"
    for d in given:
        if shape[shapes.normalize_dim(op, int(d), len(shape))] == 0:
            return d
    return None


def refuse_empty_dim(op, shape, axis) -> None:
    """PyTorch's IndexError for picking one element (max, argmax) along a dim of size 0:
    there is none to pick. ``axis`` is the normalised dim, which PyTorch's message names."""
    if shape and shape[axis] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {axis} to have non-zero size (input "
                         f"shape {shapes.fmt(shape)}); there is no element to pick")


def drop_reduced_dims(backend, kept, axes, keepdim):
    """A reduction's output from its keepdims form: without the reduced dims unless
    ``keepdim``, and a 0-d array (not a NumPy scalar) when every dim is reduced."""
    if not keepdim:
        kept = backend.reshape(kept, tuple(s for i, s in enumerate(kept.shape) if i not in axes))
    return backend.asarray(kept, None) if kept.ndim == 0 else kept


class Argmax(Function):
    """Index of the maximum (over the flattened tensor when ``dim`` is None); no gradient.

    Shape:
        ``()`` when ``dim`` is None, else the input's shape without ``dim``.
    """

    op_name, backward_name, differentiable = "argmax", "ArgmaxBackward0", False
    dim, keepdim = None, False

    def infer(self, x):
        if x._dtype is dtypes.bool_:  # PyTorch's rule: which True is "largest" is not defined
            raise RuntimeError(f"{self.op_name}(): does not support bool input; convert it "
                               "with .int() (or use .nonzero() to find the True elements)")
        if self.dim is None:
            if math.prod(x.shape) == 0:
                raise IndexError(f"{self.op_name}(): Expected reduction dim to be specified for "
                                 f"input.numel() == 0 (input shape {shapes.fmt(x.shape)}); "
                                 "give 'dim' to reduce along a non-empty dim")
            self.axis = None
            shape = (1,) * len(x.shape) if self.keepdim else ()
        else:
            self.axis = shapes.normalize_dim(self.op_name, self.dim, len(x.shape))
            refuse_empty_dim(self.op_name, x.shape, self.axis)
            shape = shapes.reduce_shape(self.op_name, x.shape, self.dim, self.keepdim)
        return shape, dtypes.int64

    def forward(self, backend, x):
        out = self._indices(backend, x, self.axis, self.keepdim and self.axis is not None)
        if self.axis is None and self.keepdim:
            out = backend.reshape(out, (1,) * x.ndim)
        return backend.asarray(out, None) if getattr(out, "ndim", 0) == 0 else out

    def _indices(self, backend, x, axis, keepdims):
        return backend.argmax(x, axis, keepdims)


class Argmin(Argmax):
    """Index of the minimum: ``Argmax``'s twin (not ``argmax(-x)``, wrong for unsigned and
    bool tensors).

    Shape:
        ``()`` when ``dim`` is None, else the input's shape without ``dim``.
    """

    op_name, backward_name = "argmin", "ArgminBackward0"

    def _indices(self, backend, x, axis, keepdims):
        return backend.argmin(x, axis, keepdims)


class AllAny(Function):
    """Whether all (``kind="all"``) or any (``kind="any"``) elements are nonzero; no gradient.

    Shape:
        ``()`` when ``dim`` is None, else the input's shape without ``dim``.
    """

    differentiable = False
    dim, keepdim, kind = None, False, "all"

    @property
    def op_name(self):
        return self.kind

    @property
    def backward_name(self):
        return f"{self.kind.capitalize()}Backward0"

    def infer(self, x):
        self.axes = _axes(self.kind, self.dim, len(x.shape))
        # PyTorch keeps uint8 (0 or 1), from the days when masks were uint8; others give bool
        self.out_dtype = dtypes.uint8 if x._dtype is dtypes.uint8 else dtypes.bool_
        return shapes.reduce_shape(self.kind, x.shape, self.dim, self.keepdim), self.out_dtype

    def forward(self, backend, x):
        # any: some element is nonzero; all: no element is zero.
        test = "ne" if self.kind == "any" else "eq"
        hits = backend.sum(backend.binary(test, x, x.dtype.type(0)), self.axes, self.keepdim)
        out = backend.binary("gt" if self.kind == "any" else "eq", hits, 0)
        if self.out_dtype is not dtypes.bool_:
            out = backend.astype(out, self.out_dtype)
        return backend.asarray(out, None) if getattr(out, "ndim", 0) == 0 else out
