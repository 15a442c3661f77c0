"""``Wishart(df, covariance_matrix | precision_matrix | scale_tril)``: the law of
``sum_k x_k x_kᵀ`` over ``df`` independent ``N(0, Σ)`` vectors, for real ``df`` too."""

from __future__ import annotations

import math
from numbers import Number

from ..caller_warnings import warn_at_caller
from ..factories import arange, randn, tensor
from ..functions import where
from ..legacy_linalg import cholesky_solve
from ..linalg import cholesky, slogdet
from ..size import Size
from ..type_info import finfo
from . import constraints
from .chi2 import Chi2
from .constraints import all_true
from .exp_family import ExponentialFamily
from .multivariate_normal import ScaleTrilMatrices, given_matrices, precision_to_scale_tril
from .utils import broadcast_shape, vec_to_tril_matrix

_LOG_2 = math.log(2)


def _mvdigamma(x, p: int):
    """The multivariate digamma ``sum_{i<p} digamma(x - i/2)``, the derivative of
    ``mvlgamma(x, p)``."""
    offsets = arange(p, dtype=x.dtype, device=x.device) / 2
    return (x.unsqueeze(-1) - offsets).digamma().sum(-1)


class Wishart(ScaleTrilMatrices, ExponentialFamily):
    """Wishart with ``df`` degrees of freedom (a number or tensor, ``> p - 1`` for ``p x p``
    matrices) and scale Σ given as exactly one of ``covariance_matrix``,
    ``precision_matrix`` (Σ⁻¹) or ``scale_tril`` (the lower Cholesky factor ``L`` of Σ).

    Everything runs on ``L`` (kept unbroadcast, as in ``MultivariateNormal``).
    ``rsample`` is Bartlett's decomposition: ``(L A)(L A)ᵀ`` with ``A`` lower triangular,
    ``A_ii = sqrt(chi2(df - i))`` and standard normal entries below the diagonal; a draw
    that is not positive-definite (possible for ``df`` below ``p``) warns and is drawn
    again, at most ``max_try_correction`` times (10 by default).

    Shape:
        ``df`` ``batch_shape`` (or a number) and the matrix ``(*, p, p)``, whose batch
        dims broadcast to ``batch_shape``; ``event_shape`` is ``(p, p)``.

    Raises:
        AssertionError: not exactly one matrix given (PyTorch's type).
        ValueError: a matrix under 2-D, ``df <= p - 1``, or (with validation) parameters
        or values outside their constraints.
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self._event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = given_matrices(covariance_matrix, precision_matrix, scale_tril)
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        name, matrix = given[0]
        if matrix.dim() < 2:
            # PyTorch's words, whichever matrix it is
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, Number):
            batch_shape = Size(matrix.shape[:-2])
            self.df = tensor(df, dtype=matrix.dtype, device=matrix.device)
        else:
            batch_shape = broadcast_shape(matrix.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        p = matrix.shape[-1]
        if not all_true(self.df > p - 1):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{p - 1}.")
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        if not all_true(self.df >= p):
            warn_at_caller("Low df values detected. Singular samples are highly likely to "
                           "occur for ndim - 1 < df < ndim.")
        super().__init__(batch_shape, matrix.shape[-2:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(matrix)
        self._dist_chi2 = self._bartlett_diagonal()

    def _bartlett_diagonal(self) -> Chi2:
        """The chi-squared laws of the squared diagonal of Bartlett's ``A``: ``df - i``."""
        factor = self._unbroadcasted_scale_tril
        offsets = arange(self._event_shape[-1], dtype=factor.dtype, device=factor.device)
        return Chi2((self.df.unsqueeze(-1) - offsets).expand(self._batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        """The same law over ``batch_shape``: every matrix an expanded view."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        matrix_shape = batch_shape + self._event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(matrix_shape)
        new.df = self.df.expand(batch_shape)
        for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(matrix_shape)
        new._batch_shape = batch_shape
        new._dist_chi2 = new._bartlett_diagonal()
        return new

    def _matrix_shape(self) -> Size:
        return self._batch_shape + self._event_shape

    def _per_matrix(self, values):
        """``values`` of ``batch_shape`` with two dims added to scale whole matrices."""
        return values.view(self._batch_shape + (1, 1))

    @property
    def mean(self):
        return self._per_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        """``(df - p - 1) Σ``; NaN where ``df <= p + 1`` (no mode inside the support)."""
        factor = self.df - self._event_shape[-1] - 1
        factor = where(factor <= 0, math.nan, factor)
        return self._per_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        """``df (Σ_ij² + Σ_ii Σ_jj)``, entry by entry."""
        covariance = self.covariance_matrix
        diagonal = covariance.diagonal(dim1=-2, dim2=-1)
        return self._per_matrix(self.df) * (covariance.pow(2) + diagonal.unsqueeze(-1)
                                            * diagonal.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        p = self._event_shape[-1]
        diagonal = self._dist_chi2.rsample(sample_shape).sqrt()
        diagonal = diagonal.clamp(min=finfo(diagonal.dtype).eps)
        below = randn(Size(sample_shape) + self._batch_shape + (p * (p - 1) // 2,),
                      dtype=diagonal.dtype, device=diagonal.device)
        bartlett = diagonal.diag_embed() + vec_to_tril_matrix(below, diag=-1)
        factor = self._unbroadcasted_scale_tril @ bartlett
        return factor @ factor.mT

    def _singular(self, sample, sample_shape):
        """Per draw of ``sample_shape``: whether any matrix of its batch is singular."""
        singular = ~self.support.check(sample)
        if self._batch_shape:
            singular = singular.reshape(tuple(sample_shape) + (-1,)).any(-1)
        return singular

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Draws by Bartlett's decomposition; a draw (all its batch) with a matrix that is
        not positive-definite is drawn again, up to ``max_try_correction`` times (10), after
        a warning. What is still singular then is returned as it is.

        Shape:
            ``sample_shape + batch_shape + (p, p)``.
        """
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        singular = self._singular(sample, sample_shape)
        if all_true(~singular):  # meta: no values, nothing to correct
            return sample
        warn_at_caller("Singular sample detected.")
        for _ in range(max_try_correction):
            # whole new draws, kept only where the old ones were singular (a vectorised
            # redraw: no loop over draws, no in-place write into a graph)
            retry = self._bartlett_sampling(sample_shape)
            chosen = singular.view(tuple(sample_shape) + (1,) * (len(self._batch_shape) + 2))
            sample = where(chosen, retry, sample)
            singular = singular & self._singular(retry, sample_shape)
            if all_true(~singular):
                break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        factor = self._unbroadcasted_scale_tril
        half_log_det = factor.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = cholesky_solve(value, factor).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (-nu * (p * _LOG_2 / 2 + half_log_det) - (nu / 2).mvlgamma(p)
                + (nu - p - 1) / 2 * slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + half_log_det) + (nu / 2).mvlgamma(p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p) + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        shifted = y + (p + 1) / 2
        return (shifted * (-slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + shifted.mvlgamma(p))
