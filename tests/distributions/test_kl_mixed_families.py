"""The mixed-family KL pairs among Normal, Laplace, Gumbel, Exponential, Pareto and Uniform
(``kl_from_*.py``): float64 values and gradients against PyTorch on random batched
parameters (entries where the supports do not nest, so infinite, included), the edges of
those regions, float64 finite differences, float32 against PyTorch and meta shapes; and a
check that our registry holds every pair PyTorch's does."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from tests.distributions.helpers import D
from tests.ops.harness import Arg, Case, three_way_tests


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


# How each family is built from raw draws, and what the draws are: ``real`` a standard
# normal (scaled), ``positive`` in [0.5, 2], ``alpha`` in [0.5, 4] (a Pareto's alpha on
# both sides of 1 and 2, where its mean and variance stop being finite)
FAMILIES = {
    "Normal": (("real", "positive"), lambda T, loc, scale: D(T).Normal(loc, scale)),
    "Laplace": (("real", "positive"), lambda T, loc, scale: D(T).Laplace(loc, scale)),
    "Gumbel": (("real", "positive"), lambda T, loc, scale: D(T).Gumbel(loc, scale)),
    "Exponential": (("positive",), lambda T, rate: D(T).Exponential(rate)),
    "Pareto": (("positive", "alpha"), lambda T, scale, alpha: D(T).Pareto(scale, alpha)),
    "Uniform": (("real", "positive"), lambda T, low, width: D(T).Uniform(low, low + width)),
}

# the pairs that PyTorch registers and that the kl_from_*.py files add
CLOSED_FORM = [("Normal", "Gumbel"), ("Normal", "Laplace"), ("Laplace", "Normal"),
               ("Gumbel", "Normal"), ("Exponential", "Gumbel"), ("Exponential", "Normal"),
               ("Pareto", "Exponential"), ("Pareto", "Normal"), ("Uniform", "Exponential"),
               ("Uniform", "Gumbel"), ("Uniform", "Normal"), ("Uniform", "Pareto")]
INFINITE = [("Normal", "Exponential"), ("Normal", "Pareto"), ("Normal", "Uniform"),
            ("Laplace", "Exponential"), ("Laplace", "Pareto"), ("Laplace", "Uniform"),
            ("Gumbel", "Exponential"), ("Gumbel", "Pareto"), ("Gumbel", "Uniform"),
            ("Exponential", "Pareto"), ("Exponential", "Uniform"), ("Pareto", "Uniform")]
# the closed forms that are infinite in part of their parameters' range
MASKED = {("Pareto", "Exponential"), ("Pareto", "Normal"), ("Uniform", "Exponential"),
          ("Uniform", "Pareto")}
# PyTorch writes these infinite entries in place with a mask of p's shape, which fails
# unless p's parameters already have the broadcast shape; we broadcast either way
MASK_OF_P_SHAPE = MASKED - {("Uniform", "Pareto")}

# (p's batch shape, q's batch shape): q broadcast into p, p into q, both into a new shape
LAYOUTS = [((2, 3), (3,)), ((3,), (4, 1)), ((4, 1), (1, 3))]


def _draw(rng, kind, shape):
    if kind == "real":
        return 1.5 * rng.standard_normal(shape)
    if kind == "positive":
        return rng.uniform(0.5, 2.0, shape)
    if kind == "alpha":
        return rng.uniform(0.5, 4.0, shape)
    raise ValueError(kind)


def _params(pair, layout, seed):
    rng = np.random.default_rng(seed)
    return [[_draw(rng, kind, shape) for kind in FAMILIES[name][0]]
            for name, shape in zip(pair, layout)]


def _kl(T, pair, p_params, q_params):
    (_, make_p), (_, make_q) = FAMILIES[pair[0]], FAMILIES[pair[1]]
    return D(T).kl_divergence(make_p(T, *p_params), make_q(T, *q_params))


def _ids(pairs):
    return [f"{p}-{q}" for p, q in pairs]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
@pytest.mark.parametrize("pair", CLOSED_FORM + INFINITE, ids=_ids(CLOSED_FORM + INFINITE))
def test_float64_values_and_gradients_match_torch(pair, layout, seed):
    torch = _torch()
    p_arrays, q_arrays = _params(pair, layout, seed)
    ours = [[mt.tensor(a, requires_grad=True) for a in arrays] for arrays in (p_arrays,
                                                                               q_arrays)]
    theirs = [[torch.tensor(a, requires_grad=True) for a in arrays] for arrays in (p_arrays,
                                                                                   q_arrays)]
    out = _kl(mt, pair, *ours)
    ref_p = theirs[0]
    if pair in MASK_OF_P_SHAPE:
        shape = np.broadcast_shapes(*layout)
        ref_p = [t.expand(shape) for t in ref_p]
    ref = _kl(torch, pair, ref_p, theirs[1])
    assert tuple(out.shape) == tuple(ref.shape) and out.dtype is mt.float64
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    assert out.requires_grad == ref.requires_grad
    if pair in INFINITE:
        assert np.isinf(out.numpy()).all()
        return
    upstream = np.random.default_rng(seed + 10).standard_normal(tuple(ref.shape))
    out.backward(mt.tensor(upstream))
    ref.backward(torch.tensor(upstream))
    for k, (o, r) in enumerate(zip(ours[0] + ours[1], theirs[0] + theirs[1])):
        # a zero gradient where the KL is infinite; NaN, as in PyTorch, where p's uniform
        # reaches below 0 under a Pareto (log of a negative bound times that zero)
        np.testing.assert_allclose(o.grad.numpy(), r.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=f"gradient of parameter {k}")


def test_the_random_draws_cover_both_sides_of_every_support_edge():
    """The random test above would not see a wrong mask unless its draws fall on both
    sides: each masked pair gets finite and infinite entries."""
    for pair in sorted(MASKED):
        values = np.concatenate([
            _kl(mt, pair, *[[mt.tensor(a) for a in arrays]
                            for arrays in _params(pair, layout, seed)]).numpy().ravel()
            for layout in LAYOUTS for seed in (0, 1, 2)])
        assert np.isinf(values).any() and np.isfinite(values).any(), pair


@pytest.mark.parametrize("build", [
    # a Pareto's mean is infinite for alpha <= 1, its variance for alpha <= 2
    lambda T: D(T).kl_divergence(D(T).Pareto(1.5, T.tensor([0.5, 1.0, 1.5, 2.0, 3.0])),
                                 D(T).Exponential(0.7)),
    lambda T: D(T).kl_divergence(D(T).Pareto(1.5, T.tensor([1.5, 2.0, 2.5, 3.0])),
                                 D(T).Normal(0.3, 1.2)),
    # a uniform reaching below 0 under an exponential; a low of exactly 0 is finite
    lambda T: D(T).kl_divergence(D(T).Uniform(T.tensor([-0.5, 0.0, 0.5]), 2.0),
                                 D(T).Exponential(1.3)),
    # a uniform reaching below the Pareto's scale; a low of exactly the scale is finite
    lambda T: D(T).kl_divergence(D(T).Uniform(T.tensor([0.5, 1.0, 2.0]), 3.0),
                                 D(T).Pareto(1.0, 2.5)),
    # numbers only: 0-dim results
    lambda T: D(T).kl_divergence(D(T).Normal(0.2, 0.8), D(T).Laplace(-0.4, 1.1)),
    lambda T: D(T).kl_divergence(D(T).Exponential(2.0), D(T).Uniform(0.0, 5.0)),
    # the infinite pairs have p's shape, not the broadcast one (PyTorch's)
    lambda T: D(T).kl_divergence(D(T).Gumbel(T.zeros(2), 1.0), D(T).Uniform(T.zeros(3, 1), 1.0)),
])
def test_edges_match_torch(build):
    ours, theirs = build(mt), build(_torch())
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_a_large_pareto_alpha_stays_finite():
    """KL(Uniform || Pareto) sums logs where PyTorch takes the log of
    ``alpha * scale ** alpha * width``, which overflows to inf for a large alpha (PyTorch
    2.13 gives -inf for the second entry)."""
    alpha = np.array([3.0, 2000.0])
    kl = dist.kl_divergence(dist.Uniform(mt.tensor(3.0, dtype=mt.float64), 4.0),
                            dist.Pareto(2.0, mt.tensor(alpha)))
    # E[log x] over [3, 4] is 4 log 4 - 3 log 3 - 1
    mean_log = 4 * np.log(4) - 3 * np.log(3) - 1
    expected = (alpha + 1) * mean_log - np.log(alpha) - alpha * np.log(2)
    np.testing.assert_allclose(kl.numpy(), expected, rtol=1e-12)


def test_our_registry_holds_every_pair_pytorchs_does():
    """A pair PyTorch adds in a later release shows up here by name."""
    torch = _torch()
    ours = {(p.__name__, q.__name__) for p, q in dist.kl._KL_REGISTRY}
    theirs = {(p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY}
    assert sorted(theirs - ours) == []
    for p_name, q_name in theirs:
        pair = getattr(dist, p_name), getattr(dist, q_name)
        assert pair in dist.kl._KL_REGISTRY, pair


def _case(pair, p_kinds, q_kinds, build):
    return Case(f"kl_{pair[0].lower()}_{pair[1].lower()}", build,
                [Arg(shape, kind) for shape, kind in zip([(2, 3)] * len(p_kinds)
                                                         + [(3,)] * len(q_kinds),
                                                         p_kinds + q_kinds)])


def _uniform_over(T, low, width):
    return D(T).Uniform(low, low + width)


# every closed form where it is finite: float64 finite differences, float32 values and
# gradients against PyTorch, meta shapes
CASES = [
    _case(("Normal", "Gumbel"), ["normal", "positive"], ["normal", "positive"],
          lambda T, F, a, b, c, d: D(T).kl_divergence(D(T).Normal(a, b), D(T).Gumbel(c, d))),
    _case(("Normal", "Laplace"), ["normal", "positive"], ["normal", "positive"],
          lambda T, F, a, b, c, d: D(T).kl_divergence(D(T).Normal(a, b), D(T).Laplace(c, d))),
    _case(("Laplace", "Normal"), ["normal", "positive"], ["normal", "positive"],
          lambda T, F, a, b, c, d: D(T).kl_divergence(D(T).Laplace(a, b), D(T).Normal(c, d))),
    _case(("Gumbel", "Normal"), ["normal", "positive"], ["normal", "positive"],
          lambda T, F, a, b, c, d: D(T).kl_divergence(D(T).Gumbel(a, b), D(T).Normal(c, d))),
    _case(("Exponential", "Gumbel"), ["positive"], ["normal", "positive"],
          lambda T, F, a, c, d: D(T).kl_divergence(D(T).Exponential(a), D(T).Gumbel(c, d))),
    _case(("Exponential", "Normal"), ["positive"], ["normal", "positive"],
          lambda T, F, a, c, d: D(T).kl_divergence(D(T).Exponential(a), D(T).Normal(c, d))),
    _case(("Pareto", "Exponential"), ["positive", "positive"], ["positive"],
          lambda T, F, s, a, r: D(T).kl_divergence(D(T).Pareto(s, a + 1),
                                                   D(T).Exponential(r))),
    _case(("Pareto", "Normal"), ["positive", "positive"], ["normal", "positive"],
          lambda T, F, s, a, c, d: D(T).kl_divergence(D(T).Pareto(s, a + 2),
                                                      D(T).Normal(c, d))),
    _case(("Uniform", "Exponential"), ["positive", "positive"], ["positive"],
          lambda T, F, lo, w, r: D(T).kl_divergence(_uniform_over(T, lo, w),
                                                    D(T).Exponential(r))),
    _case(("Uniform", "Gumbel"), ["normal", "positive"], ["normal", "positive"],
          lambda T, F, lo, w, c, d: D(T).kl_divergence(_uniform_over(T, lo, w),
                                                       D(T).Gumbel(c, d))),
    _case(("Uniform", "Normal"), ["normal", "positive"], ["normal", "positive"],
          lambda T, F, lo, w, c, d: D(T).kl_divergence(_uniform_over(T, lo, w),
                                                       D(T).Normal(c, d))),
    # the uniform starts above the Pareto's scale (at most 2): its low is 2 + lo
    _case(("Uniform", "Pareto"), ["positive", "positive"], ["positive", "positive"],
          lambda T, F, lo, w, s, a: D(T).kl_divergence(_uniform_over(T, lo + 2, w),
                                                       D(T).Pareto(s, a))),
]

# PyTorch writes the infinite entries in place (IndexPutBackward0); we use masked_fill
test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(
    CASES, name_differs=("kl_pareto_exponential", "kl_pareto_normal",
                         "kl_uniform_exponential", "kl_uniform_pareto"))
