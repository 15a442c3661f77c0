"""``minitorch_meta.signal.windows``: ``torch.signal.windows``' SciPy-style windows
(``sym=True`` is the symmetric window for filter design, ``sym=False`` the periodic one
for spectral analysis), with PyTorch's keyword signatures and errors.

The cosine windows share ``windows.cosine_sum`` with the top-level ``*_window`` functions.
Each window is computed in its dtype (float32 or float64 only, as PyTorch) on its device,
and returned as a leaf tensor (``requires_grad=`` sets its flag).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .. import dtypes
from ..autograd import no_grad
from ..windows import cosine_sum

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False):
    """The triangular window ``1 - |2 n / (M - 1) - 1|``.

    Shape:
        ``(M,)``.
    """
    return _window("bartlett", M, sym, lambda n, period: 1.0 - (n * (2.0 / period) - 1.0).abs(),
                   dtype, layout, device, requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False):
    """The Blackman window, ``general_cosine`` with ``a = [0.42, 0.5, 0.08]``.

    Shape:
        ``(M,)``.
    """
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def cosine(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
           requires_grad: bool = False):
    """The sine window ``sin(pi (n + 0.5) / M)`` (``M + 1`` for the periodic one), as SciPy.

    Shape:
        ``(M,)``.
    """
    return _window("cosine", M, sym, lambda n, period: ((n + 0.5) * (math.pi / (period + 1)))
                   .sin(), dtype, layout, device, requires_grad, one_point=False)


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
                dtype=None, layout=None, device=None, requires_grad: bool = False):
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``; ``center`` defaults to
    the middle, ``(M - 1) / 2`` (``M / 2`` for the periodic window).

    Shape:
        ``(M,)``.

    Raises:
        ValueError: ``tau`` is not positive, or ``center`` is given with ``sym=True``.
    """
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")

    def formula(n, period):
        middle = period / 2.0 if center is None else center
        return ((n - middle).abs() * (-1.0 / tau)).exp()

    return _window("exponential", M, sym, formula, dtype, layout, device, requires_grad,
                   one_point=False)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=None,
             device=None, requires_grad: bool = False):
    """The Gaussian window ``exp(-(n - m)^2 / (2 std^2))`` around the middle ``m``.

    Shape:
        ``(M,)``.

    Raises:
        ValueError: ``std`` is not positive.
    """
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    return _window("gaussian", M, sym,
                   lambda n, period: (-((n - period / 2.0) / (std * math.sqrt(2.0))) ** 2).exp(),
                   dtype, layout, device, requires_grad, one_point=False)


def general_cosine(M, *, a: Iterable, sym: bool = True, dtype=None, layout=None, device=None,
                   requires_grad: bool = False):
    """``sum_k (-1)^k a_k cos(2 pi k n / (M - 1))``, one term per coefficient of ``a``.

    Shape:
        ``(M,)``.

    Raises:
        TypeError: ``a`` is not iterable. ValueError: ``a`` is empty.
    """
    def formula(n, period):
        # Checked here, as PyTorch: windows of 0 or 1 point never look at ``a``.
        if not isinstance(a, Iterable):
            raise TypeError("Coefficients must be a list/tuple")
        if not a:
            raise ValueError("Coefficients cannot be empty")
        return cosine_sum(n, period, [float(c) for c in a])

    return _window("general_cosine", M, sym, formula, dtype, layout, device, requires_grad)


def general_hamming(M, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=None,
                    device=None, requires_grad: bool = False):
    """``alpha - (1 - alpha) cos(2 pi n / (M - 1))``.

    Shape:
        ``(M,)``.
    """
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
            requires_grad: bool = False):
    """The Hamming window, ``general_hamming`` with ``alpha = 0.54``.

    Shape:
        ``(M,)``.
    """
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
         requires_grad: bool = False):
    """The Hann window, ``general_hamming`` with ``alpha = 0.5``.

    Shape:
        ``(M,)``.
    """
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=None,
           device=None, requires_grad: bool = False):
    """The Kaiser window ``i0(beta sqrt(1 - (2 n / (M - 1) - 1)^2)) / i0(beta)``.

    Shape:
        ``(M,)``.

    Raises:
        ValueError: ``beta`` is negative.
    """
    from ..bessel_gamma_functions import i0

    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")

    def formula(n, period):
        # The ends' square is 1 up to rounding: clamp so that sqrt never sees < 0.
        radius = (1.0 - (n * (2.0 / period) - 1.0) ** 2).clamp_min(0.0).sqrt()
        return i0(radius * beta) / i0(n.new_tensor(float(beta)))

    return _window("kaiser", M, sym, formula, dtype, layout, device, requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=None, device=None,
            requires_grad: bool = False):
    """Nuttall's minimum 4-term Blackman-Harris window (``general_cosine`` with
    ``a = [0.3635819, 0.4891775, 0.1365995, 0.0106411]``).

    Shape:
        ``(M,)``.
    """
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def _window(name: str, M, sym: bool, formula, dtype, layout, device, requires_grad: bool,
            one_point: bool = True):
    """``formula(n, period)`` at ``n = 0 .. M - 1``, where ``period`` is ``M - 1`` for a
    symmetric window and ``M`` for a periodic one (a window of one point keeps ``M - 1``
    unless ``one_point``, when it is ``[1.]``); checked, in ``dtype``, on ``device``."""
    from ..factories import arange, empty, ones

    dtype = _checks(name, M, dtype, layout)
    if M == 0 or (M == 1 and one_point):
        make = empty if M == 0 else ones
        return make(M, dtype=dtype, device=device, requires_grad=requires_grad)
    period = M - 1 if sym or M == 1 else M
    with no_grad():
        window = formula(arange(M, dtype=dtype, device=device), period)
    return window.requires_grad_(True) if requires_grad else window


def _checks(name: str, M, dtype, layout):
    """PyTorch's checks, in its order; returns the dtype (else the default float dtype)."""
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout) != "torch.strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    dtype = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
    if dtype not in (dtypes.float32, dtypes.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype
