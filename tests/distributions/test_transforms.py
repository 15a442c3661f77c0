"""Transforms, TransformedDistribution and biject_to/transform_to, three ways (float64
gradcheck, float32 values and gradients against PyTorch, meta shapes), and their API:
caching, inverses, equality, shapes, reprs and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.distributions import constraints, transforms
from tests.distributions.helpers import errors_of_both
from tests.ops.harness import Arg, Case, three_way_tests

S = (3, 4)


def Tr(T):  # noqa: N802 - the library's transforms module, minitorch_meta's or torch's
    return T.distributions.transforms


def D(T):  # noqa: N802
    return T.distributions


def _forward(make):
    """``t(x) + log|det J|(x, t(x))``: values and both gradients in one output."""
    def fn(T, F, x, *params):
        t = make(T, *params)
        y = t(x)
        return y + t.log_abs_det_jacobian(x, y)
    return fn


def _inverse(make):
    """``t.inv(y) + log|det J^-1|(y, t.inv(y))``, through the inverse transform."""
    def fn(T, F, y, *params):
        inv = make(T, *params).inv
        x = inv(y)
        return x + inv.log_abs_det_jacobian(y, x)
    return fn


def _in_open_unit(T, F, u):
    return 0.05 + 0.9 * u


CASES = [
    Case("exp", _forward(lambda T: Tr(T).ExpTransform()), [Arg(S)]),
    Case("exp_inverse", _inverse(lambda T: Tr(T).ExpTransform()), [Arg(S, "positive")]),
    Case("affine_numbers", _forward(lambda T: Tr(T).AffineTransform(1.5, -2.0)), [Arg(S)]),
    Case("affine_numbers_inverse", _inverse(lambda T: Tr(T).AffineTransform(1.5, -2.0)),
         [Arg(S)]),
    Case("affine_tensors", _forward(lambda T, m, s: Tr(T).AffineTransform(m, s)),
         [Arg(S), Arg((4,)), Arg((4,), "away0")]),
    Case("affine_tensors_inverse", _inverse(lambda T, m, s: Tr(T).AffineTransform(m, s)),
         [Arg(S), Arg((4,)), Arg((4,), "away0")]),
    Case("affine_event_dim", lambda T, F, x, m, s: Tr(T).AffineTransform(m, s, event_dim=1)
         .log_abs_det_jacobian(x, x) + Tr(T).AffineTransform(m, s, event_dim=1)(x).sum(-1),
         [Arg(S), Arg((4,)), Arg((4,), "away0")]),
    Case("sigmoid", _forward(lambda T: Tr(T).SigmoidTransform()), [Arg(S)]),
    Case("sigmoid_inverse", lambda T, F, u: _inverse(lambda T: Tr(T).SigmoidTransform())(
        T, F, _in_open_unit(T, F, u)), [Arg(S, "prob")]),
    Case("tanh", _forward(lambda T: Tr(T).TanhTransform()), [Arg(S)]),
    Case("tanh_inverse", lambda T, F, u: _inverse(lambda T: Tr(T).TanhTransform())(
        T, F, 2 * _in_open_unit(T, F, u) - 1), [Arg(S, "prob")]),
    Case("abs", lambda T, F, x: Tr(T).AbsTransform()(x) + Tr(T).AbsTransform().inv(x),
         [Arg(S, "away0")]),
    Case("power", _forward(lambda T, e: Tr(T).PowerTransform(e)),
         [Arg(S, "positive"), Arg((4,))]),
    Case("power_inverse", _inverse(lambda T, e: Tr(T).PowerTransform(e)),
         [Arg(S, "positive"), Arg((4,), "away0")]),
    Case("softmax", lambda T, F, x: Tr(T).SoftmaxTransform()(x), [Arg(S)]),
    Case("softmax_inverse", lambda T, F, p: Tr(T).SoftmaxTransform().inv(p), [Arg(S, "prob")]),
    Case("stick_breaking", lambda T, F, x: Tr(T).StickBreakingTransform()(x).sum(-1) * 0
         + Tr(T).StickBreakingTransform()(x)[..., 1] + Tr(T).StickBreakingTransform()
         .log_abs_det_jacobian(x, Tr(T).StickBreakingTransform()(x)), [Arg(S)]),
    Case("stick_breaking_values", lambda T, F, x: Tr(T).StickBreakingTransform()(x),
         [Arg((2, 3, 4))]),
    Case("stick_breaking_inverse", lambda T, F, p: Tr(T).StickBreakingTransform().inv(p),
         [Arg(S, "prob")]),
    Case("stick_breaking_inverse_jacobian", lambda T, F, p: Tr(T).StickBreakingTransform().inv
         .log_abs_det_jacobian(p, Tr(T).StickBreakingTransform().inv(p)), [Arg(S, "prob")]),
    Case("compose", _forward(lambda T, m, s: Tr(T).ComposeTransform(
        [Tr(T).ExpTransform(), Tr(T).AffineTransform(m, s)])),
        [Arg(S), Arg(S), Arg(S, "positive")]),
    Case("compose_inverse", _inverse(lambda T, m, s: Tr(T).ComposeTransform(
        [Tr(T).AffineTransform(m, s), Tr(T).ExpTransform()])),
        [Arg(S, "positive"), Arg(S), Arg(S, "positive")]),
    Case("compose_event_dims", lambda T, F, x: Tr(T).ComposeTransform(
        [Tr(T).ExpTransform(), Tr(T).StickBreakingTransform()]).log_abs_det_jacobian(
        x, Tr(T).ComposeTransform([Tr(T).ExpTransform(), Tr(T).StickBreakingTransform()])(x)),
        [Arg((2, 3, 4))]),
    Case("identity", lambda T, F, x: Tr(T).identity_transform(x) * 2
         + Tr(T).identity_transform.log_abs_det_jacobian(x, x), [Arg(S)]),
    Case("independent", lambda T, F, x: Tr(T).IndependentTransform(Tr(T).ExpTransform(), 2)
         .log_abs_det_jacobian(x, x.exp()), [Arg((2, 3, 4))]),
    Case("independent_inverse", lambda T, F, y: Tr(T).IndependentTransform(
        Tr(T).ExpTransform(), 1).inv(y), [Arg(S, "positive")]),
    Case("reshape", lambda T, F, x: Tr(T).ReshapeTransform((3, 4), (2, 6))(x) * 2,
         [Arg((5, 3, 4))]),
    Case("reshape_inverse", lambda T, F, y: Tr(T).ReshapeTransform((3, 4), (12,)).inv(y) * 2,
         [Arg((5, 12))]),
    Case("biject_to_positive", _forward(lambda T: D(T).biject_to(D(T).constraints.positive)),
         [Arg(S)]),
    Case("biject_to_greater_than", _forward(
        lambda T: D(T).biject_to(D(T).constraints.greater_than(3.0))), [Arg(S)]),
    Case("biject_to_less_than", _forward(
        lambda T: D(T).biject_to(D(T).constraints.less_than(-1.0))), [Arg(S)]),
    Case("biject_to_interval", _forward(
        lambda T: D(T).biject_to(D(T).constraints.interval(-2.0, 5.0))), [Arg(S)]),
    Case("biject_to_unit_interval", _forward(
        lambda T: D(T).biject_to(D(T).constraints.unit_interval)), [Arg(S)]),
    Case("biject_to_simplex", lambda T, F, x: D(T).biject_to(D(T).constraints.simplex)(x),
         [Arg(S)]),
    Case("transform_to_simplex", lambda T, F, x: D(T).transform_to(D(T).constraints.simplex)(x),
         [Arg(S)]),
    Case("biject_to_independent_positive", lambda T, F, x: D(T).biject_to(
        D(T).constraints.independent(D(T).constraints.positive, 1)).log_abs_det_jacobian(
        x, x.exp()), [Arg(S)]),
    # TransformedDistribution
    Case("transformed_log_prob", lambda T, F, m, s, y: D(T).TransformedDistribution(
        D(T).Normal(m, s), [Tr(T).AffineTransform(1.0, 2.0), Tr(T).ExpTransform()])
        .log_prob(y), [Arg(S), Arg(S, "positive"), Arg(S, "positive")]),
    Case("transformed_cdf_icdf", lambda T, F, m, s, y, u: D(T).TransformedDistribution(
        D(T).Normal(m, s), [Tr(T).AffineTransform(1.0, -2.0), Tr(T).ExpTransform()])
        .cdf(y) + D(T).TransformedDistribution(D(T).Normal(m, s), [Tr(T).ExpTransform()])
        .icdf(_in_open_unit(T, None, u)),
        [Arg(S), Arg(S, "positive"), Arg(S, "positive"), Arg(S, "prob")]),
    Case("transformed_simplex_log_prob", lambda T, F, m, s, x: D(T).TransformedDistribution(
        D(T).Normal(m, s), Tr(T).StickBreakingTransform())
        .log_prob(Tr(T).StickBreakingTransform()(x)), [Arg(S), Arg(S, "positive"), Arg(S)]),
    Case("transformed_broadcast_affine", lambda T, F, m, s, y: D(T).TransformedDistribution(
        D(T).Normal(m, 1.0), Tr(T).AffineTransform(0.0, s)).log_prob(y),
        [Arg(()), Arg((4,), "positive"), Arg(S)]),
    Case("transformed_no_transforms", lambda T, F, m, y: D(T).TransformedDistribution(
        D(T).Normal(m, 1.0), []).log_prob(y), [Arg(S), Arg(S)]),
]

test_gradcheck, test_against_torch, test_meta_shapes = three_way_tests(CASES)


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the test reference")


def _both(build):
    return build(mt), build(_torch())


REPRS = [
    lambda T: Tr(T).ExpTransform(),
    lambda T: Tr(T).ExpTransform().inv,
    lambda T: Tr(T).AffineTransform(1.0, 2.0),
    lambda T: Tr(T).ComposeTransform([Tr(T).ExpTransform(), Tr(T).SigmoidTransform()]),
    lambda T: Tr(T).identity_transform,
    lambda T: Tr(T).IndependentTransform(Tr(T).TanhTransform(), 2),
    lambda T: Tr(T).ReshapeTransform((2, 3), (6,)),
    lambda T: Tr(T).PowerTransform(2.0),
    lambda T: D(T).biject_to(D(T).constraints.greater_than(1.0)),
    lambda T: D(T).biject_to(D(T).constraints.real_vector),
    lambda T: D(T).biject_to(D(T).constraints.simplex),
    lambda T: D(T).transform_to(D(T).constraints.interval(0.0, 2.0)),
]


@pytest.mark.parametrize("build", REPRS)
def test_transform_reprs_domains_and_flags_are_torchs(build):
    ours, theirs = _both(build)
    assert repr(ours) == repr(theirs)
    assert repr(ours.domain) == repr(theirs.domain)
    assert repr(ours.codomain) == repr(theirs.codomain)
    assert ours.bijective == theirs.bijective
    assert ours.inv.bijective == theirs.inv.bijective


@pytest.mark.parametrize("build", [
    lambda T: Tr(T).ExpTransform().sign, lambda T: Tr(T).ExpTransform().inv.sign,
    lambda T: Tr(T).AffineTransform(0.0, -3.0).sign,
    lambda T: Tr(T).AffineTransform(0.0, 0.0).sign,
    lambda T: Tr(T).ComposeTransform([Tr(T).TanhTransform(), Tr(T).AffineTransform(1, -1)]).sign,
    lambda T: Tr(T).AffineTransform(0.0, 2.0, event_dim=2).event_dim,
    lambda T: Tr(T).ComposeTransform([Tr(T).ExpTransform(), Tr(T).StickBreakingTransform()])
    .domain.event_dim,
    lambda T: Tr(T).ComposeTransform([Tr(T).StickBreakingTransform(), Tr(T).ExpTransform()])
    .codomain.event_dim,
    lambda T: tuple(Tr(T).StickBreakingTransform().forward_shape((2, 3))),
    lambda T: tuple(Tr(T).StickBreakingTransform().inv.forward_shape((2, 3))),
    lambda T: tuple(Tr(T).ReshapeTransform((2, 3), (6,)).forward_shape((5, 2, 3))),
    lambda T: tuple(Tr(T).ReshapeTransform((2, 3), (6,)).inverse_shape((5, 6))),
    lambda T: tuple(Tr(T).AffineTransform(T.zeros(3), 1.0).forward_shape((2, 1))),
    lambda T: tuple(Tr(T).PowerTransform(T.ones(3)).inverse_shape((2, 1))),
    lambda T: Tr(T).ExpTransform() == Tr(T).ExpTransform(),
    lambda T: Tr(T).ExpTransform() == Tr(T).SigmoidTransform(),
    lambda T: Tr(T).ExpTransform().inv == Tr(T).ExpTransform().inv,
    lambda T: Tr(T).AffineTransform(1.0, 2.0) == Tr(T).AffineTransform(1.0, 2.0),
    lambda T: Tr(T).AffineTransform(T.ones(2), 2.0) == Tr(T).AffineTransform(T.ones(2), 3.0),
    lambda T: Tr(T).PowerTransform(2.0) != Tr(T).PowerTransform(3.0),
    lambda T: Tr(T).ComposeTransform([Tr(T).ExpTransform()])
    == Tr(T).ComposeTransform([Tr(T).ExpTransform()]),
    lambda T: Tr(T).ReshapeTransform((2,), (2,)) == Tr(T).ReshapeTransform((2,), (2,)),
])
def test_signs_event_dims_shapes_and_equality_are_torchs(build):
    ours, theirs = _both(build)
    if hasattr(theirs, "numpy"):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    else:
        assert ours == theirs


def test_the_inverse_is_kept_while_held_and_inverts_back():
    t = transforms.ExpTransform()
    assert t.inv is t.inv and t.inv.inv is t
    compose = transforms.ComposeTransform([t, transforms.AffineTransform(0.0, 2.0)])
    assert compose.inv.inv is compose
    assert isinstance(compose.inv, transforms.ComposeTransform)
    assert transforms.ExpTransform().inv.with_cache(1).inv._cache_size == 1


def test_a_cache_of_one_returns_the_same_tensors():
    x = mt.randn(3)
    cached = transforms.ExpTransform(cache_size=1)
    y = cached(x)
    assert cached(x) is y and cached.inv(y) is x
    plain = transforms.ExpTransform()
    assert plain(x) is not plain(x)
    assert plain.with_cache() is not plain and plain.with_cache(0) is plain
    compose = transforms.ComposeTransform([transforms.ExpTransform(),
                                           transforms.AffineTransform(1.0, 2.0)], cache_size=1)
    assert all(part._cache_size == 1 for part in compose.parts)
    z = compose(x)
    assert compose.inv(z) is x
    assert transforms.IndependentTransform(plain, 1).with_cache(1).base_transform._cache_size == 1
    with pytest.raises(NotImplementedError, match="with_cache is not implemented"):
        _Custom().with_cache(1)


class _Custom(transforms.Transform):
    def __init__(self, scale=2.0):
        super().__init__()
        self.scale = scale


def test_a_transform_is_unhashable_as_torchs():
    with pytest.raises(TypeError, match="unhashable"):
        hash(transforms.ExpTransform())


ERRORS = [
    lambda T: Tr(T).ExpTransform(cache_size=2),
    lambda T: Tr(T).ReshapeTransform((2, 3), (5,)),
    lambda T: Tr(T).ReshapeTransform((2, 3), (6,)).forward_shape((3,)),
    lambda T: Tr(T).ReshapeTransform((2, 3), (6,)).forward_shape((2, 4)),
    lambda T: Tr(T).ReshapeTransform((2, 3), (6,)).inverse_shape((5, 7)),
    lambda T: Tr(T).SoftmaxTransform().forward_shape(()),
    lambda T: Tr(T).StickBreakingTransform().inverse_shape(()),
    lambda T: Tr(T).ReshapeTransform((2, 3), (6,)).event_dim,
    lambda T: Tr(T).IndependentTransform(Tr(T).ExpTransform(), 1)(T.tensor(1.0)),
    lambda T: Tr(T).IndependentTransform(Tr(T).ExpTransform(), 2).inv(T.ones(3)),
    lambda T: Tr(T).AbsTransform().sign,
    lambda T: Tr(T).AbsTransform().log_abs_det_jacobian(T.ones(2), T.ones(2)),
    lambda T: Tr(T).SoftmaxTransform().log_abs_det_jacobian(T.ones(2), T.ones(2)),
    lambda T: D(T).biject_to(D(T).constraints.boolean),
    lambda T: D(T).transform_to(D(T).constraints.integer_interval(0, 3)),
    lambda T: D(T).biject_to(D(T).constraints.nonnegative_integer),
    lambda T: D(T).biject_to.register(int, lambda c: None),
    lambda T: D(T).TransformedDistribution(D(T).Normal(0.0, 1.0), "exp"),
    lambda T: D(T).TransformedDistribution(D(T).Normal(0.0, 1.0), [1]),
    lambda T: D(T).TransformedDistribution(D(T).Normal(0.0, 1.0),
                                           Tr(T).StickBreakingTransform()),
    lambda T: D(T).TransformedDistribution(D(T).Normal(0.0, 1.0), Tr(T).ExpTransform())
    .log_prob(T.tensor(-1.0)),
    lambda T: D(T).TransformedDistribution(D(T).Normal(0.0, 1.0), Tr(T).ExpTransform())
    .cdf(T.tensor(1.0)).log_prob(1.0),
    lambda T: D(T).TransformedDistribution(D(T).Uniform(0.0, 1.0), Tr(T).ExpTransform())
    .cdf(T.tensor(3.0)),
    lambda T: D(T).kl_divergence(
        D(T).TransformedDistribution(D(T).Normal(0.0, 1.0), Tr(T).ExpTransform()),
        D(T).TransformedDistribution(D(T).Normal(0.0, 1.0), Tr(T).SigmoidTransform())),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_are_torchs_type_and_text(call):
    theirs, ours = errors_of_both(call)
    if isinstance(theirs, NotImplementedError) and not str(theirs):
        return  # PyTorch's bare NotImplementedError has no text
    assert str(ours) == str(theirs)


def test_register_adds_a_factory_for_a_new_constraint_class():
    registry = type(mt.distributions.biject_to)()

    class _Odd(constraints.Constraint):
        pass

    @registry.register(_Odd)
    def _factory(constraint):
        return transforms.ExpTransform()

    assert isinstance(registry(_Odd()), transforms.ExpTransform)
    registry.register(constraints.positive, lambda c: transforms.identity_transform)
    assert registry(constraints.positive) is transforms.identity_transform


@pytest.mark.parametrize("build", [
    lambda T: D(T).TransformedDistribution(D(T).Normal(T.zeros(3, 4), 1.0),
                                           Tr(T).StickBreakingTransform()),
    lambda T: D(T).TransformedDistribution(D(T).Normal(0.0, 1.0),
                                           Tr(T).AffineTransform(0.0, T.ones(2, 3))),
    lambda T: D(T).TransformedDistribution(D(T).Normal(T.zeros(6), 1.0),
                                           Tr(T).ReshapeTransform((6,), (2, 3))),
    lambda T: D(T).TransformedDistribution(D(T).Normal(T.zeros(4, 3), 1.0),
                                           [Tr(T).ExpTransform(), Tr(T).SoftmaxTransform()]),
    lambda T: D(T).TransformedDistribution(D(T).Normal(T.zeros(3), 1.0), []),
])
def test_transformed_shapes_support_and_repr_are_torchs(build):
    ours, theirs = _both(build)
    assert repr(ours) == repr(theirs)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert tuple(ours.base_dist.batch_shape) == tuple(theirs.base_dist.batch_shape)
    assert tuple(ours.base_dist.event_shape) == tuple(theirs.base_dist.event_shape)
    assert repr(ours.support) == repr(theirs.support)
    assert ours.has_rsample == theirs.has_rsample
    assert tuple(ours.sample((2,)).shape) == tuple(theirs.sample((2,)).shape)
    expanded_ours = ours.expand((5,) + tuple(ours.batch_shape))
    expanded_theirs = theirs.expand((5,) + tuple(theirs.batch_shape))
    assert tuple(expanded_ours.batch_shape) == tuple(expanded_theirs.batch_shape)
    assert tuple(expanded_ours.base_dist.batch_shape) == \
        tuple(expanded_theirs.base_dist.batch_shape)
    assert tuple(expanded_ours.sample().shape) == tuple(expanded_theirs.sample().shape)


def test_transformed_samples_are_the_transformed_base_samples(device):
    loc = mt.zeros(3, device=device, requires_grad=True)
    d = mt.distributions.TransformedDistribution(
        mt.distributions.Normal(loc, 1.0), [transforms.AffineTransform(2.0, 3.0),
                                            transforms.ExpTransform()])
    mt.manual_seed(3)
    x = d.rsample((4,))
    mt.manual_seed(3)
    base = mt.distributions.Normal(loc, 1.0).rsample((4,))
    np.testing.assert_allclose(x.detach().cpu().numpy(), (2 + 3 * base).exp().detach().cpu()
                               .numpy(), rtol=1e-6)
    assert x.grad_fn is not None and d.sample().grad_fn is None
    assert x.device == base.device


def test_transforms_run_on_meta():
    x = mt.empty(2, 3, device="meta")
    for t in (transforms.ExpTransform(), transforms.StickBreakingTransform(),
              transforms.SoftmaxTransform(), transforms.TanhTransform()):
        y = t(x)
        assert y.is_meta and tuple(y.shape) == tuple(t.forward_shape(x.shape))
    d = mt.distributions.TransformedDistribution(mt.distributions.Normal(x, 1.0),
                                                 transforms.StickBreakingTransform())
    assert d.log_prob(mt.empty(2, 4, device="meta")).shape == (2,)
