"""Running reductions and differences (module functions and Tensor methods): ``cumprod``,
``cummax``, ``cummin``, ``logcumsumexp``, ``diff``, and the in-place ``cumprod_`` and
``cumsum_``; thin wrappers over ``ops/cumprod.py``, ``ops/cumulative_extrema.py`` and
``ops/logcumsumexp.py``. ``diff`` is PyTorch's composition (slices subtracted, ``n`` times),
so its ``grad_fn`` is ``SubBackward0`` as there.
"""

from __future__ import annotations

from . import dtypes
from . import return_types as R
from .autocasting import autocast_op
from .int_arguments import as_int
from .ops.cumprod import Cumprod
from .ops.cumulative_extrema import Cummax, Cummin
from .ops.logcumsumexp import Logcumsumexp
from .ops.shapes import fmt, normalize_dim


@autocast_op("cumprod")
def cumprod(input, dim: int, *, dtype=None):
    """The running product of ``input`` along ``dim``; integer and bool inputs multiply in
    int64 unless ``dtype`` (converted to first) says otherwise. The gradient is exact at
    zeros, as PyTorch's."""
    return Cumprod(dim=as_int("cumprod", "dim", dim), dtype=dtype)(input)


def cummax(input, dim: int):
    """``(values, indices)``: the running maximum along ``dim`` and where each is (the
    latest of tied maxima; NaN propagates, at the latest NaN)."""
    return R.CummaxResult(*Cummax(dim=as_int("cummax", "dim", dim))(input))


def cummin(input, dim: int):
    """``(values, indices)``: the running minimum along ``dim`` and where each is (the
    latest of tied minima; NaN propagates, at the latest NaN)."""
    return R.CumminResult(*Cummin(dim=as_int("cummin", "dim", dim))(input))


def logcumsumexp(input, dim: int):
    """``log(cumsum(exp(input)))`` along ``dim``, computed without overflow (floating-point
    inputs)."""
    return Logcumsumexp(dim=as_int("logcumsumexp", "dim", dim))(input)


def diff(input, n: int = 1, dim: int = -1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``out[i] = x[i + 1] - x[i]``, applied
    ``n`` times), after joining ``prepend`` and ``append`` (tensors of ``input``'s shape
    except along ``dim``) to its ends; bool inputs take ``!=`` (logical xor) instead.

    Shape:
        the joined input's shape with ``max(size - n, 0)`` along ``dim``.

    Raises:
        RuntimeError for a 0-d input, a negative ``n``, or ``prepend``/``append`` of another
        number of dims or another size along a dim other than ``dim``; IndexError for a dim
        out of range; TypeError for a ``prepend``/``append`` that is not a Tensor.
    """
    from .functions import _composed, cat, clone, sub
    from .math_functions import logical_xor
    from .shape_functions import narrow

    n, dim = as_int("diff", "n", n), as_int("diff", "dim", dim)
    if input.dim() == 0:
        raise RuntimeError("diff: expected an input of at least one dimension, got a 0-d "
                           "tensor; reshape it first, e.g. with .reshape(1)")
    if n < 0:
        raise RuntimeError(f"diff: order must be non-negative but got n={n}")
    axis = normalize_dim("diff", dim, input.dim())
    ends = [t for t in (_end("prepend", prepend, input, axis), input,
                        _end("append", append, input, axis)) if t is not None]
    out = cat(ends, axis) if len(ends) > 1 else input
    if n == 0:
        return _composed(clone(out), "CopyBackwards")
    step = logical_xor if out.dtype is dtypes.bool_ else sub
    for _ in range(n):
        size = out.shape[axis]
        if size == 0:
            break
        out = step(narrow(out, axis, 1, size - 1), narrow(out, axis, 0, size - 1))
    return out


def _end(name: str, end, input, axis: int):
    """``prepend`` or ``append``, checked: a Tensor with ``input``'s dims and sizes except
    along ``axis`` (or None)."""
    if end is None:
        return None
    if not hasattr(end, "_data"):
        raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(end).__name__}")
    if end.dim() != input.dim():
        raise RuntimeError(f"diff: expected {name} to have as many dimensions as the input "
                           f"({input.dim()}, shape {fmt(input.shape)}), but got {end.dim()} "
                           f"(shape {fmt(end.shape)})")
    for d, (ours, theirs) in enumerate(zip(input.shape, end.shape)):
        if d != axis and ours != theirs:
            raise RuntimeError(f"diff: expected {name} to match the input's shape "
                               f"{fmt(input.shape)} except along dim {axis}, but got shape "
                               f"{fmt(end.shape)} (size {theirs} at dim {d}, not {ours})")
    return end


def cumprod_(self, dim: int, *, dtype=None):
    """In-place ``cumprod``: the running product written into this tensor (in its dtype)."""
    return _running_in_place(self, "cumprod_", cumprod, dim, dtype)


def cumsum_(self, dim: int, *, dtype=None):
    """In-place ``cumsum``: the running sum written into this tensor (in its dtype)."""
    from .functions import cumsum

    return _running_in_place(self, "cumsum_", cumsum, dim, dtype)


def _running_in_place(self, op: str, function, dim, dtype):
    """``function(self, dim)`` written into ``self``. An integer tensor's running sum or
    product is computed in int64 and written back in its own type: the same values as
    computing in that type, wrap-around included (arithmetic modulo 2**bits)."""
    if dtype is not None and dtypes.to_dtype(dtype) is not self.dtype:
        raise RuntimeError(f"{op}: Bad in-place call: input tensor dtype {self.dtype} and "
                           f"output tensor dtype {dtypes.to_dtype(dtype)} should match; leave "
                           "dtype out, or use the out-of-place form")
    if self.dtype is dtypes.bool_:
        raise NotImplementedError(f"{op}: not implemented for bool tensors (as in PyTorch); "
                                  "convert the tensor first, e.g. with .long()")
    return self._inplace(op, lambda t: function(t, dim))
