"""``torch.special``'s Bessel-family functions and classical orthogonal polynomials
(``special.bessel_j0``, ..., ``special.airy_ai``; ``special.chebyshev_polynomial_t``, ...,
``special.legendre_polynomial_p``): thin wrappers over the ops of ``ops/special_bessel.py``
and ``ops/orthogonal_polynomials.py``, checking their arguments' types with PyTorch's
``TypeError``s. ``special.py`` exports them.
"""

from __future__ import annotations

from numbers import Number

from .math_functions import _is_tensor
from .ops.orthogonal_polynomials import KINDS, OrthogonalPolynomial
from .ops.special_bessel import OPS


def _bessel(name: str):
    """``special.<name>(input)``: the op of that name on one tensor."""
    op_class = OPS[name]

    def function(input):  # noqa: A002 - PyTorch's name
        if not _is_tensor(input):
            raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}")
        return op_class()(input)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = op_class.__doc__
    return function


def _is_number(value) -> bool:
    return isinstance(value, Number) and not isinstance(value, complex)


def _polynomial(name: str):
    """``special.<name>(x, n)``: a tensor and a tensor or a number, either way round."""
    def function(x, n):
        if _is_tensor(x) and _is_tensor(n):
            return OrthogonalPolynomial(name)(x, n)
        if _is_tensor(x) and _is_number(n):
            return OrthogonalPolynomial(name, scalar=n, scalar_side=1)(x)
        if _is_number(x) and _is_tensor(n):
            return OrthogonalPolynomial(name, scalar=x, scalar_side=0)(n)
        raise TypeError(
            f"special_{name}() received an invalid combination of arguments - got "
            f"({type(x).__name__}, {type(n).__name__}), but expected one of: (Tensor x, "
            "Tensor n), (Number x, Tensor n) or (Tensor x, Number n)")
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"""The polynomial ``{name}`` of degree ``n`` (cut toward zero; 0 for a
    negative degree) at ``x``, as PyTorch computes it (``ops/orthogonal_polynomials.py``).

    Shape:
        ``x`` and ``n`` broadcast together; the output has the broadcast shape.
    """
    return function


BESSEL_NAMES = tuple(OPS)
POLYNOMIAL_NAMES = tuple(KINDS)
FUNCTIONS = {name: _bessel(name) for name in BESSEL_NAMES}
FUNCTIONS.update({name: _polynomial(name) for name in POLYNOMIAL_NAMES})
