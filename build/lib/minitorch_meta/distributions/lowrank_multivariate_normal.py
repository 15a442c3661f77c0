"""``LowRankMultivariateNormal(loc, cov_factor, cov_diag)``: a Gaussian whose covariance
is ``W Wᵀ + diag(D)``, computed through the small ``m x m`` capacitance matrix."""

from __future__ import annotations

import math

from ..errors import ShapeError
from ..factories import eye, randn
from ..layout_functions import diag_embed
from ..linalg import cholesky, solve_triangular
from ..size import Size
from . import constraints
from .distribution import Distribution
from .multivariate_normal import batch_mahalanobis, batch_mv
from .utils import broadcast_shape, lazy_property


def _plus_identity(matrix):
    """``matrix + I`` for a batch of square matrices."""
    return matrix + eye(matrix.shape[-1], dtype=matrix.dtype, device=matrix.device)


def capacitance_tril(cov_factor, cov_diag):
    """The lower Cholesky factor of the capacitance ``C = I + Wᵀ D⁻¹ W`` (``m x m``)."""
    scaled = cov_factor.mT / cov_diag.unsqueeze(-2)
    return cholesky(_plus_identity(scaled @ cov_factor))


def lowrank_logdet(cov_factor, cov_diag, capacitance):
    """``log |W Wᵀ + D| = log |C| + log |D|`` (the matrix determinant lemma)."""
    return (2 * capacitance.diagonal(dim1=-2, dim2=-1).log().sum(-1)
            + cov_diag.log().sum(-1))


def lowrank_mahalanobis(cov_factor, cov_diag, x, capacitance):
    """``xᵀ (W Wᵀ + D)⁻¹ x = xᵀ D⁻¹ x - |L_C⁻¹ Wᵀ D⁻¹ x|²`` (the Woodbury identity)."""
    projected = batch_mv(cov_factor.mT / cov_diag.unsqueeze(-2), x)
    return (x.pow(2) / cov_diag).sum(-1) - batch_mahalanobis(capacitance, projected)


def woodbury_factor(q):
    """``A = L_C⁻¹ Wᵀ D⁻¹`` of ``q``, with ``Σ_q⁻¹ = D⁻¹ - Aᵀ A``."""
    scaled = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return solve_triangular(q._capacitance_tril, scaled, upper=False)


def _check_shapes(loc, cov_factor, cov_diag) -> None:
    """PyTorch's ValueErrors for parameters of the wrong rank or event size."""
    if loc.dim() < 1:
        raise ValueError("loc must be at least one-dimensional.")
    event_shape = loc.shape[-1:]
    if cov_factor.dim() < 2:
        raise ValueError("cov_factor must be at least two-dimensional, with optional leading "
                         "batch dimensions")
    if cov_factor.shape[-2:-1] != event_shape:
        raise ValueError(f"cov_factor must be a batch of matrices with shape "
                         f"{event_shape[0]} x m")
    if cov_diag.shape[-1:] != event_shape:
        raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")


class LowRankMultivariateNormal(Distribution):
    """N(``loc``, ``W Wᵀ + diag(D)``) with ``W = cov_factor`` (``n x m``, usually
    ``m << n``) and ``D = cov_diag`` > 0.

    ``log_prob`` and ``entropy`` never form the ``n x n`` covariance: its determinant
    comes from the determinant lemma and its inverse from the Woodbury identity, both
    through the Cholesky factor of the ``m x m`` capacitance ``I + Wᵀ D⁻¹ W``.
    ``rsample`` is ``loc + W eps_m + sqrt(D) eps_n``.

    Shape:
        ``loc`` ``(*, n)``, ``cov_factor`` ``(*, n, m)``, ``cov_diag`` ``(*, n)``, whose
        batch dims broadcast to ``batch_shape``; ``event_shape`` is ``(n,)``.

    Raises:
        ValueError: a parameter of the wrong rank or size, batch shapes that do not
        broadcast, or (with validation) values outside the constraints.
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        _check_shapes(loc, cov_factor, cov_diag)
        try:
            shape = broadcast_shape(loc.shape + (1,), cov_factor.shape,
                                    cov_diag.shape + (1,))
        except ShapeError as error:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from error
        self.cov_factor = cov_factor.expand(shape)
        self.loc = loc.expand(shape[:-1])
        self.cov_diag = cov_diag.expand(shape[:-1])
        super().__init__(shape[:-2], loc.shape[-1:], validate_args=validate_args)
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = capacitance_tril(cov_factor, cov_diag)

    def expand(self, batch_shape, _instance=None):
        """The same law over ``batch_shape``: the parameters as expanded views; the
        unbroadcast ones and the capacitance factor are shared."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        vector_shape = batch_shape + self._event_shape
        new.loc = self.loc.expand(vector_shape)
        new.cov_diag = self.cov_diag.expand(vector_shape)
        new.cov_factor = self.cov_factor.expand(vector_shape + self.cov_factor.shape[-1:])
        for name in ("variance", "scale_tril", "covariance_matrix", "precision_matrix"):
            new.__dict__.pop(name, None)  # derived with the old batch shape
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

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        # W Wᵀ + D = D^1/2 (I + D^-1/2 W Wᵀ D^-1/2) D^1/2, and the middle matrix has
        # eigenvalues >= 1: a well-conditioned Cholesky
        sqrt_diag = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        whitened = self._unbroadcasted_cov_factor / sqrt_diag
        factor = sqrt_diag * cholesky(_plus_identity(whitened @ whitened.mT))
        return factor.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        factor = self._unbroadcasted_cov_factor
        covariance = factor @ factor.mT + diag_embed(self._unbroadcasted_cov_diag)
        return covariance.expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        woodbury = woodbury_factor(self)
        precision = diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - woodbury.mT @ woodbury
        return precision.expand(self._matrix_shape())

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        options = {"dtype": self.loc.dtype, "device": self.loc.device}
        eps_factor = randn(shape[:-1] + self.cov_factor.shape[-1:], **options)
        eps_diag = randn(shape, **options)
        return (self.loc + batch_mv(self._unbroadcasted_cov_factor, eps_factor)
                + self._unbroadcasted_cov_diag.sqrt() * eps_diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        factor, diag = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        squared = lowrank_mahalanobis(factor, diag, value - self.loc, self._capacitance_tril)
        log_det = lowrank_logdet(factor, diag, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + squared)

    def entropy(self):
        log_det = lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                 self._capacitance_tril)
        entropy = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return entropy.expand(self._batch_shape) if self._batch_shape else entropy
