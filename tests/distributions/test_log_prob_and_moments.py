"""log_prob, cdf/icdf, entropy, moments and KL of every distribution, three ways:
float64 gradcheck, float32 values and gradients against PyTorch, meta shapes."""

from __future__ import annotations

from tests.ops.harness import Arg, Case, three_way_tests

S = (3, 4)


def D(T):  # noqa: N802 - the library's distributions module, minitorch_meta's or torch's
    return T.distributions


def _normal(T, loc, scale):
    return D(T).Normal(loc, scale)


CASES = [
    # Normal
    Case("normal_log_prob", lambda T, F, m, s, v: _normal(T, m, s).log_prob(v),
         [Arg(S), Arg(S, "positive"), Arg(S)]),
    Case("normal_log_prob_broadcast_value", lambda T, F, m, s, v: _normal(T, m, s).log_prob(v),
         [Arg((4,)), Arg((4,), "positive"), Arg((2, 3, 4))]),
    Case("normal_log_prob_number_scale", lambda T, F, m, v: _normal(T, m, 2.0).log_prob(v),
         [Arg(S), Arg(S)]),
    Case("normal_log_prob_0d", lambda T, F, m, s, v: _normal(T, m, s).log_prob(v),
         [Arg(()), Arg((), "positive"), Arg(())]),
    Case("normal_cdf", lambda T, F, m, s, v: _normal(T, m, s).cdf(v),
         [Arg(S), Arg(S, "positive"), Arg(S)]),
    Case("normal_icdf", lambda T, F, m, s, u: _normal(T, m, s).icdf(0.05 + 0.9 * u),
         [Arg(S), Arg(S, "positive"), Arg(S, "prob")]),
    Case("normal_entropy", lambda T, F, m, s: _normal(T, m, s).entropy(),
         [Arg(S, grad=False), Arg(S, "positive")]),
    Case("normal_moments", lambda T, F, m, s: _normal(T, m, s).variance * 2
         + _normal(T, m, s).stddev + _normal(T, m, s).mean + _normal(T, m, s).mode,
         [Arg(S), Arg(S, "positive")]),
    Case("normal_empty_batch", lambda T, F, m, s, v: _normal(T, m, s).log_prob(v),
         [Arg((0, 4)), Arg((0, 4), "positive"), Arg((0, 4))]),
    # Uniform: the value lies inside [low, high)
    Case("uniform_log_prob", lambda T, F, lo, w, u: D(T).Uniform(lo, lo + w).log_prob(lo + w * u),
         [Arg(S), Arg(S, "positive"), Arg(S, "prob", grad=False)]),
    Case("uniform_cdf_icdf", lambda T, F, lo, w, u:
         D(T).Uniform(lo, lo + w).cdf(lo + w * u) + D(T).Uniform(lo, lo + w).icdf(u),
         [Arg(S), Arg(S, "positive"), Arg(S, "prob")]),
    Case("uniform_entropy_and_moments", lambda T, F, lo, w: D(T).Uniform(lo, lo + w).entropy()
         + D(T).Uniform(lo, lo + w).mean + D(T).Uniform(lo, lo + w).variance
         + D(T).Uniform(lo, lo + w).stddev, [Arg(S), Arg(S, "positive")]),
    # Exponential
    Case("exponential_log_prob", lambda T, F, r, v: D(T).Exponential(r).log_prob(v),
         [Arg(S, "positive"), Arg(S, "positive")]),
    Case("exponential_cdf_icdf", lambda T, F, r, v, u:
         D(T).Exponential(r).cdf(v) + D(T).Exponential(r).icdf(u),
         [Arg(S, "positive"), Arg(S, "positive"), Arg(S, "prob")]),
    Case("exponential_entropy_and_moments", lambda T, F, r: D(T).Exponential(r).entropy()
         + D(T).Exponential(r).mean + D(T).Exponential(r).variance
         + D(T).Exponential(r).stddev, [Arg(S, "positive")]),
    # Laplace (values away from loc: |x - loc| has a kink there)
    Case("laplace_log_prob", lambda T, F, m, s, d: D(T).Laplace(m, s).log_prob(m + d),
         [Arg(S), Arg(S, "positive"), Arg(S, "away0", grad=False)]),
    Case("laplace_cdf", lambda T, F, m, s, d: D(T).Laplace(m, s).cdf(m + d),
         [Arg(S), Arg(S, "positive"), Arg(S, "away0", grad=False)]),
    Case("laplace_icdf", lambda T, F, m, s, u: D(T).Laplace(m, s).icdf(u),
         [Arg(S), Arg(S, "positive"), Arg(S, "prob")]),
    Case("laplace_entropy_and_moments", lambda T, F, m, s: D(T).Laplace(m, s).entropy()
         + D(T).Laplace(m, s).mean + D(T).Laplace(m, s).variance + D(T).Laplace(m, s).stddev,
         [Arg(S), Arg(S, "positive")]),
    # Bernoulli, from probs or from logits
    Case("bernoulli_probs_log_prob", lambda T, F, p, v: D(T).Bernoulli(p).log_prob(v.to(p.dtype)),
         [Arg(S, "prob"), Arg(S, "bool")]),
    Case("bernoulli_logits_log_prob",
         lambda T, F, x, v: D(T).Bernoulli(logits=x).log_prob(v.to(x.dtype)),
         [Arg(S), Arg(S, "bool")]),
    Case("bernoulli_entropy", lambda T, F, p: D(T).Bernoulli(probs=p).entropy(),
         [Arg(S, "prob")]),
    Case("bernoulli_logits_entropy_and_moments", lambda T, F, x:
         D(T).Bernoulli(logits=x).entropy() + D(T).Bernoulli(logits=x).variance
         + D(T).Bernoulli(logits=x).mean, [Arg(S)]),
    Case("bernoulli_probs_to_logits", lambda T, F, p: D(T).Bernoulli(probs=p).logits,
         [Arg(S, "prob")]),
    # Categorical: probs need not be normalised
    Case("categorical_probs_log_prob", lambda T, F, p, k: D(T).Categorical(p).log_prob(k),
         [Arg(S, "positive"), Arg((3,), "int:4")]),
    Case("categorical_logits_log_prob_sample_dims",
         lambda T, F, x, k: D(T).Categorical(logits=x).log_prob(k),
         [Arg(S), Arg((5, 3), "int:4")]),
    Case("categorical_log_prob_1d", lambda T, F, x, k: D(T).Categorical(logits=x).log_prob(k),
         [Arg((4,)), Arg((2,), "int:4")]),
    Case("categorical_entropy", lambda T, F, p: D(T).Categorical(probs=p).entropy(),
         [Arg(S, "positive")]),
    Case("categorical_logits_entropy", lambda T, F, x: D(T).Categorical(logits=x).entropy(),
         [Arg((2, 3, 5))]),
    Case("categorical_probs_from_logits", lambda T, F, x: D(T).Categorical(logits=x).probs,
         [Arg(S)]),
    Case("one_hot_categorical_log_prob", lambda T, F, p, k:
         D(T).OneHotCategorical(p).log_prob(F.one_hot(k, 4).float()),
         [Arg(S, "positive"), Arg((3,), "int:4")]),
    Case("one_hot_categorical_entropy_and_moments", lambda T, F, x:
         D(T).OneHotCategorical(logits=x).entropy().unsqueeze(-1)
         + D(T).OneHotCategorical(logits=x).mean + D(T).OneHotCategorical(logits=x).variance,
         [Arg(S)]),
    # Independent: batch dims summed as one event
    Case("independent_normal_log_prob", lambda T, F, m, s, v:
         D(T).Independent(_normal(T, m, s), 1).log_prob(v),
         [Arg(S), Arg(S, "positive"), Arg(S)]),
    Case("independent_two_dims_entropy", lambda T, F, m, s:
         D(T).Independent(_normal(T, m, s), 2).entropy(),
         [Arg((2, 3, 4), grad=False), Arg((2, 3, 4), "positive")]),
    Case("independent_zero_dims", lambda T, F, m, s, v:
         D(T).Independent(_normal(T, m, s), 0).log_prob(v),
         [Arg(S), Arg(S, "positive"), Arg(S)]),
    # kl_divergence
    Case("kl_normal_normal", lambda T, F, a, b, c, d:
         D(T).kl_divergence(_normal(T, a, b), _normal(T, c, d)),
         [Arg(S), Arg(S, "positive"), Arg(S), Arg(S, "positive")]),
    Case("kl_normal_normal_broadcast", lambda T, F, a, b, c, d:
         D(T).kl_divergence(_normal(T, a, b), _normal(T, c, d)),
         [Arg((4,)), Arg((4,), "positive"), Arg(S), Arg(S, "positive")]),
    Case("kl_categorical_categorical", lambda T, F, p, q:
         D(T).kl_divergence(D(T).Categorical(p), D(T).Categorical(q)),
         [Arg(S, "positive"), Arg(S, "positive")]),
    Case("kl_categorical_logits", lambda T, F, x, y:
         D(T).kl_divergence(D(T).Categorical(logits=x), D(T).Categorical(logits=y)),
         [Arg(S), Arg(S)]),
    Case("kl_bernoulli_bernoulli", lambda T, F, p, q:
         D(T).kl_divergence(D(T).Bernoulli(p), D(T).Bernoulli(logits=q)),
         [Arg(S, "prob"), Arg(S)]),
    Case("kl_exponential_exponential", lambda T, F, a, b:
         D(T).kl_divergence(D(T).Exponential(a), D(T).Exponential(b)),
         [Arg(S, "positive"), Arg(S, "positive")]),
    Case("kl_laplace_laplace", lambda T, F, a, b, c, d:
         D(T).kl_divergence(D(T).Laplace(a, b), D(T).Laplace(c, d)),
         [Arg(S, "away0"), Arg(S, "positive"), Arg(S), Arg(S, "positive")]),
    # q's interval [c - 1, c + d + 3) holds p's [a, a + b) when |a - c| < 1 and b < d + 2
    Case("kl_uniform_uniform", lambda T, F, a, b, c, d:
         D(T).kl_divergence(D(T).Uniform(a * 0.1, a * 0.1 + b),
                            D(T).Uniform(c * 0.1 - 1, c * 0.1 + d + 3)),
         [Arg(S), Arg(S, "positive"), Arg(S), Arg(S, "positive")]),
    Case("kl_one_hot_categorical", lambda T, F, p, q:
         D(T).kl_divergence(D(T).OneHotCategorical(p), D(T).OneHotCategorical(q)),
         [Arg(S, "positive"), Arg(S, "positive")]),
    Case("kl_independent_normal", lambda T, F, a, b, c, d:
         D(T).kl_divergence(D(T).Independent(_normal(T, a, b), 1),
                            D(T).Independent(_normal(T, c, d), 1)),
         [Arg(S), Arg(S, "positive"), Arg(S), Arg(S, "positive")]),
]

# PyTorch writes the infinite terms in place (IndexPutBackward0); we use masked_fill
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=("kl_uniform_uniform",))
