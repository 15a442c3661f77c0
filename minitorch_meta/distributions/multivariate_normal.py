"""``MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril)``: the
Gaussian over vectors, computed through the lower Cholesky factor of its covariance."""

from __future__ import annotations

import math

from ..factories import eye, randn
from ..legacy_linalg import cholesky_inverse
from ..linalg import cholesky, solve_triangular
from ..size import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_shape, lazy_property


def batch_mv(matrices, vectors):
    """``matrices @ vectors`` for batches of matrices and vectors whose batch dims
    broadcast."""
    return (matrices @ vectors.unsqueeze(-1)).squeeze(-1)


def batch_mahalanobis(scale_tril, x):
    """``xᵀ (L Lᵀ)⁻¹ x = |L⁻¹ x|²`` through one triangular solve per vector; the batch
    dims of ``L`` broadcast with those of ``x``.

    Shape:
        ``L`` ``(*, n, n)``, ``x`` ``(*, n)`` -> the broadcast batch shape.
    """
    whitened = solve_triangular(scale_tril, x.unsqueeze(-1), upper=False)
    return whitened.squeeze(-1).pow(2).sum(-1)


def half_log_det(scale_tril):
    """``log |L|``, half the log-determinant of ``L Lᵀ``."""
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def trace_of_outer(x):
    """``trace(X Xᵀ)``, the sum of the squares of each matrix's entries."""
    return x.pow(2).sum((-2, -1))


def precision_to_scale_tril(precision):
    """The lower Cholesky factor of ``precision⁻¹`` without forming the inverse: with
    ``J`` the anti-diagonal flip, ``J P J = U Uᵀ`` (Cholesky) gives ``P = Lp Lpᵀ`` for the
    upper-triangular ``Lp = J U J``, so ``P⁻¹ = Lp⁻ᵀ Lp⁻¹`` whose lower factor is
    ``Lp⁻ᵀ``, found by a triangular solve against the identity."""
    flipped_factor = cholesky(precision.flip(-2, -1))
    inverse_factor = flipped_factor.flip(-2, -1).mT  # lower triangular: Lpᵀ
    identity = eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return solve_triangular(inverse_factor, identity, upper=False)


def given_matrices(covariance_matrix, precision_matrix, scale_tril) -> list:
    """``(name, matrix)`` for each of the three matrix parameters that is not None (a
    distribution takes exactly one; each raises its own PyTorch error otherwise)."""
    return [(name, value) for name, value in (("covariance_matrix", covariance_matrix),
                                              ("precision_matrix", precision_matrix),
                                              ("scale_tril", scale_tril))
            if value is not None]


def _one_matrix(covariance_matrix, precision_matrix, scale_tril):
    """The one matrix parameter given, with its name, or PyTorch's ValueError."""
    given = given_matrices(covariance_matrix, precision_matrix, scale_tril)
    if len(given) != 1:
        raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril "
                         "may be specified.")
    name, matrix = given[0]
    if matrix.dim() < 2:
        # PyTorch's words: scale_tril's message names "matrix", the others do not
        what = "scale_tril matrix" if name == "scale_tril" else name
        raise ValueError(f"{what} must be at least two-dimensional, with optional leading "
                         "batch dimensions")
    return name, matrix


class ScaleTrilMatrices:
    """The three matrix parameters of a distribution kept as a Cholesky factor
    ``_unbroadcasted_scale_tril`` (MultivariateNormal, Wishart), each made on first use and
    expanded to ``_matrix_shape()`` (the batch shape, then the matrix's)."""

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        factor = self._unbroadcasted_scale_tril
        return (factor @ factor.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())


class MultivariateNormal(ScaleTrilMatrices, Distribution):
    """N(``loc``, Σ) over vectors, with Σ given as exactly one of ``covariance_matrix``,
    ``precision_matrix`` (Σ⁻¹) or ``scale_tril`` (L with Σ = L Lᵀ, lower triangular with
    a positive diagonal).

    Everything runs on the lower Cholesky factor ``L`` of Σ (``scale_tril``), kept
    unbroadcast: ``rsample`` is ``loc + L eps``; ``log_prob`` whitens ``value - loc`` with
    a triangular solve (no inverse is formed) and takes ``log |Σ|`` from ``L``'s diagonal.
    The other two matrices are derived on first read.

    Shape:
        ``loc`` ``(*, n)`` and the matrix ``(*, n, n)``, whose batch dims broadcast to
        ``batch_shape``; ``event_shape`` is ``(n,)``.

    Raises:
        ValueError: ``loc`` is 0-d, the matrix is under 2-D, not exactly one matrix is
        given, or (with validation) the parameters break their constraints.
        LinAlgError: without validation, a matrix that is not positive-definite.
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        name, matrix = _one_matrix(covariance_matrix, precision_matrix, scale_tril)
        batch_shape = broadcast_shape(matrix.shape[:-2], loc.shape[:-1])
        # the given matrix is checked (validate_args) in its broadcast form, as PyTorch's
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(matrix)

    def expand(self, batch_shape, _instance=None):
        """The same law over ``batch_shape``: ``loc`` and the matrices read so far are
        expanded views; the factor stays unbroadcast."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        event = self._event_shape
        new.loc = self.loc.expand(batch_shape + event)
        for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(batch_shape + event + event)
        new._batch_shape = batch_shape
        return new

    def _matrix_shape(self) -> Size:
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """The diagonal of Σ: the squared norms of ``L``'s rows."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=()):
        eps = randn(self._extended_shape(sample_shape), dtype=self.loc.dtype,
                    device=self.loc.device)
        return self.loc + batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        squared = batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        n = self._event_shape[0]
        return (-0.5 * (n * math.log(2 * math.pi) + squared)
                - half_log_det(self._unbroadcasted_scale_tril))

    def entropy(self):
        n = self._event_shape[0]
        entropy = 0.5 * n * (1.0 + math.log(2 * math.pi)) + half_log_det(
            self._unbroadcasted_scale_tril)
        return entropy.expand(self._batch_shape) if self._batch_shape else entropy
