"""Module-level Bessel and gamma-family functions (``minitorch_meta.i0``, ``.polygamma``,
``.mvlgamma``, the ``torch.special`` spellings ``i0e``, ``i1``, ``i1e``, ``multigammaln``),
their Tensor methods (``x.polygamma(n)``, ``x.mvlgamma(p)``) and in-place forms (``i0_``,
``polygamma_``, ``mvlgamma_``).

Each is a thin wrapper over one op's ``Function`` (``ops/bessel.py``, ``ops/polygamma.py``);
the whole-number arguments ``n`` and ``p`` are checked here, with PyTorch's ``TypeError``.
"""

from __future__ import annotations

from .more_math_functions import _in_place, _unary
from .ops import bessel
from .ops.polygamma import Mvlgamma, Polygamma

i0 = _unary(bessel.I0, "i0", "The modified Bessel function of the first kind of order 0.")
i0e = _unary(bessel.I0e, "i0e", "``exp(-|x|) i0(x)``, the exponentially scaled ``i0``.")
i1 = _unary(bessel.I1, "i1", "The modified Bessel function of the first kind of order 1.")
i1e = _unary(bessel.I1e, "i1e", "``exp(-|x|) i1(x)``, the exponentially scaled ``i1``.")


def _whole(function: str, name: str, position: int, value) -> int:
    """``value`` when it is a Python int (not a bool), else PyTorch's TypeError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be int, "
                        f"not {type(value).__name__}")
    return value


def polygamma(n: int, input):  # noqa: A002 - PyTorch's name
    """``psi^(n)(input)``, the ``n``-th derivative of digamma (``n >= 0`` whole).

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """
    return Polygamma(_whole("polygamma", "n", 1, n))(input)


def mvlgamma(input, p: int):  # noqa: A002 - PyTorch's name
    """The log of the multivariate gamma function of dimension ``p >= 1``:
    ``p (p - 1) / 4 log(pi) + sum(lgamma(input - i/2), i < p)``.

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """
    return Mvlgamma(_whole("mvlgamma", "p", 2, p))(input)


def multigammaln(input, p: int):  # noqa: A002 - PyTorch's name
    """``torch.special.multigammaln``: ``mvlgamma``."""
    return Mvlgamma(_whole("multigammaln", "p", 2, p))(input)


def polygamma_method(self, n: int):
    """``x.polygamma(n)``: ``polygamma(n, x)``."""
    return polygamma(n, self)


polygamma_method.__name__ = polygamma_method.__qualname__ = "polygamma"


i0_ = _in_place(i0, "i0_")
mvlgamma_ = _in_place(mvlgamma, "mvlgamma_")
polygamma_ = _in_place(polygamma_method, "polygamma_")
