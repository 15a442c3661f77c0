"""``torch.linalg``'s LDL functions (``ldl_factor_ex``, ``ldl_factor``, ``ldl_solve``): the
symmetric indefinite factorisation with Bunch–Kaufman pivoting in LAPACK's format; the
ops are in ``ops/linalg_ldl.py``."""

from __future__ import annotations

from . import return_types as rt
from .ops.linalg_ldl import LinalgLdlFactorEx, LinalgLdlSolve


def ldl_factor_ex(A, *, hermitian: bool = False, check_errors: bool = False):  # noqa: N803
    """``(LD, pivots, info)``: ``A = P L D Lᵀ Pᵀ`` of the symmetric matrices held in ``A``'s
    lower triangle, compact as LAPACK's sytrf leaves it, and 0 or the first zero diagonal
    element of ``D`` (``check_errors`` raises instead). ``hermitian`` changes nothing for
    real matrices.

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)``, int32 ``(*, n)`` and int32 ``(*)``.
    """
    return rt.LinalgLdlFactorExResult(*LinalgLdlFactorEx(check_errors=check_errors)(A))


def ldl_factor(A, *, hermitian: bool = False):  # noqa: N803 - PyTorch's name
    """``(LD, pivots)`` of ``ldl_factor_ex``; RuntimeError where ``D`` is singular.

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)`` and int32 ``(*, n)``.
    """
    op = LinalgLdlFactorEx(check_errors=True, error_name="torch.linalg.ldl_factor")
    return rt.LinalgLdlFactorResult(*op(A)[:2])


def ldl_solve(LD, pivots, B, *, hermitian: bool = False):  # noqa: N803 - PyTorch's names
    """``X`` with ``A X = B`` from ``ldl_factor(A)``'s ``LD`` and ``pivots``.

    Shape:
        ``LD`` ``(*, n, n)``, ``pivots`` ``(*, n)``, ``B`` ``(*, n, k)`` -> ``(*, n, k)``,
        batch broadcast.
    """
    return LinalgLdlSolve()(LD, pivots, B)
