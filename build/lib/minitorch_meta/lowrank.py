"""Randomised low-rank SVD and PCA: ``torch.svd_lowrank`` and ``torch.pca_lowrank``.

Halko, Martinsson and Tropp's range finder (2009, algorithms 4.4 and 5.1), as PyTorch
runs it: a Gaussian sketch ``A @ R`` of ``q`` columns, made orthonormal by QR, refined by
``niter`` power iterations (each re-orthonormalised, so small singular values are not
lost to rounding), then the exact SVD of the small projection ``Q^H A``. Everything is
composed of differentiable ops (``matmul``, ``linalg.qr``, ``linalg.svd``), so gradients,
batches and the meta device come from those ops' own rules.

The sketch draws from the global generator (``manual_seed`` makes results repeatable), so
its numbers differ from PyTorch's; on a matrix of rank at most ``q`` both give ``A``
back exactly, with the same singular values.
"""

from __future__ import annotations

from . import dtypes, linalg
from .errors import ShapeError
from .factories import randn
from .functions import matmul
from .tensor import Tensor

#: the dtypes the sketch keeps; any other input is sketched in float32, as PyTorch does
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2,
                M: Tensor | None = None) -> tuple:
    """An approximate SVD ``(U, S, V)`` of ``A`` (of ``A - M`` with ``M``), ``A ≈ U
    diag(S) V^H``, from a random sketch of ``q`` columns and ``niter`` power iterations.

    Shape:
        A ``(*, m, n)``, M broadcastable to A -> U ``(*, m, k)``, S ``(*, k)``, V
        ``(*, n, k)``, with ``k = min(q, m, n)`` (``q`` may exceed ``min(m, n)``).

    Raises:
        ShapeError: A has fewer than 2 dimensions (a ValueError, as PyTorch's).
        RuntimeError: A is not floating point, or ``q`` is negative.
    """
    q = 6 if q is None else q
    m, n = _matrix_sizes("svd_lowrank", A)
    if M is not None:
        M = M.broadcast_to(tuple(A.shape))
    # the sketch takes the longer side's range: work on A^H when A is wide
    wide = m < n
    if wide:
        A, M = A.mH, None if M is None else M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = matmul(Q.mH, A)
    if M is not None:
        B = B - matmul(Q.mH, M)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    U, V = matmul(Q, U), Vh.mH
    return (V, S, U) if wide else (U, S, V)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True,
                niter: int = 2) -> tuple:
    """Principal components of the rows of ``A``: ``svd_lowrank`` of ``A`` minus its
    column means (``center=True``), or of ``A`` as given. ``V``'s columns are the principal
    directions and ``S ** 2 / (m - 1)`` the variances along them.

    Shape:
        A ``(*, m, n)`` -> U ``(*, m, q)``, S ``(*, q)``, V ``(*, n, q)``; ``q`` defaults to
        ``min(6, m, n)``.

    Raises:
        ValueError: ``q`` is not in ``[0, min(m, n)]`` or ``niter`` is negative (PyTorch's
            messages).
        ShapeError: A has fewer than 2 dimensions (a ValueError, as PyTorch's).
        RuntimeError: A is not floating point.
    """
    m, n = _matrix_sizes("pca_lowrank", A)
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A, q, niter=niter)


def _approximate_basis(A: Tensor, q: int, niter: int | None, M: Tensor | None) -> Tensor:
    """``Q`` with orthonormal columns spanning about the range of ``A - M``; ``A - M`` is
    never formed (``M`` may be a cheap broadcast of a mean)."""
    if q < 0:
        raise RuntimeError(f"svd_lowrank: expected a non-negative q, got {q}")
    dtype = A.dtype if A.dtype in _FLOATS else dtypes.float32
    sketch = randn(A.shape[-1], q, dtype=dtype, device=A.device)
    Q = linalg.qr(_minus(A, M, sketch, adjoint=False)).Q
    for _ in range(2 if niter is None else niter):
        Q = linalg.qr(_minus(A, M, Q, adjoint=True)).Q
        Q = linalg.qr(_minus(A, M, Q, adjoint=False)).Q
    return Q


def _minus(A: Tensor, M: Tensor | None, X: Tensor, adjoint: bool) -> Tensor:
    """``(A - M) @ X`` (``(A - M)^H @ X`` when ``adjoint``) as two products."""
    A, M = (A.mH, None if M is None else M.mH) if adjoint else (A, M)
    product = matmul(A, X)
    return product if M is None else product - matmul(M, X)


def _matrix_sizes(name: str, A: Tensor) -> tuple:
    """``(m, n)``, the sizes of A's matrices, once A is checked to be floating matrices."""
    if A.dim() < 2:
        raise ShapeError(name, f"expected A of shape (*, m, n) with at least 2 dimensions, "
                               f"got shape {tuple(A.shape)}")
    if not A.is_floating_point():
        raise RuntimeError(f"{name}: expected a floating-point A, got {A.dtype}")
    return tuple(A.shape[-2:])
