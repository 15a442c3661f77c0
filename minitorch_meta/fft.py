"""``minitorch_meta.fft``: PyTorch's ``torch.fft``, the discrete Fourier transforms.

Every transform is one of three ops (``ops/fourier.py``: ``FftC2C``, ``FftR2C``,
``FftC2R``), composed as PyTorch composes its primitives, so that values, dtypes, gradients
and ``grad_fn`` names match: the 1-D, 2-D and n-D spellings share one function per kind
(``_c2c``, ``_r2c``, ``_c2r``, ``_hermitian``, ``_inverse_hermitian``) and differ only in how
they read ``n``/``s`` and ``dim`` (``fft_arguments.py``).

``norm`` is "backward" (None: the forward transform unscaled, the inverse divided by N),
"forward" (the other way round) or "ortho" (both divided by sqrt(N)).
"""

from __future__ import annotations

from . import fft_arguments as _args
from . import out_argument as _out_argument
from .conjugation import conj, conj_physical
from .fft_helpers import fftfreq, fftshift, ifftshift, rfftfreq
from .ops.fourier import FftC2C, FftC2R, FftR2C

_REAL_ONLY = "{name} expects a real input tensor, but got {dtype}"
_REAL_ONLY_N = "{name} expects a real-valued input tensor, but got {dtype}"
_FLOAT_ONLY = "Only supports floating-point dtypes, but found: {dtype} ({name} takes real input)"


# -- one function per kind of transform, for every spelling ------------------------------
def _c2c(name, input, dims, sizes, norm, forward):
    """The complex transform (a real input promoted to complex first: ``fftn``)."""
    x = _args.resize(_args.promote(name, input, require_complex=True), dims, sizes)
    return FftC2C(axes=dims, inverse=not forward, scale=_args.scale(name, norm, forward))(x)


def _full(name, input, dims, sizes, norm, forward):
    """The 1-D ``fft``/``ifft``: a real input takes the real-to-complex transform of every
    element (PyTorch's ``FftR2CBackward0``; ``ifft`` conjugates it), a complex one ``_c2c``."""
    x = _args.promote(name, input, require_complex=False)
    if x.dtype.is_complex:
        return _c2c(name, x, dims, sizes, norm, forward)
    out = FftR2C(axes=dims, scale=_args.scale(name, norm, forward), onesided=False)(
        _args.resize(x, dims, sizes))
    return out if forward else conj(out)


def _r2c(name, input, dims, sizes, norm, message):
    """The one-sided forward transform of a real input (``rfft``, ``rfftn``)."""
    x = _args.promote(name, input, require_complex=False)
    _args.require_real(name, x, message)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis (got an empty dim)")
    return FftR2C(axes=dims, scale=_args.scale(name, norm, True), onesided=True)(
        _args.resize(x, dims, sizes))


def _c2r(name, input, dims, sizes, norm, given_last):
    """The inverse transform of a one-sided Hermitian input to a real signal (``irfft``)."""
    x = _args.promote(name, input, require_complex=True)
    sizes, last = _args.hermitian_last(name, x, dims, sizes, given_last)
    return FftC2R(axes=dims, scale=_args.scale(name, norm, False), last_size=last)(
        _args.resize(x, dims, sizes))


def _hermitian(name, input, dims, sizes, norm, given_last):
    """``hfft``: the forward transform of a Hermitian signal given by its one-sided half,
    a real signal (the inverse transform of the conjugate)."""
    x = _args.promote(name, input, require_complex=True)
    sizes, last = _args.hermitian_last(name, x, dims, sizes, given_last)
    scale = _args.scale(name, norm, True)
    x = _args.resize(x, dims, sizes)
    if len(dims) > 1:
        x = FftC2C(axes=dims[:-1], inverse=False, scale=scale)(x)
    return FftC2R(axes=dims[-1:], scale=scale, last_size=last)(conj(x))


def _inverse_hermitian(name, input, dims, sizes, norm):
    """``ihfft``: the inverse transform of a real signal, one-sided (Hermitian)."""
    x = _args.promote(name, input, require_complex=False)
    _args.require_real(name, x, _REAL_ONLY if name == "ihfft" else _FLOAT_ONLY)
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis (got an empty dim)")
    scale = _args.scale(name, norm, False)
    half = FftR2C(axes=dims[-1:], scale=scale, onesided=True)(_args.resize(x, dims, sizes))
    if len(dims) == 1:
        return conj(half)
    return FftC2C(axes=dims[:-1], inverse=True, scale=scale)(conj_physical(half))


# -- 1-D ---------------------------------------------------------------------------------
def fft(input, n=None, dim=-1, norm=None):
    """The discrete Fourier transform along ``dim``, of ``n`` elements (the input cropped
    or zero-padded; default: its length).

    Shape:
        the input's, with ``n`` along ``dim``; complex (a real input: of its precision,
        an integer one: the default complex dtype).
    """
    return _full("fft", input, *_args.one_dim("fft", input, n, dim), norm, True)


def ifft(input, n=None, dim=-1, norm=None):
    """The inverse of ``fft`` along ``dim``.

    Shape:
        as ``fft``.
    """
    return _full("ifft", input, *_args.one_dim("ifft", input, n, dim), norm, False)


def rfft(input, n=None, dim=-1, norm=None):
    """The transform of a real signal, only its ``n // 2 + 1`` non-redundant elements
    (the others are their mirrored conjugates).

    Shape:
        the input's, with ``n // 2 + 1`` along ``dim``; complex.
    """
    return _r2c("rfft", input, *_args.one_dim("rfft", input, n, dim), norm, _REAL_ONLY)


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``rfft``: a real signal of ``n`` elements (default
    ``2 * (m - 1)`` for an input of ``m``) from its one-sided transform.

    Shape:
        the input's, with ``n`` along ``dim``; real.
    """
    dims, sizes = _args.one_dim("irfft", input, n, dim)
    return _c2r("irfft", input, dims, sizes, norm, n)


def hfft(input, n=None, dim=-1, norm=None):
    """The transform of a Hermitian signal given by its one-sided half: a real signal of
    ``n`` elements (default ``2 * (m - 1)``).

    Shape:
        as ``irfft``.
    """
    dims, sizes = _args.one_dim("hfft", input, n, dim)
    return _hermitian("hfft", input, dims, sizes, norm, n)


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``hfft``: the one-sided half of a real signal's inverse transform.

    Shape:
        as ``rfft``.
    """
    return _inverse_hermitian("ihfft", input, *_args.one_dim("ihfft", input, n, dim), norm)


# -- 2-D and n-D -------------------------------------------------------------------------
def fftn(input, s=None, dim=None, norm=None):
    """The transform over ``dim`` (default: the last ``len(s)`` dims, or all), of ``s``
    elements along each (-1: the input's length).

    Shape:
        the input's, with ``s`` along ``dim``; complex.
    """
    return _c2c("fftn", input, *_args.many_dims("fftn", input, s, dim), norm, True)


def ifftn(input, s=None, dim=None, norm=None):
    """The inverse of ``fftn``.

    Shape:
        as ``fftn``.
    """
    return _c2c("ifftn", input, *_args.many_dims("ifftn", input, s, dim), norm, False)


def rfftn(input, s=None, dim=None, norm=None):
    """``fftn`` of a real input, one-sided along the last of ``dim``.

    Shape:
        as ``fftn``, with ``s[-1] // 2 + 1`` along ``dim[-1]``.
    """
    return _r2c("rfftn", input, *_args.many_dims("rfftn", input, s, dim), norm, _REAL_ONLY_N)


def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of ``rfftn``: a real signal of ``s`` elements along ``dim`` (the last
    one's default ``2 * (m - 1)``).

    Shape:
        the input's, with ``s`` along ``dim``; real.
    """
    dims, sizes = _args.many_dims("irfftn", input, s, dim)
    return _c2r("irfftn", input, dims, sizes, norm, _last(s))


def hfftn(input, s=None, dim=None, norm=None):
    """The n-D ``hfft``: the transform of a Hermitian signal (one-sided along the last of
    ``dim``), a real signal.

    Shape:
        as ``irfftn``.
    """
    dims, sizes = _args.many_dims("hfftn", input, s, dim)
    return _hermitian("hfftn", input, dims, sizes, norm, _last(s))


def ihfftn(input, s=None, dim=None, norm=None):
    """The inverse of ``hfftn``.

    Shape:
        as ``rfftn``.
    """
    return _inverse_hermitian("ihfftn", input, *_args.many_dims("ihfftn", input, s, dim),
                              norm)


def _last(s):
    """The real signal's length along the last transformed dim, when ``s`` gives it."""
    if s is None or isinstance(s, int):
        return s
    return tuple(s)[-1] if len(s) else None


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """``fftn`` over two dims (default: the last two).

    Shape:
        as ``fftn``.
    """
    return fftn(input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """``ifftn`` over two dims (default: the last two).

    Shape:
        as ``ifftn``.
    """
    return ifftn(input, s, dim, norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """``rfftn`` over two dims (default: the last two).

    Shape:
        as ``rfftn``.
    """
    return rfftn(input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """``irfftn`` over two dims (default: the last two).

    Shape:
        as ``irfftn``.
    """
    return irfftn(input, s, dim, norm)


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """``hfftn`` over two dims (default: the last two).

    Shape:
        as ``hfftn``.
    """
    return hfftn(input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """``ihfftn`` over two dims (default: the last two).

    Shape:
        as ``ihfftn``.
    """
    return ihfftn(input, s, dim, norm)


# PyTorch's ``out=`` keyword on the functions that have it (out_argument.py)
_out_argument.give_out_keyword(globals(), _out_argument.FFT_FUNCTIONS_WITH_OUT, (),
                               prefix="fft.")

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
