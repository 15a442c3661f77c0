"""``minitorch_meta.linalg``: the part of ``torch.linalg`` we cover (``vector_norm``)."""

from __future__ import annotations

from .ops import norms


def vector_norm(x, ord: float = 2, dim=None, keepdim: bool = False, *, dtype=None):
    """``(sum |x|^ord) ^ (1/ord)`` over ``dim`` (None or empty: every element).

    ``ord`` is a real number: ``float('inf')`` gives ``max |x|``, ``-float('inf')``
    ``min |x|``, and ``0`` the count of nonzero elements. ``dtype`` casts ``x`` first.

    Shape:
        ``x``'s shape without the reduced dims (kept as 1 with ``keepdim``).
    """
    order = norms.vector_norm_order(ord)
    if dtype is not None:
        x = x.to(dtype)
    return norms.LinalgVectorNorm(ord=order, dim=dim, keepdim=keepdim)(x)


def cross(input, other, *, dim: int = -1):
    """The cross product of 3-vectors along ``dim``; the other dims broadcast.

    Shape:
        the inputs' broadcast shape (both have the same number of dims, and size 3 at
        ``dim``).
    """
    from .ops.cross import LinalgCross

    return LinalgCross(dim=dim)(input, other)


__all__ = ["vector_norm", "cross"]
