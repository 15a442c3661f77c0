"""Complex conjugation: ``conj``, ``conj_physical``, ``resolve_conj``, ``resolve_neg``,
``is_conj`` and ``is_neg``.

As in PyTorch, conjugating a real tensor changes nothing: it is returned itself (no copy,
no graph node). A complex tensor's conjugate is a new tensor (``ops/complex_parts.Conj``):
PyTorch's ``conj`` is a lazy view carrying a "conjugate" bit, which tensors here never
carry, so ``is_conj`` is always False and ``resolve_conj`` has nothing to resolve
(docs/differences.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .ops.complex_parts import Conj

if TYPE_CHECKING:  # (tensor_methods.py imports this module: no import of tensor.py here)
    from .tensor import Tensor


def _real(op: str, input) -> Tensor:
    if not hasattr(input, "_data"):  # a Tensor
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input


def conj(input: Tensor) -> Tensor:
    """The complex conjugate (a copy here, PyTorch's is a view); a real tensor is its own,
    so ``input`` itself.

    Shape:
        unchanged.
    """
    if _real("conj", input).dtype.is_complex:
        return Conj()(input)
    return input


def conj_physical(input: Tensor) -> Tensor:
    """The conjugate, materialised (``ConjPhysicalBackward0``); for a real tensor
    ``input`` itself, as PyTorch.

    Shape:
        unchanged.
    """
    if _real("conj_physical", input).dtype.is_complex:
        return Conj(physical=True)(input)
    return input


def resolve_conj(input: Tensor) -> Tensor:
    """``input`` with a pending conjugation applied: none is ever pending here (``conj``
    copies), so ``input`` itself.

    Shape:
        unchanged.
    """
    return _real("resolve_conj", input)


def resolve_neg(input: Tensor) -> Tensor:
    """``input`` with a pending negation applied: none is ever pending here.

    Shape:
        unchanged.
    """
    return _real("resolve_neg", input)


def is_conj(input: Tensor) -> bool:
    """Whether ``input`` carries a lazy conjugation: never here (``conj`` copies)."""
    _real("is_conj", input)
    return False


def is_neg(input: Tensor) -> bool:
    """Whether ``input`` carries a lazy negation: never, for real tensors."""
    _real("is_neg", input)
    return False
