"""Module-level Bessel and gamma-family functions (``minitorch_meta.i0``, ``.polygamma``,
``.mvlgamma``, the ``torch.special`` spellings ``i0e``, ``i1``, ``i1e``, ``multigammaln``),
their Tensor methods (``x.polygamma(n)``, ``x.mvlgamma(p)``) and in-place forms (``i0_``,
``polygamma_``, ``mvlgamma_``).

Each is a thin wrapper over one op's ``Function`` (``ops/bessel.py``, ``ops/polygamma.py``);
the whole-number arguments ``n`` and ``p`` are checked here, with PyTorch's ``TypeError``.
"""

from __future__ import annotations

from .int_arguments import is_int
from .more_math_functions import _in_place, _unary
from .ops import bessel
from .ops.polygamma import Mvlgamma, Polygamma

i0 = _unary(bessel.I0, "i0", "The modified Bessel function of the first kind of order 0.")
i0e = _unary(bessel.I0e, "i0e", "``exp(-|x|) i0(x)``, the exponentially scaled ``i0``.")
i1 = _unary(bessel.I1, "i1", "The modified Bessel function of the first kind of order 1.")
i1e = _unary(bessel.I1e, "i1e", "``exp(-|x|) i1(x)``, the exponentially scaled ``i1``.")


def _whole(function: str, name: str, position: int, value) -> int:
    """``value`` when it is a Python int (not a bool), else PyTorch's TypeError."""
    if not is_int(value):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be int, "
                        f"not {type(value).__name__}")
    return value


def _polygamma(name: str):
    """``name(n, input)``: ``psi^(n)(input)``, ``name`` in the argument errors."""
    def function(n: int, input):  # noqa: A002 - PyTorch's name
        return Polygamma(_whole(name, "n", 1, n))(input)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = """``psi^(n)(input)``, the ``n``-th derivative of digamma (``n >= 0``
    whole).

    Shape:
        the output has the input's shape (float32 for an integer or bool input).
    """
    return function


def _mvlgamma(name: str, position: int):
    """``name(input, p)``: the multivariate log-gamma; ``p`` is argument ``position`` in
    the argument errors (2 for the function, 1 for the Tensor method)."""
    def function(input, p: int):  # noqa: A002 - PyTorch's name
        return Mvlgamma(_whole(name, "p", position, p))(input)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = """The log of the multivariate gamma function of dimension ``p >= 1``:
    ``p (p - 1) / 4 log(pi) + sum(lgamma(input - i/2), i < p)``.

    Shape:
        the output has the input's shape (float32 for an integer input).
    """
    return function


polygamma = _polygamma("polygamma")
special_polygamma = _polygamma("special_polygamma")
mvlgamma = _mvlgamma("mvlgamma", 2)
multigammaln = _mvlgamma("special_multigammaln", 2)
multigammaln.__name__ = multigammaln.__qualname__ = "multigammaln"


# -- Tensor methods ---------------------------------------------------------------------
def polygamma_method(self, n: int):
    """``x.polygamma(n)``: ``polygamma(n, x)``."""
    return polygamma(n, self)


polygamma_method.__name__ = polygamma_method.__qualname__ = "polygamma"
mvlgamma_method = _mvlgamma("mvlgamma", 1)
i0_ = _in_place(i0, "i0_")
mvlgamma_ = _in_place(_mvlgamma("mvlgamma_", 1), "mvlgamma_")
_polygamma_in_place = _polygamma("polygamma_")
polygamma_ = _in_place(lambda self, n: _polygamma_in_place(n, self), "polygamma_")
