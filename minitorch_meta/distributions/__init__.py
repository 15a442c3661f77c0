"""``torch.distributions``: probability distributions built from ordinary tensor ops.

Parameters are tensors (or numbers); ``sample``/``rsample`` draw from the parameters'
device generator, which ``manual_seed`` seeds; ``log_prob``, ``entropy``, the moments
and ``kl_divergence`` are differentiable and run on meta (shapes only). One
distribution per file; ``constraints`` holds the sets parameters and values are checked
against, ``kl`` the pairwise divergences.
"""

from . import (
           constraint_registry,
           constraints,
           kl,
           kl_beta_dirichlet,  # noqa: F401 - registers the KL pairs of those families
           kl_continuous_bernoulli,  # noqa: F401 - registers the KL pairs of that family
           kl_from_exponential,  # noqa: F401 - registers the KL pairs from that family
           kl_from_gumbel,  # noqa: F401 - registers the KL pairs from that family
           kl_from_laplace,  # noqa: F401 - registers the KL pairs from that family
           kl_from_normal,  # noqa: F401 - registers the KL pairs from that family
           kl_from_pareto,  # noqa: F401 - registers the KL pairs from that family
           kl_from_uniform,  # noqa: F401 - registers the KL pairs from that family
           kl_gamma_poisson,  # noqa: F401 - registers the KL pairs of those families
           kl_multivariate_normal,  # noqa: F401 - registers the KL pairs of those families
           transforms,
)
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fisher_snedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli  # its LogitRelaxedBernoulli stays in there
from .relaxed_categorical import RelaxedOneHotCategorical  # ExpRelaxedCategorical too
from .student_t import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (  # PyTorch exports every transform here too
           AbsTransform,
           AffineTransform,
           CatTransform,
           ComposeTransform,
           CorrCholeskyTransform,
           CumulativeDistributionTransform,
           ExpTransform,
           IndependentTransform,
           LowerCholeskyTransform,
           PositiveDefiniteTransform,
           PowerTransform,
           ReshapeTransform,
           SigmoidTransform,
           SoftmaxTransform,
           SoftplusTransform,
           StackTransform,
           StickBreakingTransform,
           TanhTransform,
           Transform,
           identity_transform,
)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "Independent",
           "Laplace", "Normal", "OneHotCategorical", "Uniform", "constraints", "kl",
           "kl_divergence", "register_kl",
           "Cauchy", "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "LogNormal", "Pareto",
           "TransformedDistribution", "Weibull", "biject_to", "constraint_registry",
           "transform_to", "transforms",
           "Binomial", "Chi2", "Gamma", "Multinomial", "NegativeBinomial", "Poisson",
           "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StickBreakingTransform", "TanhTransform", "Transform",
           "identity_transform",
           "ExponentialFamily", "Beta", "Dirichlet", "FisherSnedecor", "InverseGamma",
           "Kumaraswamy", "StudentT",
           "LowRankMultivariateNormal", "MultivariateNormal",
           "LogisticNormal", "RelaxedBernoulli", "RelaxedOneHotCategorical",
           "ContinuousBernoulli", "MixtureSameFamily", "VonMises",
           "CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform",
           "LowerCholeskyTransform", "PositiveDefiniteTransform", "SoftplusTransform",
           "StackTransform", "GeneralizedPareto", "OneHotCategoricalStraightThrough",
           "LKJCholesky", "Wishart"]
