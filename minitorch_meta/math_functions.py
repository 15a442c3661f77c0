"""Module-level elementwise math (``minitorch_meta.sin``, ``.floor_divide``, ``.lerp``, ...).

Each is a thin wrapper over one op's ``Function`` (``ops/unary_math.py``,
``rounding.py``, ``logical.py``, ``division.py``, ``ternary.py``); the Tensor methods of
the same names are these functions, as in ``functions.py``.
"""

from __future__ import annotations

from numbers import Number

from .autocasting import autocast_op
from .functions import _find_tensor_type
from .functions import call_binary as _call
from .functions import pow as _pow
from .ops import division, logical, rounding, ternary, unary_math
from .tensor_arguments import require_tensors


def _is_tensor(value) -> bool:
    return isinstance(value, _find_tensor_type())


def _tensors(op: str, input, other) -> None:
    """As PyTorch's logical ops, take two Tensors (no number)."""
    require_tensors(op, ("input", input), ("other", other))


# -- unary math with floating-point results ------------------------------------------------
def sin(input):
    return unary_math.Sin()(input)


def cos(input):
    return unary_math.Cos()(input)


@autocast_op("log1p")
def log1p(input):
    """``log(1 + x)``, accurate for small ``x``."""
    return unary_math.Log1p()(input)


@autocast_op("expm1")
def expm1(input):
    """``exp(x) - 1``, accurate for small ``x``."""
    return unary_math.Expm1()(input)


@autocast_op("log2")
def log2(input):
    return unary_math.Log2()(input)


@autocast_op("log10")
def log10(input):
    return unary_math.Log10()(input)


@autocast_op("rsqrt")
def rsqrt(input):
    """``1 / sqrt(x)``."""
    return unary_math.Rsqrt()(input)


@autocast_op("reciprocal")
def reciprocal(input):
    """``1 / x`` (floating-point, also for integer input)."""
    return unary_math.Reciprocal()(input)


def square(input):
    """``x ** 2`` (as PyTorch: ``pow(x, 2)``, whose dtype rules and node it has)."""
    return _pow(input, 2)


# -- rounding and sign ---------------------------------------------------------------------
def floor(input):
    return rounding.Floor()(input)


def ceil(input):
    return rounding.Ceil()(input)


def trunc(input):
    """Rounded toward zero."""
    return rounding.Trunc()(input)


def round(input, *, decimals: int | None = None):  # noqa: A001 - PyTorch's name
    """Rounded to the nearest integer (halves to even), or to ``decimals`` decimal places."""
    return rounding.Round(decimals)(input)


def sign(input):
    """-1, 0 or 1 elementwise (0 for NaN)."""
    return rounding.Sign()(input)


# -- predicates, logic and bits ------------------------------------------------------------
def isnan(input):
    return logical.IsNan()(input)


def isinf(input):
    return logical.IsInf()(input)


def isfinite(input):
    return logical.IsFinite()(input)


def logical_not(input):
    return logical.LogicalNot()(input)


def logical_and(input, other):
    _tensors("logical_and", input, other)
    return logical.LogicalAnd()(input, other)


def logical_or(input, other):
    _tensors("logical_or", input, other)
    return logical.LogicalOr()(input, other)


def logical_xor(input, other):
    _tensors("logical_xor", input, other)
    return logical.LogicalXor()(input, other)


def bitwise_not(input):
    return logical.BitwiseNot()(input)


def bitwise_and(input, other):
    return _call("bitwise_and", logical.BitwiseAnd, input, other)


def bitwise_or(input, other):
    return _call("bitwise_or", logical.BitwiseOr, input, other)


def bitwise_xor(input, other):
    return _call("bitwise_xor", logical.BitwiseXor, input, other)


def invert(input):
    """``~input``: ``bitwise_not``, with the operator's ``TypeError`` for float tensors."""
    if input._dtype.is_floating_point:
        raise TypeError(f"~ (operator.invert) is only implemented on integer and Boolean-type "
                        f"tensors, got {input._dtype}; for a mask, compare first (~(x > 0))")
    return bitwise_not(input)


# -- rounded division and remainders -------------------------------------------------------
def floor_divide(input, other):
    """``input // other``: the quotient rounded toward minus infinity (no gradient)."""
    return _call("floor_divide", division.FloorDivide, input, other)


def remainder(input, other):
    """``input % other``, with the sign of ``other`` (Python's ``%``)."""
    return _call("remainder", division.Remainder, input, other)


def fmod(input, other):
    """C's remainder of ``input / other``, with the sign of ``input``."""
    return _call("fmod", division.Fmod, input, other, scalar_first=False)


# -- three operands ------------------------------------------------------------------------
def lerp(input, end, weight):
    """``input + weight * (end - input)``; ``weight`` is a number or a tensor."""
    require_tensors("lerp", ("input", input), ("end", end))
    if _is_tensor(weight):
        return ternary.Lerp()(input, end, weight)
    if weight is None:
        raise TypeError("lerp(): argument 'weight' (position 3) must be Number or Tensor, not "
                        "NoneType")
    return ternary.Lerp(weight)(input, end)


@autocast_op("addcmul")
def addcmul(input, tensor1, tensor2, *, value: Number = 1):
    """``input + value * tensor1 * tensor2``."""
    require_tensors("addcmul", ("input", input), ("tensor1", tensor1), ("tensor2", tensor2))
    return ternary.Addcmul(value)(input, tensor1, tensor2)


@autocast_op("addcdiv")
def addcdiv(input, tensor1, tensor2, *, value: Number = 1):
    """``input + value * tensor1 / tensor2``."""
    require_tensors("addcdiv", ("input", input), ("tensor1", tensor1), ("tensor2", tensor2))
    return ternary.Addcdiv(value)(input, tensor1, tensor2)
