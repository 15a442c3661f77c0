"""``minitorch_meta.special``: the part of ``torch.special`` this library has, under
``torch.special``'s names and signatures (most are the functions of ``minitorch_meta``
itself: ``special.expit`` is ``sigmoid``, ``special.gammaln`` is ``lgamma``, ...)."""

from __future__ import annotations

from . import bessel_gamma_functions as _BG
from . import functions as _F
from . import incomplete_gamma_functions as _IG
from . import math_functions as _M
from . import more_math_functions as _MM
from . import out_argument as _out_argument
from . import probability_functions as _P
from .ops.exponential import Entr as _Entr

expit = _F.sigmoid
erf, erfc, erfinv = _F.erf, _MM.erfc, _MM.erfinv
logit, xlogy, sinc, exp2 = _MM.logit, _MM.xlogy, _MM.sinc, _MM.exp2
gammaln, digamma, psi = _MM.lgamma, _MM.digamma, _MM.digamma
expm1, log1p = _M.expm1, _M.log1p
logsumexp = _F.logsumexp
i0, i0e, i1, i1e = _BG.i0, _BG.i0e, _BG.i1, _BG.i1e
polygamma, multigammaln = _BG.special_polygamma, _BG.multigammaln
ndtr, log_ndtr, ndtri, erfcx = _P.ndtr, _P.log_ndtr, _P.ndtri, _P.erfcx
xlog1py, zeta = _P.xlog1py, _P.zeta
gammainc, gammaincc = _IG.gammainc, _IG.gammaincc


def round(input, *, decimals: int = 0):  # noqa: A001 - PyTorch's name
    """``torch.round`` (to ``decimals`` places; PyTorch's node is ``RoundBackward1``)."""
    return _M.round(input, decimals=decimals)


def softmax(input, dim: int, dtype=None):
    """``softmax`` along ``dim``, the input first converted to ``dtype`` when given."""
    return _F.softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input, dim: int, dtype=None):
    """``log_softmax`` along ``dim``, the input first converted to ``dtype`` when given."""
    return _F.log_softmax(input if dtype is None else input.to(dtype), dim)


def entr(input):
    """The elementwise entropy ``-x log(x)`` (0 at 0, ``-inf`` below 0)."""
    return _Entr()(input)

from .special_bessel_functions import FUNCTIONS as _BESSEL_AND_POLYNOMIALS  # noqa: E402

# bessel_j0, ..., airy_ai and chebyshev_polynomial_t, ..., legendre_polynomial_p
globals().update(_BESSEL_AND_POLYNOMIALS)

# PyTorch's ``out=`` keyword on the functions that have it (out_argument.py)
_out_argument.give_out_keyword(globals(), _out_argument.SPECIAL_FUNCTIONS_WITH_OUT,
                               _out_argument.SPECIAL_EXACT_DTYPE, prefix="special.")

__all__ = ["digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln",
           "log1p", "log_softmax", "logit", "logsumexp", "psi", "round", "sinc", "softmax",
           "xlogy", "i0", "i0e", "i1", "i1e", "multigammaln", "polygamma",
           *_BESSEL_AND_POLYNOMIALS, "ndtr", "log_ndtr", "ndtri", "erfcx", "xlog1py", "zeta",
           "gammainc", "gammaincc"]
