"""Window functions: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window`` (PyTorch's top-level factories), and
``cosine_sum``, the weighted sum of cosines behind every cosine window (also those of
``minitorch_meta.signal.windows``).

A window is composed of existing factories and ops (``arange``, ``cos``, ``i0``, ...) on the
asked device, so it is a shape only on meta. It is computed in float64 for a float64
window, else in float32 (then rounded once to float16 or bfloat16), and returned as a
leaf tensor: the ``requires_grad=`` flag is set on the result, as PyTorch's factories do.

A periodic window of length ``L`` is the symmetric window of length ``L + 1`` without its
last value (the form ``stft`` wants); lengths 0 and 1 give ``[]`` and ``[1.]``.
"""

from __future__ import annotations

import math
import operator

from . import dtypes
from .autograd import no_grad


def cosine_sum(positions, period: float, coefficients):
    """``sum_k (-1)^k a_k cos(2 pi k n / period)`` at the positions ``n`` (a 1-D float
    tensor): one cosine term per coefficient ``a_k``.

    Shape:
        ``positions``' shape and dtype.
    """
    phase = positions * (2.0 * math.pi / period)
    window = None
    for k, a in enumerate(coefficients):
        term = (phase * k).cos() * ((-1) ** k * a)  # k = 0: the constant term a_0
        window = term if window is None else window + term
    return window


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None,
                device=None, pin_memory: bool = False, requires_grad: bool = False):
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))``.

    Shape:
        ``(window_length,)``.
    """
    return _cosine_window("hann_window", window_length, periodic, (0.5, 0.5), dtype, layout,
                          device, requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype=None, layout=None, device=None,
                   pin_memory: bool = False, requires_grad: bool = False):
    """The Hamming window ``alpha - beta cos(2 pi n / (N - 1))``.

    Shape:
        ``(window_length,)``.
    """
    return _cosine_window("hamming_window", window_length, periodic, (alpha, beta), dtype,
                          layout, device, requires_grad)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None,
                    device=None, pin_memory: bool = False, requires_grad: bool = False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``.

    Shape:
        ``(window_length,)``.
    """
    return _cosine_window("blackman_window", window_length, periodic, (0.42, 0.5, 0.08),
                          dtype, layout, device, requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None,
                    device=None, pin_memory: bool = False, requires_grad: bool = False):
    """The Bartlett (triangular) window ``1 - |2 n / (N - 1) - 1|``.

    Shape:
        ``(window_length,)``.
    """
    def triangle(n, length):
        return 1.0 - (n * (2.0 / (length - 1)) - 1.0).abs()

    return _window("bartlett_window", window_length, periodic, triangle, dtype, layout,
                   device, requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype=None, layout=None, device=None, pin_memory: bool = False,
                  requires_grad: bool = False):
    """The Kaiser window ``i0(beta sqrt(1 - ((n - m) / m)^2)) / i0(beta)``, ``m = (N - 1) / 2``.

    Shape:
        ``(window_length,)``.
    """
    from .bessel_gamma_functions import i0

    def kaiser(n, length):
        middle = (length - 1) / 2.0
        # At the ends the square is 1 up to rounding: clamp so that sqrt never sees < 0.
        radius = (1.0 - ((n - middle) / middle) ** 2).clamp_min(0.0).sqrt()
        return i0(radius * beta) / i0(n.new_tensor(float(beta)))

    return _window("kaiser_window", window_length, periodic, kaiser, dtype, layout, device,
                   requires_grad)


def _cosine_window(name, window_length, periodic, coefficients, dtype, layout, device,
                   requires_grad):
    return _window(name, window_length, periodic,
                   lambda n, length: cosine_sum(n, length - 1, coefficients),
                   dtype, layout, device, requires_grad)


def _window(name: str, window_length, periodic: bool, formula, dtype, layout, device,
            requires_grad: bool):
    """The symmetric ``formula(n, length)`` at ``n = 0 .. length - 1`` (one point longer,
    its last point dropped, when ``periodic``), checked, in ``dtype``, on ``device``."""
    from .factories import arange, ones

    window_length = _length(name, window_length)
    dtype = _window_dtype(name, dtype, layout)
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if window_length <= 1:  # the formulas divide by length - 1
        return ones(window_length, dtype=dtype, device=device, requires_grad=requires_grad)
    length = window_length + 1 if periodic else window_length
    work = dtypes.float64 if dtype is dtypes.float64 else dtypes.float32
    with no_grad():
        window = formula(arange(length, dtype=work, device=device), length)
        window = window[:window_length].to(dtype)
    return window.requires_grad_(True) if requires_grad else window


def _length(name: str, window_length) -> int:
    if isinstance(window_length, bool) or not hasattr(type(window_length), "__index__"):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    return operator.index(window_length)


def _window_dtype(name: str, dtype, layout):
    """``dtype`` (else the default float dtype), checked in PyTorch's order: the layout,
    then the dtype; the length comes after both."""
    if layout is not None and str(layout) != "torch.strided":
        raise RuntimeError(f"{name} is not implemented for sparse types, got layout {layout}: "
                           "only the strided layout is supported")
    dtype = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    return dtype
