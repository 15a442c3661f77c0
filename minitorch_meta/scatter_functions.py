"""Writes at an index tensor's positions: ``scatter``, ``scatter_add``, ``index_add``,
``index_copy``, ``index_fill`` (module functions and Tensor methods), and their in-place
forms (Tensor methods only, as in PyTorch).

Each is one op of ``ops/scatter.py`` or ``ops/index_update.py``; the in-place forms run
it out of place and write the result back, under the rules of ``add_`` (refused on a
tensor in a graph while grad mode is on, and here also when the written tensor requires
grad: in-place ops are not differentiated).
"""

from __future__ import annotations

from numbers import Number

from . import dtypes
from . import functions as F
from .autocasting import autocast_op
from .caller_warnings import warn_at_caller
from .inplace_autograd import follows_graph, recorded_inplace
from .int_arguments import as_int
from .ops.index_update import IndexAdd, IndexCopy, IndexFill
from .ops.masked import fill_value
from .ops.scatter import Scatter
from .ops.scatter_reduce import ScatterReduce
from .tensor_arguments import require_tensor


def scatter(input, dim: int, index, src=None, *, value=None, reduce: str | None = None):
    """``input`` with ``src``'s elements (a tensor of the input's dtype) or ``value`` (a
    number) written at ``index``'s positions along ``dim``: ``out[i][index[i][j]] =
    src[i][j]`` for ``dim=1``. ``src`` may be given as a number too, as PyTorch allows.
    ``reduce='add'`` or ``'multiply'`` (deprecated in PyTorch) combines instead of writing:
    ``scatter_reduce`` with ``'sum'`` or ``'prod'``."""
    dim = as_int("scatter", "dim", dim)
    index = F._index_tensor("scatter", index)
    source, number = _source_or_value("scatter", src, value)
    if reduce is not None:
        return _scatter_reduced(input, dim, index, source, number, reduce)
    if source is None:
        return Scatter(dim=dim, value=number)(input, index)
    return Scatter(dim=dim)(input, index, source)


@autocast_op("scatter_add")
def scatter_add(input, dim: int, index, src):
    """``input`` with ``src``'s elements added at ``index``'s positions along ``dim``
    (positions listed twice get both): ``out[i][index[i][j]] += src[i][j]`` for dim 1."""
    dim = as_int("scatter_add", "dim", dim)
    index = F._index_tensor("scatter_add", index)
    require_tensor("scatter_add", "src", src, 3)
    return Scatter(op_name="scatter_add", dim=dim, add=True)(input, index, src)


def index_add(input, dim: int, index, source, *, alpha: Number = 1):
    """``input`` with ``alpha * source``'s slices added to its slices along ``dim`` at the
    positions of ``index`` (a vector of int64 or int32; repeated positions add twice)."""
    dim = as_int("index_add", "dim", dim)
    index = F._index_tensor("index_add", index)
    require_tensor("index_add", "source", source, 4)
    return IndexAdd(dim=dim, alpha=alpha)(input, index, source)


@autocast_op("index_copy")
def index_copy(input, dim: int, index, source):
    """``input`` with its slices along ``dim`` at the positions of ``index`` (an int64
    vector) replaced by ``source``'s slices, in order."""
    dim = as_int("index_copy", "dim", dim)
    index = F._index_tensor("index_copy", index)
    require_tensor("index_copy", "source", source, 4)
    return IndexCopy(dim=dim)(input, index, source)


def index_fill(input, dim: int, index, value):
    """``input`` with ``value`` (a number or a 0-d tensor) over its slices along ``dim`` at
    the positions of ``index`` (an int64 vector; negative positions count from the end)."""
    dim = as_int("index_fill", "dim", dim)
    index = F._index_tensor("index_fill", index)
    number, tensor = fill_value("index_fill", value)
    if isinstance(number, complex) and not input.is_complex():  # even 1+0j, as PyTorch
        raise RuntimeError(f"index_fill_(): Converting complex Scalar to non-complex type is "
                           f"not supported (value={number!r}, input dtype {input.dtype})")
    if tensor is None:
        return IndexFill(dim=dim, fill=number)(input, index)
    return IndexFill(dim=dim)(input, index, tensor)


# -- in-place forms (Tensor methods) ------------------------------------------------------
def scatter_(self, dim: int, index, src=None, *, value=None, reduce: str | None = None):
    """In-place ``scatter``."""
    return _in_place(self, "scatter_", src, scatter, dim, index, src, value=value,
                     reduce=reduce)


def scatter_add_(self, dim: int, index, src):
    """In-place ``scatter_add``."""
    return _in_place(self, "scatter_add_", src, scatter_add, dim, index, src)


def index_add_(self, dim: int, index, source, *, alpha: Number = 1):
    """In-place ``index_add``."""
    return _in_place(self, "index_add_", source, index_add, dim, index, source, alpha=alpha,
                     inputs=(source,))


def index_copy_(self, dim: int, index, source):
    """In-place ``index_copy``."""
    return _in_place(self, "index_copy_", source, index_copy, dim, index, source,
                     inputs=(source,))


def index_fill_(self, dim: int, index, value):
    """In-place ``index_fill`` (into an ``expand`` view too, with PyTorch's deprecation
    warning: the same value wherever shared elements are filled)."""
    return _in_place(self, "index_fill_", value, index_fill, dim, index, value,
                     positions=lambda: index_fill(unwritten(self), dim, index, True))


def _in_place(self, op: str, written, function, *args, positions=None, inputs=(),
              **keywords):
    """``self = function(self, *args)`` in this tensor's memory, under ``add_``'s rules
    (recorded by autograd when the tensor or ``written`` requires grad:
    ``inplace_autograd.py``); ``positions`` and ``inputs`` (refused when partly
    overlapping) as for ``Tensor._write``."""
    if (self.requires_grad or getattr(written, "requires_grad", False)) \
            and follows_graph(self, (written,)):
        return recorded_inplace(self, op, lambda t: function(t, *args, **keywords), (), inputs)
    self._check_inplace(op)
    return self._write(op, function(self, *args, **keywords), positions, inputs)


def unwritten(tensor):
    """All-False bool tensor of ``tensor``'s shape and device: the start of a map of the
    elements an in-place op writes (see ``Tensor._write``)."""
    return tensor.new_zeros(tuple(tensor.shape), dtype=dtypes.bool_)


def _source_or_value(op: str, src, value) -> tuple:
    """``(tensor, None)`` or ``(None, number)``: what ``scatter`` writes."""
    if (src is None) == (value is None):
        raise TypeError(f"{op}() expects exactly one of 'src' (a tensor) and 'value' (a "
                        f"number), but got {'both' if src is not None else 'neither'}")
    if src is not None and hasattr(src, "_data"):
        return src, None
    number, tensor = fill_value(op, src if value is None else value)
    if tensor is not None:  # a tensor given as value=: PyTorch takes only a number there
        raise TypeError(f"{op}(): argument 'value' must be a number, not Tensor; pass a "
                        "tensor as src")
    return None, number


def _scatter_reduced(input, dim: int, index, source, number, reduce: str):
    """``scatter(..., reduce='add' | 'multiply')``: ``scatter_reduce`` with ``'sum'`` or
    ``'prod'``, the input included; a number ``value`` is spread over the index's shape."""
    kinds = {"add": "sum", "multiply": "prod"}
    if reduce not in kinds:
        raise RuntimeError(f"scatter(): reduce argument must be either add or multiply, got "
                           f"{reduce!r}")
    if source is None:
        from .factories import full  # factories imports tensor, which imports this module

        source = full(tuple(index.shape), number, dtype=input.dtype, device=input.device)
    else:
        warn_at_caller("The reduce argument of torch.scatter with Tensor src is deprecated and "
                      "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                      "instead for more reduction options.")
    return ScatterReduce(op_name="scatter", dim=dim, reduce=kinds[reduce])(input, index, source)


def scatter_reduce(input, dim: int, index, src, reduce: str, *, include_self: bool = True):
    """``input`` with ``src``'s elements reduced in at ``index``'s positions along ``dim``
    (``out[i][index[i][j]] = reduce(out[i][index[i][j]], src[i][j])`` for dim 1):
    ``reduce`` is ``'sum'``, ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``; with
    ``include_self=False`` the input's values at those positions are left out."""
    dim = as_int("scatter_reduce", "dim", dim)
    index = F._index_tensor("scatter_reduce", index)
    require_tensor("scatter_reduce", "src", src, 4)
    if not isinstance(reduce, str):
        raise TypeError(f"scatter_reduce(): argument 'reduce' (position 5) must be str, not "
                        f"{type(reduce).__name__}")
    return ScatterReduce(dim=dim, reduce=reduce, include_self=bool(include_self))(
        input, index, src)


def scatter_reduce_(self, dim: int, index, src, reduce: str, *, include_self: bool = True):
    """In-place ``scatter_reduce``."""
    return _in_place(self, "scatter_reduce_", src, scatter_reduce, dim, index, src, reduce,
                     include_self=include_self)


def index_reduce(input, dim: int, index, source, reduce: str, *, include_self: bool = True):
    """``input`` with ``source``'s slices along ``dim`` reduced into its slices at the
    positions of ``index`` (a vector of int64 or int32): ``reduce`` is ``'prod'``,
    ``'mean'``, ``'amax'`` or ``'amin'``; with ``include_self=False`` the input's values
    at those positions are left out."""
    from .ops.index_reduce import IndexReduce

    dim = as_int("index_reduce", "dim", dim)
    index = F._index_tensor("index_reduce", index)
    require_tensor("index_reduce", "source", source, 3)
    if not isinstance(reduce, str):
        raise TypeError(f"index_reduce(): argument 'reduce' must be str, not "
                        f"{type(reduce).__name__}")
    if not isinstance(include_self, bool):
        raise TypeError(f"index_reduce(): argument 'include_self' must be bool, not "
                        f"{type(include_self).__name__}")
    return IndexReduce(dim=dim, reduce=reduce, include_self=include_self)(input, index, source)


def index_reduce_(self, dim: int, index, source, reduce: str, *, include_self: bool = True):
    """In-place ``index_reduce``."""
    return _in_place(self, "index_reduce_", source, index_reduce, dim, index, source, reduce,
                     include_self=include_self)
