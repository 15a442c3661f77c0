"""``torch.distributions``: probability distributions built from ordinary tensor ops.

Parameters are tensors (or numbers); ``sample``/``rsample`` draw from the parameters'
device generator, which ``manual_seed`` seeds; ``log_prob``, ``entropy``, the moments
and ``kl_divergence`` are differentiable and run on meta (shapes only). One
distribution per file; ``constraints`` holds the sets parameters and values are checked
against, ``kl`` the pairwise divergences.
"""

from . import constraints, kl
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exponential import Exponential
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "Independent",
           "Laplace", "Normal", "OneHotCategorical", "Uniform", "constraints", "kl",
           "kl_divergence", "register_kl"]
