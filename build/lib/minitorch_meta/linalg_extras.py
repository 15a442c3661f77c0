"""``linalg.vander``, ``linalg.cond``, ``linalg.tensorinv``, ``linalg.tensorsolve`` and the
aliases ``linalg.diagonal``/``linalg.matmul``: composed of other ops step for step as
PyTorch composes them, so that values, gradients, ``grad_fn`` names and errors follow.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from . import dtypes, factories
from .householder import named_as
from .ops import linalg_checks as checks
from .ops.linalg_solve import LinalgInvEx

if TYPE_CHECKING:
    from .tensor import Tensor

_VANDER_TYPES = (dtypes.float32, dtypes.float64, dtypes.uint8, dtypes.int8, dtypes.int16,
                 dtypes.int32, dtypes.int64)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:  # noqa: N803 - PyTorch's name
    """The Vandermonde matrix of the last dim of ``x``: columns ``1, x, x², ...,
    x^(N-1)`` (increasing powers, unlike ``torch.vander``); integer inputs give int64.

    Shape:
        ``(*, n)`` (or 0-d, as ``(1,)``) -> ``(*, n, N)``, ``N`` defaulting to ``n``.

    Raises:
        RuntimeError for a bool or half-precision ``x``, or ``N`` below 2.
    """
    if x.dtype not in _VANDER_TYPES:
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {checks.type_name(x.dtype)}")
    if x.dim() == 0:
        x = x.unsqueeze(-1)
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError(f"N must be greater than 1, but got N={n}.")
    # the powers 1.. N-1 as running products of x, after a column of ones (PyTorch's)
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    from .functions import cat

    return cat([powers.new_ones((*x.shape, 1)), powers], -1)


def _ord_text(ord) -> str:
    """``ord`` as PyTorch prints it in ``linalg.cond``'s messages (C++'s ``to_string``)."""
    if isinstance(ord, str):
        return ord
    if isinstance(ord, float):
        return str(ord) if math.isinf(ord) else f"{ord:.6f}"
    return str(ord)


def cond(A: Tensor, p=None) -> Tensor:
    """The condition number of each matrix in the norm ``p``: ``None``/``2`` (largest over
    smallest singular value), ``-2`` (its inverse), or ``'fro'``, ``'nuc'``, ``inf``,
    ``-inf``, ``1``, ``-1`` (``norm(A) * norm(A⁻¹)``, square matrices only; ``inf`` for a
    singular one). An empty matrix gives 0.

    Shape:
        ``(*, m, n)`` -> ``(*)``.

    Raises:
        RuntimeError for fewer than 2 dims, another ``p``, or a non-square matrix with a
        ``p`` that needs the inverse.
    """
    from .linalg import inv_ex, matrix_norm, svdvals

    if isinstance(p, str):
        checks.square_shape(f"linalg.cond(ord={p})", A)
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
        if A.numel() == 0:
            return _empty_cond(A)
        if p == "nuc":  # the definition, as PyTorch (matrix_norm refuses infinities)
            values = svdvals(A)
            return values.sum(-1) * values.reciprocal().sum(-1)
        return _norm_times_inverse_norm(A, p, inv_ex, matrix_norm)
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    order = 2 if p is None else p
    if abs(order) not in (1, 2, math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {float(order):g}")
    if A.numel() == 0:
        return _empty_cond(A)
    if abs(order) == 2:
        values = svdvals(A)
        largest, smallest = values[..., :1], values[..., -1:]
        ratio = smallest / largest if order == -2 else largest / smallest
        return ratio.squeeze(-1)
    checks.square_shape(f"linalg.cond(ord={_ord_text(order)})", A)
    return _norm_times_inverse_norm(A, order, inv_ex, matrix_norm)


def _empty_cond(A: Tensor) -> Tensor:
    return factories.zeros(tuple(A.shape[:-2]), dtype=A.dtype, device=A.device)


def _norm_times_inverse_norm(A: Tensor, ord, inv_ex, matrix_norm) -> Tensor:
    inverse, info = inv_ex(A)
    inverse = inverse.masked_fill((info > 0).unsqueeze(-1).unsqueeze(-1), math.inf)
    result = matrix_norm(A, ord) * matrix_norm(inverse, ord)
    # 0 * inf is NaN; NumPy's (and PyTorch's) condition number is inf there
    return result.nan_to_num(math.inf, math.inf, -math.inf)


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of ``A`` for ``tensordot(A, ., ind)``: ``A`` read as a square matrix of
    ``prod(shape[:ind])`` rows, inverted, and given the shape ``shape[ind:] + shape[:ind]``.

    Shape:
        ``(*a, *b)`` with ``len(a) == ind`` and ``prod(a) == prod(b)`` -> ``(*b, *a)``.

    Raises:
        RuntimeError for ``ind <= 0`` or products that differ; ``LinAlgError`` if the
        matrix is singular.
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    head, tail = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    rows, columns = math.prod(head), math.prod(tail)
    if rows != columns:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {columns} != {rows}")
    inverse = LinalgInvEx(check_errors=True, op_name="inv")(A.reshape(columns, columns))[0]
    # PyTorch's reshape of the contiguous inverse is an alias: its node's name
    return named_as(inverse.reshape(tail + head), "ReshapeAliasBackward0")


def tensorsolve(A: Tensor, B: Tensor, dims=None) -> Tensor:
    """``X`` with ``tensordot(A, X, X.ndim) == B``: ``dims`` of ``A`` are moved to its end
    first, then ``A`` is read as a square matrix of ``B.numel()`` rows.

    Shape:
        ``A`` ``(*B.shape, *X.shape)`` (after moving ``dims``), ``B`` -> ``X``.

    Raises:
        RuntimeError if ``prod(A.shape[B.ndim:]) != B.numel()``; ``linalg.solve``'s errors.
    """
    from .linalg import solve

    if dims is not None:
        dims = list(dims)
        A = A.movedim(dims, list(range(A.dim() - len(dims), A.dim())))
    result_shape = tuple(A.shape[B.dim():])
    size, count = math.prod(result_shape), B.numel()
    if size != count:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape["
                           f"other.ndim:]) == prod(self.shape[:other.ndim]), but got {size} "
                           f"!= {count}")
    return solve(A.reshape(size, size), B.flatten()).view(result_shape)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``torch.diagonal`` with the matrix dims last by default (a view)."""
    from .layout_functions import diagonal as _diagonal

    return _diagonal(A, offset, dim1, dim2)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """``torch.matmul``."""
    from .functions import matmul as _matmul

    return _matmul(input, other)
