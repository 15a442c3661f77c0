"""The distributions' API beside the numbers: shapes, reprs, PyTorch's validation errors
(type and exact text, compared with PyTorch's own), meta, expand, enumerate_support and
the KL registry."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import distributions as dist
from tests.distributions.helpers import errors_of_both


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference; install the "
                                               "test extra")


def _both(build):
    """``build(T)`` with ``T`` minitorch_meta, then torch."""
    return build(mt), build(_torch())


REPRS = [
    lambda T: T.distributions.Normal(0.0, 1.0),
    lambda T: T.distributions.Normal(T.zeros(2), 1.0),
    lambda T: T.distributions.Uniform(0.0, 1.0),
    lambda T: T.distributions.Exponential(2.0),
    lambda T: T.distributions.Laplace(T.zeros(2, 3), 1.0),
    lambda T: T.distributions.Bernoulli(probs=0.3),
    lambda T: T.distributions.Bernoulli(logits=T.zeros(2)),
    lambda T: T.distributions.Categorical(probs=T.tensor([0.2, 0.8])),
    lambda T: T.distributions.OneHotCategorical(T.tensor([0.2, 0.8])),
    lambda T: T.distributions.Independent(T.distributions.Normal(T.zeros(3, 2), 1.0), 1),
]


@pytest.mark.parametrize("build", REPRS)
def test_repr_shapes_support_and_constraints_are_torchs(build):
    ours, theirs = _both(build)
    assert repr(ours) == repr(theirs)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert isinstance(ours.batch_shape, mt.Size)
    assert repr(ours.support) == repr(theirs.support)
    assert ours.has_rsample == theirs.has_rsample
    assert ours.has_enumerate_support == theirs.has_enumerate_support
    assert {k: repr(v) for k, v in ours.arg_constraints.items()} == \
        {k: repr(v) for k, v in theirs.arg_constraints.items()}


ERRORS = [
    lambda T: T.distributions.Normal(0.0, -1.0),
    lambda T: T.distributions.Normal(T.zeros(2), T.tensor([-1.0, 1.0])),
    lambda T: T.distributions.Normal(0.0, float("nan")),
    lambda T: T.distributions.Normal(float("nan"), 1.0),
    lambda T: T.distributions.Normal(0.0, 1.0).log_prob(1.0),
    lambda T: T.distributions.Normal(T.zeros(2), 1.0).log_prob(T.zeros(3)),
    lambda T: T.distributions.Uniform(0.0, 1.0).log_prob(T.tensor(2.0)),
    lambda T: T.distributions.Uniform(1.0, 0.0),
    lambda T: T.distributions.Uniform(T.zeros(2), T.tensor([1.0, -1.0])),
    lambda T: T.distributions.Exponential(0.0),
    lambda T: T.distributions.Exponential(1.0).log_prob(T.tensor([-1.0, 1.0])),
    lambda T: T.distributions.Laplace(0.0, 0.0),
    lambda T: T.distributions.Bernoulli(0.3, 0.2),
    lambda T: T.distributions.Bernoulli(),
    lambda T: T.distributions.Bernoulli(T.tensor(1.5)),
    lambda T: T.distributions.Bernoulli(0.5).log_prob(T.tensor(0.5)),
    lambda T: T.distributions.Categorical(T.tensor([0.2, -1.0])),
    lambda T: T.distributions.Categorical(T.tensor(0.2)),
    lambda T: T.distributions.Categorical(logits=T.tensor(0.2)),
    lambda T: T.distributions.Categorical(logits=T.tensor([0.0, float("nan")])),
    lambda T: T.distributions.Categorical(T.ones(3)).log_prob(T.tensor(3)),
    lambda T: T.distributions.Categorical(T.ones(3)).log_prob(T.tensor(-1)),
    lambda T: T.distributions.Categorical(T.ones(2, 3)).log_prob(T.zeros(3)),
    lambda T: T.distributions.OneHotCategorical(T.ones(3)).log_prob(T.tensor([1.0, 1, 0])),
    lambda T: T.distributions.OneHotCategorical(T.ones(3)).log_prob(T.tensor([1.0, 0])),
    lambda T: T.distributions.Independent(T.distributions.Normal(T.zeros(3), 1.0), 2),
    lambda T: T.distributions.Independent(T.distributions.Normal(T.zeros(3), 1.0), 1)
    .log_prob(T.zeros(2)),
    lambda T: T.distributions.Bernoulli(0.5).rsample(),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_torchs_type_and_text(call):
    theirs, ours = errors_of_both(call)
    if isinstance(theirs, NotImplementedError):
        return  # PyTorch's NotImplementedError has no text
    assert str(ours) == str(theirs)


def test_a_parameter_of_another_type_is_refused_with_what_arrived():
    with pytest.raises(ValueError, match="must all be instances of Number or Tensor, but got "
                                         "str"):
        dist.Normal("a", 1.0)
    with pytest.raises(TypeError, match=r"Categorical expects `probs` to be a Tensor of shape "
                                        r"\(\.\.\., categories\), got float"):
        dist.Categorical(0.5)


def test_parameters_that_do_not_broadcast_raise_a_shape_error():
    with pytest.raises(mt.ShapeError, match=r"shapes \(2,\) and \(3,\) cannot be broadcast"):
        dist.Normal(mt.zeros(2), mt.ones(3))


def test_validate_args_false_and_the_class_default():
    d = dist.Normal(0.0, -1.0, validate_args=False)
    assert np.isnan(d.log_prob(mt.tensor(0.0)).item())
    dist.Uniform(0.0, 1.0, validate_args=False).log_prob(mt.tensor(2.0))  # -inf, no error
    dist.Distribution.set_default_validate_args(False)
    try:
        dist.Exponential(-1.0)
    finally:
        dist.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        dist.Exponential(-1.0)
    with pytest.raises(ValueError, match="set_default_validate_args expects True or False"):
        dist.Distribution.set_default_validate_args("yes")


def test_on_meta_values_are_not_checked_but_shapes_are():
    meta = mt.empty(4, 3, device="meta")
    d = dist.Categorical(logits=meta)
    assert d.log_prob(mt.empty(4, dtype=mt.int64, device="meta")).shape == (4,)
    with pytest.raises(ValueError, match="Value is not broadcastable with "
                                         r"batch_shape\+event_shape"):
        d.log_prob(mt.empty(5, dtype=mt.int64, device="meta"))
    assert dist.Normal(meta, meta).entropy().is_meta
    kl = dist.kl_divergence(dist.Normal(meta, meta), dist.Normal(meta, meta))
    assert kl.is_meta and kl.shape == (4, 3)


def test_mixed_parameter_dtypes_and_numbers_take_the_tensors_dtype():
    d = dist.Normal(mt.zeros(2, dtype=mt.float64), 1.0)
    assert d.scale.dtype is mt.float64 and d.loc.dtype is mt.float64
    assert dist.Normal(0, 1).loc.dtype is mt.float32  # numbers: the default dtype
    assert dist.Normal(mt.zeros(3), mt.ones(2, 1)).batch_shape == (2, 3)


@pytest.mark.parametrize("build", [
    lambda T: T.distributions.Bernoulli(T.tensor([0.0, 0.5, 1.0, 0.7])).mode,
    lambda T: T.distributions.Bernoulli(logits=T.tensor([[-1.0, 2.0]])).probs,
    lambda T: T.distributions.Bernoulli(T.tensor([0.0, 1.0])).logits,
    lambda T: T.distributions.Categorical(T.tensor([[0.1, 0.7, 0.2]])).mode,
    lambda T: T.distributions.Categorical(T.tensor([[0.1, 0.7, 0.2]])).mean,
    lambda T: T.distributions.Categorical(T.tensor([0.0, 1.0])).logits,
    lambda T: T.distributions.Categorical(T.tensor([0.0, 1.0])).entropy(),
    lambda T: T.distributions.Categorical(logits=T.tensor([-float("inf"), 0.0])).entropy(),
    lambda T: T.distributions.OneHotCategorical(T.tensor([[0.1, 0.7, 0.2]])).mode,
    lambda T: T.distributions.Uniform(0.0, 2.0).mode,
    lambda T: T.distributions.Exponential(T.tensor([2.0])).mode,
    lambda T: T.distributions.Normal(0.0, 3.0).perplexity(),
    lambda T: T.distributions.Bernoulli(T.tensor([0.2, 0.4])).enumerate_support(),
    lambda T: T.distributions.Bernoulli(T.tensor([0.2, 0.4])).enumerate_support(False),
    lambda T: T.distributions.Categorical(T.ones(2, 3)).enumerate_support(),
    lambda T: T.distributions.OneHotCategorical(T.ones(2, 3)).enumerate_support(),
    lambda T: T.distributions.OneHotCategorical(T.ones(3)).enumerate_support(False),
    lambda T: T.distributions.Normal(T.zeros(2), 1.0).expand((3, 2)).sample().shape,
    lambda T: T.distributions.Categorical(T.ones(2, 3)).expand((4, 2)).probs,
    lambda T: T.distributions.OneHotCategorical(T.ones(2, 3)).expand((4, 2)).sample().shape,
    lambda T: T.distributions.Independent(T.distributions.Normal(T.zeros(3, 2), 1.0), 1)
    .expand((5, 3)).log_prob(T.zeros(2)),
    lambda T: T.distributions.Bernoulli(T.tensor([0.3])).expand((2, 1)).log_prob(T.ones(2, 1)),
])
def test_values_without_gradients_match_torch(build):
    ours, theirs = _both(build)
    if isinstance(theirs, tuple):  # a shape
        assert tuple(ours) == tuple(theirs)
        return
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_expand_keeps_the_graph_and_the_validation_flag():
    loc = mt.zeros(2, requires_grad=True)
    d = dist.Normal(loc, 1.0, validate_args=False).expand((3, 2))
    assert repr(d) == "Normal(loc: torch.Size([3, 2]), scale: torch.Size([3, 2]))"
    assert d.batch_shape == (3, 2) and not d._validate_args
    d.log_prob(mt.zeros(3, 2)).sum().backward()
    assert loc.grad.shape == (2,)
    with pytest.raises(ValueError, match="must match the existing size"):
        dist.Normal(mt.zeros(2), 1.0).expand((3,))


def test_lazy_parameters_are_computed_once_and_stay_in_the_graph():
    logits = mt.zeros(3, requires_grad=True)
    d = dist.Bernoulli(logits=logits)
    assert "probs" not in d.__dict__
    with mt.no_grad():
        probs = d.probs
    assert d.probs is probs and probs.requires_grad  # computed with grad enabled
    assert d.param_shape == (3,)


# -- the KL registry -------------------------------------------------------------------

class _MyNormal(dist.Normal):
    pass


def test_kl_dispatch_takes_subclasses_and_the_closest_registered_pair():
    p, q = _MyNormal(0.0, 1.0), dist.Normal(1.0, 1.0)
    assert dist.kl_divergence(p, q).item() == pytest.approx(0.5)

    @dist.register_kl(_MyNormal, dist.Normal)
    def _mine(p, q):
        return mt.tensor(-1.0)

    try:
        assert dist.kl_divergence(p, q).item() == -1.0
        assert dist.kl_divergence(q, q).item() == 0.0  # the plain pair is untouched
    finally:
        del dist.kl._KL_REGISTRY[_MyNormal, dist.Normal]


def test_kl_ambiguous_pairs_warn():
    @dist.register_kl(_MyNormal, dist.Distribution)
    def _left(p, q):
        return mt.tensor(1.0)

    @dist.register_kl(dist.Distribution, _MyNormal)
    def _right(p, q):
        return mt.tensor(2.0)

    try:
        with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(_MyNormal, "
                                                r"_MyNormal\)"):
            dist.kl_divergence(_MyNormal(0.0, 1.0), _MyNormal(0.0, 1.0))
    finally:
        del dist.kl._KL_REGISTRY[_MyNormal, dist.Distribution]
        del dist.kl._KL_REGISTRY[dist.Distribution, _MyNormal]


def test_kl_errors():
    torch = _torch()
    with pytest.raises(NotImplementedError) as theirs:
        torch.distributions.kl_divergence(torch.distributions.Laplace(0.0, 1.0),
                                          torch.distributions.Bernoulli(0.5))
    with pytest.raises(NotImplementedError) as ours:
        dist.kl_divergence(dist.Laplace(0.0, 1.0), dist.Bernoulli(0.5))
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass but "
                                        "got <class 'int'>"):
        dist.register_kl(int, dist.Normal)
    with pytest.raises(NotImplementedError, match="reinterpreting 1 and 0 batch dims"):
        dist.kl_divergence(dist.Independent(dist.Normal(mt.zeros(2), 1.0), 1),
                           dist.Independent(dist.Normal(mt.zeros(2), 1.0), 0))


def test_kl_infinite_where_q_cannot_reach_p():
    ours, theirs = _both(lambda T: T.distributions.kl_divergence(
        T.distributions.Categorical(T.tensor([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])),
        T.distributions.Categorical(T.tensor([[0.5, 0.0, 0.5], [0.0, 0.5, 0.5]]))))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    ours, theirs = _both(lambda T: T.distributions.kl_divergence(
        T.distributions.Bernoulli(T.tensor([0.0, 1.0, 0.5, 0.3])),
        T.distributions.Bernoulli(T.tensor([0.5, 0.5, 1.0, 0.0]))))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    ours, theirs = _both(lambda T: T.distributions.kl_divergence(
        T.distributions.Uniform(0.0, 2.0), T.distributions.Uniform(0.5, 3.0)))
    assert ours.item() == theirs.item() == float("inf")


# PyTorch writes these pairs' infinite entries in place with a mask of one side's shape;
# each builder takes (T, p's parameter, q's parameter), entries in [0, 1] mapped to valid
# parameters, some on the infinite side
_IN_PLACE_MASKED_KL = {
    "bernoulli_bernoulli": lambda T, a, b: (T.distributions.Bernoulli(a),
                                            T.distributions.Bernoulli(b)),
    "beta_uniform": lambda T, a, b: (T.distributions.Beta(a + 0.5, 2.0),
                                     T.distributions.Uniform(b - 0.5, 1.0)),
    "uniform_beta": lambda T, a, b: (T.distributions.Uniform(a - 0.5, 0.9),
                                     T.distributions.Beta(b + 0.5, 2.0)),
    "uniform_gamma": lambda T, a, b: (T.distributions.Uniform(a - 0.5, 2.0),
                                      T.distributions.Gamma(b + 0.5, 1.0)),
    "uniform_exponential": lambda T, a, b: (T.distributions.Uniform(a - 0.5, 2.0),
                                            T.distributions.Exponential(b + 0.5)),
    "pareto_gamma": lambda T, a, b: (T.distributions.Pareto(1.0, 2 * a + 0.5),
                                     T.distributions.Gamma(b + 0.5, 1.0)),
    "pareto_exponential": lambda T, a, b: (T.distributions.Pareto(1.0, 2 * a + 0.5),
                                           T.distributions.Exponential(b + 0.5)),
    "pareto_normal": lambda T, a, b: (T.distributions.Pareto(1.0, 3 * a + 0.5),
                                      T.distributions.Normal(b, 1.0)),
}


@pytest.mark.parametrize("wider", ["p", "q"])
@pytest.mark.parametrize("name", sorted(_IN_PLACE_MASKED_KL))
def test_kl_broadcasts_where_torchs_in_place_mask_refuses(name, wider):
    """Our KLs broadcast p's and q's batch shapes either way; PyTorch's in-place masks
    raise IndexError when the side the mask is not of is the wider, so the reference is
    PyTorch's on parameters expanded to the broadcast shape first."""
    torch = _torch()
    rows = np.array([[0.0, 0.3, 0.6, 1.0], [0.1, 0.0, 1.0, 0.9], [1.0, 0.55, 0.0, 0.95]])
    a, b = (rows, rows[1]) if wider == "p" else (rows[0], rows)
    ours = dist.kl_divergence(*_IN_PLACE_MASKED_KL[name](mt, mt.tensor(a), mt.tensor(b)))
    theirs = torch.distributions.kl_divergence(*_IN_PLACE_MASKED_KL[name](
        torch, torch.tensor(a).expand(3, 4), torch.tensor(b).expand(3, 4)))
    assert tuple(ours.shape) == (3, 4)
    assert np.isinf(theirs.numpy()).any() and np.isfinite(theirs.numpy()).any()
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)


def test_the_package_is_reachable_as_torch_distributions():
    import minitorch_meta.distributions as imported

    assert mt.distributions is imported
    assert imported.constraints.positive.check(mt.tensor([1.0, -1.0])).tolist() == [True, False]
