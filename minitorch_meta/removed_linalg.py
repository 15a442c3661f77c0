"""The linear algebra functions PyTorch removed in 1.9 but still names (``torch.matrix_rank``,
``solve``, ``lstsq``, ``symeig``, ``eig`` and the Tensor methods of the last four): each
raises PyTorch's ``RuntimeError``, which says what replaces it. Also ``torch.lu`` and
``torch.lu_solve``, deprecated (with PyTorch's warnings) for ``linalg.lu_factor(_ex)`` and
``linalg.lu_solve``, which they call.
"""

from __future__ import annotations

from . import return_types as rt
from .caller_warnings import warn_at_caller
from .lu_functions import lu_factor_ex
from .lu_functions import lu_solve as _linalg_lu_solve
from .native_arguments import bool_argument

_REMOVED = "This function was deprecated since version 1.9 and is now removed."
_MESSAGES = {
    "matrix_rank": (f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. "
                    "The parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to "
                    "'hermitian'."),
    "solve": (f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. "
              "`torch.linalg.solve` has its arguments reversed and does not return the LU "
              "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used "
              "with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution "
              "should be replaced with:\nX = torch.linalg.solve(A, B)"),
    "lstsq": (f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
              "`torch.linalg.lstsq` has reversed arguments and does not return the QR "
              "decomposition in the returned tuple (although it returns other information "
              "about the problem).\n\nTo get the QR decomposition consider using "
              "`torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the "
              "residuals of the solution in the last m - n columns of the returned value "
              "whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
              "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as "
              "in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\n"
              "X = torch.linalg.lstsq(A, B).solution"),
    "symeig": (f"{_REMOVED} The default behavior has changed from using the upper triangular "
               "portion of the matrix by default to using the lower triangular portion.\n\n"
               "L, _ = torch.symeig(A, upper=upper) should be replaced with:\n"
               "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
               "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
               "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"),
    "eig": (f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or "
            "`cdouble` rather than real tensors mimicking complex tensors.\n\n"
            "L, _ = torch.eig(A) should be replaced with:\n"
            "L_complex = torch.linalg.eigvals(A)\n\nand\n\n"
            "L, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
            "L_complex, V_complex = torch.linalg.eig(A)"),
}


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed by PyTorch: raises, naming ``linalg.matrix_rank``."""
    raise RuntimeError(_MESSAGES["matrix_rank"])


def solve(input, A, *, out=None):  # noqa: N803 - PyTorch's name
    """Removed by PyTorch: raises, naming ``linalg.solve``."""
    raise RuntimeError(_MESSAGES["solve"])


def lstsq(input, A, *, out=None):  # noqa: N803 - PyTorch's name
    """Removed by PyTorch: raises, naming ``linalg.lstsq``."""
    raise RuntimeError(_MESSAGES["lstsq"])


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed by PyTorch: raises, naming ``linalg.eigh``/``eigvalsh``."""
    raise RuntimeError(_MESSAGES["symeig"])


def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed by PyTorch: raises, naming ``linalg.eig``/``eigvals``."""
    raise RuntimeError(_MESSAGES["eig"])


def lu(A, pivot: bool = True, get_infos: bool = False):  # noqa: N803 - PyTorch's name
    """``(LU, pivots)`` of ``linalg.lu_factor_ex`` (a plain tuple), and ``infos`` with
    ``get_infos`` (``torch.return_types._lu_with_info``). Deprecated by PyTorch, which warns.

    Shape:
        ``(*, m, n)`` -> ``(*, m, n)``, int32 ``(*, min(m, n))`` (and int32 ``(*)``).
    """
    bool_argument("_lu_with_info", "pivot", 2, pivot)  # an int is PyTorch's TypeError
    warn_at_caller("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                   "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release."
                   "\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
                   "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
                   "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be "
                   "replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
                   "compute_pivots)")
    factors = lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return rt.LuWithInfoResult(*factors)
    return factors.LU, factors.pivots


def lu_solve(input, LU_data, LU_pivots):  # noqa: N803 - PyTorch's names
    """``X`` with ``A X = input`` from ``A``'s ``lu_factor``: ``linalg.lu_solve`` with the
    arguments reversed. Deprecated by PyTorch, which warns.

    Shape:
        ``input`` ``(*, n, k)``, ``LU_data`` ``(*, n, n)``, ``LU_pivots`` ``(*, n)`` ->
        ``(*, n, k)``, batch broadcast.
    """
    warn_at_caller("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
                   "removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has "
                   "its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be "
                   "replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
    return _linalg_lu_solve(LU_data, LU_pivots, input)


__all__ = ["matrix_rank", "solve", "lstsq", "symeig", "eig", "lu", "lu_solve"]
