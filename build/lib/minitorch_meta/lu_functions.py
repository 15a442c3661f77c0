"""The LU functions of ``torch.linalg`` (``lu_factor``, ``lu_factor_ex``, ``lu``,
``lu_solve``) and ``torch.lu_unpack``; the ops are in ``ops/linalg_lu.py`` and
``ops/linalg_lu_solve.py``."""

from __future__ import annotations

from . import return_types as rt
from .ops.linalg_lu import LinalgLu, LinalgLuFactorEx, LuUnpack
from .ops.linalg_lu_solve import LinalgLuSolve
from .ops.matrix_arrays import split_result


def lu_factor_ex(A, *, pivot: bool = True, check_errors: bool = False):
    """``(LU, pivots, info)``: ``A = P L U`` packed (``L`` below the diagonal, with its unit
    diagonal left out, ``U`` on and above it), the 1-based row swaps (LAPACK's), and 0 or
    the first zero pivot of ``U`` (``check_errors`` raises instead).

    Shape:
        ``(*, m, n)`` -> ``(*, m, n)``, int32 ``(*, min(m, n))`` and int32 ``(*)``.
    """
    op = LinalgLuFactorEx(pivot=pivot, check_errors=check_errors)
    return rt.LinalgLuFactorExResult(*op(A))


def lu_factor(A, *, pivot: bool = True):
    """``(LU, pivots)`` of ``lu_factor_ex``; RuntimeError where ``U`` has a zero pivot.

    Shape:
        ``(*, m, n)`` -> ``(*, m, n)`` and int32 ``(*, min(m, n))``.
    """
    op = LinalgLuFactorEx(pivot=pivot, check_errors=True, error_name="torch.linalg.lu_factor")
    return rt.LinalgLuFactorResult(*op(A)[:2])


def lu(A, *, pivot: bool = True):
    """``(P, L, U)`` with ``A = P L U``: ``P`` a permutation matrix (empty with
    ``pivot=False``), ``L`` unit lower triangular, ``U`` upper triangular.

    Shape:
        ``(*, m, n)``, ``k = min(m, n)`` -> ``(*, m, m)``, ``(*, m, k)`` and ``(*, k, n)``.
    """
    op = LinalgLu(pivot=pivot)
    flat, p = op(A)
    return rt.LinalgLuResult(p, *split_result(flat, op.parts, op.backward_name))


def lu_unpack(LU_data, LU_pivots, unpack_data: bool = True,  # noqa: N803 - PyTorch's names
              unpack_pivots: bool = True):
    """``(P, L, U)`` of ``lu_factor``'s packed result; ``L`` and ``U`` are empty without
    ``unpack_data``, ``P`` without ``unpack_pivots``.

    Shape:
        ``(*, m, n)`` and ``(*, k)`` -> ``(*, m, m)``, ``(*, m, k)`` and ``(*, k, n)``.
    """
    op = LuUnpack(unpack_data=unpack_data, unpack_pivots=unpack_pivots)
    flat, p = op(LU_data, LU_pivots)
    if not unpack_data:
        return rt.LuUnpackResult(p, flat, flat.new_empty((0,)))
    return rt.LuUnpackResult(p, *split_result(flat, op.parts, op.backward_name))


def lu_solve(LU, pivots, B, *, left: bool = True, adjoint: bool = False):  # noqa: N803
    """``X`` with ``A X = B`` given ``lu_factor(A)``; ``Aᵀ X = B`` with ``adjoint``, and the
    right-hand systems ``X A = B`` / ``X Aᵀ = B`` when not ``left``.

    Shape:
        ``(*, n, n)``, ``(*, n)``, ``B`` ``(*, n, k)`` (``(*, k, n)`` when not ``left``) ->
        ``B``'s shape, batch broadcast.
    """
    return LinalgLuSolve(left=left, adjoint=adjoint)(LU, pivots, B)
