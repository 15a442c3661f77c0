"""Bit shifts, divisors and float steps: ``bitwise_left_shift``/``bitwise_right_shift``,
``gcd``/``lcm``, ``nextafter``, ``frexp``, ``ldexp``; also ``dist`` and
``Tensor.sum_to_size``, and the in-place forms (``gcd_``, ``ldexp_``, ...).

Each is a thin wrapper over one op (``ops/bit_shifts.py``, ``ops/gcd_lcm.py``,
``ops/float_steps.py``) or a composition of existing ones, named as PyTorch's last node.
"""

from __future__ import annotations

import math

from . import dtypes
from .functions import _composed, _find_tensor_type, sub
from .functions import call_binary as _call
from .functions import exp as _exp
from .functions import mul as _mul
from .functions import pow as _pow
from .math_functions import _tensors
from .more_math_functions import _in_place
from .ops import bit_shifts, float_steps, gcd_lcm
from .return_types import FrexpResult


def bitwise_left_shift(input, other):
    """``input << other`` elementwise: integers (tensors or a number), PyTorch's results for
    shifts outside ``[0, bits)`` (0)."""
    return _call("bitwise_left_shift", bit_shifts.LeftShift, input, other)


def bitwise_right_shift(input, other):
    """``input >> other`` elementwise, arithmetic (the sign fills in): integers (tensors or a
    number); a shift of ``bits`` or more gives 0 or -1 by the sign, as PyTorch."""
    return _call("bitwise_right_shift", bit_shifts.RightShift, input, other)


def gcd(input, other):
    """The greatest common divisor of integer tensors, elementwise (non-negative)."""
    _tensors("gcd", input, other)
    return gcd_lcm.Gcd()(input, other)


def lcm(input, other):
    """The least common multiple of integer tensors, elementwise (non-negative)."""
    _tensors("lcm", input, other)
    return gcd_lcm.Lcm()(input, other)


def nextafter(input, other):
    """The next float after ``input`` towards ``other``, elementwise (floating tensors)."""
    _tensors("nextafter", input, other)
    return float_steps.Nextafter()(input, other)


def frexp(input) -> FrexpResult:
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, ``|mantissa|`` in
    [0.5, 1) and an int32 exponent (``torch.return_types.frexp``)."""
    if not isinstance(input, _find_tensor_type()):
        raise TypeError(f"frexp(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return FrexpResult(*float_steps.Frexp()(input))


def ldexp(input, other):
    """``input * 2 ** other`` (tensors), as PyTorch composes it: ``2 ** other`` in
    ``other``'s dtype when it is floating or complex (a real ``other`` beside a complex
    ``input`` takes their promoted dtype, an integer one ``input``'s floating dtype, else the
    default dtype), then multiplied with promotion; ``grad_fn`` reads ``LdexpBackward0``.

    Raises:
        NotImplementedError: a bool ``other`` beside a floating ``input`` (PyTorch's CPU
            kernel has no such case).
    """
    _tensors("ldexp", input, other)
    if other.dtype is dtypes.bool_ and input.is_floating_point():
        raise NotImplementedError(f"ldexp: a bool exponent beside a {input.dtype} input is "
                                  "not implemented (as in PyTorch); convert it, e.g. with "
                                  ".int()")
    if input.is_complex() and not other.is_complex():
        other = other.to(dtypes.promote(input.dtype, other.dtype))
    elif not (other.is_floating_point() or other.is_complex()):
        other = other.to(input.dtype if input.is_floating_point()
                         else dtypes.get_default_dtype())
    # A complex exponent: 2 ** z = exp(z log 2), as pow takes no complex tensor exponent.
    scale = _exp(_mul(other, _LOG_2)) if other.is_complex() else _pow(2.0, other)
    return _composed(_mul(input, scale), "LdexpBackward0", input, other)


_LOG_2 = math.log(2.0)


def dist(input, other, p: float = 2):
    """The ``p``-norm of ``input - other`` (broadcast), a 0-d tensor; ``grad_fn`` reads
    ``DistBackward0``."""
    _tensors("dist", input, other)
    difference = sub(input, other)
    if difference.is_complex():  # the norm of complex values is that of their moduli
        difference = difference.abs()
    elif not difference.is_floating_point():
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {dtypes.SCALAR_TYPE_NAMES[difference.dtype]} instead (dist "
                           "measures floats; convert first, e.g. with .float())")
    return _composed(difference.norm(p=p), "DistBackward0", input, other)


def sum_to_size(self, *size):
    """``self`` summed down to ``size`` (a shape ``self`` can be expanded from): each dim of
    size 1 in ``size`` where ``self``'s is larger, and each leading dim ``size`` lacks, is
    summed; ``self`` itself when the shapes are equal."""
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s not in (1, n) for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size "
                           f"{{{list(shape)}}}. (sum_to_size sums dims down to 1 and drops "
                           "leading dims: each size must be 1 or the tensor's own)")
    if size == shape:
        return self
    dims = tuple(range(lead)) + tuple(lead + i for i, (s, n) in enumerate(
        zip(size, shape[lead:])) if s == 1 and n != 1)
    summed = self.sum(dim=dims, keepdim=True) if dims else self
    return summed.view(size) if lead else summed


# -- in-place forms -------------------------------------------------------------------------
bitwise_left_shift_ = _in_place(bitwise_left_shift, "bitwise_left_shift_")
bitwise_right_shift_ = _in_place(bitwise_right_shift, "bitwise_right_shift_")
gcd_ = _in_place(gcd, "gcd_")
lcm_ = _in_place(lcm, "lcm_")
ldexp_ = _in_place(ldexp, "ldexp_")
nextafter_ = _in_place(nextafter, "nextafter_")
