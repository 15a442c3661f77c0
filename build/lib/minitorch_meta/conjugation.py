"""Complex conjugation for real tensors: ``conj``, ``conj_physical``, ``resolve_conj``,
``resolve_neg``, ``is_conj`` and ``is_neg``.

minitorch_meta has no complex dtypes, so, as PyTorch does for a real tensor, conjugating
changes nothing: each returns its input itself (no copy, no graph node), and no tensor
carries PyTorch's lazy "conjugate" or "negative" bits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (tensor_methods.py imports this module: no import of tensor.py here)
    from .tensor import Tensor


def _real(op: str, input) -> Tensor:
    if not hasattr(input, "_data"):  # a Tensor
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input


def conj(input: Tensor) -> Tensor:
    """The complex conjugate: a real tensor is its own, so ``input`` itself.

    Shape:
        unchanged.
    """
    return _real("conj", input)


def conj_physical(input: Tensor) -> Tensor:
    """The conjugate, materialised: for a real tensor ``input`` itself, as PyTorch.

    Shape:
        unchanged.
    """
    return _real("conj_physical", input)


def resolve_conj(input: Tensor) -> Tensor:
    """``input`` with a pending conjugation applied: none is ever pending here.

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
    """Whether ``input`` carries a lazy conjugation: never, for real tensors."""
    _real("is_conj", input)
    return False


def is_neg(input: Tensor) -> bool:
    """Whether ``input`` carries a lazy negation: never, for real tensors."""
    _real("is_neg", input)
    return False
