"""``isneginf``, ``isposinf`` and ``isreal``: elementwise questions about values, as bool
tensors of the input's shape (no gradient flows through a bool result).

``isreal`` is True everywhere for a real tensor, and where the imaginary part is 0 for a
complex one.
"""

from __future__ import annotations

from . import dtypes
from .functions import gt, lt
from .math_functions import isinf
from .tensor_arguments import require_tensor


def isneginf(input):
    """Where ``input`` is minus infinity (never, for an integer or bool tensor)."""
    require_tensor("isneginf", "input", input, 1)
    if input.dtype in dtypes.UNSIGNED_SHELL:  # all False; no lt kernel for them in PyTorch
        return isinf(input)
    return isinf(input).logical_and(lt(input, 0))


def isposinf(input):
    """Where ``input`` is plus infinity (never, for an integer or bool tensor)."""
    require_tensor("isposinf", "input", input, 1)
    if input.dtype in dtypes.UNSIGNED_SHELL:  # all False; no gt kernel for them in PyTorch
        return isinf(input)
    return isinf(input).logical_and(gt(input, 0))


def isreal(input):
    """Where ``input``'s value is real: everywhere for a real tensor, where the imaginary
    part is 0 for a complex one."""
    from .factories import ones_like

    require_tensor("isreal", "input", input, 1)
    if input.dtype.is_complex:
        return input.imag == 0
    return ones_like(input, dtype=dtypes.bool_)
