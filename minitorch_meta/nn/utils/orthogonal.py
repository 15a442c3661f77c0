"""``nn.utils.parametrizations.orthogonal``: a weight kept orthogonal (orthonormal columns
or rows) by computing it from an unconstrained tensor, as PyTorch does.

PyTorch's three maps are offered: ``"matrix_exp"`` (the exponential of a skew-symmetric
matrix, the default for square weights), ``"cayley"`` (a linear solve) and
``"householder"`` (a product of reflections, ``linalg.householder_product``). Without
the trivialisation (``use_trivialization=False``) only ``"householder"`` can be assigned
to: its right inverse is ``geqrf``'s reflections, as PyTorch's.
"""

from __future__ import annotations

from enum import Enum, auto

from ... import factories, functions
from ...autograd import no_grad
from ...closeness import allclose
from ...householder import geqrf
from ...linalg import householder_product, matrix_exp, qr, solve
from ...tensor import Tensor
from ...type_info import finfo
from ..module import Module
from .parametrize import register_parametrization


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _is_orthogonal(Q: Tensor) -> bool:
    n, k = Q.size(-2), Q.size(-1)
    identity = factories.eye(k, dtype=Q.dtype, device=Q.device)
    return allclose(Q.mT @ Q, identity, atol=10.0 * n * finfo(Q.dtype).eps)


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A's QR decomposition with R's diagonal made positive (so A = Q R is unique
    where A has full rank)."""
    Q, R = qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _householder_reflections(Q: Tensor) -> Tensor:
    """The ``X`` that the Householder map sends to ``Q`` (or to the ``Q`` of ``Q``'s QR
    decomposition): ``geqrf``'s reflections below the diagonal, and on it the signs that
    ``forward`` multiplies the columns by (``R``'s diagonal's signs; a column ``geqrf``
    did not reflect, ``tau == 0``, has its sign flipped, as PyTorch does)."""
    A, tau = geqrf(Q)
    diagonal = A.diagonal(dim1=-2, dim2=-1)
    diagonal.sign_()
    diagonal[tau == 0.0] *= -1
    return A


class _Orthogonal(Module):
    """The parametrization: an orthogonal matrix (batch) from an unconstrained one, times
    ``base`` (the trivialisation: ``base`` is where assigning a value put it)."""

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map != _OrthMaps.householder:
            Q = self._from_skew(X, n, k)
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            # the sign of each column is X's diagonal, truncated to an integer (PyTorch's)
            Q = householder_product(A, tau) * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def _from_skew(self, X: Tensor, n: int, k: int) -> Tensor:
        """``exp(A)`` (``"matrix_exp"``) or ``(I - A/2)^-1 (I + A/2)`` (``"cayley"``) for the
        skew-symmetric ``A`` made of ``X``'s lower triangle (padded with zero columns to
        square), cut back to ``k`` columns."""
        X = X.tril()
        if n != k:
            X = functions.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
        A = X - X.mT
        if self.orthogonal_map == _OrthMaps.matrix_exp:
            Q = matrix_exp(A)
        else:
            identity = factories.eye(n, dtype=A.dtype, device=A.device)
            Q = solve(identity - 0.5 * A, identity + 0.5 * A)
        return Q[..., :k] if n != k else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        """Make ``Q`` (orthogonalised if it is not) the base, and return the unconstrained
        value that maps to the identity (-1 on the diagonal).

        Without trivialisation (no ``base``), only the Householder map has an inverse:
        ``Q``'s reflections (``geqrf``), signed so that its ``R`` has a positive diagonal.

        Raises:
            ValueError: ``Q`` has another shape than the weight.
            NotImplementedError: without trivialisation, for the other two maps.
        """
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            if n < k:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map != _OrthMaps.householder:
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False.")
                A = _householder_reflections(Q)
                return A.mT if Q_init.size(-2) < Q_init.size(-1) else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                # complete the k columns with random ones to a square orthogonal base
                N = factories.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype,
                                    device=Q.device)
                Q = _make_orthogonal(functions.cat([Q, N], dim=-1))
            self.base = Q
            neg_identity = factories.zeros_like(Q_init)
            neg_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_identity


def _orthogonal_map(weight: Tensor, orthogonal_map: str | None) -> _OrthMaps:
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None) if isinstance(orthogonal_map, str) \
        else None
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    return orth_enum


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Make ``module.<name>`` (a matrix or a batch of them) orthogonal: orthonormal columns
    (rows, for a wide matrix), kept so through training.

    ``orthogonal_map``: ``"matrix_exp"`` (the default for a square weight), ``"cayley"``
    or ``"householder"`` (the default otherwise).

    Shape:
        the weight's, ``(*, n, k)``.

    Raises:
        ValueError: no tensor ``name``, fewer than 2 dims, or an unknown map.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    orth_enum = _orthogonal_map(weight, orthogonal_map)
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    register_parametrization(module, name, orth, unsafe=True)
    return module
