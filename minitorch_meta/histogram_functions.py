"""``histogram`` (``torch.histogram``, ``Tensor.histogram``) and ``histogramdd``
(``torch.histogramdd``): the counts, weights or density of ``input``'s elements (or of its
rows, as points) in bins, and the bins' edges.

Composed of existing ops: for each dim, the edges (``bins`` equal-width bins over
``range``, or over the data's own range, computed in float64 and rounded once to
``input``'s dtype as ``linspace`` does; or the given edges), each element's bin by
``searchsorted`` on the edges (an element on the last edge counts in the last bin, as
PyTorch's); then the weights of the points inside the edges of every dim are added into
their bins (the flat position of the bin's index tuple) by one ``index_add``.
``histogram`` is the one-dim case. The result is not differentiable (PyTorch's has no
gradient either).
"""

from __future__ import annotations

import builtins
import math
from numbers import Integral

from . import dtypes, factories  # modules: ``factories`` imports ``tensor``, whose methods are ours
from . import return_types as R
from .functions import where
from .scatter_functions import index_add
from .search_functions import searchsorted


def histogram(input, bins=100, *, range=None, weight=None, density: bool = False):  # noqa: A002
    """``(hist, bin_edges)`` of the floating-point ``input`` (any shape, flattened).

    ``bins`` is a number of equal-width bins (over ``range``, a ``(min, max)`` pair, else
    over the data's minimum and maximum, widened by 0.5 each way when they are equal) or a
    1-D tensor of increasing edges. ``weight`` (``input``'s shape and dtype) gives each
    element's contribution (else 1); ``density`` divides each bin by the total and its
    width, so the histogram integrates to 1.

    Shape:
        ``hist`` ``(bins,)`` and ``bin_edges`` ``(bins + 1,)``, in ``input``'s dtype.

    Raises:
        NotImplementedError: ``input`` is not float32 or float64 (PyTorch's type).
        RuntimeError: no bins, a reversed or infinite range, bins or weight that do not fit
            ``input`` (PyTorch's messages).
    """
    _check_dtype(input)
    values = input.detach().reshape(-1)
    if hasattr(bins, "_data"):  # a Tensor of edges
        _check_edges(input, bins, 0)
        _check_weight(input, weight, tuple(input.shape))
        edges = bins.detach()
        _check_count(edges.shape[0] - 1, 0)
    else:  # PyTorch's order: the count, the range, then the weight
        edges = _bin_edges(values, bins, None if range is None else tuple(range), 0)
        _check_weight(input, weight, tuple(input.shape))
    weights = weight.detach().reshape(-1) if weight is not None else None
    return R.HistogramResult(_count([values], [edges], weights, density), edges)


def histogramdd(input, bins, range=None, weight=None, density: bool = False):  # noqa: A002
    """``(hist, bin_edges)`` of the points held in ``input``'s rows: ``input`` ``(..., N)``
    holds points of ``N`` coordinates (all but the last dim are flattened).

    ``bins`` is a number of equal-width bins for every dim, a list of ``N`` numbers, or a
    list of ``N`` 1-D tensors of increasing edges; the equal-width bins of dim ``d`` span
    ``range[2d]`` to ``range[2d + 1]`` (``range`` holds ``2 N`` numbers), else the data's
    extremes in that dim. A point counts in the bin holding each of its coordinates (the
    last edge of a dim belongs to its last bin); points outside are left out. ``weight``
    (``input``'s shape without the last dim) gives each point's contribution; ``density``
    divides by the total and by each bin's volume.

    Shape:
        ``hist`` ``(bins_0, ..., bins_{N-1})``; ``bin_edges`` a tuple of ``N`` tensors
        ``(bins_d + 1,)``; all in ``input``'s dtype.

    Raises:
        NotImplementedError: ``input`` is not float32 or float64.
        RuntimeError: fewer than 2 dims, bins, range or weight that do not fit ``input``,
            a reversed or infinite range, no bins (PyTorch's messages).
        TypeError: ``bins`` is not an int or a list of ints or of tensors.
    """
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 "
                           f"dimensions, but got {input.dim()}")
    _check_dtype(input)
    n = input.shape[-1]
    points = input.detach().reshape(math.prod(input.shape[:-1]), n)
    columns = [points[:, d] for d in builtins.range(n)]
    edges = _all_edges(input, columns, bins, range)
    _check_weight(input, weight, tuple(input.shape[:-1]))
    for d, dim_edges in enumerate(edges):
        _check_count(dim_edges.shape[0] - 1, d)
    if n == 0:  # no coordinates: PyTorch's 0-d empty histogram
        return R.HistogramddResult(factories.zeros((), dtype=input.dtype,
                                                   device=input.device), ())
    weights = weight.detach().reshape(-1) if weight is not None else None
    return R.HistogramddResult(_count(columns, edges, weights, density), tuple(edges))


def _all_edges(input, columns, bins, range) -> list:  # noqa: A002
    """Each dim's edges, checked in PyTorch's order: ``range``, the number of bins, then
    each dim's edges."""
    n = len(columns)
    if isinstance(bins, (tuple, list)) and bins and all(hasattr(b, "_data") for b in bins):
        if len(bins) != n:
            raise RuntimeError(f"torch.histogramdd: expected {n} sequences of bin edges for a "
                               f"{n}-dimensional histogram but got {len(bins)}")
        for d, dim_edges in enumerate(bins):
            _check_edges(input, dim_edges, d)
        return [dim_edges.detach() for dim_edges in bins]
    counts = _bin_counts(bins, n)
    pairs = _range_pairs(range, n)
    bounds = [_range(column, pair, d) for d, (column, pair) in enumerate(zip(columns, pairs))]
    if len(counts) != n:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    edges = [_even_edges(low, high, max(count + 1, 0), input)
             for count, (low, high) in zip(counts, bounds)]
    for d, dim_edges in enumerate(edges):
        _check_edges(input, dim_edges, d)
    return edges


def _bin_counts(bins, n: int) -> list:
    if isinstance(bins, Integral) and not isinstance(bins, bool):
        return [int(bins)] * n
    if isinstance(bins, (tuple, list)) and all(
            isinstance(b, Integral) and not isinstance(b, bool) for b in bins):
        return [int(b) for b in bins]
    raise TypeError(f"histogramdd() received an invalid combination of arguments - got "
                    f"bins={type(bins).__name__}, but expected an int, a tuple of ints or a "
                    "tuple of Tensors")


def _range_pairs(range, n: int) -> list:  # noqa: A002
    """``range``'s ``(min, max)`` pair of each dim (None for every dim without it)."""
    if range is None:
        return [None] * n
    values = [float(v) for v in range]
    if len(values) != 2 * n:
        raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range should "
                           f"have {2 * n} elements, but got {len(values)}")
    return [(values[2 * d], values[2 * d + 1]) for d in builtins.range(n)]


def _count(columns, edges, weights, density: bool):
    """The histogram of the points whose coordinates are ``columns`` (1-D tensors, one per
    dim) in the bins between ``edges``: one ``index_add`` of each point's weight (1 without
    ``weights``) at its bin's flat position, when the point lies inside every dim's edges."""
    counts = [dim_edges.shape[0] - 1 for dim_edges in edges]
    flat, inside = None, None
    for values, dim_edges, count in zip(columns, edges, counts):
        # ``right=True``: an element equal to an edge belongs to the bin that edge opens.
        position = (searchsorted(dim_edges, values, right=True) - 1).clamp(0, count - 1)
        within = (values >= dim_edges[0]) & (values <= dim_edges[-1])
        flat = position if flat is None else flat * count + position
        inside = within if inside is None else inside & within
    first = columns[0]
    if weights is None:
        weights = first.new_ones(first.shape)
    hist = index_add(factories.zeros(math.prod(counts), dtype=first.dtype, device=first.device),
                     0, flat, where(inside, weights, 0.0)).reshape(counts)
    if density:
        hist = hist / hist.sum()
        for d, dim_edges in enumerate(edges):
            shape = [1] * len(edges)
            shape[d] = counts[d]
            hist = hist / (dim_edges[1:] - dim_edges[:-1]).reshape(shape)
    return hist


def _check_dtype(input) -> None:
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f'"histogramdd" not implemented for '
                                  f"'{_type_name(input.dtype)}': histograms take float32 or "
                                  "float64 input; convert it first, e.g. with .float()")


def _check_weight(input, weight, shape: tuple) -> None:
    """``weight``: ``input``'s dtype and ``shape`` (a 0-d weight counts as ``(1,)``)."""
    if weight is None:
        return
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor "
                           f"and weight tensor should have the same dtype, but got "
                           f"input({_c_name(input.dtype)}), and weight({_c_name(weight.dtype)})")
    if (tuple(weight.shape) or (1,)) != shape:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have "
                           f"the same shape as the input tensor excluding its innermost "
                           f"dimension, but got input with shape {list(input.shape)} and "
                           f"weight with shape {list(weight.shape)}")


def _type_name(dtype) -> str:
    return dtypes.SCALAR_TYPE_NAMES[dtype]


def _c_name(dtype) -> str:
    """The name PyTorch's messages give a dtype here (C's: ``float``, ``double``)."""
    return {dtypes.float32: "float", dtypes.float64: "double"}.get(dtype, str(dtype))


def _check_edges(input, edges, dim: int) -> None:
    """Edges of dim ``dim``: ``input``'s dtype, one dimension, at least one edge."""
    if edges.dtype is not input.dtype:
        raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have "
                           f"the same dtype, but got input with dtype {_c_name(input.dtype)} "
                           f"and bins for dimension {dim} with dtype {_c_name(edges.dtype)}")
    if edges.dim() != 1:
        raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but "
                           f"got {edges.dim()} dimensions in the bins tensor for dimension "
                           f"{dim}")
    if edges.shape[0] == 0:
        raise RuntimeError(f"torch.histogramdd: bins tensor should have at least 1 element, "
                           f"but got 0 elements in the bins tensor for dimension {dim}")


def _bin_edges(values, bins, range, dim: int):  # noqa: A002
    """``bins + 1`` evenly spaced edges for dim ``dim`` over ``range`` (a pair, or None:
    the data's range) in ``values``' dtype."""
    if isinstance(bins, bool) or not isinstance(bins, Integral):
        raise TypeError(f"histogram(): argument 'bins' must be int or Tensor, not "
                        f"{type(bins).__name__}")
    _check_count(int(bins), dim)
    low, high = _range(values, range, dim)
    return _even_edges(low, high, int(bins) + 1, values)


def _even_edges(low: float, high: float, steps: int, like):
    """``steps`` evenly spaced edges from ``low`` to ``high`` in ``like``'s dtype, as
    PyTorch's CPU ``linspace`` kernel rounds them (so that a point on an edge lands in the
    same bin): the ends and the step rounded to the dtype, then ``low + step * i`` for the
    first half and ``high - step * (steps - 1 - i)`` for the rest, each rounded once (the
    kernel's fused multiply-add: exact in float64 for float32 edges).
    ``factories.linspace`` rounds float64 values once instead, one float32 step away at
    times."""
    start = factories.tensor(low, dtype=like.dtype, device=like.device)
    end = factories.tensor(high, dtype=like.dtype, device=like.device)
    step = ((end - start) / max(steps - 1, 1)).double()
    index = factories.arange(steps, dtype=dtypes.float64, device=like.device)
    edges = where(index < steps // 2, start.double() + step * index,
                  end.double() - step * (steps - 1 - index))
    return edges.to(like.dtype)


def _check_count(count: int, dim: int) -> None:
    if count <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for "
                           f"dimension {dim}")


def _range(values, range, dim: int) -> tuple:  # noqa: A002
    """``(low, high)`` as floats: ``range``, or the extremes of ``values`` (0 and 1 when
    there are none, or on meta, which has no values), widened by 0.5 each way when equal;
    PyTorch's checks in its order (finite, then ordered)."""
    if range is not None:
        low, high = (float(v) for v in range)
    elif values.numel() and not values.is_meta:
        low, high = (float(v) for v in values.aminmax())
    else:
        low, high = 0.0, 1.0
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension {dim}'s range [{low:g}, {high:g}] "
                           "is not finite")
    if low > high:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                           f"{low:g} max {high:g} for dimension {dim}")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return low, high
