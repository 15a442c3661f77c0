"""``minitorch_meta.linalg``: the part of ``torch.linalg`` we cover, on real float32/float64
matrices batched over leading dims (``eig``/``eigvals`` take and give complex ones too).

The factorisations are ops (``ops/linalg_*.py``); norms, powers, products, ``lstsq`` and
``matrix_rank`` are composed of ops in ``matrix_functions.py``. A matrix that is singular
or not positive-definite raises ``LinAlgError`` (a ``RuntimeError``), as PyTorch's.
"""

from __future__ import annotations

from . import dtypes as _dtypes
from . import linalg_tolerances as _tolerances
from . import out_argument as _out_argument
from . import return_types as rt
from .autocasting import autocast_op
from .errors import LinAlgError
from .lu_functions import lu, lu_factor, lu_factor_ex, lu_solve
from .matrix_functions import (
    lstsq,
    matrix_norm,
    matrix_power,
    matrix_rank,
    multi_dot,
    norm,
    vecdot,
)
from .matrix_functions import (
    norm_input as _norm_input,
)
from .ops import norms
from .ops.cross import LinalgCross
from .ops.linalg_decompositions import LinalgCholeskyEx
from .ops.linalg_determinant import LinalgDet, LinalgSlogdet
from .ops.linalg_eig import LinalgEig
from .ops.linalg_matrix_exp import LinalgMatrixExp
from .ops.linalg_solve import LinalgInvEx, LinalgSolveEx, LinalgSolveTriangular
from .ops.linalg_spectral import LinalgEigh, LinalgPinv, LinalgSvd
from .ops.matrix_arrays import split_result
from .ops.qr import LinalgQr


@autocast_op("linalg_vector_norm")
def vector_norm(x, ord: float = 2, dim=None, keepdim: bool = False, *, dtype=None):
    """``(sum |x|^ord) ^ (1/ord)`` over ``dim`` (None or empty: every element).

    ``ord`` is a real number: ``float('inf')`` gives ``max |x|``, ``-float('inf')``
    ``min |x|``, and ``0`` the count of nonzero elements. ``dtype`` casts ``x`` first.

    Shape:
        ``x``'s shape without the reduced dims (kept as 1 with ``keepdim``).
    """
    order = norms.vector_norm_order(ord)
    return norms.LinalgVectorNorm(ord=order, dim=dim, keepdim=keepdim)(
        _norm_input("linalg.vector_norm", x, dtype))


@autocast_op("linalg_cross")
def cross(input, other, *, dim: int = -1):
    """The cross product of 3-vectors along ``dim``; the other dims broadcast.

    Shape:
        the inputs' broadcast shape (both have the same number of dims, and size 3 at
        ``dim``).
    """
    return LinalgCross(dim=dim)(input, other)


@autocast_op("linalg_inv_ex")
def inv_ex(A, *, check_errors: bool = False):
    """``(inverse, info)``: each matrix's inverse and 0, or for a singular one the position
    of the LU's first zero pivot (its inverse is then NaN); ``check_errors`` raises instead.

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)`` and int32 ``(*)``.
    """
    return rt.LinalgInvExResult(*LinalgInvEx(check_errors=check_errors)(A))


@autocast_op("linalg_inv")
def inv(A):
    """The inverse of each square matrix; ``LinAlgError`` if one is singular.

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)``.
    """
    return LinalgInvEx(check_errors=True, op_name="linalg.inv")(A)[0]


def det(A):
    """The determinant of each square matrix.

    Shape:
        ``(*, n, n)`` -> ``(*)``.
    """
    return LinalgDet()(A)


def slogdet(A):
    """``(sign, logabsdet)``: ``det = sign * exp(logabsdet)``, without overflow.

    Shape:
        ``(*, n, n)`` -> two ``(*)``.
    """
    op = LinalgSlogdet()
    return rt.LinalgSlogdetResult(*split_result(op(A), op.parts, op.backward_name))


@autocast_op("linalg_solve")
def solve(A, B, *, left: bool = True):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``). ``B`` is a batch of vectors
    when 1-D or of ``A``'s shape without its last dim, else of matrices; batch dims
    broadcast. ``LinAlgError`` if ``A`` is singular.

    Shape:
        ``A`` ``(*, n, n)``, ``B`` ``(*, n, k)`` or ``(*, n)`` -> ``B``'s shape, batch
        broadcast.
    """
    return LinalgSolveEx(left=left)(A, B)[0]


def solve_triangular(A, B, *, upper: bool, left: bool = True, unitriangular: bool = False):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) for triangular ``A``: only its
    upper (``upper``) or lower triangle is read, its diagonal as ones with
    ``unitriangular``.

    Shape:
        ``A`` ``(*, n, n)``, ``B`` ``(*, n, k)`` (``(*, k, n)`` when not ``left``) -> ``B``'s
        shape, batch broadcast.
    """
    return LinalgSolveTriangular(upper=upper, left=left, unitriangular=unitriangular)(A, B)


@autocast_op("linalg_cholesky_ex")
def cholesky_ex(A, *, upper: bool = False, check_errors: bool = False):
    """``(L, info)``: the Cholesky factor and 0, or for a matrix that is not positive-definite
    the order of its first leading minor that is not; ``check_errors`` raises instead.

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)`` and int32 ``(*)``.
    """
    return rt.LinalgCholeskyExResult(*LinalgCholeskyEx(upper=upper,
                                                       check_errors=check_errors)(A))


@autocast_op("linalg_cholesky")
def cholesky(A, *, upper: bool = False):
    """``L`` lower triangular with ``A = L Lᵀ`` (``U = Lᵀ`` with ``upper``), read from the
    lower triangle of ``A``; ``LinAlgError`` if ``A`` is not positive-definite.

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)``.
    """
    return LinalgCholeskyEx(upper=upper, check_errors=True, op_name="linalg.cholesky")(A)[0]


@autocast_op("linalg_qr")
def qr(A, mode: str = "reduced"):
    """``(Q, R)`` with ``A = Q R``: ``mode`` ``'reduced'``, ``'complete'`` or ``'r'`` (``Q``
    empty).

    Shape:
        ``(*, m, n)``, ``k = min(m, n)`` -> ``Q`` ``(*, m, k)`` (complete: ``(*, m, m)``) and
        ``R`` ``(*, k, n)`` (complete: ``(*, m, n)``).
    """
    op = LinalgQr(mode=mode)
    return rt.LinalgQrResult(*split_result(op(A), op.parts, op.backward_name))


@autocast_op("linalg_eigh")
def eigh(A, UPLO: str = "L"):  # noqa: N803 - PyTorch's name
    """``(eigenvalues, eigenvectors)`` of each symmetric matrix, read from its lower
    (``UPLO='L'``) or upper triangle; the values ascending.

    Shape:
        ``(*, n, n)`` -> ``(*, n)`` and ``(*, n, n)``.
    """
    op = LinalgEigh(UPLO=UPLO)
    return rt.LinalgEighResult(*split_result(op(A), op.parts, op.backward_name))


@autocast_op("linalg_eigvalsh")
def eigvalsh(A, UPLO: str = "L"):  # noqa: N803 - PyTorch's name
    """The eigenvalues (ascending) of each symmetric matrix (see ``eigh``).

    Shape:
        ``(*, n, n)`` -> ``(*, n)``.
    """
    return LinalgEigh(UPLO=UPLO, values_only=True)(A)


@autocast_op("linalg_svd")
def svd(A, full_matrices: bool = True, *, driver=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, ``S`` descending. ``driver`` is CUDA-only
    (refused on the CPU, as PyTorch's) and its choice is ignored (one SVD kernel here).

    Shape:
        ``(*, m, n)``, ``k = min(m, n)`` -> ``U`` ``(*, m, m)``, ``S`` ``(*, k)``, ``Vh``
        ``(*, n, n)``; with ``full_matrices=False``, ``(*, m, k)`` and ``(*, k, n)``.
    """
    _check_svd_driver(A, driver)
    op = LinalgSvd(full_matrices=full_matrices)
    return rt.LinalgSvdResult(*split_result(op(A), op.parts, op.backward_name))


@autocast_op("linalg_svdvals")
def svdvals(A, *, driver=None):
    """The singular values of each matrix, descending.

    Shape:
        ``(*, m, n)`` -> ``(*, min(m, n))``.
    """
    _check_svd_driver(A, driver)
    return LinalgSvd(values_only=True)(A)


_SVD_DRIVERS = ("gesvd", "gesvdj", "gesvda")


def _check_svd_driver(A, driver) -> None:
    """PyTorch's checks of ``svd``'s ``driver``: none on the CPU, one of cuSOLVER's on
    CUDA (meta takes any, as PyTorch's meta kernel)."""
    if driver is None or A.device.type == "meta":
        return
    if A.device.type == "cpu":
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    if driver not in _SVD_DRIVERS:
        raise RuntimeError(f"torch.linalg.svd: unknown svd driver {driver} in svd_cusolver "
                           f"computation. Available options are: {', '.join(_SVD_DRIVERS)}")


def pinv(A, rcond=_tolerances.UNSET, hermitian: bool = False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse: singular values at most ``max(atol, rtol * largest)``
    count as zero (defaults: ``atol`` 0, ``rtol`` ``eps * max(m, n)``, or 0 where a positive
    ``atol`` is given). ``hermitian`` uses the symmetric eigendecomposition (lower triangle).
    PyTorch's older overload ``pinv(A, rcond)`` is ``rtol=rcond`` with ``atol`` 0. The
    tolerances are numbers or tensors; tensors broadcast against ``A``'s batch dimensions
    (see ``linalg_tolerances.py``).

    Shape:
        ``(*, m, n)`` -> ``(*, n, m)``, where ``*`` is ``A``'s batch broadcast with the
        shapes of tolerance tensors.
    """
    atol, rtol = _tolerances.resolve("pinv", A, rcond, atol, rtol, hermitian)
    if not _tolerances.is_tensor(atol):
        return LinalgPinv(atol=atol, rtol=rtol, hermitian=hermitian)(A)
    _tolerances.refuse_gradient(atol, rtol)
    if A.numel() == 0:  # PyTorch's empty result keeps A's batch, whatever the tolerances
        return LinalgPinv(hermitian=hermitian)(A)
    batch = _tolerances.batch("pinv", A, atol, rtol)
    if batch != tuple(A.shape[:-2]):
        A = A.expand(batch + tuple(A.shape[-2:]))  # (its backward sums the batch back)
    return LinalgPinv(hermitian=hermitian)(A, atol.to(_dtypes.float64), rtol.to(_dtypes.float64))


def solve_ex(A, B, *, left: bool = True, check_errors: bool = False):
    """``(result, info)``: ``solve``'s ``X`` and ``info`` of ``A`` (0, or where its LU met a
    zero pivot; ``X`` is then NaN); ``check_errors`` raises for a singular ``A`` instead.

    Shape:
        as ``solve``'s, and int32 ``(*)`` of ``A``'s batch.
    """
    return rt.LinalgSolveExResult(*LinalgSolveEx(left=left, check_errors=check_errors,
                                                 error_name="torch.linalg.solve_ex")(A, B))


def matrix_exp(A):
    """The matrix exponential ``sum_k A^k / k!`` of each square matrix.

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)``.
    """
    return LinalgMatrixExp()(A)


def eig(A):  # noqa: N803 - PyTorch's name
    """``(eigenvalues, eigenvectors)`` of each square matrix, complex (``complex64`` for
    float32 input, ``complex128`` for float64), the vectors as unit-norm columns:
    ``A V = V diag(eigenvalues)``. Each vector is defined up to a factor ``e^{iφ}``, so only
    a loss that does not depend on it has a gradient (``abs(V)``, the values...).

    Shape:
        ``(*, n, n)`` -> ``(*, n)`` and ``(*, n, n)``.
    """
    op = LinalgEig()
    return rt.LinalgEigResult(*split_result(op(A), op.parts, op.backward_name))


def eigvals(A):  # noqa: N803 - PyTorch's name
    """The eigenvalues of each square matrix, complex (see ``eig``).

    Shape:
        ``(*, n, n)`` -> ``(*, n)``.
    """
    return LinalgEig(values_only=True, op_name="linalg.eigvals")(A)


from .householder import householder_product  # noqa: E402
from .ldl_functions import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: E402
from .linalg_extras import cond, diagonal, matmul, tensorinv, tensorsolve, vander  # noqa: E402

# PyTorch's ``out=`` keyword on the functions that have it (out_argument.py)
_out_argument.give_out_keyword(globals(), _out_argument.LINALG_FUNCTIONS_WITH_OUT,
                               _out_argument.LINALG_EXACT_DTYPE, prefix="linalg.")

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "eigh", "eigvalsh", "inv",
           "inv_ex", "lstsq", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm",
           "pinv", "qr", "slogdet", "solve", "solve_triangular", "svd", "svdvals", "vecdot",
           "vector_norm", "matrix_exp", "solve_ex", "lu_factor", "lu_factor_ex", "lu",
           "lu_solve", "householder_product", "cond", "diagonal", "matmul", "tensorinv",
           "tensorsolve", "vander", "ldl_factor", "ldl_factor_ex", "ldl_solve", "eig", "eigvals"]
