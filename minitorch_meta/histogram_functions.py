"""``histogram`` (``torch.histogram``, ``Tensor.histogram``): the counts, weights or
density of ``input``'s elements in bins, and the bins' edges.

Composed of existing ops: the edges (``bins`` equal-width bins over ``range``, or over the
data's own range, computed in float64 and rounded once to ``input``'s dtype as
``linspace`` does; or the given edges), each element's bin by ``searchsorted`` on the
edges (an element on the last edge counts in the last bin, as PyTorch's), and the weights
of the elements inside the edges added into their bins by ``index_add``. The result is
not differentiable (PyTorch's has no gradient either).
"""

from __future__ import annotations

import math
from numbers import Integral

from . import factories  # a module: ``factories`` imports ``tensor``, whose methods are ours
from . import return_types as R
from .functions import where
from .scatter_functions import index_add
from .search_functions import searchsorted


def histogram(input, bins, *, range=None, weight=None, density: bool = False):  # noqa: A002
    """``(hist, bin_edges)`` of the floating-point ``input`` (any shape, flattened).

    ``bins`` is a number of equal-width bins (over ``range``, a ``(min, max)`` pair, else
    over the data's minimum and maximum, widened by 0.5 each way when they are equal) or a
    1-D tensor of increasing edges. ``weight`` (``input``'s shape and dtype) gives each
    element's contribution (else 1); ``density`` divides each bin by the total and its
    width, so the histogram integrates to 1.

    Shape:
        ``hist`` ``(bins,)`` and ``bin_edges`` ``(bins + 1,)``, in ``input``'s dtype.

    Raises:
        NotImplementedError: ``input`` is not floating point (PyTorch's type).
        RuntimeError: no bins, a reversed or infinite range, bins or weight that do not fit
            ``input`` (PyTorch's messages).
    """
    _check_input(input, weight)
    edges = _bin_edges(input, bins, range)
    values = input.detach().reshape(-1)
    count = edges.shape[0] - 1
    # ``right=True``: an element equal to an edge belongs to the bin that edge opens.
    position = searchsorted(edges, values, right=True) - 1
    inside = (values >= edges[0]) & (values <= edges[-1])
    weights = (weight.detach().reshape(-1) if weight is not None
               else values.new_ones(values.shape))
    hist = index_add(factories.zeros(count, dtype=input.dtype, device=input.device), 0,
                     position.clamp(0, count - 1), where(inside, weights, 0.0))
    if density:
        hist = hist / hist.sum() / (edges[1:] - edges[:-1])
    return R.HistogramResult(hist, edges)


def _check_input(input, weight) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"histogramdd" not implemented for '
                                  f"'{_type_name(input.dtype)}': histogram takes floating-point "
                                  "input; convert it first, e.g. with .float()")
    if weight is None:
        return
    if tuple(weight.shape) != tuple(input.shape):
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have "
                           f"the same shape as the input tensor excluding its innermost "
                           f"dimension, but got input with shape {list(input.shape)} and "
                           f"weight with shape {list(weight.shape)}")
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor "
                           f"and weight tensor should have the same dtype, but got "
                           f"input({input.dtype}), and weight({weight.dtype})")


def _type_name(dtype) -> str:
    from .dtypes import SCALAR_TYPE_NAMES

    return SCALAR_TYPE_NAMES[dtype]


def _bin_edges(input, bins, range):  # noqa: A002
    """The edges: the given 1-D tensor, or ``bins + 1`` evenly spaced ones."""
    if hasattr(bins, "_data"):  # a Tensor of edges
        if bins.dim() != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but "
                               f"got {bins.dim()} dimensions in the bins tensor for dimension 0")
        if bins.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have "
                               f"the same dtype, but got input with dtype {input.dtype} and "
                               f"bins for dimension 0 with dtype {bins.dtype}")
        _check_count(bins.shape[0] - 1)
        return bins.detach()
    if isinstance(bins, bool) or not isinstance(bins, Integral):
        raise TypeError(f"histogram(): argument 'bins' must be int or Tensor, not "
                        f"{type(bins).__name__}")
    _check_count(int(bins))
    low, high = _range(input, range)
    return factories.linspace(low, high, int(bins) + 1, dtype=input.dtype, device=input.device)


def _check_count(count: int) -> None:
    if count <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for "
                           "dimension 0")


def _range(input, range) -> tuple:  # noqa: A002
    """``(low, high)`` as floats: ``range``, or the data's extremes (0 and 1 when there are
    none, or on meta, which has no values), widened by 0.5 each way when equal."""
    if range is not None:
        low, high = (float(v) for v in range)
        if low > high:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{low:g} max {high:g} for dimension 0")
    elif input.numel() and not input.is_meta:
        low, high = (float(v) for v in input.detach().aminmax())
    else:
        low, high = 0.0, 1.0
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histogramdd: dimension 0's range [{low:g}, {high:g}] is not "
                           "finite")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return low, high
