"""The top-level linear algebra names PyTorch keeps beside ``torch.linalg``:
``cholesky_solve``, ``cholesky_inverse``, ``triangular_solve``, ``qr``, ``orgqr``,
``ormqr``, ``adjoint`` (and ``Tensor.mH``/``Tensor.H``), ``nuclear_norm`` and
``frobenius_norm``. Each is the ``linalg`` function or op it stands for, with PyTorch's
signature, result type, ``grad_fn`` name and deprecation warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import linalg
from . import return_types as rt
from .autograd.graph_node import show_as_op
from .caller_warnings import warn_at_caller
from .householder import named_as, orgqr, ormqr
from .native_arguments import bool_argument
from .ops import linalg_checks as checks
from .ops.cholesky_solve import CholeskyInverse, CholeskySolve
from .tensor_arguments import require_tensors

if TYPE_CHECKING:
    from .tensor import Tensor


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """``A⁻¹ B`` for ``B = input`` and ``A = L Lᵀ`` (``Uᵀ U`` with ``upper``), ``input2``
    being the Cholesky factor (only its triangle is read).

    Shape:
        ``B`` ``(*, n, k)``, factor ``(*, n, n)`` -> ``(*, n, k)``, batch broadcast.
    """
    return CholeskySolve(upper=upper)(input, input2)


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    """``A⁻¹`` for ``A = L Lᵀ`` (``Uᵀ U`` with ``upper``), ``input`` being the factor.

    Shape:
        ``(*, n, n)`` -> ``(*, n, n)``.
    """
    return CholeskyInverse(upper=upper)(input)


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True,  # noqa: N803 - torch's
                     transpose: bool = False, unitriangular: bool = False):
    """``(solution, cloned_coefficient)``: ``X`` with ``A X = input`` (``Aᵀ X = input`` with
    ``transpose``) for triangular ``A``, and a copy of ``A`` (broadcast to the batch).
    Deprecated by PyTorch for ``linalg.solve_triangular``, which warns.

    Shape:
        ``input`` ``(*, n, k)``, ``A`` ``(*, n, n)`` -> ``(*, n, k)`` and ``(*, n, n)``, batch
        broadcast.
    """
    require_tensors("triangular_solve", ("input", input), ("A", A))
    warn_at_caller("torch.triangular_solve is deprecated in favor of "
                   "torch.linalg.solve_triangular and will be removed in a future PyTorch "
                   "release. torch.linalg.solve_triangular has its arguments reversed and "
                   "does not return a copy of one of the inputs. X = torch.triangular_solve(B, "
                   "A).solution should be replaced with X = torch.linalg.solve_triangular(A, B).")
    op = "torch.triangular_solve"
    for name, t in (("b", input), ("A", A)):
        if t.dim() < 2:
            raise RuntimeError(f"{op}: Expected {name} to have at least 2 dimensions, but it "
                               f"has {t.dim()} dimensions instead")
    if input.dtype is not A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{checks.type_name(input.dtype)} and A of type "
                           f"{checks.type_name(A.dtype)} instead.")
    a_shape, b_shape = tuple(A.shape), tuple(input.shape)
    if a_shape[-1] != a_shape[-2]:
        raise checks.ShapeRuntimeError("triangular_solve", f"A must be batches of square "
                                       f"matrices, but they are {a_shape[-2]} by {a_shape[-1]} "
                                       "matrices")
    if a_shape[-1] != b_shape[-2]:
        raise checks.ShapeRuntimeError("triangular_solve", f"Incompatible matrix sizes for "
                                       f"triangular_solve: each A matrix is {a_shape[-2]} by "
                                       f"{a_shape[-1]} but each b matrix is {b_shape[-2]} by "
                                       f"{b_shape[-1]}")
    batch = checks.batch_broadcast(op, b_shape[:-2], a_shape[:-2])
    matrix = A.mT if transpose else A
    # Aᵀ's triangle is the other one
    solution = linalg.solve_triangular(matrix, input, upper=upper != transpose,
                                       unitriangular=unitriangular)
    coefficient = A.expand(*batch, *a_shape[-2:]).clone()
    result = rt.TriangularSolveResult(solution, coefficient)
    # PyTorch's one node with two outputs, its edges to ``input`` then ``A``
    show_as_op(result, "TriangularSolveBackward0", (input, A))
    return result


def qr(input: Tensor, some: bool = True):
    """``(Q, R)`` of ``linalg.qr`` with mode ``'reduced'`` (``some``) or ``'complete'``.
    Deprecated by PyTorch, which warns.

    Shape:
        ``(*, m, n)``, ``k = min(m, n)`` -> ``(*, m, k)`` and ``(*, k, n)`` (``some=False``:
        ``(*, m, m)`` and ``(*, m, n)``).
    """
    bool_argument("qr", "some", 2, some)  # an int is PyTorch's TypeError
    warn_at_caller("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in "
                   "a future PyTorch release. The boolean parameter 'some' has been replaced "
                   "with a string parameter 'mode'. Q, R = torch.qr(A, some) should be replaced "
                   "with Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
    return rt.QrResult(*linalg.qr(input, "reduced" if some else "complete"))


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of each matrix; for real tensors, ``mT`` (a view; a complex
    one is a copy here, as ``conj``).

    Shape:
        ``(*, m, n)`` -> ``(*, n, m)``.
    """
    return _conj(_matrix_transpose(input, "tensor.adjoint()", "adjoint()"))


def mH(input: Tensor) -> Tensor:  # noqa: N802 - PyTorch's name
    """``Tensor.mH``: ``adjoint``."""
    return _conj(_matrix_transpose(input, "tensor.mH", "Tensor.mH"))


def _conj(matrix: Tensor) -> Tensor:
    """The conjugate of a complex tensor; a real one itself (no copy)."""
    return matrix.conj() if matrix.is_complex() else matrix


def H(input: Tensor) -> Tensor:  # noqa: N802 - PyTorch's name
    """``Tensor.H``: the conjugate transpose of a matrix (a 0-d tensor is itself, with
    PyTorch's deprecation warning).

    Shape:
        ``(m, n)`` -> ``(n, m)``.
    """
    if input.dim() == 0:
        warn_at_caller("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return _conj(input)
    if input.dim() != 2:
        batches = ". For batches of matrices, consider using tensor.mH" if input.dim() > 2 else None
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{input.dim()}-D tensor{batches or '.'}")
    return _conj(input.transpose(-2, -1))


def _matrix_transpose(input: Tensor, name: str, short_name: str) -> Tensor:
    """The transpose of each matrix; a 0-d tensor is itself, with PyTorch's warning."""
    if input.dim() == 0:
        warn_at_caller(f"{short_name} is deprecated on 0-D tensors. Consider using x.conj().")
        return input
    if input.dim() < 2:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got "
                           f"{input.dim()}-D tensor.")
    return input.transpose(-2, -1)


def nuclear_norm(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """``linalg.matrix_norm(input, 'nuc', dim, keepdim)`` (``dim`` defaults to the last
    two; ``nuclear_norm(x, True)`` is ``keepdim``, PyTorch's other overload). Deprecated by
    PyTorch, which warns.

    Shape:
        ``input`` without the two dims (kept as 1 with ``keepdim``).
    """
    warn_at_caller("at::nuclear_norm is deprecated and it is just left for JIT compatibility. "
                   "It will be removed in a future PyTorch release. Please use "
                   "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def frobenius_norm(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """The square root of the sum of squares over ``dim`` (at most two dims). Deprecated by
    PyTorch, which warns.

    Shape:
        ``input`` without ``dim`` (kept as 1 with ``keepdim``).
    """
    warn_at_caller("at::frobenius_norm is deprecated and it is just left for JIT "
                   "compatibility. It will be removed in a future PyTorch release. Please use "
                   "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions "
                           "instead.")
    if not input.is_floating_point():
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {checks.type_name(input.dtype)} instead.")
    return named_as(linalg.vector_norm(input, 2, dims, keepdim), "NormBackward1")


__all__ = ["cholesky_solve", "cholesky_inverse", "triangular_solve", "qr", "orgqr", "ormqr",
           "adjoint", "nuclear_norm", "frobenius_norm"]
