"""``isneginf``, ``isposinf`` and ``isreal``: elementwise questions about values, as bool
tensors of the input's shape (no gradient flows through a bool result).

``isreal`` is True everywhere for a real tensor, and where the imaginary part is 0 for a
complex one.
"""

from __future__ import annotations

from . import dtypes
from .functions import gt, lt
from .math_functions import isinf


def _require_tensor(name: str, input) -> None:
    from .tensor import Tensor

    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def isneginf(input):
    """Where ``input`` is minus infinity (never, for an integer or bool tensor)."""
    _require_tensor("isneginf", input)
    if input.dtype in dtypes.UNSIGNED_SHELL:  # all False; no lt kernel for them in PyTorch
        return isinf(input)
    return isinf(input).logical_and(lt(input, 0))


def isposinf(input):
    """Where ``input`` is plus infinity (never, for an integer or bool tensor)."""
    _require_tensor("isposinf", input)
    if input.dtype in dtypes.UNSIGNED_SHELL:  # all False; no gt kernel for them in PyTorch
        return isinf(input)
    return isinf(input).logical_and(gt(input, 0))


def isreal(input):
    """Where ``input``'s value is real: everywhere for a real tensor, where the imaginary
    part is 0 for a complex one."""
    from .factories import ones_like

    _require_tensor("isreal", input)
    if input.dtype.is_complex:
        return input.imag == 0
    return ones_like(input, dtype=dtypes.bool_)
