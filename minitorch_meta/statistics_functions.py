"""Order statistics and quantiles (module functions and Tensor methods): ``argsort``,
``msort``, ``kthvalue``, ``median``, ``nanmedian``, ``mode``, ``quantile`` and
``nanquantile``, thin wrappers over ``ops/order_statistics.py`` and ``ops/quantile.py``.
"""

from __future__ import annotations

from numbers import Number

from . import return_types as R
from .autocasting import autocast_op
from .autograd.graph_node import number_outputs, show_as_op
from .int_arguments import as_int
from .ops import order_statistics as OS
from .ops.quantile import Quantile


def argsort(input, dim: int = -1, descending: bool = False, *, stable: bool = False):
    """The int64 indices that sort ``input`` along ``dim`` (``sort(...).indices``). The sort
    is always stable: equal elements keep their order, whatever ``stable`` says."""
    return OS.Argsort(dim=as_int("argsort", "dim", dim), descending=descending)(input)


def msort(input):
    """``input`` sorted along its first dim (``sort(input, dim=0).values``)."""
    from .functions import sort

    return sort(input, 0).values


def kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    """``(values, indices)`` of the ``k``-th smallest element (from 1) along ``dim``."""
    k = as_int("kthvalue", "k", k)
    dim = as_int("kthvalue", "dim", dim)
    return R.KthvalueResult(*OS.Kthvalue(k=k, dim=dim, keepdim=keepdim)(input))


def median(input, dim: int | None = None, keepdim: bool = False):
    """The lower median of all elements (a 0-d tensor, NaN if one is NaN), or with ``dim``
    ``(values, indices)`` of each slice's lower median."""
    if dim is None:
        return OS.MedianAll()(input)
    dim = as_int("median", "dim", dim)
    return R.MedianResult(*OS.Median(dim=dim, keepdim=keepdim)(input))


def nanmedian(input, dim: int | None = None, keepdim: bool = False):
    """``median`` of the non-NaN elements (NaN where there are none)."""
    if dim is None:
        return OS.NanmedianAll()(input)
    dim = as_int("nanmedian", "dim", dim)
    return R.NanmedianResult(*OS.Nanmedian(dim=dim, keepdim=keepdim)(input))


def mode(input, dim: int = -1, keepdim: bool = False):
    """``(values, indices)`` of the most frequent value along ``dim`` (the smallest of
    equally frequent ones) and the index of its last occurrence."""
    dim = as_int("mode", "dim", dim)
    return R.ModeResult(*OS.Mode(dim=dim, keepdim=keepdim)(input))


@autocast_op("quantile")
def quantile(input, q, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear"):
    """The ``q``-quantiles (``q``: a number, or a 0-d/1-D tensor of ``input``'s dtype, in
    [0, 1]) of ``input`` along ``dim`` (all elements when None); ``interpolation`` (linear,
    lower, higher, midpoint, nearest) says where between two elements a rank falls. A 1-D
    ``q`` adds its length as the first dim."""
    return _quantile("quantile", False, input, q, dim, keepdim, interpolation)


@autocast_op("nanquantile")
def nanquantile(input, q, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear"):
    """``quantile`` of the non-NaN elements (NaN where there are none)."""
    return _quantile("nanquantile", True, input, q, dim, keepdim, interpolation)


def _quantile(op: str, ignore_nan: bool, input, q, dim, keepdim, interpolation):
    if dim is not None:
        dim = as_int(op, "dim", dim)
    hyper = dict(dim=dim, keepdim=keepdim, interpolation=interpolation, ignore_nan=ignore_nan)
    if isinstance(q, Number) and not hasattr(q, "_data"):
        return Quantile(q_value=float(q), **hyper)(input)
    if not hasattr(q, "_data"):
        raise TypeError(f"{op}(): argument 'q' must be a Tensor or a number, not "
                        f"{type(q).__name__}; for several quantiles pass a 1-D tensor, "
                        "e.g. torch.tensor([0.25, 0.75])")
    _check_q_values(q)
    return Quantile(**hyper)(input, q)


def _check_q_values(q) -> None:
    """A q tensor's values in [0, 1] (only where there are values: meta has none)."""
    if not q._backend.stores_data or q.numel() == 0:
        return
    from .autograd import no_grad

    with no_grad():
        inside = ((q >= 0) & (q <= 1)).all().item()
    if not inside:
        raise RuntimeError("quantile() q values must be in the range [0, 1], but got "
                           f"{q.detach().cpu().tolist()}")


def nansum(input, dim=None, keepdim: bool = False, *, dtype=None):
    """The sum over ``dim`` (an int, a tuple of ints; None or empty: every dim) with NaN
    counted as zero; integers sum to int64 unless ``dtype`` says otherwise."""
    from .ops.nan_reductions import Nansum

    return Nansum(dim=dim, keepdim=keepdim, dtype=dtype)(input)


def nanmean(input, dim=None, keepdim: bool = False, *, dtype=None):
    """The mean of the non-NaN elements over ``dim`` (NaN where there are none): PyTorch's
    composition ``nansum(input) / count of non-NaN``, so ``grad_fn`` is ``DivBackward0``."""
    from .functions import div
    from .math_functions import isnan, logical_not

    if not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got "
                           f"{input.dtype}; convert it with .float()")
    count = nansum(logical_not(isnan(input)), dim, keepdim)
    return div(nansum(input, dim, keepdim, dtype=dtype), count)


def var_mean(input, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction=None) -> tuple:
    """``(var, mean)`` over ``dim`` (None: every element), with Bessel's ``correction``
    (1 by default; ``unbiased=False`` is ``correction=0``). ``var_mean(input, unbiased)``
    (a bool second argument) works too, as in PyTorch."""
    return _moments("var_mean", "VarMeanBackward0", False, input, dim, unbiased, keepdim,
                    correction)


def std_mean(input, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction=None) -> tuple:
    """``(std, mean)`` over ``dim``: ``var_mean`` with the square root of the variance."""
    return _moments("std_mean", "StdMeanBackward0", True, input, dim, unbiased, keepdim,
                    correction)


def _moments(op: str, node: str, root: bool, input, dim, unbiased, keepdim, correction):
    from .functions import mean, sqrt
    from .variance import spread_arguments, variance

    dim, correction = spread_arguments(op, dim, unbiased, correction)
    spread = variance(op, input, dim, keepdim, correction)
    if root:
        spread = sqrt(spread)
    # PyTorch computes both in one node; here each output's last node bears its name, and
    # the first stands for both in ``next_functions``, with the input as its edge
    outputs = spread, mean(input, dim, keepdim)
    show_as_op(outputs, node, (input,))
    return outputs


def count_nonzero(input, dim=None):
    """How many elements are nonzero over ``dim`` (None or empty: all; an int or a tuple
    of ints), int64."""
    from .ops.count_nonzero import CountNonzero

    return CountNonzero(dim=dim)(input)


def aminmax(input, *, dim: int | None = None, keepdim: bool = False):
    """``(min, max)`` of all elements, or along ``dim``: ``amin`` and ``amax`` in one call
    (tied extremes share the gradient evenly)."""
    from .functions import _composed
    from .ops.reduction import Amax, Amin
    from .ops.shapes import fmt

    if dim is None:
        dim = ()
        if 0 in input.shape:
            raise RuntimeError(f"aminmax(): cannot compute aminmax over an empty dimension as "
                               f"the operation has no identity (input shape {fmt(input.shape)}"
                               "); pass dim= to reduce one non-empty dim")
    else:
        dim = as_int("aminmax", "dim", dim)
    low = Amin(dim=dim, keepdim=keepdim, op_name="aminmax")(input)
    high = Amax(dim=dim, keepdim=keepdim, op_name="aminmax")(input)
    result = R.AminmaxResult(_composed(low, "AminmaxBackward0"),
                             _composed(high, "AminmaxBackward0"))
    number_outputs(result)  # PyTorch's one node with two outputs
    return result
