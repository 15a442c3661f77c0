"""The top-level spellings of ``torch.linalg`` functions (``torch.inverse``, ``torch.det``,
``torch.svd``, ...), which are also Tensor methods; the older ones keep their own
conventions (``torch.svd`` returns ``V``, ``torch.cholesky`` is deprecated)."""

from __future__ import annotations

import math
from numbers import Number

from . import linalg
from . import return_types as rt
from .autocasting import autocast_op
from .caller_warnings import warn_at_caller
from .lu_functions import lu_unpack
from .matrix_functions import chain_matmul, matrix_power
from .native_arguments import bool_argument
from .ops.linalg_decompositions import LinalgCholeskyEx
from .ops.linalg_spectral import LinalgPinv


@autocast_op("inverse")
def inverse(input):
    """``linalg.inv``: the inverse of each square matrix."""
    return linalg.inv(input)


def det(input):
    """``linalg.det``: the determinant of each square matrix."""
    return linalg.det(input)


def slogdet(input):
    """``linalg.slogdet`` as ``torch.return_types.slogdet``: ``(sign, logabsdet)``."""
    return rt.SlogdetResult(*linalg.slogdet(input))


def logdet(input):
    """``log(det)`` of each square matrix: NaN where the determinant is negative, -inf where
    it is 0 (PyTorch's ``where(sign == -1, nan, logabsdet)``).

    Shape:
        ``(*, n, n)`` -> ``(*)``.
    """
    sign, logabsdet = linalg.slogdet(input)
    return logabsdet.where(sign >= 0, math.nan)


@autocast_op("pinverse")
def pinverse(input, rcond: float = 1e-15):
    """``linalg.pinv`` with ``rtol=rcond``, a number (or a 0-d tensor, as PyTorch's argument
    parser reads it).

    Shape:
        ``(*, m, n)`` -> ``(*, n, m)``.
    """
    if getattr(rcond, "ndim", None) == 0:
        rcond = rcond.item()
    if not isinstance(rcond, Number) or isinstance(rcond, complex):
        raise TypeError(f"pinverse(): argument 'rcond' must be float, not "
                        f"{type(rcond).__name__}")
    return LinalgPinv(rtol=rcond)(input)


def cholesky(input, upper: bool = False):
    """``linalg.cholesky`` under its older name (deprecated by PyTorch, which warns).

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)``.
    """
    warn_at_caller("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
                   "removed in a future PyTorch release. L = torch.cholesky(A) should be "
                   "replaced with L = torch.linalg.cholesky(A) and U = torch.cholesky(A, "
                   "upper=True) should be replaced with U = torch.linalg.cholesky(A).mH")
    op = LinalgCholeskyEx(upper=upper, check_errors=True, op_name="cholesky",
                          backward_name="CholeskyBackward0")
    return op(input)[0]


def svd(input, some: bool = True, compute_uv: bool = True):
    """``(U, S, V)`` with ``input = U diag(S) Vᵀ`` (``V``, not ``linalg.svd``'s ``Vh``);
    ``some`` keeps ``min(m, n)`` columns. Without ``compute_uv``, ``U`` and ``V`` are zeros
    ``(*, m, m)`` and ``(*, n, n)``, as PyTorch's.

    Shape:
        ``(*, m, n)``, ``k = min(m, n)`` -> ``U`` ``(*, m, k)``, ``S`` ``(*, k)``, ``V``
        ``(*, n, k)`` (``some=False``: ``(*, m, m)`` and ``(*, n, n)``).
    """
    bool_argument("svd", "some", 2, some)  # an int is PyTorch's TypeError
    bool_argument("svd", "compute_uv", 3, compute_uv)
    if not compute_uv:
        *batch, m, n = input.shape
        zeros = input.new_zeros
        return rt.SvdResult(zeros((*batch, m, m)), linalg.svdvals(input),
                            zeros((*batch, n, n)))
    u, s, vh = linalg.svd(input, full_matrices=not some)
    return rt.SvdResult(u, s, vh.mT)


def matrix_exp(input):
    """``linalg.matrix_exp``: the exponential of each square matrix."""
    return linalg.matrix_exp(input)


__all__ = ["chain_matmul", "cholesky", "det", "inverse", "logdet", "matrix_power", "pinverse",
           "slogdet", "svd", "matrix_exp", "lu_unpack"]
