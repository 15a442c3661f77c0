"""``torch.fft``'s helpers: the sample frequencies of a transform (``fftfreq``,
``rfftfreq``) and the reordering of a spectrum with the zero frequency in the middle
(``fftshift``, ``ifftshift``; rolls, so differentiable and for real tensors too)."""

from __future__ import annotations

from . import dtypes, factories, functions
from .int_arguments import is_int
from .ops import shapes


def _length(name: str, n) -> int:
    if not is_int(n):
        raise TypeError(f"fft_{name}(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}] "
                           f"({name} needs a signal length n >= 0)")
    return n


def _frequencies(name: str, positive: int, negative: int, n: int, d, dtype, device,
                 requires_grad: bool):
    """``[0, 1, ..., positive - 1, -negative, ..., -1] / (n * d)``."""
    dtype = dtypes.get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype (got {dtype})")
    real = dtype.to_real() if dtype.is_complex else dtype
    steps = factories.arange(positive, dtype=real, device=device)
    if negative:
        steps = functions.cat([steps, factories.arange(-negative, 0, dtype=real,
                                                       device=device)])
    span = n * float(d)
    # PyTorch multiplies by the reciprocal (which is inf for a zero span)
    out = steps * (1.0 / span if span else float("inf"))
    return out.to(dtype).requires_grad_(requires_grad)


def fftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The frequencies of ``fft``'s ``n`` outputs for samples ``d`` apart:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d)``.

    Shape:
        ``(n,)``.
    """
    n = _length("fftfreq", n)
    return _frequencies("fftfreq", (n + 1) // 2, n // 2, n, d, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The frequencies of ``rfft``'s ``n // 2 + 1`` outputs: ``[0, 1, ..., n // 2] / (n * d)``.

    Shape:
        ``(n // 2 + 1,)``.
    """
    n = _length("rfftfreq", n)
    return _frequencies("rfftfreq", n // 2 + 1, 0, n, d, dtype, device, requires_grad)


def _shifts(name: str, input, dim, half):
    """Each of ``dim`` (every dim when None) and its shift ``half(length)``."""
    dims = tuple(range(input.dim())) if dim is None else dim
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    sizes = [input.shape[shapes.normalize_dim(name, d, input.dim())] for d in dims]
    return tuple(half(n) for n in sizes), dims


def fftshift(input, dim=None):
    """The spectrum reordered with the zero frequency in the middle: each of ``dim``
    (default: every dim) rolled by ``n // 2``.

    Shape:
        unchanged.
    """
    shifts, dims = _shifts("fftshift", input, dim, lambda n: n // 2)
    return functions.roll(input, shifts, dims)


def ifftshift(input, dim=None):
    """The inverse of ``fftshift``: each of ``dim`` rolled by ``(n + 1) // 2``.

    Shape:
        unchanged.
    """
    shifts, dims = _shifts("ifftshift", input, dim, lambda n: (n + 1) // 2)
    return functions.roll(input, shifts, dims)
