"""The special functions of probability: the normal distribution's ``special.ndtr``,
``log_ndtr``, ``ndtri`` and ``erfcx``; ``special.xlog1py``; Hurwitz's ``special.zeta``.

Each is a thin wrapper over one op's ``Function`` (``ops/normal_distribution.py``,
``ops/exponential.py``, ``ops/hurwitz_zeta.py``); the binary ones take a Python number
in either position, as PyTorch's.
"""

from __future__ import annotations

from .functions import call_binary as _call
from .more_math_functions import _unary
from .ops import normal_distribution as _normal
from .ops.exponential import Xlog1py as _Xlog1py
from .ops.hurwitz_zeta import Zeta as _Zeta

ndtr = _unary(_normal.Ndtr, "ndtr", "The standard normal CDF ``P(Z <= x)``.")
log_ndtr = _unary(_normal.LogNdtr, "log_ndtr",
                  "``log(ndtr(x))``, finite in the far left tail (about ``-x²/2``).")
ndtri = _unary(_normal.Ndtri, "ndtri",
               "The inverse of ``ndtr``: the ``x`` with ``ndtr(x) = p`` (``±inf`` at 0, 1).")
erfcx = _unary(_normal.Erfcx, "erfcx",
               "``exp(x²) erfc(x)``, the scaled complementary error function.")


def xlog1py(input, other):  # noqa: A002 - PyTorch's name
    """``input * log1p(other)``, and 0 where ``input == 0`` unless ``other`` is NaN; either
    may be a number.

    Shape:
        ``input`` and ``other`` broadcast together; the output has the broadcast shape.
    """
    return _call("special_xlog1py", _Xlog1py, input, other)


def zeta(input, other):  # noqa: A002 - PyTorch's name
    """Hurwitz's zeta function ``sum((other + k)^-input, k >= 0)`` (Riemann's at
    ``other = 1``); either may be a number. Differentiable in ``other`` only, as PyTorch.

    Shape:
        ``input`` and ``other`` broadcast together; the output has the broadcast shape.
    """
    return _call("special_zeta", _Zeta, input, other)
