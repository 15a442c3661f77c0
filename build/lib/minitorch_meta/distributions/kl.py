"""``kl_divergence(p, q)`` and ``register_kl``: KL(p || q) by the pair of types.

Each formula is registered for a pair of distribution classes; ``kl_divergence`` picks
the most specific registered pair for ``type(p), type(q)`` (nearest in each class's MRO,
as PyTorch's dispatch does) and warns when two pairs are equally specific in different
ways. The formulas are tensor ops, so gradients flow and meta gives shapes.
"""

from __future__ import annotations

import math

from ..caller_warnings import warn_at_caller
from ..nn.functional import softplus
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .distribution import Distribution
from .exp_family import ExponentialFamily, natural_gradients
from .exponential import Exponential
from .geometric import Geometric
from .gumbel import EULER_CONSTANT, Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import sum_rightmost

_KL_REGISTRY: dict = {}


def register_kl(type_p: type, type_q: type):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for p of ``type_p`` and q of
    ``type_q`` (subclasses included, unless a closer pair is registered)::

        @register_kl(Normal, Normal)
        def kl_normal_normal(p, q): ...

    Raises:
        TypeError: a type is not a ``Distribution`` subclass.
    """
    for name, kind in (("type_p", type_p), ("type_q", type_q)):
        if not (isinstance(kind, type) and issubclass(kind, Distribution)):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {kind}")

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn

    return decorator


def _dispatch(type_p: type, type_q: type):
    """The function of the most specific registered pair, or None."""
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return None
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    by_p = min(matches, key=lambda m: (mro_p.index(m[0]), mro_q.index(m[1])))
    by_q = min(matches, key=lambda m: (mro_q.index(m[1]), mro_p.index(m[0])))
    if _KL_REGISTRY[by_p] is not _KL_REGISTRY[by_q]:
        warn_at_caller(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                       f"Please register_kl({by_p[0].__name__}, {by_q[1].__name__})",
                       RuntimeWarning)
    return _KL_REGISTRY[by_p]


def kl_divergence(p: Distribution, q: Distribution):
    """KL(p || q) = E_p[log p(x) - log q(x)], elementwise over the batch.

    Shape:
        the broadcast of ``p.batch_shape`` and ``q.batch_shape``.

    Raises:
        NotImplementedError: no formula is registered for the two types.
    """
    fn = _dispatch(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{type(p).__name__} and q type {type(q).__name__}")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # each side is +inf where q gives zero chance to an outcome p can have, and 0 where
    # p cannot have it (0 * log 0 = 0)
    heads = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    heads = heads.masked_fill(q.probs == 0, math.inf).masked_fill(p.probs == 0, 0.0)
    tails = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    tails = tails.masked_fill(q.probs == 1, math.inf).masked_fill(p.probs == 1, 0.0)
    return heads + tails


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    terms = terms.masked_fill(q.probs == 0, math.inf).masked_fill(p.probs == 0, 0.0)
    return terms.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return (-scale_ratio.log() + distance / q.scale
            + scale_ratio * (-distance / p.scale).exp() - 1)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low) | (q.high < p.high), math.inf)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(f"No KL(p || q) is implemented between Independent "
                                  f"distributions reinterpreting {p.reinterpreted_batch_ndims} "
                                  f"and {q.reinterpreted_batch_ndims} batch dims")
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    total = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return total - (4 * p.scale * q.scale).log()


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    scale_ratio = p.scale / q.scale
    q_loc, p_loc = q.loc / q.scale, p.loc / q.scale
    t1 = -scale_ratio.log() - q_loc + p_loc
    t3 = (q_loc + (1 + scale_ratio).lgamma() - p_loc).exp()
    return t1 + scale_ratio * EULER_CONSTANT + t3 - (1 + EULER_CONSTANT)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    # q has no mass below its scale, where p has some
    return result.masked_fill(p.scale < q.scale, math.inf)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError("No KL(p || q) is implemented between transformed "
                                  "distributions of different transforms")
    if p.event_shape != q.event_shape:
        raise NotImplementedError(f"No KL(p || q) is implemented between transformed "
                                  f"distributions of event shapes {p.event_shape} and "
                                  f"{q.event_shape}")
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log normalizer between q's and p's natural
    parameters: the fallback for two members of one family with no closed form here."""
    if type(p) is not type(q):
        # PyTorch's text, spaces of its line continuation included
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot                             be computed "
                                  "using Bregman divergences")
    p_params, log_normalizer, gradients = natural_gradients(p)
    result = q._log_normalizer(*q._natural_params) - log_normalizer
    for p_param, q_param, gradient in zip(p_params, q._natural_params, gradients):
        # each term summed over its dims right of the batch: a natural parameter need not
        # span the event (Wishart's second is one number per matrix; PyTorch sums the event
        # dims' count of dims of every term, so there the batch)
        term = (q_param - p_param) * gradient
        result = result - sum_rightmost(term, term.dim() - result.dim())
    return result
