"""PyTorch's type-promotion questions asked directly: ``result_type``, ``promote_types`` and
``can_cast``. They answer with the rules every op already follows (``dtypes.promote``,
``promote_tensors``, ``scalar_result``), so an answer and an op's result never differ.
"""

from __future__ import annotations

from numbers import Number

from . import dtypes
from .tensor import Tensor


def result_type(tensor=None, other=None, *, scalar=None, scalar1=None,
                scalar2=None) -> dtypes.dtype:
    """The dtype of an arithmetic op between two operands (each a Tensor or a Python
    number): a 0-d tensor or a number widens a tensor with dimensions only when it is of a
    higher kind (bool < integer < float < complex), as in ``tensor + other``.

    The operands go positionally or by the names of PyTorch's overloads: ``(tensor,
    other)``, ``(scalar, tensor)``, ``(scalar1, scalar2)``; the answer does not depend on
    their order.

    Raises:
        TypeError: not two operands, or one that is neither a Tensor nor a number.
    """
    if scalar is None and scalar1 is None and scalar2 is None and other is not None:
        tensor1, tensor2 = tensor, other  # positional: the package's own calls, per step
    else:
        tensor1, tensor2 = _two_operands(tensor, other, scalar, scalar1, scalar2)
    if not all(isinstance(v, Tensor) or _is_number(v) for v in (tensor1, tensor2)):
        raise TypeError(f"result_type(): expected each argument to be a Tensor or a Number, "
                        f"got ({type(tensor1).__name__}, {type(tensor2).__name__})")
    if isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor):
        return dtypes.promote_tensors(tensor1.dtype, tensor1.dim() == 0,
                                      tensor2.dtype, tensor2.dim() == 0)
    if isinstance(tensor1, Tensor) or isinstance(tensor2, Tensor):
        tensor, number = (tensor1, tensor2) if isinstance(tensor1, Tensor) else (tensor2, tensor1)
        return dtypes.scalar_result(tensor.dtype, _python(number))
    return dtypes.promote(_number_dtype(_python(tensor1)), _number_dtype(_python(tensor2)))


def _two_operands(*given) -> list:
    operands = [v for v in given if v is not None]
    if len(operands) != 2:
        raise TypeError(f"result_type() takes two operands (tensor and other, scalar and "
                        f"tensor, or scalar1 and scalar2), got {len(operands)}")
    return operands


def promote_types(type1: dtypes.dtype, type2: dtypes.dtype) -> dtypes.dtype:
    """The smallest dtype both ``type1`` and ``type2`` convert to without losing their kind
    (``promote_types(int32, float16)`` is float16).

    Raises:
        TypeError: an argument is not a dtype.
    """
    _require_dtype("promote_types", "type1", 1, type1)
    _require_dtype("promote_types", "type2", 2, type2)
    return dtypes.promote(type1, type2)


def can_cast(from_: dtypes.dtype, to: dtypes.dtype) -> bool:
    """Whether PyTorch's casting rule allows ``from_`` -> ``to`` in ops with an ``out`` or
    in-place result: never to a lower kind (complex -> float, float -> integer, or anything
    but bool -> bool); a narrower type of the same or a higher kind is allowed (int64 ->
    uint8 is, complex128 -> complex64 too).

    Raises:
        TypeError: an argument is not a dtype.
    """
    _require_dtype("can_cast", "from_", 1, from_)
    _require_dtype("can_cast", "to", 2, to)
    return _kind(from_) <= _kind(to)


def _kind(d: dtypes.dtype) -> int:
    """bool < integer < floating point < complex."""
    if d.is_complex:
        return 3
    return 2 if d.is_floating_point else (0 if d is dtypes.bool_ else 1)


def _require_dtype(function: str, name: str, position: int, value) -> None:
    if not isinstance(value, dtypes.dtype):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                        f"torch.dtype, not {type(value).__name__}")


def _is_number(value) -> bool:
    return isinstance(value, Number)


def _python(number):
    """A NumPy scalar as the Python number it holds (the promotion rules read its type)."""
    return number.item() if hasattr(number, "item") else number


def _number_dtype(number) -> dtypes.dtype:
    """The dtype a lone Python number gets: bool, int64, the default float dtype, or for a
    complex number the default complex one."""
    if isinstance(number, bool):
        return dtypes.bool_
    if isinstance(number, int):
        return dtypes.int64
    if isinstance(number, complex):
        return dtypes.default_complex_dtype()
    return dtypes.get_default_dtype()
