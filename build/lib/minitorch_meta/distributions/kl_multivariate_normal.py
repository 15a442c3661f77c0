"""The KL pairs among ``MultivariateNormal`` and ``LowRankMultivariateNormal`` (PyTorch's
four): closed forms on the Cholesky factors, with no inverse formed.

For Gaussians of dimension ``n``, ``KL(p || q) = (log|Σq| - log|Σp| + tr(Σq⁻¹ Σp)
+ (μq - μp)ᵀ Σq⁻¹ (μq - μp) - n) / 2``; each pair computes the trace from triangular
solves (``tr(Σq⁻¹ Σp) = |Lq⁻¹ Lp|²`` with ``Σ = L Lᵀ``) or, for a low-rank q, the
Woodbury form ``Σq⁻¹ = Dq⁻¹ - Aᵀ A``.
"""

from __future__ import annotations

from ..layout_functions import diag_embed
from ..linalg import solve_triangular
from .kl import register_kl
from .lowrank_multivariate_normal import (
           LowRankMultivariateNormal,
           lowrank_logdet,
           lowrank_mahalanobis,
           woodbury_factor,
)
from .multivariate_normal import (
           MultivariateNormal,
           batch_mahalanobis,
           half_log_det,
           trace_of_outer,
)
from .utils import broadcast_shape


def _same_event(p, q, names: str) -> None:
    """PyTorch's ValueError (its text, continuation spaces included) for two events of
    different sizes."""
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {names} with                          "
                         "different event shapes cannot be computed")


def _log_det(d):
    """``log |Σ|`` of either family."""
    if isinstance(d, MultivariateNormal):
        return 2 * half_log_det(d._unbroadcasted_scale_tril)
    return lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag,
                          d._capacitance_tril)


def _lowrank_mahalanobis(q, x):
    return lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, x,
                               q._capacitance_tril)


def _whitened_trace(q_tril, p_factor):
    """``|Lq⁻¹ F|²`` for a factor ``F`` of p's covariance (or of a part of it), both
    broadcast to one batch shape first (the solve needs them alike)."""
    batch = broadcast_shape(q_tril.shape[:-2], p_factor.shape[:-2])
    q_tril = q_tril.expand(batch + q_tril.shape[-2:])
    p_factor = p_factor.expand(batch + p_factor.shape[-2:])
    return trace_of_outer(solve_triangular(q_tril, p_factor, upper=False))


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    _same_event(p, q, "Multivariate Normals")
    q_tril = q._unbroadcasted_scale_tril
    trace = _whitened_trace(q_tril, p._unbroadcasted_scale_tril)
    mahalanobis = batch_mahalanobis(q_tril, q.loc - p.loc)
    log_det_half = half_log_det(q_tril) - half_log_det(p._unbroadcasted_scale_tril)
    return log_det_half + 0.5 * (trace + mahalanobis - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    _same_event(p, q, "Low Rank Multivariate Normals")
    woodbury = woodbury_factor(q)
    p_factor, p_diag = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    q_diag = q._unbroadcasted_cov_diag
    # tr((Dq⁻¹ - Aᵀ A)(Dp + Wp Wpᵀ)), term by term
    trace = ((p_diag / q_diag).sum(-1)
             + trace_of_outer(p_factor * q_diag.rsqrt().unsqueeze(-1))
             - trace_of_outer(woodbury * p_diag.sqrt().unsqueeze(-2))
             - trace_of_outer(woodbury @ p_factor))
    return 0.5 * (_log_det(q) - _log_det(p) + trace + _lowrank_mahalanobis(q, q.loc - p.loc)
                  - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p, q):
    _same_event(p, q, "(Low Rank) Multivariate Normals")
    p_tril = p._unbroadcasted_scale_tril
    # tr((Dq⁻¹ - Aᵀ A) Lp Lpᵀ)
    trace = (trace_of_outer(p_tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
             - trace_of_outer(woodbury_factor(q) @ p_tril))
    return 0.5 * (_log_det(q) - _log_det(p) + trace + _lowrank_mahalanobis(q, q.loc - p.loc)
                  - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p, q):
    _same_event(p, q, "(Low Rank) Multivariate Normals")
    q_tril = q._unbroadcasted_scale_tril
    # tr(Σq⁻¹ (Wp Wpᵀ + Dp)) = |Lq⁻¹ Wp|² + |Lq⁻¹ Dp^1/2|²
    trace = (_whitened_trace(q_tril, p._unbroadcasted_cov_factor)
             + _whitened_trace(q_tril, diag_embed(p._unbroadcasted_cov_diag.sqrt())))
    return 0.5 * (_log_det(q) - _log_det(p) + trace
                  + batch_mahalanobis(q_tril, q.loc - p.loc) - p.event_shape[0])
