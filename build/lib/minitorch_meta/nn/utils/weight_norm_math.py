"""The weight-normalisation formula shared by ``nn.utils.weight_norm`` (hooks) and
``nn.utils.parametrizations.weight_norm``: ``w = g * v / ||v||``, the norm taken over every
dim of ``v`` except ``dim`` (PyTorch's ``norm_except_dim`` and ``_weight_norm``).

``dim=-1`` means "no dim kept": one norm over the whole tensor (PyTorch's meaning, which
``weight_norm(dim=None)`` maps to).
"""

from __future__ import annotations

from ...linalg import vector_norm
from ...ops.shapes import normalize_dim
from ...tensor import Tensor

WHOLE_TENSOR = -1


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dim but ``dim``, kept with size 1 (``dim=-1``:
    the norm of all of ``v``, 0-d).

    Shape:
        ``v``'s shape with every dim but ``dim`` of size 1; ``()`` for ``dim=-1``.

    Raises:
        IndexError: ``dim`` out of range.
    """
    if dim == WHOLE_TENSOR:
        return vector_norm(v, pow)
    kept = normalize_dim("norm_except_dim", dim, v.dim())
    reduced = tuple(d for d in range(v.dim()) if d != kept)
    if not reduced:
        return v.abs()  # the norm of one value; an empty ``dim`` would mean "all" to norm
    return vector_norm(v, pow, dim=reduced, keepdim=True)


def weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * (g / norm_except_dim(v, 2, dim))``: ``v``'s direction with ``g``'s magnitude.

    Shape:
        ``v``'s shape (``g`` broadcasts: the shape ``norm_except_dim`` gives).
    """
    return v * (g / norm_except_dim(v, 2, dim))
